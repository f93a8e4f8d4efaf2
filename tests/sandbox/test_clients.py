"""discord.Client and AutoShardedClient against the sandbox: login, sync, slash, DMs, shards."""

from __future__ import annotations

import asyncio
from typing import Any

import discord
import pytest

from sandbox import Sandbox
from tests.sandbox.client import running

from .botkit import SandboxBot, ShardedSandboxBot, vote_view

pytestmark = pytest.mark.timeout(30)


async def test_client_syncs_commands_and_answers_slash(sb: Sandbox) -> None:
    guild = sb.add_guild("Guild", locale="fr")
    text = guild.add_text_channel("game")
    alice = sb.add_user("Alice", locale="fr")
    bob = sb.add_user("Bob")
    guild.add_member(alice)
    guild.add_member(bob)

    async with running(SandboxBot(), sb) as client:
        assert client.user is not None and client.user.id == sb.bot_user.id
        assert client.application_id == sb.application_id
        assert [g.id for g in client.guilds] == [guild.id]

        group = next(c for c in sb.commands() if c["name"] == "resistance")
        assert group["name_localizations"] == {"fr": "resistance"}
        assert group["description_localizations"] == {"fr": "La Résistance"}
        propose = next(o for o in group["options"] if o["name"] == "propose")
        assert propose["type"] == 1
        assert propose["name_localizations"] == {"fr": "proposer"}
        player1 = propose["options"][0]
        assert (player1["name"], player1["type"], player1["required"]) == ("player1", 6, True)
        assert player1["name_localizations"] == {"fr": "joueur1"}

        ix = await sb.slash(alice, "resistance propose", channel=text, player1=alice, player2=bob)
        assert await ix.reply() == "Team: Alice, Bob"
        assert not ix.ephemeral
        assert ix.latency is not None and ix.latency < 3
        seen = client.seen[-1]
        assert seen.locale is discord.Locale.french
        assert seen.guild_locale is discord.Locale.french
        assert isinstance(seen.user, discord.Member)
        assert seen.channel is not None and seen.channel.id == text.id

        ix = await sb.slash(bob, "resistance secret", channel=text)
        assert await ix.reply() == "only you can see this"
        assert ix.ephemeral
        assert [m.content for m in sb.ephemeral_for(bob)] == ["only you can see this"]
        assert sb.ephemeral_for(alice) == []
        assert [m.content for m in sb.channel_messages(text)] == ["Team: Alice, Bob"]

        ix = await sb.slash(alice, "ping", channel=text)
        assert await ix.reply() == "pong from shard 0"

        # A subcommand group with ROLE, CHANNEL, INTEGER and NUMBER options, in a thread.
        admin = next(o for o in group["options"] if o["name"] == "admin")
        assert admin["type"] == 2 and admin["options"][0]["type"] == 1
        mods = guild.add_role("Mods")
        thread = text.add_thread("side", owner=alice)
        ix = await sb.slash(
            alice,
            "resistance admin extend",
            channel=thread,
            hours=5,
            role=mods,
            where=text,
            ratio=0.5,
        )
        assert await ix.reply() == "+5h role=Mods where=game ratio=0.5"
        assert sb.messages_in(thread)[0].content == "+5h role=Mods where=game ratio=0.5"
        assert client.seen[-1].channel is not None

        # The REST side of discord.py sees the same messages.
        channel = client.get_channel(text.id)
        assert isinstance(channel, discord.TextChannel)
        history = [m.content async for m in channel.history(limit=10)]
        assert history == ["pong from shard 0", "Team: Alice, Bob"]

        routes = {r.route for r in sb.requests}
        assert "PUT /applications/{application_id}/commands" in routes
        assert "POST /interactions/{interaction_id}/{interaction_token}/callback" in routes


