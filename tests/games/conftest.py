"""The fixtures of the built-in games' tests together: the databases (tests/db/support.py)."""

from tests.db.support import (  # noqa: F401 - fixtures
    backend,
    db_url,
    empty_db_url,
    engine,
    pg_template,
    sessions,
    sqlite_template,
)
