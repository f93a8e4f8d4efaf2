"""Migration 0006: games.kind is no longer checked by the database (the plugins' registry is the
one list of kinds), on SQLite (batch mode) and PostgreSQL; going down puts the CHECK back."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from alembic import command
from sqlalchemy import Connection, inspect, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from db.engine import make_engine
from db.migrate import alembic_config, upgrade_on_connection

INSERT = text(
    "INSERT INTO games (kind, guild_id, channel_id, status, options, created_by, created_at,"
    " version, lang) VALUES (:kind, 1, :channel, 'lobby', '{}', 7, '2026-11-30 12:00:00+00:00',"
    " 0, 'en')"
)


@pytest.fixture
async def engine(empty_db_url: str) -> AsyncIterator[AsyncEngine]:
    engine = make_engine(empty_db_url, sqlite_foreign_keys=False)
    try:
        yield engine
    finally:
        await engine.dispose()


async def go(engine: AsyncEngine, url: str, revision: str, *, down: bool = False) -> None:
    def run(conn: Connection) -> None:
        config = alembic_config(url)
        if down:
            config.attributes["connection"] = conn
            command.downgrade(config, revision)
        else:
            upgrade_on_connection(conn, config, revision)

    async with engine.begin() as conn:
        await conn.run_sync(run)


async def add_game(engine: AsyncEngine, kind: str, channel: int) -> None:
    async with engine.begin() as conn:
        await conn.execute(INSERT, {"kind": kind, "channel": channel})


async def kinds(conn: AsyncConnection) -> list[str]:
    return [k for (k,) in await conn.execute(text("SELECT kind FROM games ORDER BY id"))]


def checks(conn: Connection) -> set[str | None]:
    return {c["name"] for c in inspect(conn).get_check_constraints("games")}


async def test_kind_check_dropped_and_restored(engine: AsyncEngine, empty_db_url: str) -> None:
    await go(engine, empty_db_url, "0005")
    await add_game(engine, "resistance", 10)
    with pytest.raises(IntegrityError):
        await add_game(engine, "poll", 11)

    await go(engine, empty_db_url, "0006")
    await add_game(engine, "poll", 11)
    async with engine.connect() as conn:
        assert await kinds(conn) == ["resistance", "poll"]
        left = await conn.run_sync(checks)
        indexes = {
            i["name"] for i in await conn.run_sync(lambda c: inspect(c).get_indexes("games"))
        }
    # Only the kind's CHECK went: the status and language ones, and the indexes, are kept.
    assert "ck_games_kind" not in left and {"ck_games_status", "ck_games_lang"} <= left
    assert {"uq_games_active_channel", "uq_games_active_thread", "ix_games_guild_id"} <= indexes
    # The partial unique index still holds: one active game per channel.
    with pytest.raises(IntegrityError):
        await add_game(engine, "poll", 11)

    # Down again is refused while a game of another kind is stored...
    with pytest.raises(IntegrityError):
        await go(engine, empty_db_url, "0005", down=True)
    async with engine.begin() as conn:
        await conn.execute(text("DELETE FROM games WHERE kind = 'poll'"))
    # ... and puts the CHECK back once there is none.
    await go(engine, empty_db_url, "0005", down=True)
    async with engine.connect() as conn:
        assert await kinds(conn) == ["resistance"]
        assert "ck_games_kind" in await conn.run_sync(checks)
    with pytest.raises(IntegrityError):
        await add_game(engine, "poll", 12)
