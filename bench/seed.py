"""Seed games straight into the database, in the "vote" phase, with the real rules engine.

Setting up hundreds of games through slash commands would take minutes; the state written here
is what ``/resistance start`` + ``/resistance propose`` write (``Resistance.setup`` then
``propose``, players with seats and roles, the vote and reminder deadlines), in bulk inserts.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, insert, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.pool import NullPool

from db.engine import is_sqlite, make_engine, migrate
from db.models import Deadline, Game, Player
from games.resistance.options import RESISTANCE_OPTIONS
from games.resistance.rules import Options, Resistance
from games.resistance.rules import Player as EnginePlayer

BATCH = 500


@dataclass
class SeedGame:
    """One game to seed: where it is and who plays (``(user_id, name)``, 10 of them)."""

    id: int
    guild_id: int
    channel_id: int
    created_by: int
    players: list[tuple[int, str]]
    # filled by seed_games()
    leader: int = 0
    team: tuple[int, ...] = ()
    proposal: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


async def fresh_database(url: str) -> None:
    """An empty, migrated database: SQLite file removed, PostgreSQL database re-created."""
    u = make_url(url)
    if is_sqlite(u):
        if u.database:
            from pathlib import Path

            for suffix in ("", "-wal", "-shm"):
                Path(u.database + suffix).unlink(missing_ok=True)  # noqa: ASYNC240 - setup
    else:
        admin = create_async_engine(
            u.set(database="postgres"), isolation_level="AUTOCOMMIT", poolclass=NullPool
        )
        try:
            async with admin.connect() as conn:
                await conn.execute(text(f'DROP DATABASE IF EXISTS "{u.database}" WITH (FORCE)'))
                await conn.execute(text(f'CREATE DATABASE "{u.database}"'))
        finally:
            await admin.dispose()
    await migrate(url)


Rows = dict[str, list[dict[str, Any]]]


def seed_rows(
    games: list[SeedGame],
    *,
    now: datetime,
    vote_due: timedelta = timedelta(hours=24),
    overdue: set[int] | None = None,
    extra_deadlines: int = 0,
    seed: int = 1,
) -> Rows:
    """The rows of ``games`` running, first proposal made, vote open (and ``leader``, ``team``,
    ``proposal``, ``extra["roles"]`` filled in each :class:`SeedGame`); two open deadlines each
    (the vote and its reminder), overdue for the game ids in ``overdue``; then
    ``extra_deadlines`` more future reminders spread over the games (to reach a deadline count).
    The floor scenario uses the same plan without a database."""
    overdue = overdue or set()
    defaults = RESISTANCE_OPTIONS.defaults()
    rng = random.Random(seed)
    game_rows: list[dict[str, Any]] = []
    player_rows: list[dict[str, Any]] = []
    deadline_rows: list[dict[str, Any]] = []
    for g in games:
        state, _ = Resistance.setup(
            [EnginePlayer(uid, name) for uid, name in g.players],
            random.Random(rng.getrandbits(64)),
            Options(),
        )
        leader = state.leader
        team = [leader, *[p for p in state.leader_order if p != leader][: state.team_size - 1]]
        state.propose(leader, team)
        g.leader, g.team, g.proposal = leader, tuple(team), state.proposal_number
        g.extra["roles"] = {uid: state.roles[uid].value for uid, _ in g.players}
        game_rows.append(
            {
                "id": g.id,
                "kind": "resistance",
                "guild_id": g.guild_id,
                "channel_id": g.channel_id,
                "thread_id": None,
                "status": "running",
                "options": dict(defaults),
                "created_by": g.created_by,
                "created_at": now - timedelta(hours=1),
                "started_at": now - timedelta(hours=1),
                "state": state.to_dict(),
                "version": 2,
                "lang": "en",
            }
        )
        for uid, name in g.players:
            player_rows.append(
                {
                    "game_id": g.id,
                    "user_id": uid,
                    "display_name": name,
                    "seat": state.leader_order.index(uid),
                    "role": state.roles[uid].value,
                    "locale": "en",
                    "dm_failed": False,
                    "active": True,
                    "joined_at": now - timedelta(hours=2),
                }
            )
        due = now - timedelta(minutes=5) if g.id in overdue else now + vote_due
        for kind, at in (("rs_vote", due), ("rs_reminder", due - timedelta(hours=2))):
            deadline_rows.append(
                {
                    "game_id": g.id,
                    "guild_id": g.guild_id,
                    "kind": kind,
                    "due_at": at,
                    "status": "open",
                    "payload": {"proposal": g.proposal},
                    "created_at": now - timedelta(minutes=30),
                }
            )
    future = [g for g in games if g.id not in overdue] or games
    for i in range(extra_deadlines):
        g = future[i % len(future)]
        deadline_rows.append(
            {
                "game_id": g.id,
                "guild_id": g.guild_id,
                "kind": "rs_reminder",
                "due_at": now + timedelta(hours=1 + (i % 240) / 10),
                "status": "open",
                "payload": {"proposal": g.proposal},
                "created_at": now - timedelta(minutes=30),
            }
        )
    return {"games": game_rows, "players": player_rows, "deadlines": deadline_rows}


async def seed_games(url: str, games: list[SeedGame], **plan: Any) -> None:
    """Insert the rows of :func:`seed_rows` (same keyword arguments) in bulk."""
    rows = seed_rows(games, **plan)
    engine = make_engine(url, poolclass=NullPool)
    try:
        async with engine.begin() as conn:
            for table, batch in (
                (Game.__table__, rows["games"]),
                (Player.__table__, rows["players"]),
                (Deadline.__table__, rows["deadlines"]),
            ):
                for start in range(0, len(batch), BATCH):
                    await conn.execute(insert(table), batch[start : start + BATCH])
            if conn.dialect.name == "postgresql" and rows["games"]:
                top = (await conn.execute(select(func.max(Game.id)))).scalar_one()
                await conn.execute(
                    text("SELECT setval(pg_get_serial_sequence('games', 'id'), :v)"), {"v": top}
                )
    finally:
        await engine.dispose()
