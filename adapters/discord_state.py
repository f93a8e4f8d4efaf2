"""The bot's connection state: discord.py's own, its interactions through a gate.

While the bot stops (bot/stopping.py) it takes no new interaction and waits for those it took:
:class:`GatedState` hands each INTERACTION_CREATE to a gate (the drain is no shortcut: no public
API sees an interaction before discord.py makes its tasks). discord.py makes a client's state in
``Client._get_state`` (private): :class:`OwnState`, a client's base, overrides it.

(Its ``ready_once_loaded`` bypass, READY as soon as every guild READY listed had arrived, was
removed: on the burst it was worth nothing, docs/performance.md, "The bypasses".)
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Protocol

import discord
from discord.state import AutoShardedConnectionState

from adapters import switch

log = logging.getLogger(__name__)


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


def own_state(
    client: discord.Client, *, gate: InteractionGate | None = None, **options: Any
) -> GatedState:
    """The state an AutoShardedClient subclass returns from ``_get_state`` (:class:`OwnState`)."""
    return GatedState(
        gate=gate,
        dispatch=client.dispatch,
        handlers=client._handlers,
        hooks=client._hooks,
        http=client.http,
        **options,
    )


class OwnState(discord.AutoShardedClient):
    """A client's base that runs with the ``bypasses`` named (adapters/switch.py), its
    interactions through ``gate`` (:class:`GatedState`)."""

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
        return own_state(self, gate=self._gate, **options)
