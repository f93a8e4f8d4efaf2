"""Helpers for tests that run a real discord.py client against a :class:`Sandbox`."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any, TypeVar

import discord

from adapters.discord_endpoints import point_discord_at, reset_discord_endpoints
from sandbox import Sandbox

ClientT = TypeVar("ClientT", bound=discord.Client)

#: Client options that keep tests fast: READY fires 50 ms after the last GUILD_CREATE
#: instead of discord.py's 2 s default.
FAST_CLIENT_OPTIONS: dict[str, Any] = {"guild_ready_timeout": 0.05}


async def _no_identify_wait(shard_id: int | None, *, initial: bool = False) -> None:
    return None


def skip_identify_wait(client: discord.Client) -> None:
    """discord.py waits 5 s before every non-initial IDENTIFY (each extra shard); the sandbox
    has no identify rate limit, so tests can skip the wait."""
    # discord.py's documented hook is a method to override; this replaces it on the one test
    # client rather than subclassing every client class the tests use.
    client.before_identify_hook = _no_identify_wait  # type: ignore[method-assign]


@contextlib.asynccontextmanager
async def sandbox() -> AsyncIterator[Sandbox]:
    """A started sandbox with discord.py pointed at it (reset to Discord afterwards)."""
    async with Sandbox() as sb:
        point_discord_at(sb.api_base, sb.gateway_url)
        try:
            yield sb
        finally:
            reset_discord_endpoints()


@contextlib.asynccontextmanager
async def running(
    client: ClientT,
    sb: Sandbox,
    *,
    timeout: float = 15.0,
) -> AsyncIterator[ClientT]:
    """Start ``client`` against ``sb``, wait until it is ready, close it on exit."""
    point_discord_at(sb.api_base, sb.gateway_url)
    skip_identify_wait(client)
    task = asyncio.create_task(client.start(sb.token), name="sandbox-client")
    try:
        deadline = asyncio.get_running_loop().time() + timeout
        while not client.is_ready():
            if task.done():
                task.result()
                raise RuntimeError("the client stopped before it was ready")
            if asyncio.get_running_loop().time() > deadline:
                raise TimeoutError("the client did not become ready")
            await asyncio.sleep(0.01)
        yield client
    finally:
        await client.close()
        with contextlib.suppress(Exception, asyncio.CancelledError):
            await asyncio.wait_for(task, 5)
