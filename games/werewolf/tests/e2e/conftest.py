"""The end-to-end fixtures (tests/e2e/support.py) and the databases (tests/db/support.py);
``bot`` runs the built-in games with Werewolf among them."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from games.builtin import builtin_plugins
from games.werewolf.plugin import PLUGIN
from tests.db.support import sqlite_template  # noqa: F401 - fixture
from tests.e2e.support import NAMES, Table, sb, table  # noqa: F401 - fixtures
from tests.harness import running_bot


@pytest.fixture
async def bot(table: Table) -> AsyncIterator[Any]:  # noqa: F811 - the fixture above
    plugins = [p for p in builtin_plugins() if p.kind != PLUGIN.kind] + [PLUGIN]
    async with running_bot(table.sb, table.url(), plugins=plugins) as running:
        yield running
