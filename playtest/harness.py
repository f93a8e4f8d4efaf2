"""Run the real bot against the local Discord emulator: for the demo, e2e tests and benchmarks."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator, Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

from adapters.discord_endpoints import point_discord_at
from bot.app import COGS, GameBot, quiet_payload_logs
from bot.clock import Clock, utcnow
from bot.config import DatabaseSettings, DiscordSettings, Settings
from bot.plugins import GamePlugin, Registry
from db.engine import make_engine, migrate


def sandbox_settings(sb: Any, database_url: str, **discord_kw: Any) -> Settings:
    """Settings that point a bot at a running sandbox."""
    return Settings(
        discord=DiscordSettings(
            token=sb.token, api_base=sb.api_base, gateway_url=sb.gateway_url, **discord_kw
        ),
        database=DatabaseSettings(url=database_url),
    )


def sqlite_url(path: Path) -> str:
    return f"sqlite+aiosqlite:///{path}"


@contextlib.asynccontextmanager
async def running_bot(
    sb: Any,
    database_url: str,
    *,
    seed: int = 1,
    clock: Clock = utcnow,
    settings: Settings | None = None,
    cogs: tuple[str, ...] = COGS,
    plugins: Iterable[GamePlugin] | Registry,
    ready_timeout: float = 20,
) -> AsyncIterator[GameBot]:
    """A GameBot logged into the sandbox, ready, on its own database; closed on exit.
    ``plugins``: the games it runs."""
    settings = settings or sandbox_settings(sb, database_url)
    if settings.database.url != database_url:
        settings = replace(settings, database=DatabaseSettings(url=database_url))
    quiet_payload_logs(settings.discord_debug)
    point_discord_at(settings.discord.api_base, settings.discord.gateway_url)
    await migrate(database_url)
    bot = GameBot(
        settings,
        make_engine(database_url),
        clock=clock,
        rng=random.Random(seed),
        cogs=cogs,
        plugins=plugins,
    )
    task = asyncio.create_task(bot.start(settings.discord.token), name="bot")
    try:
        ready = asyncio.create_task(bot.wait_until_ready())
        done, _ = await asyncio.wait(
            {ready, task}, timeout=ready_timeout, return_when=asyncio.FIRST_COMPLETED
        )
        if task in done:
            task.result()  # re-raise why the bot stopped
        if ready not in done:
            ready.cancel()
            raise TimeoutError("the bot did not become ready")
        yield bot
    finally:
        if not bot.is_closed():
            await bot.close()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await asyncio.wait_for(task, 10)
