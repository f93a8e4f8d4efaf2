"""The poll's record: everything the application needs to know to run it (bot.plugins).

A test registers it by passing it to the bot: ``running_bot(..., plugins=[*builtin_plugins(),
PLUGIN])``. A built-in game adds its module to ``games.builtin.BUILTIN`` instead.
"""

from __future__ import annotations

from pathlib import Path

from bot.options import PROD_OPTIONS, Option, OptionsSchema
from bot.plugins import GamePlugin
from tests.e2e.poll_game import records
from tests.e2e.poll_game.cog import VoteButton, vote_view
from tests.e2e.poll_game.rules import PollEvent
from tests.e2e.poll_game.service import PollService

POLL_OPTIONS = OptionsSchema(
    "poll",
    (
        Option(
            "vote_hours",
            float,
            24.0,
            "Hours to answer once the poll starts (default 24)",
            min=0.0005,
            max=336.0,
        ),
        *PROD_OPTIONS,
    ),
)

PLUGIN = GamePlugin(
    kind="poll",
    deadline_prefixes=("pl",),
    service=PollService,
    cog="tests.e2e.poll_game.cog",
    options=POLL_OPTIONS,
    buttons=(VoteButton,),
    views={"pl_vote": vote_view},
    locales=Path(__file__).parent / "locales",
    events=PollEvent,
    archive=records.ARCHIVE,
    stats=records.STATS,
)
