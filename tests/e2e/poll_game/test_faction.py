"""The poll's faction through the sandbox: the core's private thread, secret choice by DM and
silenced player (bot/effects.py, bot/choice.py), used by a game that adds nothing to the core.

The thread is created in the poll's channel with the faction as its only members, a member is
taken out of it, and it is archived at the end; the player picked is silenced in the channel
and gets back exactly the overwrite they had; the pick is answered once (a redelivered
interaction acts no more, a second pick is refused), is "too late" after its deadline (and
reminded before it), and its menu still works after a restart of the bot."""

from __future__ import annotations

from functools import partial
from typing import Any

import discord
import pytest

from db import repo
from db.models import SilencedMember
from playtest.players import message, until
from sandbox.core import SandboxError
from tests.e2e.poll_game.rules import Poll
from tests.e2e.poll_game.test_poll import PollTable, poll_bot

pytestmark = pytest.mark.timeout(120)

P = discord.Permissions
SILENCED = P(send_messages=True, send_messages_in_threads=True, add_reactions=True).value
EMBED, ATTACH = P(embed_links=True).value, P(attach_files=True).value
CREATE_PRIVATE = P(create_private_threads=True).value


def said(user: Any, key: str, **params: Any) -> str:
    """A private answer as ``user`` reads it (Chloé's Discord is in French)."""
    return message(key, "fr" if user.locale == "fr" else "en", **params)


def closed(user: Any) -> str:
    return said(user, "common.choice.closed")  # "Too late: this choice is closed."


def pick_menu(sb: Any, user: Any) -> Any:
    """The user's latest DM with a select menu (the faction's pick)."""
    return next((m for m in reversed(sb.dms(user)) if m.selects), None)


async def faction_of(bot: Any, table: Any) -> tuple[int, list[int]]:
    """The poll's game id and its faction (seat order: its first member picks)."""
    async with bot.sessions() as s:
        game = await repo.active_game_in_channel(s, table.channel.id)
        assert game is not None and game.state is not None
        return game.id, Poll.from_dict(game.state).faction


async def started(poll: PollTable, bot: Any, **options: Any) -> tuple[int, Any, Any, Any]:
    """A poll with a faction, started: its game id, the picker, a faction mate, an outsider."""
    await poll.open("Tea or coffee?", vote_hours=1.0, faction=True, **options)
    await poll.start()
    game_id, faction = await faction_of(bot, poll.t)
    users = {u.id: u for u in poll.players}
    outsider = next(u for u in poll.players if u.id not in faction)
    return game_id, users[faction[0]], users[faction[1]], outsider


async def test_a_faction_thread_a_silenced_player_restored_exactly(table: Any) -> None:
    sb, channel = table.sb, table.channel
    poll = PollTable(table, table.users[:4])
    for user in poll.players:  # what each had before the poll: what must come back
        channel.set_permissions(user, allow=EMBED, deny=ATTACH)
    async with poll_bot(table) as bot:
        game_id, picker, mate, outsider = await started(poll, bot)
        thread = await until(lambda: sb.thread_of(channel, "Poll faction"), what="the thread")
        assert thread.type == 12 and not thread.invitable  # private, only the bot adds members
        await until(lambda: thread.member_ids == {sb.bot_user.id, picker.id, mate.id})
        assert not table.guild.permissions_in(outsider.id, thread) & P(view_channel=True).value
        welcome = await until(lambda: sb.messages_in(thread), what="the faction's welcome")
        assert "🤫 The faction: " in welcome[0].content
        menu = await until(partial(pick_menu, sb, picker), what="the picker's menu")
        assert outsider.name in [o["label"] for o in menu.selects[0]["options"]]

        # The fallback command, refused by the game's own checks: nothing changes.
        refused = await poll.slash(outsider, "poll pick", player=mate)
        assert refused == said(outsider, "poll.error.not_picker")  # "The pick is not yours."
        refused = await poll.slash(picker, "poll pick", player=picker)
        assert refused == said(picker, "poll.error.bad_pick")

        ix = await poll.select(picker, menu, [str(mate.id)])
        assert await poll.reply(ix) == said(picker, "poll.pick.done", name=mate.name)
        await until(lambda: channel.overwrites[mate.id].deny & SILENCED)
        assert (channel.overwrites[mate.id].allow, channel.overwrites[mate.id].deny) == (
            EMBED,
            ATTACH | SILENCED,
        )
        with pytest.raises(SandboxError, match="may not post"):
            await sb.say(mate, channel, "can I still talk?")
        await until(lambda: mate.id not in thread.member_ids, what="the mate out of the thread")

        # Once: the same interaction again acts no more; a second pick is too late.
        await sb.redeliver(ix)
        again = await poll.select(picker, menu, [str(outsider.id)])
        assert await poll.reply(again) == closed(picker)
        assert channel.overwrites[outsider.id].deny == ATTACH
        async with bot.sessions() as s:
            kept = await repo.saved_overwrites(s, game_id, table=SilencedMember)
        assert [(k.user_id, k.present, k.allow, k.deny) for k in kept] == [
            (mate.id, True, EMBED, ATTACH)
        ]
        picked = [m for m in sb.messages_in(thread) if m.content.startswith("🤐")]
        assert len(picked) == 1

        # The end: the thread archived and locked, the silenced player as they were.
        assert await poll.slash(table.mod, "poll resolve") == "The poll is closed now."
        await until(lambda: thread.archived and thread.locked, what="the thread archived")
        await until(lambda: channel.overwrites[mate.id].deny == ATTACH, what="the restore")
        assert channel.overwrites[mate.id].allow == EMBED
        await sb.say(mate, channel, "I may speak again")


