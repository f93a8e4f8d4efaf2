"""Gateway resume, pins, forums, overwrites, components, autocomplete, modals, live updates."""

from __future__ import annotations

import asyncio

import discord
import pytest

from sandbox import Sandbox, util
from tests.sandbox.client import running

from .botkit import PickView, SandboxBot

pytestmark = pytest.mark.timeout(30)


async def test_resume_replays_events_missed_while_disconnected(sb: Sandbox) -> None:
    guild = sb.add_guild("Guild")
    text = guild.add_text_channel("game")
    alice = sb.add_user("Alice")
    guild.add_member(alice)
    intents = discord.Intents.default()
    intents.message_content = True
    async with running(SandboxBot(intents=intents), sb) as client:
        resumed = asyncio.ensure_future(client.wait_for("resumed", timeout=5))
        await sb.drop_connections(hold=True)
        await sb.say(alice, text, "said while the bot was away")
        ix = await sb.slash(alice, "resistance secret", channel=text)
        got = asyncio.ensure_future(client.wait_for("message", timeout=5))
        sb.release_connections()
        await resumed
        message = await got
        assert message.content == "said while the bot was away"
        assert await ix.reply() == "only you can see this"
    assert sb.resume_count == 1 and sb.identify_count == 1
    assert sb.replayed_events >= 2


async def test_message_content_needs_the_intent(sb: Sandbox) -> None:
    guild = sb.add_guild("Guild")
    text = guild.add_text_channel("game")
    alice = sb.add_user("Alice")
    guild.add_member(alice)
    async with running(SandboxBot(), sb) as client:
        got = asyncio.ensure_future(client.wait_for("message", timeout=5))
        await sb.say(alice, text, "secret words")
        assert (await got).content == ""
        got = asyncio.ensure_future(client.wait_for("message", timeout=5))
        await sb.say(alice, text, f"hey {sb.bot_user.mention}")
        assert (await got).content == f"hey {sb.bot_user.mention}"


async def test_pin_unpin_and_list_both_shapes(sb: Sandbox) -> None:
    guild = sb.add_guild("Guild")
    text = guild.add_text_channel("game")
    async with running(SandboxBot(), sb) as client:
        channel = client.get_channel(text.id)
        assert isinstance(channel, discord.TextChannel)
        first = await channel.send("leader list")
        second = await channel.send("mission track")
        await first.pin()
        await second.pin()
        assert [m.id for m in sb.pins(text)] == [second.id, first.id]
        assert sb.message(first.id).pinned
        pinned = [m async for m in channel.pins()]
        assert [m.id for m in pinned] == [second.id, first.id]
        assert all(m.pinned_at is not None for m in pinned)
        old_shape = await client.http.request(
            discord.http.Route("GET", "/channels/{channel_id}/pins", channel_id=text.id)
        )
        assert [m["id"] for m in old_shape] == [str(second.id), str(first.id)]
        await first.unpin()
        assert [m.id for m in sb.pins(text)] == [second.id]
        assert [m.content for m in sb.channel_messages(text)] == ["leader list", "mission track"]
        system = [m for m in sb.channel_messages(text, system=True) if m.type == 6]
        assert len(system) == 2
    routes = {r.route for r in sb.requests}
    assert "PUT /channels/{channel_id}/messages/pins/{message_id}" in routes
    assert "DELETE /channels/{channel_id}/messages/pins/{message_id}" in routes


async def test_forum_post_and_thread_updates(sb: Sandbox) -> None:
    guild = sb.add_guild("Guild")
    forum = guild.add_forum_channel("games", tags=["resistance"])
    async with running(SandboxBot(), sb) as client:
        channel = client.get_channel(forum.id)
        assert isinstance(channel, discord.ForumChannel)
        tag = channel.available_tags[0]
        post = await channel.create_thread(
            name="Game #1", content="Lobby: join!", applied_tags=[tag]
        )
        thread = sb.thread_of(forum)
        assert thread is not None and thread.id == post.thread.id
        assert thread.name == "Game #1" and thread.applied_tags == [tag.id]
        assert [m.content for m in sb.messages_in(thread)] == ["Lobby: join!"]
        assert post.message.id == thread.id
        assert sb.thread_of(sb.messages_in(thread)[0]) is thread

        await post.thread.edit(locked=True, archived=True, name="Game #1 (over)")
        state = sb.channel(thread.id)
        assert state.locked and state.archived and state.name == "Game #1 (over)"
        await asyncio.sleep(0.05)
        cached = client.get_channel(thread.id)
        assert cached is None or (isinstance(cached, discord.Thread) and cached.archived)


