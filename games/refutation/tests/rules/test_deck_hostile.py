"""Hostile deck files: every one is refused with one short line naming the problem, fast, never
with a traceback; files at the limits are accepted. (The Discord-side limits of what a card
renders to are tested in games/refutation/tests/test_deck_limits.py.)"""

from __future__ import annotations

import time
import unicodedata

import pytest

from bot.i18n import t
from games.refutation.rules import DeckError
from games.refutation.rules.deck import (
    CARD_NUMBER_MAX,
    CARDS_MAX,
    DECK_ID_MAX,
    DECK_MAX_BYTES,
    DOTS_PER_LINE_MAX,
    ECHO_MAX,
    FAMILIES_MAX,
    NAME_MAX,
    NESTING_MAX,
    RELEVANCE_MAX,
    SOURCE_MAX,
    TEXT_MAX,
    TITLE_MAX,
    parse_deck_bytes,
)
from games.refutation.rules.errors import DECK_ERRORS

from .helpers import VALID

TIME_CAP = 2.0  # seconds per file; the slowest case takes a few hundredths


def v(old: str, new: str) -> bytes:
    """VALID with ``old`` replaced (once), as UTF-8 bytes."""
    assert old in VALID, old
    return VALID.replace(old, new, 1).encode("utf-8")


def padded(total: int) -> bytes:
    """VALID followed by a comment, ``total`` bytes in all."""
    base = VALID.encode("utf-8") + b"\n#"
    return base + b"x" * (total - len(base))


def nest(depth: int, open_: str = "[", close: str = "]", inner: str = "1") -> str:
    return open_ * depth + inner + close * depth


def dotted(parts: int) -> str:
    return ".".join(["k"] * parts)


def many(header: str, count: int) -> bytes:
    """The deck table (and the families, unless ``header`` is theirs), then ``count`` empty
    tables ``header``."""
    cut = "[[families]]" if header == "[[families]]" else "[[cards]]"
    return (VALID[: VALID.index(cut)] + f"{header}\n" * count).encode()


SOURCE_3 = 'source = "http://example.org/3"'
URL_HEAD = "https://example.org/"

