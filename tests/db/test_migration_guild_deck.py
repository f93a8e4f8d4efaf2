"""Migration 0012: the guild's Refutation deck moves from a column of the core's
``guild_settings`` to that game's defaults (``game_defaults["refutation"]["deck"]``), values
carried over; the downgrade puts them back. On SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from alembic import command
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, inspect

from db.engine import make_engine
from db.migrate import alembic_config, upgrade_on_connection
from tests.db.support import backend, empty_db_url  # noqa: F401 - fixtures

REVISION = "0012"

OLD = sa.table(
    "guild_settings",
    sa.column("guild_id", sa.BigInteger()),
    sa.column("language", sa.String()),
    sa.column("game_defaults", sa.JSON()),
    sa.column("deck_name", sa.String()),
    sa.column("updated_at", sa.DateTime(timezone=True)),
)

#: guild id → (game_defaults, deck_name) before
BEFORE: dict[int, tuple[dict[str, Any], str | None]] = {
    1: ({"refutation": {"target": 7}, "resistance": {"vote_hours": 48.0}}, "klimat"),
    2: ({}, None),
    3: ({}, "school-deck"),
    4: ({"refutation": {"target": 5}}, None),
}
AFTER: dict[int, dict[str, Any]] = {
    1: {"refutation": {"target": 7, "deck": "klimat"}, "resistance": {"vote_hours": 48.0}},
    2: {},
    3: {"refutation": {"deck": "school-deck"}},
    4: {"refutation": {"target": 5}},
}


def downgrade(conn: Connection, url: str, revision: str) -> None:
    config = alembic_config(url)
    config.attributes["connection"] = conn
    command.downgrade(config, revision)


def columns(conn: Connection) -> set[str]:
    return {c["name"] for c in inspect(conn).get_columns("guild_settings")}


async def test_the_guild_deck_is_carried_over_up_and_down(empty_db_url: str) -> None:  # noqa: F811
    url = empty_db_url
    before = ScriptDirectory.from_config(alembic_config(url)).get_revision(REVISION).down_revision
    assert isinstance(before, str)
    engine = make_engine(url, sqlite_foreign_keys=False)
    try:
        async with engine.begin() as conn:
            await conn.run_sync(upgrade_on_connection, alembic_config(url), before)
            at = datetime(2026, 12, 1, tzinfo=UTC)
            await conn.execute(
                OLD.insert(),
                [
                    {"guild_id": g, "language": "en", "game_defaults": d, "deck_name": deck}
                    | {"updated_at": at}
                    for g, (d, deck) in BEFORE.items()
                ],
            )
        async with engine.begin() as conn:
            await conn.run_sync(upgrade_on_connection, alembic_config(url), REVISION)
        async with engine.connect() as conn:
            assert "deck_name" not in await conn.run_sync(columns)
            query = sa.select(OLD.c.guild_id, OLD.c.game_defaults)
            assert dict((await conn.execute(query)).all()) == AFTER

        async with engine.begin() as conn:
            await conn.run_sync(downgrade, url, before)
        async with engine.connect() as conn:
            query = sa.select(OLD.c.guild_id, OLD.c.game_defaults, OLD.c.deck_name)
            rows: list[Any] = list((await conn.execute(query)).all())
        back = {row[0]: (row[1], row[2]) for row in rows}
        assert back == BEFORE
    finally:
        await engine.dispose()
