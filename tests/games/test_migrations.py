"""The one Alembic tree builds the schema of the store and of every built-in game's own tables
(migrations/schema.py: the Refutation Game's decks): a migrated database agrees with those
models, and again after a downgrade to nothing and back."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Connection, inspect

from db.engine import make_engine, migrate
from db.migrate import alembic_config
from migrations.schema import target_metadata
from tests.db.test_engine import TABLES


def _diff(conn: Connection) -> list[object]:
    context = MigrationContext.configure(conn, opts={"compare_type": True})
    return list(compare_metadata(context, target_metadata()))


async def test_migrations_agree_with_the_models(empty_db_url: str) -> None:
    await migrate(empty_db_url)
    engine = make_engine(empty_db_url)
    try:
        async with engine.connect() as conn:
            diff = await conn.run_sync(_diff)
        assert diff == []
    finally:
        await engine.dispose()


async def test_downgrade_to_base_and_up_again(empty_db_url: str) -> None:
    from alembic import command

    from db.migrate import upgrade_on_connection

    await migrate(empty_db_url)

    def downgrade(conn: Connection) -> None:
        config = alembic_config(empty_db_url)
        config.attributes["connection"] = conn
        command.downgrade(config, "base")

    engine = make_engine(empty_db_url, sqlite_foreign_keys=False)
    try:
        async with engine.begin() as conn:
            await conn.run_sync(downgrade)
        async with engine.connect() as conn:
            left = set(await conn.run_sync(lambda c: inspect(c).get_table_names()))
        assert not (TABLES & left)
        async with engine.begin() as conn:
            await conn.run_sync(upgrade_on_connection, alembic_config(empty_db_url))
        async with engine.connect() as conn:
            assert await conn.run_sync(_diff) == []
    finally:
        await engine.dispose()
