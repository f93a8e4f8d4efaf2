from __future__ import annotations

import asyncio
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Connection, event, inspect, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from db import repo
from db.engine import database_url_default, make_engine, make_sessions, migrate, writer_gate
from db.migrate import alembic_config, head_revision, script_location
from db.models import Player

Sessions = async_sessionmaker[AsyncSession]
TABLES = {
    "guild_settings",
    "games",
    "players",
    "votes",
    "events",
    "deadlines",
    "messages",
    "outbox",
    "saved_overwrites",
}


def test_default_url() -> None:
    assert database_url_default() == "sqlite+aiosqlite:///data/bot.sqlite3"


def test_migrations_folder_is_found_without_alembic_ini() -> None:
    assert (Path(script_location()) / "env.py").is_file()
    assert alembic_config().get_main_option("script_location") == script_location()


async def test_sqlite_pragmas_on_every_connection(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite+aiosqlite:///{tmp_path}/new/folder/bot.sqlite3")
    try:
        assert (tmp_path / "new" / "folder").is_dir()
        # several pooled connections at once (deferred BEGIN: two connections of one task
        # would otherwise wait for each other's write lock)
        readers = engine.execution_options(sqlite_begin="DEFERRED")
        for _ in range(3):
            async with readers.connect() as a, readers.connect() as b:
                for conn in (a, b):
                    pragma = {
                        name: (await conn.exec_driver_sql(f"PRAGMA {name}")).scalar()
                        for name in ("journal_mode", "foreign_keys", "busy_timeout", "synchronous")
                    }
                    assert pragma == {
                        "journal_mode": "wal",
                        "foreign_keys": 1,
                        "busy_timeout": 5000,
                        "synchronous": 1,  # NORMAL
                    }
    finally:
        await engine.dispose()


async def test_sqlite_transactions_take_the_write_lock_at_begin(
    sqlite_template: Path, tmp_path: Path
) -> None:
    """BEGIN IMMEDIATE: a second writer waits (busy_timeout) instead of failing halfway."""
    shutil.copyfile(sqlite_template, tmp_path / "bot.sqlite3")
    engine = make_engine(f"sqlite+aiosqlite:///{tmp_path}/bot.sqlite3")
    sessions = make_sessions(engine)
    readers = make_sessions(engine, read_only=True)
    try:
        order: list[str] = []
        async with sessions.begin() as s:
            await s.execute(text("SELECT 1"))  # holds the write lock from here

            async def second() -> None:
                async with sessions.begin() as s2:
                    await repo.get_guild_settings(s2, 1)
                    order.append("second writer")

            async def reader() -> None:
                async with readers.begin() as r:  # deferred: does not wait for the writer
                    await repo.get_guild_settings(r, 1)
                    order.append("reader")

            waiting = asyncio.create_task(second())
            await asyncio.wait_for(reader(), timeout=2)
            await asyncio.sleep(0.2)
            order.append("first writer")
        await asyncio.wait_for(waiting, timeout=5)
        assert order == ["reader", "first writer", "second writer"]
    finally:
        await engine.dispose()


async def test_sqlite_writer_gate_opens_once_the_driver_has_committed(
    sqlite_template: Path, tmp_path: Path
) -> None:
    """The process's next writer is let in only once SQLite's COMMIT (or ROLLBACK) has returned:
    its BEGIN IMMEDIATE then never meets this process's own write lock. The gate is held while
    the driver commits or rolls back, and free right after."""
    shutil.copyfile(sqlite_template, tmp_path / "bot.sqlite3")
    engine = make_engine(f"sqlite+aiosqlite:///{tmp_path}/bot.sqlite3")
    sessions = make_sessions(engine)
    gate = writer_gate(engine)
    assert gate is not None
    seen: list[tuple[str, bool]] = []

    @event.listens_for(engine.sync_engine, "begin")
    def spy(conn: Connection) -> None:  # after the engine's own begin hook
        adapted = conn.connection.dbapi_connection
        assert adapted is not None
        driver = adapted._connection
        if getattr(driver, "spied", False):
            return
        for name in ("commit", "rollback"):  # aiosqlite's, in the driver's thread

            async def spied(call: Any = getattr(driver, name), name: str = name) -> None:
                if driver.in_transaction:  # not the pool's reset of an idle connection
                    seen.append((name, gate.held))
                await call()

            setattr(driver, name, spied)
        driver.spied = True

    try:
        async with sessions.begin() as s:
            await repo.get_guild_settings(s, 1)
        assert not gate.held
        with pytest.raises(RuntimeError):
            async with sessions.begin() as s:
                await repo.get_guild_settings(s, 1)
                raise RuntimeError("rolled back")
        assert not gate.held
        assert seen == [("commit", True), ("rollback", True)]
    finally:
        await engine.dispose()


async def test_foreign_keys_are_enforced(sessions: Sessions) -> None:
    with pytest.raises(IntegrityError):
        async with sessions.begin() as s:
            s.add(Player(game_id=12345, user_id=1, display_name="nobody"))


async def test_migrate_from_another_directory_is_idempotent(
    empty_db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    await migrate(empty_db_url)
    await migrate(empty_db_url)  # nothing pending: a no-op
    engine = make_engine(empty_db_url)
    try:
        async with engine.connect() as conn:
            tables = set(await conn.run_sync(lambda c: inspect(c).get_table_names()))
            version = (await conn.execute(text("SELECT version_num FROM alembic_version"))).all()
        assert tables >= TABLES
        from alembic.script import ScriptDirectory

        from db.migrate import alembic_config

        head = ScriptDirectory.from_config(alembic_config(empty_db_url)).get_current_head()
        assert version == [(head,)] and head is not None
    finally:
        await engine.dispose()


def test_head_revision_read_from_the_files_is_alembics() -> None:
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None and head_revision() == head


async def test_a_database_at_the_head_is_left_alone_and_an_older_one_upgraded(
    empty_db_url: str,
) -> None:
    """Start-up's fast path: with ``alembic_version`` at the head, ``migrate`` returns without
    even importing Alembic (a fresh process says which modules it loaded); at an older
    revision, Alembic upgrades it."""
    head = head_revision()
    assert head is not None
    await migrate(empty_db_url, "0007")
    assert await _migrate_in_a_process(empty_db_url) == "alembic imported"
    assert await _migrate_in_a_process(empty_db_url) == "alembic not imported"
    engine = make_engine(empty_db_url)
    try:
        async with engine.connect() as conn:
            tables = set(await conn.run_sync(lambda c: inspect(c).get_table_names()))
            version = (await conn.execute(text("SELECT version_num FROM alembic_version"))).all()
        assert tables >= TABLES and version == [(head,)]
    finally:
        await engine.dispose()


async def _migrate_in_a_process(url: str) -> str:
    code = (
        "import asyncio, sys\n"
        "from db.engine import migrate\n"
        "asyncio.run(migrate(sys.argv[1]))\n"
        "print('alembic imported' if 'alembic' in sys.modules else 'alembic not imported')\n"
    )
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", code, url, stdout=asyncio.subprocess.PIPE
    )
    out, _ = await proc.communicate()
    assert proc.returncode == 0
    return out.decode().strip()


async def test_concurrent_migrations(empty_db_url: str) -> None:
    """Several processes starting at once (here: tasks) all migrate without error."""
    await asyncio.gather(*(migrate(empty_db_url) for _ in range(3)))


async def test_engine_fixture_is_migrated(engine: AsyncEngine) -> None:
    async with engine.connect() as conn:
        tables = set(await conn.run_sync(lambda c: inspect(c).get_table_names()))
    assert tables >= TABLES
