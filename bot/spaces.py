"""Private spaces and silenced members on Discord: how the dispatcher performs the records of
:mod:`bot.effects` that open a game's private thread, change its members, post in it, archive
it, and keep a member from posting in the game's channel.

A thread's id is kept as the game's message ``thread:<slot>`` (parent channel, thread id), so
that later records and ``resync`` find it. A member's overwrite as it was before the silence is
kept in ``silenced_members`` and put back exactly; a member silenced while the debate is closed
keeps the debate's record (:meth:`bot.dispatcher.Dispatcher._debate`) as the one to restore.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from typing import Any, Literal

import discord
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.effects import (
    ArchiveThread,
    CloseSpaces,
    Permanent,
    PrivateThread,
    Record,
    Silence,
    ThreadMembers,
    ThreadPost,
)
from db import repo
from db.models import MemberOverwrite, Outbox, SilencedMember

#: What a silenced member may no longer do in the game's channel and its threads; and add
#: reactions, when the bot may itself (Discord lets an overwrite deny only what the bot has,
#: and the README's invite link does not ask for Add Reactions).
SILENCED = discord.Permissions(send_messages=True, send_messages_in_threads=True).value
REACTIONS = discord.Permissions(add_reactions=True).value
MEMBER: Literal[1] = 1  # a member overwrite's type
PRIVATE_THREAD: Literal[12] = 12
ARCHIVE_MINUTES: Literal[10080] = 10080  # a week without a message before Discord archives it

#: The permissions each record needs where it acts (the dispatcher's notices name them).
NEEDED: dict[str, list[str]] = {
    PrivateThread.KIND: ["view_channel", "create_private_threads", "send_messages_in_threads"],
    ThreadPost.KIND: ["view_channel", "send_messages_in_threads", "read_message_history"],
    ThreadMembers.KIND: ["view_channel", "send_messages_in_threads"],
    ArchiveThread.KIND: ["view_channel", "manage_threads"],
    Silence.KIND: ["view_channel", "manage_roles"],
    CloseSpaces.KIND: ["view_channel", "manage_roles"],
}

#: The dispatcher's sending of a text (``Dispatcher._send``): its pieces, nonces and mention.
Send = Callable[..., Awaitable[int | None]]


def needed_for(*records: type[Record]) -> list[str]:
    """What the bot needs besides seeing the channel to perform these kinds of records: what
    a game that uses them adds to its ``needed_permissions`` (checked at ``/<game> new``)."""
    needed = [p for r in records for p in NEEDED[r.KIND] if p != "view_channel"]
    return list(dict.fromkeys(needed))


def member_overwrites(channel: dict[str, Any]) -> dict[int, tuple[int, int]]:
    """A channel's member overwrites (its payload's): user id -> (allow, deny)."""
    return {
        int(o["id"]): (int(o.get("allow", 0)), int(o.get("deny", 0)))
        for o in channel.get("permission_overwrites") or []
        if int(o.get("type", 0)) == MEMBER
    }


async def deny_on_top(http: Any, place: int, before: MemberOverwrite, bits: int, why: str) -> None:
    """The member's overwrite as it was, with ``bits`` denied (and no longer allowed)."""
    allow, deny = str(before.allow & ~bits), str(before.deny | bits)
    await http.edit_channel_permissions(place, before.user_id, allow, deny, MEMBER, reason=why)


async def put_back(http: Any, place: int, before: MemberOverwrite, why: str) -> None:
    """The member's overwrite exactly as it was (none: deleted again)."""
    if before.present:
        allow, deny = str(before.allow), str(before.deny)
        await http.edit_channel_permissions(place, before.user_id, allow, deny, MEMBER, reason=why)
    else:
        with contextlib.suppress(discord.NotFound):
            await http.delete_channel_permissions(place, before.user_id, reason=why)


def thread_slot(slot: str) -> str:
    """The game's message purpose under which a thread's id is kept."""
    return f"thread:{slot}"


