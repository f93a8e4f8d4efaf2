"""Engines, sessions and migrations.

SQLite (aiosqlite) is the default; PostgreSQL (asyncpg) for larger deployments.

On SQLite every connection gets ``journal_mode=WAL``, ``foreign_keys=ON``, ``busy_timeout=5000``
and ``synchronous=NORMAL`` (a committed transaction survives a killed process; the last ones
may be lost on a power cut). SQLAlchemy emits ``BEGIN IMMEDIATE`` itself: a transaction takes
the write lock when it starts, so a transaction that reads then writes never fails with
"database is locked" halfway through; writers queue up for at most ``busy_timeout``. The cost:
transactions from :func:`make_sessions` are serialized, so keep them short and never await
Discord inside one. Read-only work can use ``make_sessions(engine, read_only=True)``
(a deferred ``BEGIN`` that never blocks writers).
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
import weakref
from pathlib import Path
from typing import Any

import sqlalchemy.exc
from sqlalchemy import event
from sqlalchemy.engine import URL, AdaptedConnection, Connection, make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)
from sqlalchemy.pool import NullPool, StaticPool

from adapters.sqlalchemy_sqlite import after_driver_end

log = logging.getLogger(__name__)

# In this order: busy_timeout first, so that switching a new file to WAL waits for a lock.
SQLITE_PRAGMAS: dict[str, str] = {
    "busy_timeout": "5000",
    "journal_mode": "WAL",
    "foreign_keys": "ON",
    "synchronous": "NORMAL",
}

# Execution option read by the SQLite "begin" hook: "IMMEDIATE" (default) or "DEFERRED".
SQLITE_BEGIN_OPTION = "sqlite_begin"

# Key of the PostgreSQL advisory lock that serializes concurrent migrations.
MIGRATION_LOCK_KEY = 0x7062_7067_6D69  # "pbpgmi"


def database_url_default() -> str:
    return "sqlite+aiosqlite:///data/bot.sqlite3"


def is_sqlite(url: str | URL) -> bool:
    return make_url(url).get_backend_name() == "sqlite"


def sqlite_file(url: URL) -> Path | None:
    """The database file of a SQLite URL (None: in memory)."""
    database = url.database
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    return Path(database).expanduser()


def make_engine(url: str | URL, *, sqlite_foreign_keys: bool = True, **kw: Any) -> AsyncEngine:
    """An async engine for ``url``; ``kw`` goes to ``create_async_engine`` (and wins).

    SQLite: creates the database file's folder, sets the pragmas on every connection and takes
    over BEGIN (see the module docstring). ``sqlite_foreign_keys=False`` is for migrations only
    (a batch table rebuild must not cascade). PostgreSQL: a pre-pinged, recycled pool.
    """
    u = make_url(url)
    if u.get_backend_name() == "sqlite":
        path = sqlite_file(u)
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
        engine = create_async_engine(u, **kw)
        _install_sqlite_hooks(engine, foreign_keys=sqlite_foreign_keys)
        return engine
    options: dict[str, Any] = {"pool_pre_ping": True}
    if kw.get("poolclass") not in (NullPool, StaticPool):
        options.update(pool_size=10, max_overflow=20, pool_recycle=1800, pool_timeout=30)
    options.update(kw)
    return create_async_engine(u, **options)


def _install_sqlite_hooks(engine: AsyncEngine, *, foreign_keys: bool) -> None:
    pragmas = dict(SQLITE_PRAGMAS, foreign_keys="ON" if foreign_keys else "OFF")

    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, connection_record: Any) -> None:
        # Let SQLAlchemy emit BEGIN (the driver's legacy mode skips it before SELECTs).
        dbapi_connection.isolation_level = None
        set_pragmas(dbapi_connection, pragmas)

    gate = _WriterGate(int(pragmas["busy_timeout"]) / 1000)
    _GATES[engine.sync_engine] = gate

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(conn: Connection) -> None:
        mode = conn.get_execution_options().get(SQLITE_BEGIN_OPTION, "IMMEDIATE")
        if mode not in ("IMMEDIATE", "DEFERRED", "EXCLUSIVE"):
            raise ValueError(f"bad {SQLITE_BEGIN_OPTION} execution option: {mode!r}")
        if mode != "DEFERRED":
            gate.acquire(conn)
        try:
            conn.exec_driver_sql(f"BEGIN {mode}")
        except BaseException:
            gate.release(conn.info)
            raise

    # The gate opens once the transaction has ended in SQLite, not as it starts to end
    # (adapters/sqlalchemy_sqlite.py). The connection proxy handed to the driver's commit or
    # rollback shares its record's info with the Connection.
    after_driver_end(engine, lambda dbapi_connection: gate.release(_info(dbapi_connection)))

    # A transaction that never reached the driver's commit or rollback (its connection lost)
    # opens the gate when the pool takes the connection back, or drops it.
    @event.listens_for(engine.sync_engine.pool, "checkin")
    @event.listens_for(engine.sync_engine.pool, "invalidate")
    @event.listens_for(engine.sync_engine.pool, "close")
    def _on_gone(dbapi_connection: Any, record: Any, *args: Any) -> None:
        if record is not None:
            gate.release(record.info)


def _info(proxied: Any) -> dict[Any, Any]:
    """The info of a pooled connection's record (a connection made outside the pool, as the
    dialect's first connection, has none: it never took the gate)."""
    try:
        info = proxied.info
    except (AttributeError, NotImplementedError):
        return {}
    return info if isinstance(info, dict) else {}