# (id, file bytes, error name, expected params (a subset))
HOSTILE: list[tuple[str, bytes, str, dict[str, object]]] = [
    # -- size ------------------------------------------------------------------------------
    ("size_cap_plus_1", padded(DECK_MAX_BYTES + 1), "too_large", {"max": DECK_MAX_BYTES}),
    ("size_10x", b"#" * (10 * DECK_MAX_BYTES), "too_large", {"size": 10 * DECK_MAX_BYTES}),
    ("size_zero_bytes_x_300k", b"\0" * 300_000, "too_large", {}),
    # -- encoding ---------------------------------------------------------------------------
    ("latin1", v("Hiver froid", "Hiver froid é").replace("é".encode(), b"\xe9"), "not_utf8", {}),
    ("utf16_bom", VALID.encode("utf-16"), "not_utf8", {"offset": 0}),
    ("utf32", VALID.encode("utf-32-le"), "not_utf8", {}),
    ("lone_surrogate", b"[deck]\nid = '\xed\xa0\x80'\n", "not_utf8", {"offset": 13}),
    ("overlong_slash", b"[deck]\n\xc0\xaf = 1\n", "not_utf8", {"offset": 7}),
    ("truncated_multibyte", VALID.encode() + b"# \xe2\x82", "not_utf8", {}),
    ("binary_garbage", bytes(range(128, 256)) * 8, "not_utf8", {"offset": 0}),
    ("png_header", b"\x89PNG\r\n\x1a\n" + b"\0" * 64, "not_utf8", {"offset": 0}),
    ("nul_in_text", v("Cold winter", "Cold\0winter"), "syntax", {}),
    ("control_char", v("Cold winter", "Cold\x1bwinter"), "syntax", {}),
    ("utf8_bom_twice", b"\xef\xbb\xbf\xef\xbb\xbf" + VALID.encode(), "syntax", {}),
    # -- nesting ----------------------------------------------------------------------------
    (
        "arrays_nesting_max_plus_1",
        v("version = 2", "version = 2\nx = " + nest(NESTING_MAX + 1)),
        "too_deep",
        {"max": NESTING_MAX, "line": 4},
    ),
    (
        "inline_tables_nesting_max_plus_1",
        v("version = 2", "version = 2\nx = " + nest(NESTING_MAX + 1, "{a=", "}")),
        "too_deep",
        {"max": NESTING_MAX},
    ),
    ("arrays_100k_deep", ("x = " + nest(100_000)).encode(), "too_deep", {"line": 1}),
    ("inline_50k_deep", ("x = " + nest(50_000, "{a=", "}")).encode(), "too_deep", {}),
    ("mixed_deep", ("x = " + nest(5_000, "[{a=", "}]")).encode(), "too_deep", {}),
    ("unclosed_deep", ("x = " + "[" * 10_000).encode(), "too_deep", {}),
    ("headers_deep", b"[" * 10_000 + b"deck" + b"]" * 10_000, "too_deep", {}),
    # -- key counts -------------------------------------------------------------------------
    (
        "dotted_key_max_plus_1",
        v("version = 2", f"version = 2\n{dotted(DOTS_PER_LINE_MAX + 2)} = 1"),
        "key_too_long",
        {"max": DOTS_PER_LINE_MAX, "line": 4},
    ),
    ("dotted_key_50k_parts", f"{dotted(50_000)} = 1\n".encode(), "key_too_long", {"line": 1}),
    ("dotted_header_50k", f"[{dotted(50_000)}]\n".encode(), "key_too_long", {}),
    ("dotted_inline_50k", f"x = {{{dotted(50_000)} = 1}}\n".encode(), "key_too_long", {}),
    (
        "dotted_keys_20k_lines",
        v("version = 2", "version = 2\n" + "".join(f"k{i}.x = 1\n" for i in range(20_000))),
        "deck_unknown_field",
        {"field": "k0"},
    ),
    ("tables_20k", "".join(f"[t{i}]\n" for i in range(20_000)).encode(), "unknown_section", {}),
    ("families_max_plus_1", many("[[families]]", FAMILIES_MAX + 1), "too_many", {}),
    ("cards_max_plus_1", many("[[cards]]", CARDS_MAX + 1), "too_many", {"field": "cards"}),
    (
        "relevance_max_plus_1",
        many("[[relevance]]", RELEVANCE_MAX + 1),
        "too_many",
        {"field": "relevance", "count": RELEVANCE_MAX + 1, "max": RELEVANCE_MAX},
    ),
    ("digits_5000", f"[deck]\nversion = {'9' * 5000}\n".encode(), "too_many_digits", {}),
    ("card_number_1e30", v("number = 27", "number = " + "1" + "0" * 30), "card_number", {}),
    (
        "card_number_max_plus_1",
        v("number = 27", f"number = {CARD_NUMBER_MAX + 1}"),
        "card_number",
        {"index": 5, "max": CARD_NUMBER_MAX},
    ),
    ("card_number_zero", v("number = 27", "number = 0"), "card_number", {"index": 5}),
    ("relevance_card_huge", v("card = 27", "card = " + "9" * 40), "relevance_field", {}),
    (
        "stars_huge",
        v("card = 27\nstars = 3", "card = 27\nstars = " + "9" * 30),
        "relevance_field",
        {"field": "stars"},
    ),
    # -- wrong types ------------------------------------------------------------------------
    (
        "deck_string",
        ('deck = "x"\n' + VALID[VALID.index("[[families]]") :]).encode(),
        "bad_section",
        {"section": "deck"},
    ),
    (
        "deck_array_of_tables",
        VALID.replace("[deck]", "[[deck]]", 1).encode(),
        "bad_section",
        {"section": "deck"},
    ),
    (
        "cards_string",
        ('cards = "x"\n' + VALID[: VALID.index("[[cards]]")]).encode(),
        "bad_section",
        {"section": "cards"},
    ),
    (
        "cards_ints",
        ("cards = [1, 2]\n" + VALID[: VALID.index("[[cards]]")]).encode(),
        "bad_section",
        {"section": "cards"},
    ),
    (
        "families_table",
        ("families = {a = 1}\n" + VALID[: VALID.index("[[cards]]")]).encode(),
        "syntax",
        {},
    ),
    (
        "relevance_table",
        (VALID[: VALID.index("[[relevance]]")] + "[relevance]\na = 1\n").encode(),
        "bad_section",
        {"section": "relevance"},
    ),
    ("number_string", v("number = 27", 'number = "27"'), "card_number", {"index": 5}),
    ("number_float", v("number = 27", "number = 27.0"), "card_number", {"index": 5}),
    ("number_bool", v("number = 27", "number = true"), "card_number", {"index": 5}),
    ("number_date", v("number = 27", "number = 1979-01-01"), "card_number", {"index": 5}),
    (
        "kind_int",
        v('number = 27\nkind = "refutation"', "number = 27\nkind = 5"),
        "unknown_kind",
        {"number": 27, "value": "5"},
    ),
    (
        "kind_array",
        v('number = 27\nkind = "refutation"', 'number = 27\nkind = ["refutation"]'),
        "unknown_kind",
        {"number": 27},
    ),
    (
        "kind_table",
        v('number = 27\nkind = "refutation"', "number = 27\nkind = {a = 1}"),
        "unknown_kind",
        {"number": 27},
    ),
    (
        "family_int",
        v(
            'number = 27\nkind = "refutation"\nfamily = "not_us"',
            'number = 27\nkind = "refutation"\nfamily = 5',
        ),
        "unknown_family",
        {"value": "5"},
    ),
    (
        "title_string",
        v('title.en = "Sun"\ntitle.fr = "Soleil"', 'title = "Sun"'),
        "missing_language",
        {"number": 3},
    ),
    ("title_array", v('title.en = "Sun"', 'title.en = ["Sun"]'), "bad_text", {"field": "title.en"}),
    ("title_table", v('title.en = "Sun"', "title.en = {x = 1}"), "bad_text", {"field": "title.en"}),
    (
        "text_date",
        v('text.en = "It\'s the sun."', "text.en = 1979-01-01"),
        "bad_text",
        {"field": "text.en"},
    ),
    ("text_bool", v('text.en = "It\'s the sun."', "text.en = false"), "bad_text", {}),
    ("source_int", v(SOURCE_3, "source = 5"), "bad_source", {"value": "5"}),
    ("source_array", v(SOURCE_3, 'source = ["https://example.org/3"]'), "bad_source", {}),
    (
        "colour_int",
        v('colour = "#3d7fd9"', "colour = 0x3d7fd9"),
        "bad_colour",
        {"family": "not_us"},
    ),
    ("colour_short", v('colour = "#3d7fd9"', 'colour = "#3d7"'), "bad_colour", {"value": "#3d7"}),
    ("version_string", v("version = 2", 'version = "2"'), "deck_field", {"field": "version"}),
    ("version_float", v("version = 2", "version = 2.5"), "deck_field", {"field": "version"}),
    ("version_negative", v("version = 2", "version = -2"), "deck_field", {"field": "version"}),
    ("id_int", v('id = "mini"', "id = 5"), "deck_field", {"field": "id"}),
    ("id_space", v('id = "mini"', 'id = "mini deck"'), "deck_field", {"field": "id"}),
    (
        "name_string",
        v('name.en = "Mini deck"\nname.fr = "Petit paquet"', 'name = "Mini"'),
        "deck_language",
        {},
    ),
    (
        "stars_float",
        v("card = 27\nstars = 3", "card = 27\nstars = 2.0"),
        "relevance_field",
        {"field": "stars"},
    ),
    (
        "stars_bool",
        v("card = 27\nstars = 3", "card = 27\nstars = true"),
        "relevance_field",
        {"field": "stars"},
    ),
    (
        "disinformation_string",
        v("disinformation = 3", 'disinformation = "3"'),
        "relevance_field",
        {"field": "disinformation"},
    ),
    ("family_key_int", v('key = "not_us"', "key = 5"), "family_key", {"index": 2}),
    (
        "family_key_long",
        v('key = "not_us"', f'key = "{"a" * (ECHO_MAX + 1)}"'),
        "family_key",
        {"index": 2},
    ),
    # -- URLs and schemes -------------------------------------------------------------------
    (
        "url_ftp",
        v(SOURCE_3, 'source = "ftp://example.org/3"'),
        "bad_source",
        {"value": "ftp://example.org/3"},
    ),
    ("url_javascript", v(SOURCE_3, 'source = "javascript:alert(1)"'), "bad_source", {}),
    ("url_data", v(SOURCE_3, 'source = "data:text/html,<b>x</b>"'), "bad_source", {}),
    ("url_file", v(SOURCE_3, 'source = "file:///etc/passwd"'), "bad_source", {}),
    ("url_no_host", v(SOURCE_3, 'source = "https://"'), "bad_source", {}),
    ("url_no_dot", v(SOURCE_3, 'source = "https://localhost/3"'), "bad_source", {}),
    ("url_scheme_relative", v(SOURCE_3, 'source = "//example.org/3"'), "bad_source", {}),
    ("url_space", v(SOURCE_3, 'source = "https://exa mple.org/3"'), "bad_source", {}),
    ("url_newline", v(SOURCE_3, 'source = "https://example.org/3\\nx"'), "bad_source", {}),
    ("url_bell", v(SOURCE_3, 'source = "https://example.org/\\u0007"'), "bad_source", {}),
    ("url_non_ascii", v(SOURCE_3, 'source = "https://example.org/é"'), "bad_source", {}),
    ("url_angle", v(SOURCE_3, 'source = "https://example.org/<x>"'), "bad_source", {}),
    ("url_bad_ipv6", v(SOURCE_3, 'source = "https://[::1/3"'), "bad_source", {}),
    ("url_empty", v(SOURCE_3, 'source = ""'), "bad_source", {}),
    (
        "url_max_plus_1",
        v(SOURCE_3, f'source = "{URL_HEAD}{"a" * (SOURCE_MAX + 1 - len(URL_HEAD))}"'),
        "source_too_long",
        {"number": 3, "length": SOURCE_MAX + 1, "max": SOURCE_MAX},
    ),
    (
        "url_100k",
        v(SOURCE_3, f'source = "{URL_HEAD}{"a" * 100_000}"'),
        "source_too_long",
        {"length": 100_000 + len(URL_HEAD)},
    ),
    # -- format limits at +1 ----------------------------------------------------------------
    (
        "title_max_plus_1",
        v('title.fr = "Soleil"', f'title.fr = "{"S" * (TITLE_MAX + 1)}"'),
        "title_too_long",
        {"lang": "fr", "length": TITLE_MAX + 1},
    ),
    (
        "text_max_plus_1",
        v('text.fr = "C\'est le soleil."', f'text.fr = "{"s" * (TEXT_MAX + 1)}"'),
        "text_too_long",
        {"lang": "fr", "max": TEXT_MAX},
    ),
    (
        "text_100k",
        v('text.fr = "C\'est le soleil."', f'text.fr = "{"s" * 100_000}"'),
        "text_too_long",
        {"length": 100_000},
    ),
    (
        "deck_name_max_plus_1",
        v('name.en = "Mini deck"', f'name.en = "{"n" * (NAME_MAX + 1)}"'),
        "deck_too_long",
        {"field": "name.en", "length": NAME_MAX + 1, "max": NAME_MAX},
    ),
    (
        "family_name_max_plus_1",
        v('name.en = "It\'s not us"', f'name.en = "{"n" * (NAME_MAX + 1)}"'),
        "family_too_long",
        {"family": "not_us", "max": NAME_MAX},
    ),
    (
        "deck_id_max_plus_1",
        v('id = "mini"', f'id = "{"i" * (DECK_ID_MAX + 1)}"'),
        "deck_field",
        {"field": "id"},
    ),
    # -- what an error echoes is short and has no control characters ------------------------
    ("echo_long_section", f'["{"s" * 10_000}"]\n'.encode(), "unknown_section", {}),
    ("echo_newline_section", b'["a\\nb"]\nx = 1\n', "unknown_section", {"section": "a?b"}),
    (
        "echo_field_control",
        v("version = 2", 'version = 2\n"x\\u0000y" = 1'),
        "deck_unknown_field",
        {"field": "x?y"},
    ),
    (
        "echo_kind_long",
        v('number = 27\nkind = "refutation"', f'number = 27\nkind = "{"k" * 5000}"'),
        "unknown_kind",
        {},
    ),
    (
        "echo_bidi",
        v("version = 2", 'version = 2\n"\\u202eevil" = 1'),
        "deck_unknown_field",
        {"field": "?evil"},
    ),
    (
        "echo_mention",
        v("version = 2", 'version = 2\n"@everyone" = 1'),
        "deck_unknown_field",
        {"field": "@everyone"},
    ),
    # -- not TOML at all --------------------------------------------------------------------
    (
        "etc_passwd",
        b"root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1::/usr/sbin:/usr/sbin/nologin\n",
        "syntax",
        {"line": 1},
    ),
    ("json", b'{"deck": {"id": "x"}}', "syntax", {}),
    ("yaml", b"deck:\n  id: x\n", "syntax", {}),
    ("html", b"<!doctype html><html></html>", "syntax", {}),
    ("unterminated_string", b'[deck]\nid = "mini\n', "syntax", {"line": 2}),
    ("unterminated_multiline", b'[deck]\nid = """mini\n' + b"x" * 1000, "syntax", {}),
    ("duplicate_key", v("version = 2", "version = 2\nversion = 3"), "syntax", {}),
    ("duplicate_table", (VALID + "\n[deck]\n").encode(), "syntax", {}),
    ("empty_file", b"", "missing_deck", {}),
    ("whitespace_only", b" \n\t\n" * 100, "missing_deck", {}),
    ("comments_only", b"# a deck\n" * 1000, "missing_deck", {}),
    ("bom_only", b"\xef\xbb\xbf", "missing_deck", {}),
]

