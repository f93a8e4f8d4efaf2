"""Werewolf as the application knows it (bot.plugins): one record, listed in games/builtin.py.
Everything else of the game lives in this package."""

from __future__ import annotations

from bot.plugins import GamePlugin
from games.werewolf import LOCALES, records, rulebook, settings, stats
from games.werewolf.components import VIEWS, NoElimination
from games.werewolf.options import WEREWOLF_OPTIONS
from games.werewolf.rules import WerewolfEvent
from games.werewolf.service import WerewolfService

PLUGIN = GamePlugin(
    kind="werewolf",
    deadline_prefixes=("ww",),
    service=WerewolfService,
    cog="games.werewolf.cog",
    options=WEREWOLF_OPTIONS,
    buttons=(NoElimination,),
    views=VIEWS,
    files=records.MATRIX.files,
    locales=LOCALES,
    demos={"werewolf": "games.werewolf.demo:play_werewolf"},
    events=WerewolfEvent,
    archive=records.ARCHIVE,
    stats=stats.STATS,
    rules=rulebook.rules,
    settings_command=settings.settings_group,
    settings_lines=settings.settings_lines,
)
