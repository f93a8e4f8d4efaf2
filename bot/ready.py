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
"""

from __future__ import annotations

import logging
from typing import Any

import discord
from discord.guild import Guild
from discord.state import AutoShardedConnectionState

from bot.clicks import ClickRouter, RoutedViewStore
from bot.stopping import InFlight

log = logging.getLogger(__name__)

#: The quiet period once every listed guild has arrived: positive, so that the guilds already
#: queued are taken before it ends (asyncio.wait_for with 0 would cancel the queue's get).
LOADED_QUIET = 0.001
#: An interaction on a message component (a button, a select).
COMPONENT = discord.InteractionType.component.value


class ReadyOnceLoaded(AutoShardedConnectionState[Any]):
    """AutoShardedConnectionState whose ``guild_ready_timeout`` is the configured one while a
    guild of a READY has not arrived, and :data:`LOADED_QUIET` once every one has."""

    def __init__(
        self,
        *args: Any,
        router: ClickRouter | None = None,
        in_flight: InFlight | None = None,
        **kwargs: Any,
    ) -> None:
        #: by shard: the guilds its last READY listed that have not arrived yet
        self._awaited: dict[int, set[int]] = {}
        #: the vote buttons' router (bot/clicks.py), given the first look at a dynamic click
        self._router = router
        #: the interactions received and not answered yet; none is taken once it is closed
        self._in_flight = in_flight or InFlight()
        super().__init__(*args, **kwargs)

    def clear(self, *, views: bool = True) -> None:
        super().clear(views=views)
        if views and self._router is not None:
            self._view_store = RoutedViewStore(self, self._router)

    @property
    def guild_ready_timeout(self) -> float:
        configured = self._configured_ready_timeout
        if any(self._awaited.values()):
            return configured
        return min(LOADED_QUIET, configured)

    @guild_ready_timeout.setter
    def guild_ready_timeout(self, value: float) -> None:
        self._configured_ready_timeout = value

    def parse_interaction_create(self, data: Any) -> None:
        # While the bot stops (bot/stopping.py) no interaction is taken; the tasks of those
        # taken are in flight until they end.
        if self._in_flight.closed:
            log.info("interaction %s not taken: the bot is stopping", data.get("id"))
            return
        self._in_flight.receive(self._receive, data)

    def _receive(self, data: Any) -> None:
        # A routed click (bot/clicks.py) needs nothing of the message it is on: its interaction
        # is made without it (discord.py parses the whole message: its author, components and
        # embeds) and goes straight to the router (no lookup among the views of messages).
        if data["type"] == COMPONENT and self._router is not None:
            inner = data["data"]
            custom_id = inner["custom_id"]
            routed = self._router.match(inner["component_type"], custom_id)
            if routed is not None and isinstance(self._view_store, RoutedViewStore):
                bare: Any = {key: value for key, value in data.items() if key != "message"}
                interaction: discord.Interaction[Any] = discord.Interaction(data=bare, state=self)
                self._view_store.route(routed, custom_id, interaction)
                self.dispatch("interaction", interaction)
                return
        super().parse_interaction_create(data)

    def parse_ready(self, data: Any) -> None:
        self._awaited[int(data["shard"][0])] = {
            int(g["id"]) for g in data["guilds"] if g.get("unavailable", True)
        }
        super().parse_ready(data)

    def _add_ready_state(self, guild: Guild) -> bool:
        self._awaited.get(guild.shard_id, set()).discard(guild.id)
        return super()._add_ready_state(guild)


def ready_once_loaded(
    client: discord.Client,
    router: ClickRouter | None = None,
    in_flight: InFlight | None = None,
    **options: Any,
) -> ReadyOnceLoaded:
    """The state an AutoShardedClient subclass returns from ``_get_state`` (GameBot's)."""
    return ReadyOnceLoaded(
        router=router,
        in_flight=in_flight,
        dispatch=client.dispatch,
        handlers=client._handlers,
        hooks=client._hooks,
        http=client.http,
        **options,
    )
