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

from bot.options import number_text

NUMBERS = (discord.AppCommandOptionType.integer, discord.AppCommandOptionType.number)


class OutOfBounds(app_commands.CheckFailure):
    """A value outside its option's declared bounds (a catalogue key and its parameters)."""

    def __init__(self, key: str, /, **params: Any) -> None:
        super().__init__(key)
        self.key = key
        self.params = params


def shown(value: float | None) -> str:
    """A bound as people write it: 336, 0.0005, 1000000."""
    return "…" if value is None else number_text(value)


def within_bounds(interaction: discord.Interaction) -> bool:
    """Raise ``OutOfBounds`` for the first option value outside its declared bounds."""
    command = interaction.command
    if not isinstance(command, app_commands.Command):
        return True
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
                option=param.display_name,
                low=shown(low),
                high=shown(high),
                value=shown(size),
            )
    return True


def enforce_bounds(tree: app_commands.CommandTree[Any]) -> None:
    """Add the bounds check to every slash command of ``tree`` (call after loading the cogs)."""
    for command in tree.walk_commands():
        if isinstance(command, app_commands.Command) and within_bounds not in command.checks:
            command.add_check(within_bounds)
