"""French typography in every French text the bot writes: the catalogue (the decks': in
games/refutation/tests/test_deck_typography.py).

U+202F (narrow no-break space) before ; ! ? and inside « », U+00A0 (no-break space) before :,
U+202F between thousands (30 000) and before % and °C, and the typographic apostrophe ’; never
"(s)" (a plural form picks the word: bot/i18n.py), and every branch of a plural form is checked.
URLs, Discord markup (<t:…>, <@…>, <#…>), {placeholders}, `code` and a time of day as typed
(21:00, HH:MM: no space before its colon) are not prose: skipped.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from bot.i18n import LOCALES_DIR, catalogue, every_branch
from sandbox.rest import valid_command_name

GAMES = Path(__file__).resolve().parents[2] / "games"

NNBSP = "\u202f"
NBSP = "\u00a0"

NOT_PROSE = re.compile(
    r"https?://[^\s>)]+|<[^<>\s]*>|\{[^{}]*\}|`[^`]*`|\b(?:\d{1,2}|HH):(?:\d{2}|MM)\b"
)

RULES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"'"), "straight apostrophe: use ’"),
    (re.compile(rf"(?<!{NNBSP})(?<![!?;])[!?;]"), "U+202F before ; ! ?"),
    (re.compile(rf"(?<!{NBSP}):"), "U+00A0 before :"),
    (re.compile(rf"«(?!{NNBSP})"), "U+202F after «"),
    (re.compile(rf"(?<!{NNBSP})»"), "U+202F before »"),
    (re.compile(r"\d[ \u00a0]\d{3}(?!\d)"), "U+202F between thousands"),
    (re.compile(rf"(?<=\d)(?:[ {NBSP}])?%|(?<=\d)(?:[ {NBSP}])?°C"), "U+202F before % and °C"),
    (re.compile(rf"[ {NBSP}]{NNBSP}|{NNBSP}[ {NBSP}]|[ {NNBSP}]{NBSP}:"), "doubled space"),
    (re.compile(r"\w\((?:s|e|es|x)\)"), "“(s)”: write a plural form"),
    (
        re.compile(rf"\b(?:\d{{1,2}}|HH)[ {NBSP}{NNBSP}]:(?:\d{{2}}|MM)\b"),
        "a time of day as typed (21:00): no space before its colon",
    ),
]


def prose(text: str) -> str:
    """``text`` with its URLs, Discord markup and code blanked, placeholders as a digit."""
    return NOT_PROSE.sub(lambda m: "0" if m.group().startswith("{") else "X", text)


def violations(text: str) -> list[str]:
    found = []
    checked = prose(every_branch(text))
    for pattern, rule in RULES:
        for match in pattern.finditer(checked):
            around = checked[max(0, match.start() - 15) : match.end() + 15]
            found.append(f"{rule}: …{around}…")
    return found


def french_catalogue() -> dict[str, str]:
    texts = dict(catalogue("fr"))
    # Command names are identifiers (lower case, no spaces): only descriptions are prose.
    return {k: v for k, v in texts.items() if not (k.startswith("commands.") and "name" in k)}


def test_the_checker_catches_each_rule_and_skips_what_is_not_prose() -> None:
    good = (
        f"Phase{NBSP}: débat{NNBSP}; vraiment{NNBSP}! 30{NNBSP}000 personnes{NNBSP}?"
        f" «{NNBSP}bien{NNBSP}» à 100{NNBSP}% et 1,5{NNBSP}°C, l’été"
        " <t:1700000000:F> <https://example.org/a?b=c> {deadline} `/resistance status`"
        f" à 21:00, écrivez HH:MM{NNBSP}; {{count, plural, one {{# joueur{NNBSP}!}}"
        " other {# joueurs}}"
    )
    assert violations(good) == []
    bad = [
        "l'été",
        "Phase : débat",
        "Phase: débat",
        "vraiment !",
        "vraiment!",
        "quoi ?",
        "un ; deux",
        "« bien »",
        "30 000",
        "100 %",
        f"100{NBSP}%",
        "1,5 °C",
        "{count} %",
        f"Phase {NBSP}: débat",
        "3 joueur(s)",
        "partie(s) terminée(s)",
        "{count, plural, one {# joueur !} other {# joueurs}}",
        "{count, plural, one {# joueur} other {# joueurs : }}",
        "{count, plural, one {# l'été} other {# étés}}",
        "{count, plural, one {#} other {{n, plural, one {«bien»} other {x}}}}",
        "21 :00",
        f"écrivez-la HH{NBSP}:MM, par exemple 21{NBSP}:00",
    ]
    for text in bad:
        assert violations(text), text


def test_every_french_catalogue_entry() -> None:
    problems = {k: v for k, text in french_catalogue().items() if (v := violations(text))}
    assert not problems, problems


def test_command_names_are_names_discord_takes() -> None:
    """French command and option names keep their accents (/réglages, clôture_anticipée):
    Discord takes lowercase letters of any script (sandbox/rest.py, valid_command_name)."""
    commands: dict[str, object] = {}
    for path in [LOCALES_DIR / "fr" / "commands.toml", *GAMES.glob("*/locales/fr/commands.toml")]:
        with path.open("rb") as fh:
            commands[str(path)] = tomllib.load(fh)

    def names(table: dict[str, object]) -> list[str]:
        out = []
        for key, value in table.items():
            if key == "name" and isinstance(value, str):
                out.append(value)
            elif isinstance(value, dict):
                out += names(value)
        return out

    found = names(commands)
    assert len(found) > 100 and "réglages" in found and "clôture_anticipée" in found
    assert [n for n in found if not valid_command_name(n)] == []


def test_a_french_deadline_is_a_date_with_its_article() -> None:
    """ "{deadline}" is a Discord full date ("lundi 30 novembre 2026 21:00"): French says
    "avant le …", "se termine le …", as every Resistance and Refutation text does."""
    bare = re.compile(r"\b(avant|termine|clos) \{deadline\}")
    problems = {k: text for k, text in french_catalogue().items() if bare.search(text)}
    assert not problems, problems
