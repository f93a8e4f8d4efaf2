"""Every option's declared bounds, enforced when a command runs.

The bounds are declared to Discord (``app_commands.Range`` becomes ``min_value``/``max_value``,
``min_length``/``max_length``) and Discord's client refuses values outside them, but a modified
client or a raw API call can still send any value: discord.py does not check them itself. A
check on every command refuses such a value with a private, localized answer before anything
runs.
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.i18n import lang_of, number, param_name

NUMBERS = (discord.AppCommandOptionType.integer, discord.AppCommandOptionType.number)


class OutOfBounds(app_commands.CheckFailure):
    """A value outside its option's declared bounds (a catalogue key and its parameters)."""

    def __init__(self, key: str, /, **params: Any) -> None:
        super().__init__(key)
        self.key = key
        self.params = params


def shown(value: float | None, lang: str = "en") -> str:
    """A bound as the reader's language writes it: 336, 0.0005, 1000000 (French: 0,0005,
    1 000 000)."""
    return "…" if value is None else number(value, lang)


def within_bounds(interaction: discord.Interaction) -> bool:
    """Raise ``OutOfBounds`` for the first option value outside its declared bounds (named,
    and its numbers written, as the reader sees them)."""
    command = interaction.command
    if not isinstance(command, app_commands.Command):
        return True
    lang = lang_of(interaction.locale)
    for param in command.parameters:
        value = getattr(interaction.namespace, param.display_name, None)
        low, high = param.min_value, param.max_value
        if value is None or (low is None and high is None):
            continue
        if param.type in NUMBERS and isinstance(value, int | float):
            size = value
            key = "common.error.out_of_range"
        elif param.type is discord.AppCommandOptionType.string and isinstance(value, str):
            size = len(value)
            key = "common.error.bad_length"
        else:
            continue
        if (low is not None and size < low) or (high is not None and size > high):
            raise OutOfBounds(
                key,
                option=param_name(command.qualified_name, param.name, lang),
                low=shown(low, lang),
                high=shown(high, lang),
                value=shown(size, lang),
            )
    return True


def enforce_bounds(tree: app_commands.CommandTree[Any]) -> None:
    """Add the bounds check to every slash command of ``tree`` (call after loading the cogs)."""
    for command in tree.walk_commands():
        if isinstance(command, app_commands.Command) and within_bounds not in command.checks:
            command.add_check(within_bounds)
