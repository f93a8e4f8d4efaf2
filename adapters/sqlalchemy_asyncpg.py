"""asyncpg's own connection arguments for a SQLAlchemy engine's URL.

The vote path opens asyncpg connections of its own (db/direct.py) to the engine's database,
with the same host, user, password, SSL and timeouts. SQLAlchemy's asyncpg dialect turns its URL
into them in ``Dialect.create_connect_args`` (the interface dialects implement), adding options
of its own adapter that ``asyncpg.connect`` does not take (:data:`SQLALCHEMY_ONLY`).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncEngine

#: Options of SQLAlchemy's asyncpg adapter in ``create_connect_args``, not asyncpg.connect()'s.
SQLALCHEMY_ONLY = ("prepared_statement_cache_size", "prepared_statement_name_func")


def connect_args(engine: AsyncEngine) -> dict[str, Any]:
    """``asyncpg.connect(**connect_args(engine))`` reaches the engine's database."""
    _, kwargs = engine.dialect.create_connect_args(engine.url)
    return {key: value for key, value in kwargs.items() if key not in SQLALCHEMY_ONLY}
