"""The end-to-end fixtures (tests/e2e/support.py)."""

from tests.e2e.support import (  # noqa: F401 - fixtures
    NAMES,
    Table,
    bot,
    public_paths,
    sb,
    table,
)
