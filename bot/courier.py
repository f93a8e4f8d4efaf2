"""Discord effects the services perform after their transaction commits.

Every call is best effort: a failure is logged and reported back (``None`` / ``False``), never
raised into the game logic, since the action is already recorded.
"""

from __future__ import annotations

import logging
from typing import Any

import discord

log = logging.getLogger(__name__)

DM_CLOSED = 50007
TOO_MANY_EDITS = 30046


class Courier:
    def __init__(self, client: discord.Client) -> None:
        self.client = client

    async def channel(self, channel_id: int) -> Any:
        channel = self.client.get_channel(channel_id)
        if channel is None:
            channel = await self.client.fetch_channel(channel_id)
        return channel

    async def post(
        self, channel_id: int, content: str | None = None, **kw: Any
    ) -> discord.Message | None:
        try:
            channel = await self.channel(channel_id)
            return await channel.send(
                content, allowed_mentions=discord.AllowedMentions.none(), **kw
            )  # type: ignore[no-any-return]
        except discord.HTTPException:
            log.warning("could not post in channel %s", channel_id, exc_info=True)
            return None

    async def dm(
        self, user_id: int, content: str | None = None, **kw: Any
    ) -> discord.Message | None:
        """Send a DM; ``None`` when the user's DMs are closed or Discord refused it."""
        try:
            user = self.client.get_user(user_id) or await self.client.fetch_user(user_id)
            return await user.send(content, **kw)
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