async def test_permission_overwrite_put_and_delete(sb: Sandbox) -> None:
    guild = sb.add_guild("Guild")
    text = guild.add_text_channel("game")
    alice = sb.add_user("Alice")
    guild.add_member(alice)
    async with running(SandboxBot(), sb) as client:
        channel = client.get_channel(text.id)
        assert isinstance(channel, discord.TextChannel)
        member = await channel.guild.fetch_member(alice.id)
        await channel.set_permissions(member, send_messages=False, view_channel=True)
        ow = sb.channel(text.id).permission_overwrites[alice.id]
        assert ow.type == 1 and ow.deny == util.SEND_MESSAGES and ow.allow == util.VIEW_CHANNEL
        assert not guild.permissions_in(alice.id, text) & util.SEND_MESSAGES
        await asyncio.sleep(0.05)
        assert channel.overwrites_for(member).send_messages is False  # CHANNEL_UPDATE arrived
        await channel.set_permissions(member, overwrite=None)
        assert alice.id not in sb.channel(text.id).permission_overwrites
        # The bot cannot grant what it does not have.
        with pytest.raises(discord.Forbidden) as err:
            await channel.set_permissions(member, administrator=True)
        assert err.value.code == 50013


async def test_components_autocomplete_modal_and_defer(sb: Sandbox) -> None:
    guild = sb.add_guild("Guild")
    text = guild.add_text_channel("game")
    alice, bob = sb.add_user("Alice"), sb.add_user("Bob")
    guild.add_member(alice)
    guild.add_member(bob, nick="Bobby")
    async with running(SandboxBot(), sb) as client:
        channel = client.get_channel(text.id)
        assert isinstance(channel, discord.TextChannel)
        await channel.send("pick", view=PickView())
        msg = await sb.wait_for_message(text, contains="pick")

        ix = await sb.select(alice, msg, custom_id="pick:card", values=["1", "3"])
        assert await ix.reply() == "cards 1,3"
        ix = await sb.select(alice, msg, custom_id="pick:user", values=[bob])
        assert await ix.reply() == "user Bobby Member"
        ix = await sb.click(alice, msg, label="Close")
        assert await ix.reply() == "closed"
        assert sb.message(msg.id).components == [] and ix.callback_type == 7

        choices = await sb.autocomplete(alice, "watch", channel=text, focused="card", card="3")
        assert [c["value"] for c in choices] == ["3", "13"]
        ix = await sb.slash(alice, "watch", channel=text, card="13", refresh=True)
        assert await ix.reply() == "watching 13 refresh=True"

        ix = await sb.slash(alice, "feedback", channel=text)
        assert await ix.wait_ack() == 9 and ix.modal is not None
        submitted = await sb.submit_modal(alice, ix, {"fb": "great game"})
        assert await submitted.reply() == "got great game" and submitted.ephemeral

        ix = await sb.slash(bob, "later", channel=text)
        assert await ix.wait_ack() == 5
        assert await ix.reply() == "done later" and ix.ephemeral
        assert ix.latency is not None


async def test_live_guild_changes_are_dispatched(sb: Sandbox) -> None:
    guild = sb.add_guild("Guild")
    intents = discord.Intents.default()
    intents.members = True
    async with running(SandboxBot(intents=intents), sb) as client:
        joined = asyncio.ensure_future(client.wait_for("member_join", timeout=5))
        created = asyncio.ensure_future(client.wait_for("guild_channel_create", timeout=5))
        dave = sb.add_user("Dave")
        guild.add_member(dave)
        text = guild.add_text_channel("late")
        assert (await joined).id == dave.id
        assert (await created).id == text.id
        new_guild = asyncio.ensure_future(client.wait_for("guild_join", timeout=5))
        other = sb.add_guild("Other")
        assert (await new_guild).id == other.id
        cached = client.get_guild(guild.id)
        assert cached is not None and cached.get_member(dave.id) is not None


async def test_history_and_message_fetch(sb: Sandbox) -> None:
    guild = sb.add_guild("Guild")
    text = guild.add_text_channel("game")
    async with running(SandboxBot(), sb) as client:
        channel = client.get_channel(text.id)
        assert isinstance(channel, discord.TextChannel)
        sent = [await channel.send(f"m{i}") for i in range(5)]
        newest = [m.content async for m in channel.history(limit=2)]
        assert newest == ["m4", "m3"]
        after = [m.content async for m in channel.history(after=sent[1], oldest_first=True)]
        assert after == ["m2", "m3", "m4"]
        before = [m.content async for m in channel.history(before=sent[2])]
        assert before == ["m1", "m0"]
        around = [m.content async for m in channel.history(around=sent[2], limit=3)]
        assert sorted(around) == ["m1", "m2", "m3"]
        fetched = await channel.fetch_message(sent[3].id)
        assert fetched.content == "m3" and discord.utils.snowflake_time(fetched.id)
        await sent[0].delete()
        assert [m.content for m in sb.channel_messages(text)] == ["m1", "m2", "m3", "m4"]


