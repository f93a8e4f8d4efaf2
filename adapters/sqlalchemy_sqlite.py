"""A hook once SQLite's driver has ended a transaction, not as it starts to.

SQLAlchemy's ``commit`` and ``rollback`` events come before the driver's call: the write lock is
still held then. The SQLite writer gate of db/engine.py must open once it is free (the direct
vote path's ``BEGIN IMMEDIATE``, which never waits in SQLite, would otherwise meet this process's
own lock): :func:`after_driver_end` wraps the engine dialect's ``do_commit`` and
``do_rollback`` (the Dialect interface's calls of the driver's ``commit()`` and ``rollback()``),
on that engine's dialect only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy.ext.asyncio import AsyncEngine


def after_driver_end(engine: AsyncEngine, ended: Callable[[Any], None]) -> None:
    """Call ``ended(dbapi_connection)`` after each COMMIT or ROLLBACK of the driver returned or
    raised (the connection handed to it: the pool's proxy, whose ``info`` is its record's)."""
    dialect = engine.sync_engine.dialect
    commit, rollback = dialect.do_commit, dialect.do_rollback

    def do_commit(dbapi_connection: Any) -> None:
        try:
            commit(dbapi_connection)
        finally:
            ended(dbapi_connection)

    def do_rollback(dbapi_connection: Any) -> None:
        try:
            rollback(dbapi_connection)
        finally:
            ended(dbapi_connection)

    setattr(dialect, "do_commit", do_commit)  # noqa: B010 - this engine's dialect only
    setattr(dialect, "do_rollback", do_rollback)  # noqa: B010
