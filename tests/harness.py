"""How the tests run the bot against the sandbox: bot.harness, with the built-in games unless a
test names others (the tests are a composition root, like bot/__main__.py)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterable
from typing import Any

from bot.app import GameBot
from bot.harness import running_bot as _running_bot
from bot.harness import sandbox_settings, sqlite_url
from bot.plugins import GamePlugin, Registry
from games.builtin import builtin_plugins

__all__ = ["running_bot", "sandbox_settings", "sqlite_url"]


@contextlib.asynccontextmanager
async def running_bot(
    sb: Any,
    database_url: str,
    *,
    plugins: Iterable[GamePlugin] | Registry | None = None,
    **options: Any,
) -> AsyncIterator[GameBot]:
    """bot.harness.running_bot; ``plugins``: the games it runs (default: the built-in ones)."""
    games = builtin_plugins() if plugins is None else plugins
    async with _running_bot(sb, database_url, plugins=games, **options) as bot:
        yield bot
