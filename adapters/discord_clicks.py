"""The vote buttons' clicks, routed from their custom_id alone.

discord.py runs a ``DynamicItem``'s click only after rebuilding the view of the whole message
clicked (``View.from_message``: every button of it made again, about 75 µs for a vote DM's four,
measured), to find the clicked one and hand it to ``from_custom_id``. A vote button needs
nothing of that message: its meaning is in its custom_id. The classes of
``GamePlugin.clicks`` are matched here first, each click's item is made from a bare button of
that custom_id, and its callback runs in a task of its own, as discord.py's would; every other
component goes on to discord.py's own dispatch.
"""

from __future__ import annotations

import asyncio
import logging
import re
from typing import Any

import discord
from discord.ui.view import ViewStore

log = logging.getLogger(__name__)

BUTTON = discord.ComponentType.button.value


class ClickRouter:
    """The routed button classes (``DynamicItem`` of a button), by their template."""

    def __init__(self) -> None:
        self.routes: list[tuple[re.Pattern[str], Any]] = []

    def add(self, *items: Any) -> None:
        self.routes += [(item.__discord_ui_compiled_template__, item) for item in items]

    def match(self, component_type: int, custom_id: str) -> tuple[Any, re.Match[str]] | None:
        """The routed class of a click and its template's match; None: not one of ours."""
        if component_type == BUTTON:
            for pattern, cls in self.routes:
                match = pattern.fullmatch(custom_id)
                if match is not None:
                    return cls, match
        return None


async def click(
    cls: Any, interaction: discord.Interaction, custom_id: str, match: re.Match[str]
) -> None:
    """A routed click: its item made from a bare button of the custom_id, then its callback."""
    try:
        button: discord.ui.Button[Any] = discord.ui.Button(custom_id=custom_id)
        item = await cls.from_custom_id(interaction, button, match)
        await item.callback(interaction)
    except Exception:  # the callback answers its own errors: this one escaped it
        log.exception("click on a %s failed", cls.__name__)  # not its custom_id: a choice


class RoutedViewStore(ViewStore):
    """discord.py's view store, which gives the router the first look at a dynamic click (its
    task kept as discord.py keeps a dynamic item's)."""

    def __init__(self, state: Any, router: ClickRouter) -> None:
        super().__init__(state)
        self.router = router

    def dispatch_dynamic_items(
        self, component_type: int, custom_id: str, interaction: discord.Interaction[Any]
    ) -> None:
        routed = self.router.match(component_type, custom_id)
        if routed is None:
            super().dispatch_dynamic_items(component_type, custom_id, interaction)
            return
        self.route(routed, custom_id, interaction)

    def route(
        self, routed: tuple[Any, re.Match[str]], custom_id: str, interaction: discord.Interaction
    ) -> None:
        """Run a routed click (:meth:`ClickRouter.match`'s find) in a task of its own."""
        cls, match = routed
        self.add_task(asyncio.create_task(click(cls, interaction, custom_id, match)))