# Files at the limits (and hostile-looking text inside strings and comments): accepted.
ACCEPTED: list[tuple[str, bytes]] = [
    ("size_cap", padded(DECK_MAX_BYTES)),
    ("size_cap_minus_1", padded(DECK_MAX_BYTES - 1)),
    ("utf8_bom", b"\xef\xbb\xbf" + VALID.encode()),
    ("crlf", VALID.replace("\n", "\r\n").encode()),
    ("nesting_max", v("version = 2", "version = 2") + f"\n# {nest(NESTING_MAX + 5)}".encode()),
    ("brackets_in_title", v("Cold winter", "[" * 70)),
    (
        "brackets_in_multiline",
        v('text.fr = "C\'est le soleil."', 'text.fr = """\n' + "[{" * 400 + '\\"""\n"""'),
    ),
    ("brackets_in_literal", v('title.en = "Sun"', "title.en = 'C:\\[[['")),
    ("brackets_in_comment", (VALID + "\n# " + "[" * 10_000 + "\n").encode()),
    ("dots_in_title", v("Cold winter", "." * TITLE_MAX)),
    ("dots_in_text", v('text.fr = "C\'est le soleil."', 'text.fr = "' + "." * TEXT_MAX + '"')),
    ("dots_in_comment", (VALID + "\n# " + "." * 10_000 + "\n").encode()),
    ("dotted_key_max", v("[deck]\n", "[deck]\n") + f"\n# {dotted(DOTS_PER_LINE_MAX + 1)}".encode()),
    ("escaped_quote_then_bracket", v("Cold winter", 'Cold \\"[[[ winter')),
    ("title_max", v('title.fr = "Soleil"', f'title.fr = "{"S" * TITLE_MAX}"')),
    ("text_max", v('text.fr = "C\'est le soleil."', f'text.fr = "{"s" * TEXT_MAX}"')),
    ("deck_name_max", v('name.en = "Mini deck"', f'name.en = "{"n" * NAME_MAX}"')),
    ("family_name_max", v('name.en = "It\'s not us"', f'name.en = "{"n" * NAME_MAX}"')),
    ("deck_id_max", v('id = "mini"', f'id = "{"i" * DECK_ID_MAX}"')),
    ("url_max", v(SOURCE_3, f'source = "{URL_HEAD}{"a" * (SOURCE_MAX - len(URL_HEAD))}"')),
    ("url_upper_scheme", v(SOURCE_3, 'source = "HTTPS://EXAMPLE.ORG/3"')),
    ("url_query", v(SOURCE_3, 'source = "https://example.org/3?a=1&b=%20#frag"')),
    (
        "card_number_max",
        v("number = 27", f"number = {CARD_NUMBER_MAX}").replace(
            b"card = 27", f"card = {CARD_NUMBER_MAX}".encode()
        ),
    ),
]


