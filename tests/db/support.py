"""Database fixtures shared by every test folder (the root conftest.py's ``pytest_plugins``).

Every test gets its own database: a copy of a migrated template (SQLite: a file copied into
``tmp_path``; PostgreSQL: ``CREATE DATABASE ... TEMPLATE ...``), dropped afterwards. The
PostgreSQL variants run only when ``TEST_DATABASE_URL`` is set, e.g.
``postgresql+asyncpg://postgres@127.0.0.1:5432/postgres``; that database is only used to
create and drop the per-test ones.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import threading
import uuid
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from db.engine import make_engine, make_sessions, migrate

T = TypeVar("T")

PG_ENV = "TEST_DATABASE_URL"
BACKENDS = ["sqlite", "postgresql"]


def pg_url() -> str | None:
    return os.environ.get(PG_ENV) or None


def run_in_thread(fn: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run a coroutine to completion on a fresh loop in another thread (usable anywhere)."""
    values: list[T] = []
    errors: list[BaseException] = []

    def target() -> None:
        try:
            values.append(asyncio.run(fn()))
        except BaseException as e:
            errors.append(e)

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if errors:
        raise errors[0]
    return values[0]


def _pg_dsn(url: str, database: str | None = None) -> str:
    u = make_url(url).set(drivername="postgresql")
    if database is not None:
        u = u.set(database=database)
    return u.render_as_string(hide_password=False)


def pg_database_url(database: str) -> str:
    url = pg_url()
    assert url is not None
    return make_url(url).set(database=database).render_as_string(hide_password=False)


async def _pg_admin(*statements: str) -> None:
    import asyncpg

    url = pg_url()
    assert url is not None
    conn = await asyncpg.connect(_pg_dsn(url))
    try:
        for statement in statements:
            await conn.execute(statement)
    finally:
        await conn.close()


def pg_create(name: str, template: str | None = None) -> str:
    suffix = f" TEMPLATE {template}" if template else ""
    run_in_thread(lambda: _pg_admin(f'CREATE DATABASE "{name}"{suffix}'))
    return pg_database_url(name)


def pg_drop(name: str) -> None:
    run_in_thread(lambda: _pg_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


def _unique(prefix: str) -> str:
    return f"{prefix}_{os.getpid()}_{uuid.uuid4().hex[:10]}"


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    if name == "postgresql" and pg_url() is None:
        pytest.skip(f"PostgreSQL: set {PG_ENV} to run")
    return name


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("template") / "template.sqlite3"
    run_in_thread(lambda: migrate(f"sqlite+aiosqlite:///{path}"))
    return path


@pytest.fixture(scope="session")
def pg_template() -> Iterator[str | None]:
    if pg_url() is None:
        yield None
        return
    name = _unique("tmpl")
    url = pg_create(name)
    try:
        run_in_thread(lambda: migrate(url))
        yield name
    finally:
        pg_drop(name)


@pytest.fixture
def empty_db_url(backend: str, tmp_path: Path) -> Iterator[str]:
    """A database with no tables at all."""
    if backend == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path}/empty.sqlite3"
        return
    name = _unique("test")
    try:
        yield pg_create(name)
    finally:
        pg_drop(name)


@pytest.fixture
def db_url(
    backend: str,
    tmp_path: Path,
    request: pytest.FixtureRequest,
) -> Iterator[str]:
    """A fresh database migrated to head."""
    if backend == "sqlite":
        template: Path = request.getfixturevalue("sqlite_template")
        path = tmp_path / "bot.sqlite3"
        shutil.copyfile(template, path)
        yield f"sqlite+aiosqlite:///{path}"
        return
    template_name: str | None = request.getfixturevalue("pg_template")
    assert template_name is not None
    name = _unique("test")
    try:
        yield pg_create(name, template=template_name)
    finally:
        pg_drop(name)


@pytest.fixture
async def engine(db_url: str) -> AsyncIterator[AsyncEngine]:
    eng = make_engine(db_url)
    try:
        yield eng
    finally:
        await eng.dispose()


@pytest.fixture
def sessions(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return make_sessions(engine)
