"""The French/English catalogue: the same messages, with the same placeholders, in both."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from babel import Locale

from bot.i18n import (
    MissingMessage,
    PluralSyntaxError,
    catalogue,
    category,
    choice_label,
    every_branch,
    lang_of,
    number,
    option_label,
    placeholders,
    plural,
    plural_forms,
    t,
)

ROOT = Path(__file__).resolve().parents[2]


def test_both_languages_have_the_same_keys_and_placeholders() -> None:
    en = {k: v for k, v in catalogue("en").items() if not k.startswith("commands.")}
    fr = {k: v for k, v in catalogue("fr").items() if not k.startswith("commands.")}
    assert set(en) == set(fr), sorted(set(en) ^ set(fr))
    for key in en:
        assert placeholders(en[key]) == placeholders(fr[key]), key


def test_every_key_used_in_the_app_exists() -> None:
    """Literal keys passed to t(), UserError() or GameError() in bot/ and cogs/."""
    known = set(catalogue("en"))
    used: set[str] = set()
    for path in [*ROOT.glob("bot/*.py"), *ROOT.glob("cogs/*.py")]:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and node.args:
                name = getattr(node.func, "id", getattr(node.func, "attr", ""))
                first = node.args[0]
                key = first.value if isinstance(first, ast.Constant) else None
                is_key = isinstance(key, str) and re.match(r"^[a-z_]+\.[a-z_.]+$", key)
                if name in {"t", "UserError", "GameError"} and is_key:
                    used.add(str(key))
    missing = sorted(k for k in used if k not in known)
    assert not missing, missing


def test_lookup_and_fallbacks() -> None:
    assert lang_of("fr") == "fr" and lang_of("en-US") == "en" and lang_of(None) == "en"
    assert t("common.lobby.join_button", "fr") == "Rejoindre"
    assert t("common.lobby.join_button", "de") == "Join"  # any other language: English
    with pytest.raises(MissingMessage):
        t("common.nope", "en")


# -- plural forms (CLDR categories through Babel) -----------------------------------------------


@pytest.mark.parametrize(
    ("lang", "count", "text"),
    [
        ("en", 0, "Reminded 0 players by DM."),
        ("en", 1, "Reminded 1 player by DM."),
        ("en", 2, "Reminded 2 players by DM."),
        ("fr", 0, "0 joueur relancé en MP."),
        ("fr", 1, "1 joueur relancé en MP."),
        ("fr", 2, "2 joueurs relancés en MP."),
    ],
)
def test_a_count_picks_its_plural_form(lang: str, count: int, text: str) -> None:
    assert t("poll.moderation.reminded", lang, count=count) == text


@pytest.mark.parametrize(
    ("lang", "counts", "text"),
    [
        ("en", (0, 1, 2), "0 games, 1 won, 2 cards"),
        ("en", (1, 0, 1), "1 game, 0 won, 1 card"),
        ("fr", (0, 1, 2), "0 partie, 1 gagnée, 2 cartes"),
        ("fr", (2, 2, 0), "2 parties, 2 gagnées, 0 carte"),
    ],
)
def test_each_count_of_a_message_picks_its_own_form(
    lang: str, counts: tuple[int, int, int], text: str
) -> None:
    forms = {
        "en": "{p, plural, one {# game} other {# games}}, {w, plural, other {# won}}, "
        "{c, plural, one {# card} other {# cards}}",
        "fr": "{p, plural, one {# partie} other {# parties}}, "
        "{w, plural, one {# gagnée} other {# gagnées}}, "
        "{c, plural, one {# carte} other {# cartes}}",
    }
    played, won, cards = counts
    form = plural(forms[lang], lang, {"p": played, "w": won, "c": cards})
    assert form.format(p=played, w=won, c=cards) == text


def test_the_cldr_categories_of_both_languages() -> None:
    # English: one for 1 only; French: one for 0, 1 and 1.5 (i = 0,1), many for millions
    assert [category(n, "en") for n in (0, 1, 1.5, 2, 1_000_000)] == [
        "other",
        "one",
        "other",
        "other",
        "other",
    ]
    assert [category(n, "fr") for n in (0, 1, 1.5, 2, 1_000_000)] == [
        "one",
        "one",
        "one",
        "other",
        "many",
    ]
    assert category("∞", "fr") == category(True, "en") == "other"  # not a number


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_plural_rules_are_cldrs(lang: str) -> None:
    """The two rules of bot/i18n.py give CLDR's category (Babel's data) for whole numbers up to
    beyond two million, millions, halves, tenths and negative numbers."""
    reference = Locale.parse(lang).plural_form
    numbers: list[float] = [*range(0, 2_100_000, 7), *range(0, 12_000_001, 1_000_000)]
    numbers += [n / 10 for n in range(0, 300)] + [-1, -2, -1.5, 0.0005, 336.0, 1e6 + 0.5]
    wrong = [
        (n, category(n, lang), reference(n)) for n in numbers if category(n, lang) != reference(n)
    ]
    assert not wrong, wrong[:5]


def test_the_plural_form_syntax() -> None:
    form = "{n, plural, =0 {no card} one {# card} other {# cards}} for {who}"
    assert [plural(form, "en", {"n": n, "who": "x"}) for n in (0, 1, 3)] == [
        "no card for {who}",
        "{n} card for {who}",
        "{n} cards for {who}",
    ]
    empty = "{n, plural, =0 {} one {# card} other {# cards}}"
    assert plural(empty, "en", {"n": 0}) == "" and plural(empty, "fr", {"n": 0}) == ""
    # a category without a branch (French "many") falls back to other; nested forms work
    nested = "{n, plural, one {#} other {# {k, plural, one {pile} other {piles}}}}"
    assert plural(nested, "fr", {"n": 2_000_000, "k": 3}) == "{n} piles"
    assert placeholders(form) == {"n", "who"} and placeholders(nested) == {"n", "k"}
    assert every_branch(form) == "{n}\nno card\n{n} card\n{n} cards for {who}"
    for broken in (
        "{n, plural, one {# card}}",  # no other
        "{n, plural, few card other {x}}",  # no braces
        "{n, plural, lots {x} other {y}}",  # not a CLDR category
        "{n, plural, one {x} other {y}",  # unclosed
    ):
        with pytest.raises(PluralSyntaxError):
            plural_forms(broken)


def test_every_plural_form_of_the_catalogue_reads_and_has_other() -> None:
    found = 0
    for lang in ("en", "fr"):
        for key, template in catalogue(lang).items():
            forms = plural_forms(template)  # raises on a malformed one
            found += len(forms)
            for name, branches in forms:
                assert "other" in branches, key
                assert set(branches) <= {"one", "other", "many"} | {
                    s for s in branches if s.startswith("=")
                }, key
                for n in (0, 1, 2):
                    t(key, lang, **dict.fromkeys(placeholders(template), "x") | {name: n})
    assert found >= 40


def test_no_message_says_s_in_brackets() -> None:
    """Neither language writes "player(s)", in the core's catalogue, the games' or the test poll's:
    a plural form picks the word."""
    bracketed = re.compile(r"\w\((?:s|e|es|x)\)")
    files = [
        *ROOT.glob("bot/locales/*/*.toml"),
        *ROOT.glob("games/*/locales/*/*.toml"),
        *ROOT.glob("tests/e2e/poll_game/locales/*/*.toml"),
    ]
    assert len(files) > 20
    found = [f"{path}: {line}" for path in files for line in path.read_text().splitlines()]
    assert not [line for line in found if bracketed.search(line)]


# -- options, choices and numbers in the reader's language ---------------------------------------


@pytest.mark.parametrize(
    ("value", "en", "fr"),
    [
        (0.0005, "0.0005", "0,0005"),
        (336.0, "336", "336"),
        (6.5, "6.5", "6,5"),
        (999, "999", "999"),
        (1000, "1000", "1\u202f000"),
        (1_000_000, "1000000", "1\u202f000\u202f000"),
        (-12345.25, "-12345.25", "-12\u202f345,25"),
    ],
)
def test_numbers_as_each_language_writes_them(value: float, en: str, fr: str) -> None:
    assert number(value, "en") == en and number(value, "fr") == fr


# -- game names and French elision --------------------------------------------------------------


@pytest.mark.parametrize(
    ("game", "text"),
    [
        ("Avalon", "La partie d’Avalon dans #x commence"),
        ("The Resistance", "La partie de The Resistance dans #x commence"),
    ],
)
def test_french_elides_de_before_a_vowel(game: str, text: str) -> None:
    assert t("common.start.dm_check", "fr", game=game, where="#x").startswith(text)
    assert t("common.start.dm_check", "en", game=game, where="#x").startswith(f"The game of {game}")


def test_elision_before_names() -> None:
    from bot.i18n import elide, starts_with_vowel

    assert [starts_with_vowel(x) for x in ("Émile", "alice", "**Yves**", "Œdipe")] == [True] * 4
    assert [starts_with_vowel(x) for x in ("Bob", "hana", "8", "<@1>", "")] == [False] * 5
    said = t("poll.moderation.substituted", "fr", new="Bob", old="Émile")
    assert "la place d’Émile" in said
    assert "la place de Bob" in t("poll.moderation.substituted", "fr", new="x", old="Bob")
    assert elide("de {n} à {m}", {"n": 11, "m": "x"}) == "de {n} à {m}"
    assert elide("De **{g}**, que {x}", {"g": "Avalon", "x": "Ève"}) == "D’**{g}**, qu’{x}"


def test_the_polls_option_is_named_as_its_french_command_names_it() -> None:
    """French: the localized name of the parameter of /poll new (a French player reads the word
    she types); English, or an option no command names: the key."""
    assert option_label("poll", "vote_hours", "fr") == "heures_vote"
    assert option_label("poll", "vote_hours", "en") == "vote_hours"
    assert option_label("poll", "question", "fr") == "question"
    assert option_label("poll", "first", "fr") == "premiere"
    assert option_label("poll", "timezone", "fr") == "fuseau_horaire"  # /settings's own
    assert option_label("no_such_game", "vote_hours", "fr") == "vote_hours"
    assert choice_label("reject", "fr") == "contre" and choice_label("reject", "en") == "reject"
    assert choice_label("chess", "fr") == "chess"