async def test_request_log_and_interaction_timing(sb: Sandbox) -> None:
    guild = sb.add_guild("Guild")
    text = guild.add_text_channel("game")
    alice = sb.add_user("Alice")
    guild.add_member(alice)
    async with running(SandboxBot(), sb) as client:
        channel = client.get_channel(text.id)
        assert isinstance(channel, discord.TextChannel)
        await channel.send("logged", embed=discord.Embed(title="Mission", description="track"))
        ix = await sb.slash(alice, "resistance secret", channel=text)
        await ix.wait_ack()
    record = sb.requests_to("POST /channels/{channel_id}/messages")[0]
    assert record.path == f"/channels/{text.id}/messages" and record.status == 200
    assert record.json["content"] == "logged" and record.time > 0
    assert sb.channel_messages(text)[0].contains("mission")  # embed titles count as text
    assert ix.acked_at is not None and ix.sent_at < ix.acked_at
    assert sb.interactions == [ix]


async def test_changes_while_the_bot_is_stopped_show_at_its_next_start(sb: Sandbox) -> None:
    """Removed from a guild, a thread deleted, another guild down, all while no client runs:
    the next IDENTIFY leaves the removed guild out of READY, lists the one that is down as
    unavailable (no GUILD_CREATE), and the deleted thread is Unknown Channel."""
    kept, gone, down = sb.add_guild("Kept"), sb.add_guild("Gone"), sb.add_guild("Down")
    thread = kept.add_text_channel("games").add_thread("game 1")
    other = kept.add_text_channel("other").add_thread("game 2")

    def client() -> discord.Client:
        return discord.Client(intents=discord.Intents.default(), guild_ready_timeout=0.3)

    async with running(client(), sb) as c:
        assert {g.id for g in c.guilds} == {kept.id, gone.id, down.id}
        assert not any(g.unavailable for g in c.guilds)
    sb.remove_bot_from(gone)
    kept.delete_channel(thread)
    sb.set_outage(down)
    async with running(client(), sb) as c:
        assert c.get_guild(gone.id) is None
        outage = c.get_guild(down.id)
        assert outage is not None and outage.unavailable
        still = c.get_guild(kept.id)
        assert still is not None and not still.unavailable
        with pytest.raises(discord.NotFound) as deleted:
            await c.fetch_channel(thread.id)
        assert deleted.value.code == 10003
        assert (await c.fetch_channel(other.id)).id == other.id
        sb.set_outage(down, False)
        await until_available(c, down.id)


async def until_available(client: discord.Client, guild_id: int) -> None:
    for _ in range(200):
        guild = client.get_guild(guild_id)
        if guild is not None and not guild.unavailable:
            return
        await asyncio.sleep(0.02)
    raise AssertionError("the guild did not come back")


async def test_a_private_threads_members_as_discord_allows(sb: Sandbox) -> None:
    """A private thread that is not invitable takes members from its creator; its creator
    removes them without Manage Threads; an archived thread's members do not change."""
    guild = sb.add_guild("Guild")
    text = guild.add_text_channel("game")
    alice, bob = sb.add_user("Alice"), sb.add_user("Bob")
    guild.add_member(alice)
    guild.add_member(bob)
    guild.set_role_permissions(guild.bot_role, util.BOT_ROLE_DEFAULT & ~util.MANAGE_THREADS)
    async with running(SandboxBot(), sb) as client:
        made = await client.http.start_thread_without_message(
            text.id, name="den", auto_archive_duration=10080, type=12, invitable=False
        )
        thread = sb.channel(int(made["id"]))
        assert thread.type == 12 and not thread.invitable
        await client.http.add_user_to_thread(thread.id, alice.id)
        await client.http.add_user_to_thread(thread.id, bob.id)
        assert not guild.permissions_in(bob.id, text) & util.MANAGE_THREADS
        await client.http.remove_user_from_thread(thread.id, bob.id)
        assert thread.member_ids == {sb.bot_user.id, alice.id}
        assert guild.permissions_in(bob.id, thread) == 0  # not a member: cannot see it
        await client.http.edit_channel(thread.id, archived=True)  # its creator may
        with pytest.raises(discord.HTTPException) as err:
            await client.http.add_user_to_thread(thread.id, bob.id)
        assert err.value.code == 50083
        with pytest.raises(discord.Forbidden):  # locking needs Manage Threads
            await client.http.edit_channel(thread.id, locked=True)
        # A thread has no overwrites of its own: a member is silenced on its parent.
        with pytest.raises(discord.HTTPException) as err:
            await client.http.edit_channel_permissions(thread.id, bob.id, "0", "2048", 1)
        assert err.value.code == 50024
