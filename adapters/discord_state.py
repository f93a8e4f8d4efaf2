"""READY as soon as the guilds are in: discord.py's connection state, whose start-up wait ends
when every guild READY listed has arrived, not two seconds after the last one did.

After READY, discord.py waits for the GUILD_CREATE stream to end before it dispatches ``ready``
(``_delay_shard_ready``): it takes the stream as ended once no GUILD_CREATE came for
``guild_ready_timeout`` seconds (2 by default), so every start of the bot sat idle for two
seconds after its last guild arrived. READY names every guild the shard will send (as
unavailable); once each of them has arrived, none is still to come. So the quiet period this
state asks for is ``guild_ready_timeout`` while a guild READY listed has not arrived, and almost
nothing once all of them have: the guilds already queued are still taken one by one (a positive
timeout returns a queued guild first), then the wait ends. A guild in an outage never arrives:
the bot waits the whole ``guild_ready_timeout`` for it, as discord.py does, and starts with that
guild unavailable.

discord.py makes a client's state in ``Client._get_state`` (private): :class:`OwnState`, a
client's base, overrides it; with the bypass off (adapters/switch.py) the client keeps
discord.py's own state.
"""

from __future__ import annotations

from typing import Any

import discord
from discord.guild import Guild
from discord.state import AutoShardedConnectionState

from adapters import switch

#: The quiet period once every listed guild has arrived: positive, so that the guilds already
#: queued are taken before it ends (asyncio.wait_for with 0 would cancel the queue's get).
LOADED_QUIET = 0.001


class ReadyOnceLoaded(AutoShardedConnectionState[Any]):
    """AutoShardedConnectionState whose ``guild_ready_timeout`` is the configured one while a
    guild of a READY has not arrived, and :data:`LOADED_QUIET` once every one has."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        #: by shard: the guilds its last READY listed that have not arrived yet
        self._awaited: dict[int, set[int]] = {}
        super().__init__(*args, **kwargs)

    @property
    def guild_ready_timeout(self) -> float:
        configured = self._configured_ready_timeout
        if any(self._awaited.values()):
            return configured
        return min(LOADED_QUIET, configured)

    @guild_ready_timeout.setter
    def guild_ready_timeout(self, value: float) -> None:
        self._configured_ready_timeout = value

    def parse_ready(self, data: Any) -> None:
        self._awaited[int(data["shard"][0])] = {
            int(g["id"]) for g in data["guilds"] if g.get("unavailable", True)
        }
        super().parse_ready(data)

    def _add_ready_state(self, guild: Guild) -> bool:
        self._awaited.get(guild.shard_id, set()).discard(guild.id)
        return super()._add_ready_state(guild)


def ready_once_loaded(client: discord.Client, **options: Any) -> ReadyOnceLoaded:
    """The state an AutoShardedClient subclass returns from ``_get_state`` (:class:`OwnState`)."""
    return ReadyOnceLoaded(
        dispatch=client.dispatch,
        handlers=client._handlers,
        hooks=client._hooks,
        http=client.http,
        **options,
    )


class OwnState(discord.AutoShardedClient):
    """A client's base that runs with the ``bypasses`` named (adapters/switch.py): its state is
    :class:`ReadyOnceLoaded` with ``ready_once_loaded`` (READY once the guilds are in),
    discord.py's without."""

    def __init__(self, *args: Any, bypasses: frozenset[str], **kwargs: Any) -> None:
        #: the bypasses it runs with
        self.bypasses = bypasses
        switch.keep_only(self, bypasses)
        super().__init__(*args, **kwargs)

    def _get_state(self, **options: Any) -> Any:  # called by discord.py's __init__
        if switch.READY_ONCE_LOADED not in self.bypasses:
            return super()._get_state(**options)
        return ready_once_loaded(self, **options)
