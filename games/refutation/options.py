"""The Refutation Game's options (bot.options): defaults, bounds, where each appears."""

from __future__ import annotations

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
from games.refutation.rules.model import TARGETS

#: The option of a game's deck (a guild's choice is kept with its defaults, under it).
DECK = "deck"


def _deck_name(value: Any) -> str | None:
    if not value:
        return None
    from games.refutation.decks.settings import NAME

    if not NAME.fullmatch(str(value)):
        return (
            "is a deck name (lower-case letters, digits, - and _, at most 32): put the file in "
            "[decks] decks_dir and give its name without .toml"
        )
    return None


REFUTATION_OPTIONS = OptionsSchema(
    "refutation",
    (
        Option(
            "target",
            int,
            5,
            "Refuted disinformation cards the table needs to win (5, 7 or 9)",
            choices=TARGETS,
        ),
        Option("techniques", bool, False, "Play with the rhetorical-technique cards"),
        Option(
            "choice_hours",
            float,
            24.0,
            "Hours for the secret choice of cards (default 24)",
            min=HOURS[0],
            max=HOURS[1],
        ),
        Option(
            "vote_hours", float, 24.0, "Hours for the vote (default 24)", min=HOURS[0], max=HOURS[1]
        ),
        Option(
            "turn_hours",
            float,
            48.0,
            "Hours for the active player's turn, then it passes to the next player (0 = no limit)",
            min=HOURS_OR_OFF[0],
            max=HOURS_OR_OFF[1],
        ),
        Option(
            "reminder_hours",
            float,
            2.0,
            "Remind the active player this many hours before their turn's deadline (0 = off)",
            min=HOURS_OR_OFF[0],
            max=HOURS_OR_OFF[1],
        ),
        Option(
            DECK,
            str,
            "",
            "The deck of new games, by name (empty: the default deck; a guild chooses its own "
            "with `/settings refutation deck`)",
            new=False,
            settings=False,
            listed=False,  # its record and /settings show name the deck in lines of their own
            check=_deck_name,
        ),
        *DAILY_OPTIONS,
        *STANDBY_OPTIONS,
        *PROD_OPTIONS,
    ),
)
