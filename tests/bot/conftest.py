"""The core's tests: the databases' fixtures (tests/db/support.py), and the game they run on,
the test-only poll, registered (its events and catalogue) before any test reads a message, as
the root conftest.py registers the built-in games."""

from tests.bot.poll import poll_registry
from tests.db.support import (  # noqa: F401 - fixtures
    backend,
    db_url,
    empty_db_url,
    engine,
    pg_template,
    sessions,
    sqlite_template,
)

poll_registry()