def set_pragmas(dbapi_connection: Any, pragmas: dict[str, str] = SQLITE_PRAGMAS) -> None:
    """Every SQLite connection's pragmas (see the module docstring)."""
    cursor = dbapi_connection.cursor()
    try:
        for name, value in pragmas.items():
            if name == "journal_mode":
                _set_wal(cursor)
            else:
                cursor.execute(f"PRAGMA {name}={value}")
    finally:
        cursor.close()


def writer_gate(engine: AsyncEngine) -> _WriterGate | None:
    """The writer gate of a SQLite engine made by :func:`make_engine` (None otherwise)."""
    return _GATES.get(engine.sync_engine)


class _WriterGate:
    """Writers of this process queue here, in order, before ``BEGIN IMMEDIATE``.

    Without it, every pooled connection asks SQLite for the write lock at once and the losers
    poll in SQLite's busy handler (sleeps of up to 100 ms), some until ``busy_timeout`` ("database
    is locked"). The gate is an asyncio lock taken in the begin hook (it runs inside SQLAlchemy's
    greenlet, so it can await) and released once the driver's COMMIT or ROLLBACK has returned
    (the write lock is free by then); other processes are still
    kept out by SQLite's own lock and busy handler. Waiting longer than ``busy_timeout`` raises
    "database is locked", as SQLite would.
    """

    KEY = "pbp_writer_gate"

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self._lock: asyncio.Lock | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def _lock_of_loop(self) -> asyncio.Lock:
        loop = asyncio.get_running_loop()
        if self._lock is None or self._loop is not loop:
            self._lock, self._loop = asyncio.Lock(), loop
        return self._lock

    def acquire(self, conn: Connection) -> None:
        """In the begin hook: wait for the gate (through the driver's adapter, which awaits in
        SQLAlchemy's greenlet: ``AdaptedConnection.run_async``); outside one, nothing."""
        adapted = conn.connection.dbapi_connection
        if conn.info.get(self.KEY) is not None or not isinstance(adapted, AdaptedConnection):
            return
        try:
            conn.info[self.KEY] = adapted.run_async(lambda _driver: self._take_of_loop())
        except sqlalchemy.exc.MissingGreenlet:
            return

    async def _take_of_loop(self) -> asyncio.Lock:
        lock = self._lock_of_loop()
        await self._take(lock)
        return lock

    async def acquire_now(self) -> None:
        """Wait for the gate outside SQLAlchemy (db/direct.py); then :meth:`release_now`."""
        await self._take(self._lock_of_loop())

    async def _take(self, lock: asyncio.Lock) -> None:
        if not lock.locked() and not getattr(lock, "_waiters", None):
            await lock.acquire()  # free, nobody queued: taken at once (no timeout task)
            return
        try:
            await asyncio.wait_for(lock.acquire(), self.timeout)
        except TimeoutError:
            raise sqlite3.OperationalError("database is locked") from None

    def free(self) -> bool:
        """Whether the gate is free with nobody queued: a writer that does not await until it
        has committed needs not take it (nothing else of this process runs meanwhile)."""
        lock = self._lock
        if lock is None or self._loop is not asyncio.get_running_loop():
            return True
        return not lock.locked() and not getattr(lock, "_waiters", None)

    @property
    def held(self) -> bool:
        """Whether a writer of this process holds the gate (for the tests)."""
        return self._lock is not None and self._lock.locked()

    def release_now(self) -> None:
        self._lock_of_loop().release()

    def release(self, info: dict[Any, Any]) -> None:
        lock = info.pop(self.KEY, None)
        if lock is not None and lock.locked():
            lock.release()


_GATES: weakref.WeakKeyDictionary[Any, _WriterGate] = weakref.WeakKeyDictionary()


#: SQLite's words for a database that cannot write now (besides "locked": :func:`is_busy`)
SQLITE_CANNOT_WRITE = (
    "database or disk is full",
    "readonly database",
    "unable to open database file",
    "disk i/o error",
    "database disk image is malformed",
)


#: asyncpg's errors for a server that cannot take a write now
POSTGRES_CANNOT_WRITE = frozenset(
    {
        "PostgresConnectionError",
        "ConnectionDoesNotExistError",
        "CannotConnectNowError",
        "ConnectionFailureError",
        "TooManyConnectionsError",
        "DiskFullError",
        "ReadOnlySQLTransactionError",
        "AdminShutdownError",
        "CrashShutdownError",
    }
)


