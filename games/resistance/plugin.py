"""The Resistance as the application knows it (bot.plugins): one record, listed in
games/builtin.py. Everything else of the game lives in this package."""

from __future__ import annotations

from bot.plugins import GamePlugin
from games.resistance import LOCALES, records, rulebook, stats
from games.resistance.components import (
    ChoiceMenu,
    ProposeButton,
    TeamMenu,
    VoteButton,
    choice_view,
    team_view,
    vote_view,
)
from games.resistance.options import RESISTANCE_OPTIONS
from games.resistance.rules import ResistanceEvent
from games.resistance.service import ResistanceService

PLUGIN = GamePlugin(
    kind="resistance",
    deadline_prefixes=("rs",),
    service=ResistanceService,
    cog="games.resistance.cog",
    options=RESISTANCE_OPTIONS,
    buttons=(ChoiceMenu, TeamMenu, ProposeButton, VoteButton),
    views={"rs_vote": vote_view, "rs_avalon_choice": choice_view, "rs_team": team_view},
    files=records.MATRIX.files,
    locales=LOCALES,
    demos={
        "resistance": "games.resistance.demo:play_resistance",
        "avalon": "games.resistance.demo_avalon:play_avalon",
    },
    events=ResistanceEvent,
    archive=records.ARCHIVE,
    stats=stats.STATS,
    rules=rulebook.rules,
)
