"""Discord's limits (bot/limits.py) at -1, at and +1 of each, and the deck check that renders
every card the way the game does: a deck that passes always renders; one that would break a
page is refused naming the page, the card, the language and the limit."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import discord
import pytest

from bot import limits
from games.refutation import render as refutation_render
from games.refutation.components import choice_view, vote_view
from games.refutation.deck_check import check_deck
from games.refutation.decks.registry import (
    DeckRefused,
    name_from_filename,
    problem_text,
    read_capped,
)
from games.refutation.render import option_data
from games.refutation.rules import DeckError, default_deck_path

# -- each limit at -1 / at / +1 -----------------------------------------------------------------


def embed(
    *,
    title: str | None = None,
    description: str | None = None,
    url: str | None = None,
    fields: int = 0,
    field_name: str | None = None,
    field_value: str | None = None,
    footer: str | None = None,
    author: str | None = None,
) -> discord.Embed:
    e = discord.Embed(title=title, description=description, url=url)
    for _ in range(fields):
        e.add_field(name="n", value="v")
    if field_name is not None:
        e.add_field(name=field_name, value="v")
    if field_value is not None:
        e.add_field(name="n", value=field_value)
    if footer is not None:
        e.set_footer(text=footer)
    if author is not None:
        e.set_author(name=author)
    return e


def total(n: int) -> discord.Embed:
    """An embed of exactly ``n`` characters, each part within its own limit."""
    desc = min(n, limits.EMBED_DESCRIPTION)
    rest = n - desc
    e = discord.Embed(description="d" * desc)
    while rest > 0:
        value = min(rest - 1, limits.EMBED_FIELD_VALUE)
        e.add_field(name="n", value="v" * value)
        rest -= value + 1
    return e


def select(
    *,
    label: str = "l",
    value: str = "v",
    description: str = "d",
    count: int = 1,
    placeholder: str = "p",
) -> dict[str, object]:
    option = {"label": label, "value": value, "description": description}
    return {
        "type": 1,
        "components": [
            {
                "type": 3,
                "custom_id": "c",
                "placeholder": placeholder,
                "options": [dict(option) for _ in range(count)],
            }
        ],
    }


def buttons(count: int = 1, label: str = "b", custom_id: str = "c") -> dict[str, object]:
    return {
        "type": 1,
        "components": [
            {"type": 2, "style": 1, "label": label, "custom_id": custom_id} for _ in range(count)
        ],
    }


Check = Callable[[int], list[limits.Breach]]

LIMITS: list[tuple[str, int, str, Check]] = [
    ("title", limits.EMBED_TITLE, "title", lambda n: limits.embed_breaches(embed(title="t" * n))),
    (
        "description",
        limits.EMBED_DESCRIPTION,
        "description",
        lambda n: limits.embed_breaches(embed(description="d" * n)),
    ),
    ("fields", limits.EMBED_FIELDS, "fields", lambda n: limits.embed_breaches(embed(fields=n))),
    (
        "field_name",
        limits.EMBED_FIELD_NAME,
        "field_name",
        lambda n: limits.embed_breaches(embed(field_name="f" * n)),
    ),
    (
        "field_value",
        limits.EMBED_FIELD_VALUE,
        "field_value",
        lambda n: limits.embed_breaches(embed(field_value="v" * n)),
    ),
    (
        "footer",
        limits.EMBED_FOOTER,
        "footer",
        lambda n: limits.embed_breaches(embed(footer="f" * n)),
    ),
    (
        "author",
        limits.EMBED_AUTHOR,
        "author",
        lambda n: limits.embed_breaches(embed(author="a" * n)),
    ),
    ("embed_total", limits.EMBED_TOTAL, "embed_total", lambda n: limits.embed_breaches(total(n))),
    (
        "message_total",
        limits.EMBED_TOTAL,
        "message_total",
        lambda n: limits.message_breaches(None, [total(n // 2), total(n - n // 2)]),
    ),
    (
        "content",
        limits.MESSAGE_CONTENT,
        "content",
        lambda n: limits.message_breaches("c" * n),
    ),
    (
        "embeds",
        limits.EMBEDS_PER_MESSAGE,
        "embeds",
        lambda n: limits.message_breaches(None, [embed(title="t") for _ in range(n)]),
    ),
    (
        "url",
        limits.URL_MAX,
        "url",
        lambda n: limits.embed_breaches(embed(url="https://e.org/" + "u" * (n - 14))),
    ),
    (
        "option_label",
        limits.SELECT_OPTION_LABEL,
        "option_label",
        lambda n: limits.components_breaches([select(label="l" * n)]),
    ),
    (
        "option_value",
        limits.SELECT_OPTION_VALUE,
        "option_value",
        lambda n: limits.components_breaches([select(value="v" * n)]),
    ),
    (
        "option_description",
        limits.SELECT_OPTION_DESCRIPTION,
        "option_description",
        lambda n: limits.components_breaches([select(description="d" * n)]),
    ),
    (
        "options",
        limits.SELECT_OPTIONS,
        "options",
        lambda n: limits.components_breaches([select(count=n)]),
    ),
    (
        "placeholder",
        limits.SELECT_PLACEHOLDER,
        "placeholder",
        lambda n: limits.components_breaches([select(placeholder="p" * n)]),
    ),
    (
        "button_label",
        limits.BUTTON_LABEL,
        "button_label",
        lambda n: limits.components_breaches([buttons(label="b" * n)]),
    ),
    (
        "custom_id",
        limits.CUSTOM_ID,
        "custom_id",
        lambda n: limits.components_breaches([buttons(custom_id="c" * n)]),
    ),
    (
        "buttons",
        limits.BUTTONS_PER_ROW,
        "buttons",
        lambda n: limits.components_breaches([buttons(count=n)]),
    ),
    (
        "rows",
        limits.ACTION_ROWS,
        "rows",
        lambda n: limits.components_breaches([buttons() for _ in range(n)]),
    ),
]


@pytest.mark.parametrize(
    ("check", "limit", "part", "delta"),
    [
        pytest.param(check, limit, part, delta, id=f"{name}{delta:+d}")
        for name, limit, part, check in LIMITS
        for delta in (-1, 0, 1)
    ],
)
def test_each_discord_limit(check: Check, limit: int, part: str, delta: int) -> None:
    breaches = check(limit + delta)
    if delta <= 0:
        assert breaches == []
    else:
        assert [b.part for b in breaches][-1:] == [part] or part in [b.part for b in breaches]
        found = next(b for b in breaches if b.part == part)
        assert (found.size, found.limit) == (limit + 1, limit)


@pytest.mark.parametrize(
    "url",
    [
        "ftp://example.org/x",
        "javascript:alert(1)",
        "data:text/html,x",
        "file:///etc/passwd",
        "attachment://x.png",
        "steam://run/730",
        "//example.org",
    ],
)
def test_embed_url_scheme_must_be_http(url: str) -> None:
    assert [b.part for b in limits.embed_breaches(embed(url=url))] == ["url"]


@pytest.mark.parametrize(
    "url", ["http://example.org", "https://example.org/a?b#c", "HTTPS://E.ORG"]
)
def test_embed_url_http_is_fine(url: str) -> None:
    assert limits.embed_breaches(embed(url=url)) == []


def test_embed_chunks_respect_count_and_total() -> None:
    big = [total(2500) for _ in range(5)]  # 12,500 characters: three messages of 2, 2, 1
    assert [len(c) for c in limits.embed_chunks(big)] == [2, 2, 1]
    small = [embed(title="t") for _ in range(23)]
    assert [len(c) for c in limits.embed_chunks(small)] == [10, 10, 3]
    exact = [total(3000), total(3000), total(1)]
    assert [len(c) for c in limits.embed_chunks(exact)] == [2, 1]
    assert limits.embed_chunks([]) == []
    for chunk in limits.embed_chunks(big + small):
        assert limits.message_breaches(None, chunk) == []


def test_field_values_split_between_lines() -> None:
    lines = [f"line {i} " + "x" * 90 for i in range(40)]
    values = limits.field_values(lines)
    assert all(len(v) <= limits.EMBED_FIELD_VALUE for v in values)
    assert "\n".join(values).split("\n") == lines  # nothing lost, nothing cut mid-line
    assert limits.field_values(["y" * 5000]) == ["y" * 1023 + "…"]


# -- the deck check renders with the game's own code ---------------------------------------------


def deck_toml(
    *,
    refutations: list[tuple[int, str, str]],
    technique: tuple[str, str] = ("Technique", "A technique."),
    disinformation_text: str = "A claim.",
    source: str = "https://example.org/s",
) -> bytes:
    """One family, three disinformation cards (1, 2, 3), the given refutation cards (number,
    title, text) each relevant to card 1, and one technique card (900)."""
    out = [
        '[deck]\nid = "limits"\nversion = 1\nname.en = "Limits"\nname.fr = "Limites"\n',
        '[[families]]\nkey = "f"\ncolour = "#112233"\nname.en = "Fam"\nname.fr = "Fam"\n',
    ]

    def card(number: int, kind: str, title: str, text: str, family: bool = True) -> str:
        fam = 'family = "f"\n' if family else ""
        return (
            f'[[cards]]\nnumber = {number}\nkind = "{kind}"\n{fam}'
            f'title.en = "{title}"\ntitle.fr = "{title}"\n'
            f'text.en = "{text}"\ntext.fr = "{text}"\nsource = "{source}"\n'
        )

    for n in (1, 2, 3):
        out.append(card(n, "disinformation", f"Claim {n}", disinformation_text))
    for number, title, text in refutations:
        out.append(card(number, "refutation", title, text))
    out.append(card(900, "technique", *technique, family=False))
    for d in (1, 2, 3):
        for number, _, _ in refutations:
            out.append(f"[[relevance]]\ndisinformation = {d}\ncard = {number}\nstars = 2\n")
    return "\n".join(out).encode()


RENDER = refutation_render  # the renderer: no service, no database, no Discord


def hand_size(data: bytes, lang: str = "fr") -> int:
    from games.refutation.rules.deck import parse_deck_bytes

    deck = parse_deck_bytes(data)
    sizes = sorted(len(RENDER.card_embed(deck, c.number, lang)) for c in deck.refutations())
    technique = max(len(RENDER.card_embed(deck, c.number, lang)) for c in deck.techniques())
    return sum(sizes[-4:]) + technique


def hand_deck(target: int) -> bytes:
    """A deck whose largest hand is exactly ``target`` characters of embeds (in French, the
    longer language of the footer)."""
    refs = [(10 + i, "T" * 80, "x" * 900) for i in range(4)]
    source = "https://example.org/" + "s" * 421
    base = hand_size(deck_toml(refutations=refs, source=source))
    last = 900 + target - base
    assert 1 <= last <= 1000, last
    refs[-1] = (13, "T" * 80, "x" * last)
    data = deck_toml(refutations=refs, source=source)
    assert hand_size(data) == target
    return data


@pytest.mark.parametrize("delta", [-1, 0, 1])
def test_largest_hand_at_the_message_total(delta: int) -> None:
    data = hand_deck(limits.EMBED_TOTAL + delta)
    if delta <= 0:
        check_deck(data)
        return
    with pytest.raises(DeckRefused) as info:
        check_deck(data)
    params = info.value.params
    assert info.value.key == "refutation.decks.limit.chars"
    assert (params["page"], params["part"], params["size"]) == ("hand", "message_total", 6001)


def reference_size(data: bytes, number: int = 1, lang: str = "en") -> int:
    from games.refutation.rules.deck import parse_deck_bytes

    return len(RENDER.reference_embed(parse_deck_bytes(data), number, lang))


def reference_deck(target: int) -> bytes:
    """A deck whose card 1 has a reference page of exactly ``target`` characters (the longest
    of both languages)."""
    refs = [(100 + i, f"R{i:02d}" + "t" * 60, "short") for i in range(62)]
    base = max(reference_size(deck_toml(refutations=refs), lang=lang) for lang in ("en", "fr"))
    length = 8 + target - base
    assert 1 <= length <= 1000, length
    data = deck_toml(refutations=refs, disinformation_text="x" * length)
    assert max(reference_size(data, lang=lang) for lang in ("en", "fr")) == target
    return data


@pytest.mark.parametrize("delta", [-1, 0, 1])
def test_reference_page_at_the_embed_total(delta: int) -> None:
    data = reference_deck(limits.EMBED_TOTAL + delta)
    if delta <= 0:
        check_deck(data)
        return
    with pytest.raises(DeckRefused) as info:
        check_deck(data)
    params = info.value.params
    assert (params["page"], params["number"], params["part"]) == ("reference", 1, "embed_total")


def test_a_long_reference_page_is_split_into_fields_not_cut() -> None:
    data = reference_deck(limits.EMBED_TOTAL)
    from games.refutation.rules.deck import parse_deck_bytes

    page = RENDER.reference_embed(parse_deck_bytes(data), 1, "en")
    assert len(page.fields) > 2 and limits.embed_breaches(page) == []
    listed = "\n".join(f.value or "" for f in page.fields[1:])
    assert all(f"Card {100 + i} " in listed for i in range(62))


def test_the_issue_deck_that_broke_hands_is_refused() -> None:
    """Titles of 80 and texts of 1,000 characters with long sources: each card passes the
    format, but 0 of 3 players got their hand. Now the check says why."""
    refs = [(10 + i, "T" * 80, "x" * 1000) for i in range(4)]
    data = deck_toml(refutations=refs, source="https://example.org/" + "s" * 400)
    with pytest.raises(DeckRefused) as info:
        check_deck(data)
    assert info.value.params["page"] == "hand"
    for lang in ("en", "fr"):
        line = problem_text({"key": info.value.key, "params": info.value.params}, lang)
        assert "\n" not in line and "6000" in line, line
    en = problem_text({"key": info.value.key, "params": info.value.params}, "en")
    assert en.startswith("A hand of the largest size (English)"), en


def test_the_default_deck_passes_and_every_page_renders() -> None:
    deck = check_deck(default_deck_path().read_bytes())
    for lang in ("en", "fr"):
        for number in deck.cards:
            assert limits.embed_breaches(RENDER.reference_embed(deck, number, lang)) == []
        view = vote_view(
            1, 1, [[c, RENDER.label(deck, c, lang)] for c in list(deck.cards)[:6]], True, lang
        )
        assert limits.components_breaches(view.to_components()) == []
        options = [option_data(RENDER.card_option(deck, c, lang)) for c in list(deck.cards)[:5]]
        assert limits.components_breaches(choice_view(1, 1, options, lang).to_components()) == []


def test_a_deck_error_from_the_check_is_a_deck_error() -> None:
    with pytest.raises(DeckError):
        check_deck(b"\xff\xfe")
    with pytest.raises(DeckError):
        check_deck(b"#" * 11, max_bytes=10)


# -- reading a file without trusting it -----------------------------------------------------------


def test_read_capped_refuses_what_is_not_a_regular_file(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    link = tmp_path / "zero.toml"
    link.symlink_to("/dev/zero")
    for path, key in [
        (Path("/dev/zero"), "refutation.decks.error.not_a_file"),
        (fifo, "refutation.decks.error.not_a_file"),  # opened non-blocking: no writer, no freeze
        (link, "refutation.decks.error.not_a_file"),
        (tmp_path, "refutation.decks.error.not_a_file"),
        (tmp_path / "missing.toml", "refutation.decks.error.not_found"),
    ]:
        with pytest.raises(DeckRefused) as info:
            read_capped(path, 1000)
        assert info.value.key == key, path


def test_read_capped_refuses_by_size_before_reading(tmp_path: Path) -> None:
    sparse = tmp_path / "huge.toml"
    with sparse.open("wb") as fh:
        fh.truncate(50 * 1024**3)  # 50 GiB, sparse: reading it would take the bot down
    with pytest.raises(DeckRefused) as info:
        read_capped(sparse, 1000)
    assert info.value.key == "refutation.deck_error.too_large"
    assert info.value.params == {"size": 50 * 1024**3, "max": 1000}
    exact = tmp_path / "exact.toml"
    exact.write_bytes(b"#" * 1000)
    assert read_capped(exact, 1000) == b"#" * 1000
    exact.write_bytes(b"#" * 1001)
    with pytest.raises(DeckRefused):
        read_capped(exact, 1000)


@pytest.mark.parametrize(
    ("filename", "name"),
    [
        ("my-deck.toml", "my-deck"),
        ("Mon Paquet.TOML", "mon-paquet"),
        ("../../etc/passwd", "passwd"),
        ("deck", "deck"),
        ("***.toml", None),
        (".toml", None),
        ("é.toml", None),
        ("a" * 100 + ".toml", "a" * 32),
        ("__x__.toml", "x"),
    ],
)
def test_name_from_filename(filename: str, name: str | None) -> None:
    assert name_from_filename(filename) == name