async def test_dm_with_view_and_click(sb: Sandbox) -> None:
    guild = sb.add_guild("Guild")
    bob = sb.add_user("Bob")
    guild.add_member(bob)
    async with running(SandboxBot(), sb) as client:
        user = await client.fetch_user(bob.id)
        sent = await user.send("Vote on the team", view=vote_view(7))
        msg = await sb.wait_for_dm(bob, contains="vote on the team")
        assert msg.id == sent.id and msg.labels == ["Accept", "Reject"]
        ix = await sb.click(bob, msg, label="Accept")
        assert await ix.reply() == "bob voted accept in game 7"
        assert ix.ephemeral

        # A user message in the DM reaches the client.
        waiter = asyncio.ensure_future(client.wait_for("message", timeout=5))
        await sb.say(bob, sb.dm_channel(bob), "hello bot")
        got: discord.Message = await waiter
        assert got.content == "hello bot" and isinstance(got.channel, discord.DMChannel)


async def test_autosharded_client_routes_guilds_to_shards(
    sb: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    sb.recommended_shards = 2
    g0 = sb.add_guild("Shard zero", shard=(0, 2))
    g1 = sb.add_guild("Shard one", shard=(1, 2))
    alice = sb.add_user("Alice")
    for g in (g0, g1):
        g.add_member(alice)
    t0, t1 = g0.add_text_channel("zero"), g1.add_text_channel("one")

    received: list[tuple[int | None, str, Any]] = []
    original = discord.gateway.DiscordWebSocket.received_message

    # Record (shard id, event, guild id) of every dispatch as the client's sockets see it.
    def parser_spy(name: str, client: discord.AutoShardedClient) -> None:
        parsers = client._connection.parsers
        inner = parsers[name]

        def wrapped(data: dict[str, Any]) -> None:
            received.append((_current_shard[0], name, data.get("guild_id")))
            inner(data)

        parsers[name] = wrapped

    _current_shard: list[int | None] = [None]

    async def tracking(self: discord.gateway.DiscordWebSocket, msg: Any, /) -> None:
        _current_shard[0] = self.shard_id
        await original(self, msg)

    monkeypatch.setattr(discord.gateway.DiscordWebSocket, "received_message", tracking)

    client = ShardedSandboxBot()
    parser_spy("INTERACTION_CREATE", client)
    async with running(client, sb):
        assert client.shard_count == 2
        assert sorted(client.shards) == [0, 1]
        assert sb.shard_ids_for(g0) == [0] and sb.shard_ids_for(g1) == [1]
        first, second = client.get_guild(g0.id), client.get_guild(g1.id)
        assert first is not None and first.shard_id == 0
        assert second is not None and second.shard_id == 1

        assert await (await sb.slash(alice, "ping", channel=t0)).reply() == "pong from shard 0"
        assert await (await sb.slash(alice, "ping", channel=t1)).reply() == "pong from shard 1"
        ix = await sb.slash(alice, "resistance secret")  # in the DM channel
        assert await ix.reply() == "only you can see this"

    assert [r for r in received if r[1] == "INTERACTION_CREATE"] == [
        (0, "INTERACTION_CREATE", str(g0.id)),
        (1, "INTERACTION_CREATE", str(g1.id)),
        (0, "INTERACTION_CREATE", None),
    ]
    assert any(r.route == "GET /gateway/bot" for r in sb.requests)


async def test_dynamic_item_button_works_after_reconnecting_a_new_client(sb: Sandbox) -> None:
    guild = sb.add_guild("Guild")
    bob = sb.add_user("Bob")
    guild.add_member(bob)
    async with running(SandboxBot(), sb) as first:
        await (await first.fetch_user(bob.id)).send("Team proposed", view=vote_view(42))
    msg = await sb.wait_for_dm(bob, contains="Team proposed")
    assert all(not s.conn for s in sb.gateway.sessions.values())

    async with running(SandboxBot(sync=False), sb):
        ix = await sb.click(bob, msg, label="Reject")
        assert await ix.reply() == "bob voted reject in game 42"
        assert ix.ephemeral and ix.answer is not None and ix.answer.ephemeral_to == bob.id
    assert sb.identify_count == 2
