"""No English word in a French message, proper names aside.

The English words are those the bot writes in English — every word of the English catalogue,
and the English names of the commands, options and choices (the keys of the French command
catalogues: ``return_current``, ``pass``, ``abstain``) — so that a word copied from an English
text or from the code is caught. A French message (the core's and each game's, every branch of
its plural forms, command descriptions included) is read without its URLs, Discord markup,
{placeholders} and code, without the proper names below and without acronyms (TOML, IANA); a
word it still shares with English must be one of the French words English also writes
(``SHARED``). A code span is an identifier the reader types, checked too: never an English
option name that has a French one (test_command_mentions checks the commands).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from bot.i18n import catalogue, every_branch
from tests.bot.french import french_messages

ROOT = Path(__file__).resolve().parents[2]
COMMANDS = [ROOT / "bot" / "locales" / "fr" / "commands.toml"]
COMMANDS += sorted(ROOT.glob("games/*/locales/fr/commands.toml"))

#: Proper names a French text writes as they are: the games (their French editions and rules
#: keep the English titles: docs/glossary.md), the characters, Discord, formats and places.
PROPER_NAMES = (
    "The Resistance",
    "The Refutation Game",
    "Avalon",
    "Merlin",
    "Mordred",
    "Oberon",
    "Leader",  # the French rules' own word, with its capital (docs/glossary.md)
    "Leaders",
    "Discord",
    "Europe/Paris",
    "HH:MM",
    "#rrggbb",
    "https",
    "http",
)

#: French words that English writes the same way (each one is French: a French reader reads
#: it as French).
SHARED = {
    "abstentions",
    "minute",
    "position",
    "action",
    "adaptation",
    "assassin",
    "bot",
    "chance",
    "closes",
    "date",
    "description",
    "en",
    "examine",
    "figure",
    "forum",
    "long",
    "menu",
    "message",
    "messages",
    "min",
    "mission",
    "missions",
    "moment",
    "option",
    "options",
    "page",
    "part",
    "permission",
    "permissions",
    "phase",
    "pile",
    "place",
    "possible",
    "propose",
    "public",
    "sabotage",
    "sabotages",
    "secret",
    "section",
    "source",
    "table",
    "tables",
    "technique",
    "techniques",
    "vote",
    "votes",
    "faction",
    "question",
    "silence",
    "village",
    "potion",
    "potions",
}

NOT_PROSE = re.compile(r"https?://[^\s>)]+|<[^<>\s]*>|\{[^{}]*\}|\.(?:md|png|toml)\b")
CODE = re.compile(r"`([^`]*)`")
WORD = re.compile(r"[^\W\d_]+(?:[’'-][^\W\d_]+)*")


def command_tables() -> Iterator[Mapping[str, Any]]:
    for path in COMMANDS:
        with path.open("rb") as fh:
            yield tomllib.load(fh)


def english_names() -> set[str]:
    """The English names of the commands, their options and the options' choices."""
    out: set[str] = set()

    def walk(node: Mapping[str, Any]) -> None:
        for key, value in node.items():
            if key not in ("name", "description", "params"):
                out.add(key)
            if isinstance(value, Mapping):
                walk(value)

    for table in command_tables():
        walk(table)
    return out


def option_names() -> dict[str, str]:
    """Each option's English name -> its French name."""
    out: dict[str, str] = {}

    def walk(node: Mapping[str, Any]) -> None:
        for key, value in node.items():
            if key == "params":
                out.update({param: names["name"] for param, names in value.items()})
            elif isinstance(value, Mapping):
                walk(value)

    for table in command_tables():
        walk(table)
    return out


def words(text: str) -> list[str]:
    return WORD.findall(text)


def english_words() -> set[str]:
    found = {w.lower() for text in catalogue("en").values() for w in words(every_branch(text))}
    return found | {name.lower() for name in english_names() if "_" not in name}


def prose(text: str) -> str:
    """A French message without what is not French prose: URLs, markup, placeholders, code,
    cited names and proper names."""
    text = NOT_PROSE.sub(" ", every_branch(text))
    text = CODE.sub(" ", text)
    for name in sorted(PROPER_NAMES, key=len, reverse=True):
        text = text.replace(name, " ")
    return text


def english_in(text: str, english: set[str]) -> list[str]:
    """The English words of one French message (acronyms and single letters aside)."""
    return [
        w
        for w in words(prose(text))
        if len(w) > 1 and not w.isupper() and w.lower() in english and w.lower() not in SHARED
    ]


def english_code_in(text: str, names: Mapping[str, str]) -> list[str]:
    """The code spans of one French message that are an English option name with a French
    one (``return_current`` where the reader types ``remettre_carte``)."""
    spans = CODE.findall(NOT_PROSE.sub(" ", every_branch(text)))
    return [span for span in spans if names.get(span, span) != span]


def test_the_checker_finds_english_and_keeps_french() -> None:
    english = english_words()
    assert {"the", "pass", "abstain", "card", "player"} <= english
    assert english_in("La partie de The Resistance dans {where}", english) == []
    assert english_in("Un numéro de carte, ou pass", english) == ["pass"]
    assert english_in("The game of The Resistance", english) == ["The", "game", "of"]
    assert english_in("Vote Pour : 3 votes (TOML, `return_current`)", english) == []
    assert english_code_in("(option `return_current`)", option_names()) == ["return_current"]
    assert english_code_in("(option `remettre_carte`, `refutation`)", option_names()) == []


def test_no_french_message_writes_an_english_word() -> None:
    english = english_words()
    found = {key: w for key, text in french_messages().items() if (w := english_in(text, english))}
    assert not found, found


def test_no_french_message_names_an_english_option() -> None:
    names = option_names()
    messages = french_messages().items()
    found = {key: code for key, text in messages if (code := english_code_in(text, names))}
    assert not found, found


def test_every_shared_word_is_still_used() -> None:
    """``SHARED`` lists only words the French catalogue writes (a word no longer used leaves
    the list, so that it cannot hide a future English one)."""
    used = {w.lower() for text in french_messages().values() for w in words(prose(text))}
    assert sorted(SHARED - used) == []
