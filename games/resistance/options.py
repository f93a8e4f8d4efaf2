"""The Resistance's options (bot.options): defaults, bounds, where each appears."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.english import alternatives
from bot.options import (
    DAILY_OPTIONS,
    HOURS,
    HOURS_OR_OFF,
    PROD_OPTIONS,
    STANDBY_OPTIONS,
    Option,
    OptionsSchema,
    Problem,
)
from games.resistance.rules import (
    AVALON_OPTIONS,
    GameError,
    MorganaNeedsPercival,
    NoTableFits,
    Options,
    Variant,
    evil_characters,
    verify_options,
)


def avalon_roles(options: Mapping[str, Any]) -> Problem | None:
    """The Avalon roles together, as the rules take them (``verify_options``): Morgana needs
    Percival, and the special evil roles must fit some table. Checked whatever the variant:
    the config's and a guild's defaults are those of the Avalon games opened with them too (a
    classic game leaves the roles out: ``AvalonSteps.shape_options``). The player count is a
    matter for ``/resistance start``."""
    roles = Options.from_dict(
        {
            "variant": Variant.AVALON.value,
            **{name: bool(options.get(name)) for name in AVALON_OPTIONS},
        }
    )
    try:
        verify_options(roles)
    except MorganaNeedsPercival as exc:
        return Problem(
            "morgana = true needs percival = true (Percival sees Merlin and Morgana)",
            exc.key,
            exc.params,
        )
    except NoTableFits as exc:
        chosen = [c.value for c in evil_characters(roles)[1:]]
        return Problem(
            f"{alternatives(chosen)} with the Assassin are {exc.params['roles']} special evil "
            f"roles: even {exc.params['count']} players have only {exc.params['spies']} spies "
            "(turn some off)",
            exc.key,
            exc.params,
        )
    except GameError as exc:  # a refusal the rules add later: its catalogue message
        return Problem(f"the Avalon roles do not go together ({exc.key})", exc.key, exc.params)
    return None


RESISTANCE_OPTIONS = OptionsSchema(
    "resistance",
    (
        Option(
            "vote_hours",
            float,
            24.0,
            "Hours from a proposal to the result (default 24)",
            min=HOURS[0],
            max=HOURS[1],
        ),
        Option("early_close", bool, False, "Resolve as soon as every vote is in"),
        Option("lock_during_vote", bool, True, "Close the debate while the vote runs"),
        Option(
            "missing_vote", str, "reject", "How a missing vote counts", choices=("reject", "accept")
        ),
        Option(
            "reminder_hours",
            float,
            2.0,
            "Remind non-voters this many hours before the deadline (0 = off)",
            min=HOURS_OR_OFF[0],
            max=HOURS_OR_OFF[1],
        ),
        Option(
            "leader_hours",
            float,
            0.0,
            "Skip a leader who has not proposed within this many hours (0 = off)",
            min=HOURS_OR_OFF[0],
            max=HOURS_OR_OFF[1],
        ),
        Option(
            "moderators_see_roles",
            bool,
            False,
            "Moderators who do not play may see the roles",
            new=False,
        ),
        *DAILY_OPTIONS,
        *STANDBY_OPTIONS,
        *PROD_OPTIONS,
        Option(
            "team_table",
            str,
            "forum",
            "Team sizes: forum (the adaptation's), or box (the published game's; Avalon plays it)",
            choices=("forum", "box"),
        ),
        Option(
            "variant",
            str,
            "classic",
            "classic, or avalon (Merlin and the Assassin, and the roles below)",
            choices=("classic", "avalon"),
        ),
        Option("percival", bool, False, "Avalon: Percival, who sees Merlin (and Morgana)"),
        Option(
            "morgana",
            bool,
            False,
            "Avalon: Morgana, whom Percival may take for Merlin (needs Percival)",
        ),
        Option("mordred", bool, False, "Avalon: Mordred, hidden from Merlin"),
        Option("oberon", bool, False, "Avalon: Oberon, unknown to the other evil players"),
        Option(
            "lady_of_the_lake",
            bool,
            False,
            "Avalon: the Lady of the Lake (recommended from 7 players)",
        ),
    ),
    combination=avalon_roles,
)
