"""Discord effects the services perform after their transaction commits.

Every call is best effort: a failure is logged and reported back (``None`` / ``False``), never
raised into the game logic, since the action is already recorded.

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
TOO_MANY_EDITS = 30046
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

    async def channel(self, channel_id: int) -> Any:
        channel = self.client.get_channel(channel_id)
        if channel is None:
            channel = await self.client.fetch_channel(channel_id)
        return channel

    async def post(
        self, channel_id: int, content: str | None = None, *, mention: int | None = None, **kw: Any
    ) -> discord.Message | None:
        """Post in a channel. Mentions are disabled, except ``mention``: the one member this
        message calls to act (a ``<@id>`` of anyone else in it, or a name, never pings)."""
        allowed = (
            discord.AllowedMentions(
                everyone=False, roles=False, users=[discord.Object(id=mention)], replied_user=False
            )
            if mention is not None
            else discord.AllowedMentions.none()
        )

        async def send() -> discord.Message:
            channel = await self.channel(channel_id)
            return await channel.send(  # type: ignore[no-any-return]
                content, allowed_mentions=allowed, **kw
            )

        try:
            return await patiently(send, f"post in channel {channel_id}")
        except discord.HTTPException:
            log.warning("could not post in channel %s", channel_id, exc_info=True)
            return None

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

    async def edit(self, channel_id: int, message_id: int, **kw: Any) -> bool:
        """Edit a message in place; False when it is gone or Discord refuses more edits."""
        try:
            channel = await self.channel(channel_id)
            await channel.get_partial_message(message_id).edit(**kw)
            return True
        except discord.NotFound:
            return False
        except discord.HTTPException as exc:
            if exc.code != TOO_MANY_EDITS:
                log.warning("could not edit message %s: %s", message_id, exc)
            return False

    async def pin(self, channel_id: int, message_id: int, *, pin: bool = True) -> bool:
        try:
            channel = await self.channel(channel_id)
            message = channel.get_partial_message(message_id)
            await (message.pin() if pin else message.unpin())
            return True
        except discord.HTTPException:
            log.warning("could not %s message %s", "pin" if pin else "unpin", message_id)
            return False

    async def member_send(self, channel_id: int, user_ids: list[int], *, allowed: bool) -> bool:
        """Deny (or give back) Send Messages to these members in a text channel.

        Uses the member's own overwrite, which the bot removes again when the vote ends.
        """
        deny = discord.Permissions(send_messages=True, send_messages_in_threads=True)
        try:
            for uid in user_ids:
                if allowed:
                    await self.client.http.delete_channel_permissions(
                        channel_id, uid, reason="vote closed: debate reopens"
                    )
                else:
                    await self.client.http.edit_channel_permissions(
                        channel_id, uid, "0", str(deny.value), 1, reason="vote in progress"
                    )
            return True
        except discord.HTTPException:
            log.warning("could not change Send Messages in channel %s", channel_id, exc_info=True)
            return False
