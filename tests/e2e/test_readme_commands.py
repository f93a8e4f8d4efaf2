"""The README's table of French command names is the synced command tree: every command,
subcommand and group the bot registers, by its English name and by the French name the
translator gives Discord (``Bot.command_tree_payload``, what ``tree.sync`` sends). The table
may order its rows and names for readers; a command added without its name in the table, or a
French name changed in a catalogue, fails here with the rows to paste."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.paths import ROOT

pytestmark = pytest.mark.timeout(120)

START = "<!-- command names: tests/e2e/test_readme_commands.py checks them -->"
END = "<!-- end of the command names -->"
SUB_COMMAND, SUB_COMMAND_GROUP = 1, 2
NAME = re.compile(r"`/?([^`]+)`")

#: A command's (English, French) name, and those of everything under it.
Names = tuple[tuple[str, str], frozenset[tuple[str, str]]]


def under(item: dict[str, Any]) -> list[dict[str, Any]]:
    """The subcommands and groups of a command or group, a group's own after it."""
    found = []
    for option in item.get("options") or []:
        if option["type"] in (SUB_COMMAND, SUB_COMMAND_GROUP):
            found += [option, *under(option)]
    return found


def tree_names(commands: list[dict[str, Any]]) -> set[Names]:
    def pair(item: dict[str, Any]) -> tuple[str, str]:
        return item["name"], item["name_localizations"]["fr"]

    return {(pair(c), frozenset(pair(s) for s in under(c))) for c in commands}


def readme_names(rows: list[str]) -> set[Names]:
    found = set()
    for row in rows[2:]:
        english, french = (NAME.findall(cell) for cell in row.strip("|").split("|"))
        assert len(english) == len(french), f"a name without its translation: {row}"
        pairs = list(zip(english, french, strict=True))
        found.add((pairs[0], frozenset(pairs[1:])))
    return found


def rows_of(commands: list[dict[str, Any]]) -> str:
    """The table as the command tree orders it (what to paste, then order for readers)."""
    lines = ["| English | French |", "|---|---|"]
    for command in commands:
        names = [command, *under(command)]
        english = " ".join(f"`{'/' * (n is command)}{n['name']}`" for n in names)
        french = " ".join(f"`{'/' * (n is command)}{n['name_localizations']['fr']}`" for n in names)
        lines.append(f"| {english} | {french} |")
    return "\n".join(lines)


async def test_the_readme_names_every_command_in_both_languages(table: Any, bot: Any) -> None:
    commands = [
        *await bot.command_tree_payload(None),
        *await bot.command_tree_payload(table.guild),
    ]
    text = (ROOT / "README.md").read_text()
    assert text.count(START) == 1 and text.count(END) == 1
    rows = text.split(START)[1].split(END)[0].strip().splitlines()
    assert readme_names(rows) == tree_names(commands), (
        f"README's command names are stale; the command tree says:\n{rows_of(commands)}"
    )


def test_a_row_reads_as_the_tree_writes_it() -> None:
    command = {
        "name": "stats",
        "name_localizations": {"fr": "stats"},
        "options": [
            {"type": SUB_COMMAND, "name": "top", "name_localizations": {"fr": "classement"}},
            {"type": 3, "name": "game", "name_localizations": {"fr": "jeu"}},  # an option
        ],
    }
    assert readme_names(rows_of([command]).splitlines()) == tree_names([command])
    assert rows_of([command]).splitlines()[2] == "| `/stats` `top` | `/stats` `classement` |"