class Spaces:
    """The dispatcher's part for private threads and silenced members."""

    def __init__(
        self, client: discord.Client, sessions: async_sessionmaker[AsyncSession], send: Send
    ) -> None:
        self.client = client
        self.sessions = sessions
        self.send = send

    async def deliver(self, row: Outbox, record: Record) -> int | None:
        """Perform one of this part's records; the id of the thread or message it made."""
        if isinstance(record, PrivateThread):
            return await self.open_thread(row, record)
        if isinstance(record, Silence):
            if record.silenced:
                await self.silence(row, record)
            else:
                await self.restore(row.game_id, record.place_id, record.user_ids)
            return None
        if isinstance(record, CloseSpaces):
            await self.close(row.game_id)
            return None
        assert isinstance(record, ThreadPost | ThreadMembers | ArchiveThread)
        thread = await self.thread_id(row.game_id, record.slot)
        if thread is None and isinstance(record, ArchiveThread):
            return None  # never opened: nothing to archive
        if thread is None:  # refused (a permission): resync sends both again, in order
            raise Permanent(f"the thread {record.slot!r} was never opened")
        if isinstance(record, ThreadPost):
            channel = self.client.get_partial_messageable(thread)
            return await self.send(row, channel, record.text, (), record.view, (), record.mention)
        if isinstance(record, ThreadMembers):
            await self.members(thread, record.add, record.remove)
        else:
            await self.archive(thread)
        return None

    async def close(self, game_id: int) -> None:
        """The game's end: every silenced member restored, every thread of it archived."""
        async with self.sessions() as s:
            silenced = await repo.saved_overwrites(s, game_id, table=SilencedMember)
            threads = await repo.messages_under(s, game_id, thread_slot(""))
        places: dict[int, list[int]] = {}
        for kept in silenced:
            places.setdefault(kept.channel_id, []).append(kept.user_id)
        for place, users in places.items():
            await self.restore(game_id, place, tuple(users))
        for thread in threads:
            with contextlib.suppress(discord.NotFound):
                await self.archive(thread.message_id)

    # -- private threads -------------------------------------------------------------------

    async def members(self, thread: int, add: tuple[int, ...], remove: tuple[int, ...]) -> None:
        """Members in and out; a thread Discord archived for a week without messages is
        reopened first (its members cannot change while it is archived: 50083)."""
        data = await self.client.http.get_channel(thread)
        meta: Any = data.get("thread_metadata") or {}
        if meta.get("archived") and not meta.get("locked"):
            await self.client.http.edit_channel(thread, archived=False)
        for uid in add:
            await self.client.http.add_user_to_thread(thread, uid)
        for uid in remove:
            with contextlib.suppress(discord.NotFound):  # not a member (any more)
                await self.client.http.remove_user_from_thread(thread, uid)

    async def archive(self, thread: int) -> None:
        """Archived and locked; without Manage Threads, archived only (its creator may)."""
        try:
            await self.client.http.edit_channel(thread, archived=True, locked=True)
        except discord.Forbidden:
            await self.client.http.edit_channel(thread, archived=True)

    async def thread_id(self, game_id: int, slot: str) -> int | None:
        async with self.sessions() as s:
            kept = await repo.get_message(s, game_id, thread_slot(slot))
        return kept.message_id if kept is not None else None

    async def open_thread(self, row: Outbox, record: PrivateThread) -> int:
        """Open the thread (or find the one a first delivery opened), keep it, add members."""
        thread = await self.thread_id(row.game_id, record.slot)
        if thread is None:
            thread = await self.opened_before(record)
        if thread is None:
            made = await self.client.http.start_thread_without_message(
                record.channel_id,
                name=record.name[:100],
                auto_archive_duration=ARCHIVE_MINUTES,
                type=PRIVATE_THREAD,
                invitable=False,
            )
            thread = int(made["id"])
        async with self.sessions.begin() as s:
            await repo.set_message(
                s, row.game_id, thread_slot(record.slot), record.channel_id, thread
            )
        for uid in record.user_ids:
            await self.client.http.add_user_to_thread(thread, uid)
        return thread

    async def opened_before(self, record: PrivateThread) -> int | None:
        """The bot's active private thread of this name in the channel: what a delivery cut
        short after Discord opened it left behind."""
        channel = self.client.get_channel(record.channel_id)
        guild = getattr(channel, "guild", None)
        if guild is None or self.client.user is None:
            return None
        active = await self.client.http.get_active_threads(guild.id)
        for data in active.get("threads", []):
            if (
                int(data.get("parent_id") or 0) == record.channel_id
                and int(data.get("type", 0)) == PRIVATE_THREAD
                and int(data.get("owner_id") or 0) == self.client.user.id
                and data.get("name") == record.name[:100]
            ):
                return int(data["id"])
        return None

    # -- silenced members ------------------------------------------------------------------

    async def silence(self, row: Outbox, record: Silence) -> None:
        """Keep each member's overwrite as it was (a closed debate's record of it, if any, is
        the one that was there first), then deny :data:`SILENCED` on top of it."""
        place, http = record.place_id, self.client.http
        current = member_overwrites(dict(await http.get_channel(place)))
        async with self.sessions.begin() as s:
            debate = {o.user_id: o for o in await repo.saved_overwrites(s, row.game_id, place)}
            for uid in record.user_ids:
                first = debate.get(uid)
                if first is not None:  # the debate's record moves here: the silence restores it
                    present, (allow, deny) = first.present, (first.allow, first.deny)
                else:
                    present, (allow, deny) = uid in current, current.get(uid, (0, 0))
                saved = await repo.save_overwrite(
                    s,
                    row.game_id,
                    place,
                    uid,
                    present=present,
                    allow=allow,
                    deny=deny,
                    table=SilencedMember,
                )
                if saved and first is not None:
                    await repo.forget_overwrite(s, first.id)
            kept = await self.kept(s, row.game_id, place)
        bits = SILENCED | (REACTIONS if self.may_react(place) else 0)
        for uid in record.user_ids:
            await deny_on_top(http, place, kept[uid], bits, "silenced by the game")

    def may_react(self, place: int) -> bool:
        """Whether the bot has Add Reactions in the channel (so may deny it)."""
        channel = self.client.get_channel(place)
        me = getattr(getattr(channel, "guild", None), "me", None)
        if not isinstance(channel, discord.abc.GuildChannel) or me is None:
            return False
        return channel.permissions_for(me).add_reactions

    async def restore(self, game_id: int, place: int, user_ids: tuple[int, ...]) -> None:
        """Put back exactly each member's overwrite as it was before the silence."""
        http = self.client.http
        async with self.sessions() as s:
            kept = await self.kept(s, game_id, place)
        for uid in user_ids:
            before = kept.get(uid)
            if before is None:
                continue  # never silenced here, or restored already
            await put_back(http, place, before, "may post again")
            async with self.sessions.begin() as s:
                await repo.forget_overwrite(s, before.id, table=SilencedMember)

    async def kept(self, s: AsyncSession, game_id: int, place: int) -> dict[int, SilencedMember]:
        rows = await repo.saved_overwrites(s, game_id, place, table=SilencedMember)
        return {o.user_id: o for o in rows}


async def silenced_in(s: AsyncSession, game_id: int, place: int) -> set[int]:
    """The members the game keeps silenced in ``place``: a closed debate leaves them be."""
    return {o.user_id for o in await repo.saved_overwrites(s, game_id, place, table=SilencedMember)}
