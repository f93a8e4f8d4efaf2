"""The end-to-end fixtures (tests/e2e/support.py) and the migrated template database
(tests/db/support.py; the games' e2e folders have it from their parent conftest)."""

from tests.db.support import sqlite_template  # noqa: F401 - fixture
from tests.e2e.support import (  # noqa: F401 - fixtures
    NAMES,
    Table,
    bot,
    sb,
    table,
)
