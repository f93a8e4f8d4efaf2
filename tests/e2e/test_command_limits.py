"""Every name and description of the synced commands fits Discord's limits, in every language
the translator produces: the payload is the one ``tree.sync`` sends (``Bot.command_tree_payload``,
which ``command_tree_hash`` hashes). Discord refuses a sync with a text over its limit, and
discord.py cuts an English description over 100 characters without a word ("…(empty: after
the…"), so a text too long fails here instead of reaching players cut or not at all.
Limits: https://discord.com/developers/docs/interactions/application-commands"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from bot.limits import CHOICE_NAME, COMMAND_DESCRIPTION, COMMAND_NAME

pytestmark = pytest.mark.timeout(120)

#: (least, most) characters of each text of a command, an option and a choice.
LIMITS = {
    "name": (1, COMMAND_NAME),
    "description": (1, COMMAND_DESCRIPTION),
    "choice": (1, CHOICE_NAME),
}

#: What discord.py puts at the end of a description it cut (textwrap.shorten's placeholder).
CUT = "…"


def texts(item: dict[str, Any], path: str) -> Iterator[tuple[str, str, str, str]]:
    """(where, language, kind, text) of every name and description of a command or option,
    its choices and its options, with each of their localizations ("en" is the default)."""
    path = f"{path} {item['name']}".strip()
    for field in ("name", "description"):
        if field in item:
            yield path, "en", field, item[field]
        for language, text in (item.get(f"{field}_localizations") or {}).items():
            yield path, language, field, text
    for choice in item.get("choices") or []:
        yield f"{path} = {choice['value']!r}", "en", "choice", choice["name"]
        for language, text in (choice.get("name_localizations") or {}).items():
            yield f"{path} = {choice['value']!r}", language, "choice", text
    for option in item.get("options") or []:
        yield from texts(option, path)


async def payload_texts(bot: Any, guild: Any) -> list[tuple[str, str, str, str]]:
    commands = [*await bot.command_tree_payload(None), *await bot.command_tree_payload(guild)]
    return [text for command in commands for text in texts(command, "")]


async def test_every_text_of_the_commands_fits_discords_limits(table: Any, bot: Any) -> None:
    found = await payload_texts(bot, table.guild)
    languages = {language for _, language, _, _ in found}
    assert {"en", "fr"} <= languages  # the French catalogue is in the payload
    assert any(kind == "choice" for _, _, kind, _ in found)
    wrong = [
        (where, language, kind, len(text), text)
        for where, language, kind, text in found
        if not LIMITS[kind][0] <= len(text) <= LIMITS[kind][1]
    ]
    assert wrong == []


async def test_no_description_was_cut_by_discord_py(table: Any, bot: Any) -> None:
    found = await payload_texts(bot, table.guild)
    cut = [
        (where, language, text)
        for where, language, kind, text in found
        if kind == "description" and text.endswith(CUT)
    ]
    assert cut == []


def test_the_walk_sees_every_text_and_its_length() -> None:
    """The walk itself: a command with a translated option and a choice, one text too long."""
    command = {
        "name": "game",
        "description": "A game",
        "description_localizations": {"fr": "x" * 101},
        "options": [
            {
                "name": "size",
                "description": "How many",
                "name_localizations": {"fr": "taille"},
                "choices": [{"name": "five", "value": 5, "name_localizations": {"fr": "cinq"}}],
            }
        ],
    }
    found = list(texts(command, ""))
    assert ("game", "fr", "description", "x" * 101) in found
    assert ("game size", "fr", "name", "taille") in found
    assert ("game size = 5", "fr", "choice", "cinq") in found
    assert len(found) == 8