async def test_the_pick_is_reminded_then_too_late(table: Any) -> None:
    sb = table.sb
    poll = PollTable(table, table.users[:3])
    async with poll_bot(table) as bot:
        _, picker, _, _ = await started(poll, bot, pick_hours=0.002)
        menu = await until(partial(pick_menu, sb, picker), what="the picker's menu")
        thread = await until(lambda: sb.thread_of(table.channel, "Poll faction"))

        def dm_with(text: str) -> Any:
            return next((m for m in sb.dms(picker) if text in m.content), None)

        reminder = said(picker, "poll.pick.reminder", deadline="", where="").split(",")[0]
        await until(partial(dm_with, reminder), 30, "the reminder")

        def missed() -> list[Any]:
            return [m for m in sb.messages_in(thread) if m.content.startswith("⌛")]

        await until(missed, 30, "the pick's deadline")
        ix = await poll.select(picker, menu, [menu.selects[0]["options"][0]["value"]])
        assert await poll.reply(ix) == closed(picker)
        assert not any(o.type == 1 for o in table.channel.overwrites.values())


async def test_the_pick_menu_survives_a_restart_and_a_cancel_restores(table: Any) -> None:
    sb, channel = table.sb, table.channel
    poll = PollTable(table, table.users[:4])
    async with poll_bot(table) as bot:
        _, picker, mate, outsider = await started(poll, bot)
        menu = await until(partial(pick_menu, sb, picker), what="the picker's menu")
        thread = await until(lambda: sb.thread_of(channel, "Poll faction"))

    # A new process, the same database: the first one's menu still works.
    async with poll_bot(table):
        ix = await poll.select(picker, menu, [str(outsider.id)])
        assert await poll.reply(ix) == said(picker, "poll.pick.done", name=outsider.name)
        await until(lambda: outsider.id in channel.overwrites, what="the silence")
        assert channel.overwrites[outsider.id].deny == SILENCED
        assert thread.member_ids == {sb.bot_user.id, picker.id, mate.id}  # not a member
        # A moderator's cancel restores too: the outsider had no overwrite, and has none again.
        assert "cancelled" in await poll.slash(table.mod, "poll cancel")
        await until(lambda: outsider.id not in channel.overwrites, what="the restore")
        await until(lambda: thread.archived, what="the thread archived")
        await sb.say(outsider, channel, "back")


async def test_a_thread_refused_for_a_permission_is_opened_at_resync(table: Any) -> None:
    """Without Create Private Threads the thread is refused, a notice names the permission,
    and once it is given back /poll resync opens the thread and posts what was to go in it."""
    sb, guild, channel = table.sb, table.guild, table.channel
    poll = PollTable(table, table.users[:3])
    async with poll_bot(table) as bot:
        await poll.open("Tea or coffee?", vote_hours=1.0, faction=True)
        channel.set_permissions(guild.bot_role, deny=CREATE_PRIVATE)  # @everyone has it
        since = len(poll.public())
        await poll.start()
        notice = await poll.new_public(since, "**Create Private Threads**")
        assert "/poll resync" in notice
        assert sb.thread_of(channel, "Poll faction") is None
        channel.set_permissions(guild.bot_role)  # given back
        reply = await poll.slash(table.mod, "poll resync")
        assert reply.startswith("Done")
        thread = await until(lambda: sb.thread_of(channel, "Poll faction"), what="the thread")
        _, faction = await faction_of(bot, table)
        await until(lambda: thread.member_ids == {sb.bot_user.id, *faction}, what="its members")
        await until(lambda: sb.messages_in(thread), what="the welcome, sent again")


async def test_a_newcomer_takes_the_pickers_seat_thread_and_menu(table: Any) -> None:
    sb, channel = table.sb, table.channel
    poll = PollTable(table, table.users[:4])
    newcomer = table.users[4]
    async with poll_bot(table) as bot:
        _, picker, mate, outsider = await started(poll, bot)
        thread = await until(lambda: sb.thread_of(channel, "Poll faction"), what="the thread")
        old_menu = await until(partial(pick_menu, sb, picker), what="the picker's menu")
        reply = await poll.slash(table.mod, "poll substitute", old=picker, new=newcomer)
        assert newcomer.name in reply
        members = {sb.bot_user.id, newcomer.id, mate.id}
        await until(lambda: thread.member_ids == members, what="the newcomer in the thread")
        menu = await until(partial(pick_menu, sb, newcomer), what="the newcomer's menu")
        refused = await poll.select(picker, old_menu, [str(outsider.id)])
        assert await poll.reply(refused) == said(picker, "poll.error.not_picker")
        ix = await poll.select(newcomer, menu, [str(outsider.id)])
        assert await poll.reply(ix) == said(newcomer, "poll.pick.done", name=outsider.name)
        await until(lambda: outsider.id in channel.overwrites, what="the silence")
