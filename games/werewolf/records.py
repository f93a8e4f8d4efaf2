"""What a game of Werewolf leaves behind: its record (Markdown), built from the stored state
and the public event log only, so any process, after any restart, gives the same record."""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from bot.archive import Events, header, names_of
from bot.i18n import t
from bot.plugins import Archive
from bot.records import public_events
from db.models import Game
from games.werewolf import render
from games.werewolf.options import WEREWOLF_OPTIONS
from games.werewolf.rules import Werewolf, WerewolfEvent


async def werewolf_events(s: AsyncSession, game: Game) -> list[WerewolfEvent]:
    """The public events of a game of Werewolf."""
    return [e for e in await public_events(s, game) if isinstance(e, WerewolfEvent)]


def outcome(state: Any, lang: str) -> str:
    """Who won, in one line."""
    winner = state.winner
    return t(f"werewolf.archive.{winner.value if winner else 'cancelled'}", lang)


def markdown(game: Game, state: Any, events: Events, lang: str) -> str:
    """The header, then the end's text: every role, the night log, the day-by-day votes."""
    assert isinstance(state, Werewolf)
    gone = names_of(state, events)
    lines = header(game, lang, outcome(state, lang), WEREWOLF_OPTIONS)
    body = render.end_text(state, lang, gone)
    lines += ["", body]
    return "\n".join(lines) + "\n"


ARCHIVE = Archive(markdown=markdown, outcome=outcome)
