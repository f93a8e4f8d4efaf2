"""READY once every guild it listed has arrived (adapters/discord_state.py): the bot does not wait
two more seconds of quiet, yet every guild of every shard is loaded when ``ready`` fires, one that
comes late included; a guild in an outage never arrives, and the bot starts without it after the
whole ``guild_ready_timeout``."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import discord

from adapters.discord_endpoints import point_discord_at
from adapters.discord_state import GatedState, own_state
from playtest.players import until
from sandbox import Sandbox
from tests.sandbox.client import running


class Recorder(discord.AutoShardedClient):
    """A client on the bot's state that notes, at ``ready``, each guild's (unavailable,
    channel count)."""

    def __init__(self, shard_count: int, **options: Any) -> None:
        super().__init__(intents=discord.Intents.default(), shard_count=shard_count, **options)
        self.at_ready: dict[int, tuple[bool, int]] | None = None

    def _get_state(self, **options: Any) -> GatedState:
        return own_state(self, **options)

    async def on_ready(self) -> None:
        self.at_ready = {g.id: (g.unavailable, len(g.channels)) for g in self.guilds}


async def test_every_guild_of_every_shard_is_loaded_at_ready(sb: Sandbox) -> None:
    guilds = [sb.add_guild(f"Guild {i}", shard=(i % 2, 2)) for i in range(6)]
    for guild in guilds:
        guild.add_text_channel("games")
        guild.add_text_channel("other")
    async with running(Recorder(2), sb) as client:
        assert client.at_ready == {g.id: (False, 2) for g in guilds}
        assert {g.shard_id for g in client.guilds} == {0, 1}


async def test_a_guild_in_an_outage_is_waited_for_then_left_unavailable(sb: Sandbox) -> None:
    up, down = sb.add_guild("Up"), sb.add_guild("Down")
    up.add_text_channel("games")
    sb.set_outage(down)
    async with running(Recorder(1, guild_ready_timeout=0.3), sb) as client:
        assert client.at_ready is not None
        assert client.at_ready[up.id] == (False, 1)
        assert client.at_ready[down.id][0] is True


async def test_a_guild_that_arrives_late_is_waited_for(sb: Sandbox) -> None:
    # READY lists both guilds; "Late" is down, so only "Up" arrives. It comes back while the
    # client waits (its timeout is long): ready comes once it is in, with its channel.
    up, late = sb.add_guild("Up"), sb.add_guild("Late")
    up.add_text_channel("games")
    late.add_text_channel("games")
    sb.set_outage(late)
    client = Recorder(1, guild_ready_timeout=60)
    point_discord_at(sb.api_base, sb.gateway_url)
    task = asyncio.create_task(client.start(sb.token))
    try:
        await until(lambda: (g := client.get_guild(up.id)) is not None and not g.unavailable)
        assert client.at_ready is None  # "Late" is awaited
        sb.set_outage(late, False)
        await until(lambda: client.at_ready is not None, what="ready")
        assert client.at_ready == {up.id: (False, 1), late.id: (False, 1)}
    finally:
        await client.close()
        with contextlib.suppress(Exception, asyncio.CancelledError):
            await asyncio.wait_for(task, 5)
