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

The same state routes the vote buttons' clicks (adapters/discord_clicks.py) before discord.py
parses the message they are on. discord.py makes a client's state in ``Client._get_state``
(private): :class:`OwnState`, a client's base, overrides it; with neither bypass on
(adapters/switch.py) the client keeps discord.py's own state.
"""

from __future__ import annotations

from typing import Any

import discord
from discord.guild import Guild
from discord.state import AutoShardedConnectionState

from adapters import switch
from adapters.discord_clicks import ClickRouter, RoutedViewStore

#: The quiet period once every listed guild has arrived: positive, so that the guilds already
#: queued are taken before it ends (asyncio.wait_for with 0 would cancel the queue's get).
LOADED_QUIET = 0.001
#: An interaction on a message component (a button, a select).
COMPONENT = discord.InteractionType.component.value


class ReadyOnceLoaded(AutoShardedConnectionState[Any]):
    """AutoShardedConnectionState whose ``guild_ready_timeout`` is the configured one while a
    guild of a READY has not arrived, and :data:`LOADED_QUIET` once every one has."""

    def __init__(
        self, *args: Any, router: ClickRouter | None = None, early: bool = True, **kwargs: Any
    ) -> None:
        #: by shard: the guilds its last READY listed that have not arrived yet
        self._awaited: dict[int, set[int]] = {}
        #: whether the wait ends once every listed guild has arrived (else discord.py's wait)
        self._early = early
        #: the vote buttons' router (adapters/discord_clicks.py), given the first look at a
        #: dynamic click
        self._router = router
        super().__init__(*args, **kwargs)

    def clear(self, *, views: bool = True) -> None:
        super().clear(views=views)
        if views and self._router is not None:
            self._view_store = RoutedViewStore(self, self._router)

    @property
    def guild_ready_timeout(self) -> float:
        configured = self._configured_ready_timeout
        if not self._early or any(self._awaited.values()):
            return configured
        return min(LOADED_QUIET, configured)

    @guild_ready_timeout.setter
    def guild_ready_timeout(self, value: float) -> None:
        self._configured_ready_timeout = value

    def parse_interaction_create(self, data: Any) -> None:
        # A routed click (adapters/discord_clicks.py) needs nothing of the message it is on:
        # its interaction is made without it (discord.py parses the whole message: its author,
        # components and embeds) and goes straight to the router (no lookup among the views of
        # messages).
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
    client: discord.Client, router: ClickRouter | None = None, early: bool = True, **options: Any
) -> ReadyOnceLoaded:
    """The state an AutoShardedClient subclass returns from ``_get_state`` (:class:`OwnState`)."""
    return ReadyOnceLoaded(
        router=router,
        early=early,
        dispatch=client.dispatch,
        handlers=client._handlers,
        hooks=client._hooks,
        http=client.http,
        **options,
    )


class OwnState(discord.AutoShardedClient):
    """A client's base that runs with the ``bypasses`` named (adapters/switch.py): its state is
    :class:`ReadyOnceLoaded` with ``ready_once_loaded`` (READY once the guilds are in) or
    ``routed_clicks`` (the router's clicks routed by it), discord.py's with neither."""

    def __init__(
        self, *args: Any, bypasses: frozenset[str], router: ClickRouter | None, **kwargs: Any
    ) -> None:
        #: the bypasses it runs with
        self.bypasses = bypasses
        switch.keep_only(self, bypasses)
        # read by _get_state, which discord.py's __init__ calls
        self._own_state = (router, switch.READY_ONCE_LOADED in bypasses)
        super().__init__(*args, **kwargs)

    def _get_state(self, **options: Any) -> Any:
        router, early = self._own_state
        if router is None and not early:
            return super()._get_state(**options)
        return ready_once_loaded(self, router, early, **options)
