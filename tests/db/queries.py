"""Reads and deletions only the tests need (the bot itself never calls them): kept out of
``db/repo.py`` so that the repository holds only what the application uses."""

from __future__ import annotations

from typing import Any

from sqlalchemy import CursorResult, delete, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from db import repo
from db.models import Game, Outbox, Vote


async def delete_game(s: AsyncSession, game_id: int) -> bool:
    """Delete a game and (ON DELETE CASCADE) everything that belongs to it."""
    result = await s.execute(delete(Game).where(Game.id == game_id))
    assert isinstance(result, CursorResult)
    return bool(result.rowcount)


async def vote_rows(
    s: AsyncSession, game_id: int, round_key: str | None = None, kind: str | None = None
) -> list[Vote]:
    """The vote rows themselves (with ``seq`` and ``updated_at``), by id."""
    stmt = select(Vote).where(Vote.game_id == game_id).order_by(Vote.id)
    if round_key is not None:
        stmt = stmt.where(Vote.round_key == round_key)
    if kind is not None:
        stmt = stmt.where(Vote.kind == kind)
    return list((await s.scalars(stmt)).all())


async def next_effect(s: AsyncSession, game_id: int) -> Outbox | None:
    """The game's first pending effect (lowest ``seq``)."""
    rows = await repo.pending_effects(s, game_id, limit=1)
    return rows[0] if rows else None


async def count_rows(s: AsyncSession, model: type[Any]) -> int:
    """How many rows a table holds."""
    return int((await s.execute(select(func.count()).select_from(model))).scalar_one())