@pytest.mark.parametrize(
    ("data", "name", "expected"),
    [pytest.param(data, name, expected, id=case) for case, data, name, expected in HOSTILE],
)
def test_hostile_deck_is_refused_in_one_line(
    data: bytes, name: str, expected: dict[str, object]
) -> None:
    started = time.perf_counter()
    with pytest.raises(DeckError) as info:
        parse_deck_bytes(data)
    elapsed = time.perf_counter() - started
    error = info.value
    assert error.key == f"refutation.deck_error.{name}", error.params
    assert set(error.params) == set(DECK_ERRORS[name])
    for param, value in expected.items():
        assert error.params[param] == value, error.params
    for lang in ("en", "fr"):
        line = t(error.key, lang, **error.params)
        assert "\n" not in line and len(line) < 400, line
        assert not any(unicodedata.category(ch) in ("Cc", "Cf") for ch in line), line
    for value in error.params.values():
        if isinstance(value, str) and name != "syntax":
            assert len(value) <= ECHO_MAX, value
    assert elapsed < TIME_CAP, f"{elapsed:.2f} s"


@pytest.mark.parametrize("data", [pytest.param(d, id=case) for case, d in ACCEPTED])
def test_deck_at_the_limits_is_accepted(data: bytes) -> None:
    deck = parse_deck_bytes(data)
    assert deck.id and len(deck.disinformation()) == 3


def test_counts_at_the_limit_are_not_too_many() -> None:
    """Exactly the maximum of cards is not refused for its count (but for the empty cards)."""
    with pytest.raises(DeckError) as info:
        parse_deck_bytes(many("[[cards]]", CARDS_MAX))
    assert info.value.key != "refutation.deck_error.too_many"
