"""What a game of Werewolf leaves behind: its record (Markdown), the day-votes picture, the
end-of-game post's files and ``/werewolf history``'s — built from the stored state and the
public event log only, so any process, after any restart, gives the same record."""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import discord
from sqlalchemy.ext.asyncio import AsyncSession

from bot import posts
from bot.archive import Events, header, names_of
from bot.effects import Attachment, Post
from bot.i18n import t
from bot.plugins import Archive, FileMaker
from bot.records import file_maker, loaded, public_events
from db import repo
from db.models import Game
from games.werewolf import render, vote_matrix
from games.werewolf.options import WEREWOLF_OPTIONS
from games.werewolf.rules import Werewolf, WerewolfEvent

MATRIX = "ww_matrix"  # the picture's kind of attachment (GamePlugin.files)


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


async def matrix_file(matrix: vote_matrix.Matrix, lang: str, game_id: int) -> FileMaker:
    """The picture, rendered off the event loop, with its text alternative as description."""
    png = await vote_matrix.render_async(matrix, lang)
    return file_maker(
        png,
        t("werewolf.matrix.filename", lang, game=game_id),
        vote_matrix.describe(matrix, lang),
    )


def end_post(game: Game) -> Post:
    """The record's post at the end, with the day-votes picture before the record; the files
    are built when the post is delivered, from the ended game, which no longer changes."""
    post = posts.archive_post(game)
    return dataclasses.replace(post, files=(Attachment(MATRIX, (game.id, game.lang)), *post.files))


def files(
    sessions: Any, services: Mapping[str, Any]
) -> dict[str, Callable[..., Awaitable[discord.File]]]:
    """Werewolf's own attachment: the day-votes picture (``Attachment("ww_matrix", ...)``)."""

    async def matrix(game_id: int, lang: str) -> discord.File:
        async with sessions() as s:
            game, state = await loaded(services, s, game_id)
            built = await werewolf_matrix(s, game, state)
        return (await matrix_file(built, lang, game_id))()

    return {MATRIX: matrix}


async def archive_files(s: AsyncSession, game: Game, state: Any, lang: str) -> list[FileMaker]:
    """``/werewolf archive`` attaches the day-votes picture before the record."""
    return [await matrix_file(await werewolf_matrix(s, game, state), lang, game.id)]


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


ARCHIVE = Archive(markdown=markdown, outcome=outcome, files=archive_files)
