"""Each interaction's first callback timed where discord.py sends it.

discord.py sends an interaction's callbacks through its webhook adapter, an
``AsyncWebhookAdapter`` kept in the context variable ``discord.webhook.async_.async_context``
(neither is documented): :func:`time_callbacks` puts a subclass of it there that reports each
callback once it went through (bot/metrics.py's acknowledgement time; the callbacks sent over
the bot's own connections are reported by adapters/discord_callback.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from discord.webhook import async_ as webhook_async


class _AckTimer(webhook_async.AsyncWebhookAdapter):
    """discord.py's webhook adapter, reporting each interaction's callback once sent."""

    def __init__(self, acknowledged: Callable[[int], None]) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # discord.py leaves it unannotated
        self.acknowledged = acknowledged

    async def create_interaction_response(self, interaction_id: int, *args: Any, **kw: Any) -> Any:
        result = await super().create_interaction_response(interaction_id, *args, **kw)
        self.acknowledged(interaction_id)
        return result


def time_callbacks(acknowledged: Callable[[int], None]) -> None:
    """Report each callback discord.py sends, in the calling task's context and those it
    creates, to ``acknowledged(interaction_id)`` (once: a second call changes nothing)."""
    if not isinstance(webhook_async.async_context.get(), _AckTimer):
        webhook_async.async_context.set(_AckTimer(acknowledged))
