"""Werewolf's options (bot.options): defaults, bounds, where each appears.

The rule options' defaults are the engine's (``rules.Options``) and the wolves' bounds its
table's; :func:`rule_options` turns a game's stored options into the engine's."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.options import (
    DAILY_OPTIONS,
    HOURS,
    HOURS_OR_OFF,
    PROD_OPTIONS,
    STANDBY_OPTIONS,
    Option,
    OptionsSchema,
)
from games.werewolf.rules import MAX_WOLVES, Options

DEFAULTS = Options()

#: The option that keeps the server's den channel for its forum games (``/settings werewolf den``).
DEN_CHANNEL = "den_channel"

#: The options the engine takes, each a flag, with its description.
ROLE_OPTIONS: tuple[tuple[str, str], ...] = (
    ("seer", "The seer, who learns one player's role each night"),
    ("witch", "The witch, with one life potion and one death potion"),
    ("hunter", "The hunter, who takes a last shot when he dies"),
    ("cupid", "Cupid, who makes two players lovers on the first night"),
    ("captain", "A captain elected before the first night, whose vote counts twice"),
)


def _hours(name: str, description: str) -> Option:
    return Option(name, float, 24.0, description, min=HOURS[0], max=HOURS[1])


WEREWOLF_OPTIONS = OptionsSchema(
    "werewolf",
    (
        _hours("night_hours", "Hours of each night (default 24)"),
        _hours("day_hours", "Hours of each day (default 24)"),
        Option(
            "reminder_hours",
            float,
            2.0,
            "Remind who has not acted or voted this many hours before the deadline (0 = off)",
            min=HOURS_OR_OFF[0],
            max=HOURS_OR_OFF[1],
        ),
        Option(
            "early_close",
            bool,
            DEFAULTS.early_close,
            "End the night as soon as every night role has acted",
        ),
        Option(
            "majority_ends_day",
            bool,
            DEFAULTS.majority_ends_day,
            "End the day as soon as a majority of the living vote for one name",
        ),
        Option("reveal_roles", bool, DEFAULTS.reveal_roles, "Show each dead player's role"),
        Option(
            "wolves",
            int,
            0,
            "Number of werewolves (0 = the table's)",
            min=0,
            max=MAX_WOLVES,
        ),
        *(Option(name, bool, getattr(DEFAULTS, name), text) for name, text in ROLE_OPTIONS),
        *DAILY_OPTIONS,
        *STANDBY_OPTIONS,
        *PROD_OPTIONS,
        Option(
            DEN_CHANNEL,
            int,
            0,
            "The text channel of a forum game's den, by id (0: none; a server sets it with "
            "`/settings werewolf den`)",
            min=0,
            max=2**63 - 1,
            new=False,
            settings=False,
            listed=False,  # /settings show names it in a line of its own
        ),
    ),
)


def rule_options(values: Mapping[str, Any]) -> Options:
    """The engine's options of a game whose stored options are ``values`` (``wolves`` 0: the
    table's)."""
    return Options.from_dict(values)
