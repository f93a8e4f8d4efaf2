"""What every game's renderer shares."""

from __future__ import annotations

from datetime import datetime


def ts(when: datetime) -> str:
    """A Discord timestamp: every reader sees it in their own time zone."""
    epoch = int(when.timestamp())
    return f"<t:{epoch}:F> (<t:{epoch}:R>)"


def channel(channel_id: int) -> str:
    """A channel mention."""
    return f"<#{channel_id}>"
