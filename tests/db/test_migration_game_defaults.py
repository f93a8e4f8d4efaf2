"""Migration 0007: a guild's per-game defaults move from one column per game to one JSON column
keyed by kind, values carried over; the downgrade puts them back. On SQLite and PostgreSQL."""

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

REVISION = "0007"

OLD = sa.table(
    "guild_settings",
    sa.column("guild_id", sa.BigInteger()),
    sa.column("language", sa.String()),
    sa.column("resistance_defaults", sa.JSON()),
    sa.column("refutation_defaults", sa.JSON()),
    sa.column("updated_at", sa.DateTime(timezone=True)),
)
NEW = sa.table(
    "guild_settings", sa.column("guild_id", sa.BigInteger()), sa.column("game_defaults", sa.JSON())
)

#: guild id → (resistance_defaults, refutation_defaults) as they were before
BEFORE: dict[int, tuple[dict[str, Any], dict[str, Any]]] = {
    1: ({"vote_hours": 48.0, "variant": "avalon", "percival": True}, {"target": 7}),
    2: ({}, {}),
    3: ({}, {"deadline_time": "21:00", "min_hours": 6.0}),
    2**62: ({"missing_vote": "accept"}, {}),
}
AFTER: dict[int, dict[str, Any]] = {
    1: {
        "resistance": {"vote_hours": 48.0, "variant": "avalon", "percival": True},
        "refutation": {"target": 7},
    },
    2: {},
    3: {"refutation": {"deadline_time": "21:00", "min_hours": 6.0}},
    2**62: {"resistance": {"missing_vote": "accept"}},
}


def previous(url: str) -> str:
    down = ScriptDirectory.from_config(alembic_config(url)).get_revision(REVISION).down_revision
    assert isinstance(down, str)
    return down


def downgrade(conn: Connection, url: str, revision: str) -> None:
    config = alembic_config(url)
    config.attributes["connection"] = conn
    command.downgrade(config, revision)


def columns(conn: Connection) -> set[str]:
    return {c["name"] for c in inspect(conn).get_columns("guild_settings")}


async def test_the_defaults_are_carried_over_up_and_down(empty_db_url: str) -> None:  # noqa: F811
    url = empty_db_url
    before = previous(url)
    engine = make_engine(url, sqlite_foreign_keys=False)

    try:
        async with engine.begin() as conn:
            await conn.run_sync(upgrade_on_connection, alembic_config(url), before)
            await conn.execute(
                OLD.insert(),
                [
                    {
                        "guild_id": gid,
                        "language": "en",
                        "resistance_defaults": rs,
                        "refutation_defaults": rf,
                        "updated_at": datetime(2026, 11, 30, tzinfo=UTC),
                    }
                    for gid, (rs, rf) in BEFORE.items()
                ],
            )
        async with engine.begin() as conn:
            await conn.run_sync(upgrade_on_connection, alembic_config(url), REVISION)
        async with engine.connect() as conn:
            names = await conn.run_sync(columns)
            rows = dict((await conn.execute(sa.select(NEW.c.guild_id, NEW.c.game_defaults))).all())
        assert "game_defaults" in names
        assert not {"resistance_defaults", "refutation_defaults"} & names
        assert rows == AFTER

        async with engine.begin() as conn:
            await conn.run_sync(downgrade, url, before)
        async with engine.connect() as conn:
            names = await conn.run_sync(columns)
            back = (
                await conn.execute(
                    sa.select(OLD.c.guild_id, OLD.c.resistance_defaults, OLD.c.refutation_defaults)
                )
            ).all()
        assert "game_defaults" not in names
        assert {gid: (rs, rf) for gid, rs, rf in back} == BEFORE

        # And up again to the head: the same values.
        async with engine.begin() as conn:
            await conn.run_sync(upgrade_on_connection, alembic_config(url))
        async with engine.connect() as conn:
            rows = dict((await conn.execute(sa.select(NEW.c.guild_id, NEW.c.game_defaults))).all())
        assert rows == AFTER
    finally:
        await engine.dispose()


async def test_a_game_without_a_column_of_its_own_is_dropped_by_the_downgrade(
    empty_db_url: str,  # noqa: F811
) -> None:
    """Defaults of a game that had no column before (a plugin game) cannot go back: dropped,
    the two old games' kept."""
    url = empty_db_url
    engine = make_engine(url, sqlite_foreign_keys=False)

    try:
        async with engine.begin() as conn:
            await conn.run_sync(upgrade_on_connection, alembic_config(url), REVISION)
            await conn.execute(
                sa.table(
                    "guild_settings",
                    sa.column("guild_id", sa.BigInteger()),
                    sa.column("language", sa.String()),
                    sa.column("game_defaults", sa.JSON()),
                    sa.column("updated_at", sa.DateTime(timezone=True)),
                ).insert(),
                {
                    "guild_id": 5,
                    "language": "fr",
                    "game_defaults": {"poll": {"hours": 2.0}, "resistance": {"early_close": True}},
                    "updated_at": datetime(2026, 11, 30, tzinfo=UTC),
                },
            )
        async with engine.begin() as conn:
            await conn.run_sync(downgrade, url, previous(url))
        async with engine.connect() as conn:
            back = (
                await conn.execute(sa.select(OLD.c.resistance_defaults, OLD.c.refutation_defaults))
            ).one()
        assert tuple(back) == ({"early_close": True}, {})
    finally:
        await engine.dispose()
