"""How the tests run the bot against the sandbox: playtest.harness, with the built-in games unless
a test names others (the tests are a composition root, like bot/__main__.py)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterable
from dataclasses import replace
from typing import Any

from bot.app import GameBot
from bot.config import InternalsSettings
from bot.plugins import GamePlugin, Registry
from games.builtin import builtin_plugins
from playtest.harness import running_bot as _running_bot
from playtest.harness import sandbox_settings, sqlite_url

__all__ = ["running_bot", "sandbox_settings", "sqlite_url"]

#: The bypasses the bots a test starts run with, when it says (the ``public_paths`` fixture of
#: tests/e2e/support.py); None: the settings' own.
KEPT: list[frozenset[str] | None] = [None]


@contextlib.asynccontextmanager
async def running_bot(
    sb: Any,
    database_url: str,
    *,
    plugins: Iterable[GamePlugin] | Registry | None = None,
    **options: Any,
) -> AsyncIterator[GameBot]:
    """playtest.harness.running_bot; ``plugins``: the games it runs (default: the built-in
    ones); the bypasses of :data:`KEPT` when it names them."""
    games = builtin_plugins() if plugins is None else plugins
    if KEPT[0] is not None:
        settings = options.get("settings") or sandbox_settings(sb, database_url)
        options["settings"] = replace(settings, internals=InternalsSettings(KEPT[0]))
    async with _running_bot(sb, database_url, plugins=games, **options) as bot:
        yield bot
