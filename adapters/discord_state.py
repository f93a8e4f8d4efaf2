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

While the bot stops (bot/stopping.py) it takes no new interaction and waits for those it took:
:class:`GatedState` hands each INTERACTION_CREATE to a gate, whatever the bypasses (the drain is
no shortcut: no public API sees an interaction before discord.py makes its tasks).

discord.py makes a client's state in ``Client._get_state`` (private): :class:`OwnState`, a
client's base, overrides it; with the bypass off (adapters/switch.py) the state is discord.py's
own but for the gate.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Protocol

import discord
from discord.guild import Guild
from discord.state import AutoShardedConnectionState

from adapters import switch

log = logging.getLogger(__name__)

#: The quiet period once every listed guild has arrived: positive, so that the guilds already
#: queued are taken before it ends (asyncio.wait_for with 0 would cancel the queue's get).
LOADED_QUIET = 0.001


class InteractionGate(Protocol):
    """What takes the interactions in (bot/stopping.py's InFlight)."""

    #: once set, an interaction that arrives is dropped (never acted on)
    closed: bool

    def receive(self, handle: Callable[[Any], object], data: Any) -> None:
        """``handle(data)``, the tasks it creates counted as in flight."""


class OpenGate:
    """A gate that takes every interaction as it comes (a client given none)."""

    closed = False

    def receive(self, handle: Callable[[Any], object], data: Any) -> None:
        handle(data)


class GatedState(AutoShardedConnectionState[Any]):
    """AutoShardedConnectionState whose interactions go through a gate."""

    def __init__(self, *args: Any, gate: InteractionGate | None = None, **kwargs: Any) -> None:
        self._gate: InteractionGate = gate or OpenGate()
        super().__init__(*args, **kwargs)

    def parse_interaction_create(self, data: Any) -> None:
        if self._gate.closed:
            log.info("interaction %s not taken: the bot is stopping", data.get("id"))
            return
        self._gate.receive(super().parse_interaction_create, data)


class ReadyOnceLoaded(GatedState):
    """The gated state whose ``guild_ready_timeout`` is the configured one while a guild of a
    READY has not arrived, and :data:`LOADED_QUIET` once every one has."""

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


def own_state(
    client: discord.Client,
    *,
    loaded: bool = True,
    gate: InteractionGate | None = None,
    **options: Any,
) -> GatedState:
    """The state an AutoShardedClient subclass returns from ``_get_state`` (:class:`OwnState`):
    :class:`ReadyOnceLoaded` if ``loaded``, else only gated."""
    return (ReadyOnceLoaded if loaded else GatedState)(
        gate=gate,
        dispatch=client.dispatch,
        handlers=client._handlers,
        hooks=client._hooks,
        http=client.http,
        **options,
    )


class OwnState(discord.AutoShardedClient):
    """A client's base that runs with the ``bypasses`` named (adapters/switch.py), its
    interactions through ``gate``: its state is :class:`ReadyOnceLoaded` with
    ``ready_once_loaded`` (READY once the guilds are in), only :class:`GatedState` without."""

    def __init__(
        self,
        *args: Any,
        bypasses: frozenset[str],
        gate: InteractionGate | None = None,
        **kwargs: Any,
    ) -> None:
        #: the bypasses it runs with
        self.bypasses = bypasses
        self._gate = gate
        switch.keep_only(self, bypasses)
        super().__init__(*args, **kwargs)

    def _get_state(self, **options: Any) -> Any:  # called by discord.py's __init__
        loaded = switch.READY_ONCE_LOADED in self.bypasses
        return own_state(self, loaded=loaded, gate=self._gate, **options)
