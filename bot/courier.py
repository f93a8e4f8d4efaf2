"""The DM probe a game's start needs an answer from at once (can every player be reached?).

Every other Discord effect of a game is an outbox row delivered by :mod:`bot.dispatcher`.
A failure here is logged and reported back as ``None``, never raised into the game logic.

Rate limits: discord.py retries a 429 itself (five tries of a request, waiting Retry-After each
time). Posts and DMs that are still rate limited after that are tried again a few more rounds,
waiting Retry-After, so that a long rate limit delays a DM instead of losing it; a 429 without
Discord's ``Via`` header (a Cloudflare ban) and every other error, 403 included, are never
retried: each would count against Discord's budget of invalid requests.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import discord

log = logging.getLogger(__name__)

DM_CLOSED = 50007
RATE_LIMIT_ROUNDS = 3  # rounds after discord.py's own five tries: at most 20 tries in all
MAX_RETRY_AFTER = 60.0  # a longer rate limit is given up on

T = TypeVar("T")


def retry_after(exc: discord.HTTPException) -> float | None:
    """Seconds to wait before trying again, for a rate limit worth waiting for; else None."""
    response = getattr(exc, "response", None)
    if exc.status != 429 or response is None or not response.headers.get("Via"):
        return None
    try:
        wait = float(response.headers.get("Retry-After", "1"))
    except ValueError:
        wait = 1.0
    return wait if 0 <= wait <= MAX_RETRY_AFTER else None


async def patiently(attempt: Callable[[], Awaitable[T]], what: str) -> T:
    """``attempt()``, again after Retry-After while Discord still answers 429 (bounded)."""
    for round_ in range(RATE_LIMIT_ROUNDS + 1):
        try:
            return await attempt()
        except discord.HTTPException as exc:
            wait = retry_after(exc)
            if wait is None or round_ == RATE_LIMIT_ROUNDS:
                raise
            log.warning("%s: still rate limited, trying again in %.2f s", what, wait)
            await asyncio.sleep(wait)
    raise AssertionError("unreachable")


class Courier:
    def __init__(self, client: discord.Client) -> None:
        self.client = client

    async def dm(
        self, user_id: int, content: str | None = None, **kw: Any
    ) -> discord.Message | None:
        """Send a DM; ``None`` when the user's DMs are closed or Discord refused it."""

        async def send() -> discord.Message:
            # The DM channel straight from the id (cached by discord.py once opened): no
            # GET /users/{id} when the user is not in the cache (no members intent).
            channel = await self.client.create_dm(discord.Object(id=user_id))
            return await channel.send(content, **kw)

        try:
            return await patiently(send, f"DM to user {user_id}")
        except discord.Forbidden as exc:
            if exc.code != DM_CLOSED:
                log.warning("DM to %s refused: %s", user_id, exc)
            return None
        except discord.HTTPException:
            log.warning("could not DM user %s", user_id, exc_info=True)
            return None
