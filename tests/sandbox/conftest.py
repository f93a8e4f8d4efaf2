from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from sandbox import Sandbox
from tests.sandbox.client import sandbox


@pytest.fixture
async def sb() -> AsyncIterator[Sandbox]:
    async with sandbox() as s:
        yield s
