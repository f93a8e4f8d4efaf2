"""What a game of Werewolf leaves behind: its record (Markdown), the day-votes picture, the
end-of-game post's files and ``/werewolf history``'s — built from the stored state and the
public event log only, so any process, after any restart, gives the same record."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from bot import posts
from bot.archive import Events, header, names_of
from bot.effects import Attachment, Post
from bot.i18n import t
from bot.plugins import Archive
from bot.records import Picture, public_events
from db import repo
from db.models import Game
from games.werewolf import render, vote_matrix
from games.werewolf.options import WEREWOLF_OPTIONS
from games.werewolf.rules import Werewolf, WerewolfEvent


async def werewolf_events(s: AsyncSession, game: Game) -> list[WerewolfEvent]:
    """The public events of a game of Werewolf."""
    return [e for e in await public_events(s, game) if isinstance(e, WerewolfEvent)]


async def gone(s: AsyncSession, game: Game) -> dict[int, str]:
    """Who left the game (a substitution): their id -> their name, for the record."""
    return {p.user_id: p.display_name for p in await repo.players(s, game.id, False)}


def matrix_of(state: Any, events: Events, left: Mapping[int, str]) -> vote_matrix.Matrix:
    """The day-votes picture's matrix (any phase): the public events, every name (``left``:
    who left the game, their id -> their name)."""
    days = [e for e in events if isinstance(e, WerewolfEvent)]
    return vote_matrix.build(days, {**left, **names_of(state, events)})


async def werewolf_matrix(s: AsyncSession, game: Game, state: Any) -> vote_matrix.Matrix:
    return matrix_of(state, await werewolf_events(s, game), await gone(s, game))


MATRIX = Picture("ww_matrix", "werewolf.matrix.filename", werewolf_matrix, vote_matrix)
"""The day-votes picture, attached to the end's post (``Attachment("ww_matrix", ...)``), to the
archive's record and to ``/werewolf history``."""

#: The picture as a file (``/werewolf history``: games/werewolf/service.py).
matrix_file = MATRIX.file


def end_post(game: Game) -> Post:
    """The record's post at the end, with the day-votes picture before the record; the files
    are built when the post is delivered, from the ended game, which no longer changes."""
    post = posts.archive_post(game)
    return dataclasses.replace(
        post, files=(Attachment(MATRIX.name, (game.id, game.lang)), *post.files)
    )


def outcome(state: Any, lang: str) -> str:
    """Who won, in one line."""
    winner = state.winner
    return t(f"werewolf.archive.{winner.value if winner else 'cancelled'}", lang)


def markdown(game: Game, state: Any, events: Events, lang: str) -> str:
    """The header, then the end's text: every role, the night log, the day-by-day votes."""
    assert isinstance(state, Werewolf)
    left = names_of(state, events)
    lines = header(game, lang, outcome(state, lang), WEREWOLF_OPTIONS)
    body = render.end_text(state, lang, left)
    lines += ["", body]
    return "\n".join(lines) + "\n"


ARCHIVE = Archive(markdown=markdown, outcome=outcome, files=MATRIX.archive_files)