def cannot_write(exc: BaseException) -> str | None:
    """Why the database cannot take a write now, in one line (None: ``exc`` is something
    else): full, read-only, unreachable, or locked past the busy budget. The caller answers
    "not saved, try again" and logs that line; nothing was committed. A network error counts
    only when it comes through the database's own layers (not Discord's)."""
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and len(chain) < 20:
        chain.append(current)
        orig = getattr(current, "orig", None)
        current = orig if isinstance(orig, BaseException) else current.__cause__
    from_database = any(
        isinstance(x, sqlalchemy.exc.SQLAlchemyError)
        or type(x).__module__.startswith(("asyncpg", "sqlite3", "aiosqlite"))
        for x in chain
    )
    for x in chain:
        text = str(x).lower()
        if isinstance(x, sqlite3.DatabaseError) and (
            "locked" in text or any(words in text for words in SQLITE_CANNOT_WRITE)
        ):
            return f"SQLite: {str(x).splitlines()[0]}"
        if type(x).__name__ in POSTGRES_CANNOT_WRITE:  # asyncpg's (the driver is optional)
            return f"PostgreSQL: {type(x).__name__}: {(str(x).splitlines() or [''])[0]}"
        if from_database and isinstance(x, OSError):
            return f"the database cannot be reached: {type(x).__name__}: {x}"
    return None


def is_busy(exc: BaseException) -> bool:
    """Whether ``exc`` is SQLite's "database is locked": another connection held the write
    lock longer than ``busy_timeout`` (the caller may wait and try again)."""
    current: BaseException | None = exc
    while current is not None:
        if isinstance(current, sqlite3.OperationalError) and "locked" in str(current):
            return True
        orig = getattr(current, "orig", None)
        current = orig if isinstance(orig, BaseException) else current.__cause__
    return False


def _set_wal(cursor: Any) -> None:
    """Switch to WAL (persistent in the file). Only a brand-new file that several connections
    open at once can refuse it ("database is locked" without calling the busy handler): retry
    a few times, blocking briefly (this happens once in the life of a database, if ever)."""
    for attempt in range(40):
        try:
            cursor.execute("PRAGMA journal_mode")
            if str(cursor.fetchone()[0]).lower() == "wal":
                return
            cursor.execute("PRAGMA journal_mode=WAL")
            mode = str(cursor.fetchone()[0]).lower()
            if mode == "wal":
                return
            raise RuntimeError(f"SQLite refused WAL mode (journal_mode={mode})")
        except Exception as e:
            if "locked" not in str(e) or attempt == 39:
                raise
            time.sleep(0.025)


def make_sessions(
    engine: AsyncEngine, *, read_only: bool = False
) -> async_sessionmaker[AsyncSession]:
    """Session factory (``expire_on_commit=False``): ``async with sessions.begin() as s: ...``.

    ``read_only=True``: for sessions that only read. SQLite: deferred BEGIN (never waits for
    or blocks writers); PostgreSQL: READ ONLY transactions.
    """
    bind = engine
    if read_only:
        if engine.dialect.name == "sqlite":
            bind = engine.execution_options(**{SQLITE_BEGIN_OPTION: "DEFERRED"})
        elif engine.dialect.name == "postgresql":
            bind = engine.execution_options(postgresql_readonly=True)
    return async_sessionmaker(bind, expire_on_commit=False)


async def _versions(engine: AsyncEngine) -> list[str] | None:
    """The database's ``alembic_version`` rows (None: no such table, a new database)."""
    try:
        async with engine.connect() as conn:
            rows = await conn.exec_driver_sql("SELECT version_num FROM alembic_version")
            return [str(v) for v in rows.scalars().all()]
    except DBAPIError:
        return None


async def ping(url: str | URL) -> None:
    """Connect to ``url`` and run one statement: raises what the driver raises when the
    database cannot be reached (refused, unknown host, wrong password, no such database)."""
    engine = make_engine(url, poolclass=NullPool)
    try:
        async with engine.connect() as conn:
            await conn.exec_driver_sql("SELECT 1")
    finally:
        await engine.dispose()


async def migrate(url: str | URL, revision: str = "head") -> None:
    """Apply pending Alembic migrations (``upgrade head``) to ``url``, from any directory.

    Safe to run from several processes at once (SQLite: write lock; PostgreSQL: advisory lock).
    A database already at the head (read from the files, :func:`db.migrate.head_revision`) is
    left alone without importing Alembic: every start of the bot.
    """
    from db.migrate import alembic_config, head_revision, upgrade_on_connection

    engine = make_engine(url, sqlite_foreign_keys=False, poolclass=NullPool)
    try:
        head = head_revision()
        if revision == "head" and head is not None and await _versions(engine) == [head]:
            return
        async with engine.begin() as conn:
            if conn.dialect.name == "postgresql":
                await conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK_KEY})")
            config = alembic_config(url)
            await conn.run_sync(upgrade_on_connection, config, revision)
            if conn.dialect.name == "sqlite":
                problems = (await conn.exec_driver_sql("PRAGMA foreign_key_check")).all()
                if problems:
                    raise RuntimeError(f"foreign key violations after migration: {problems[:5]}")
    finally:
        await engine.dispose()
