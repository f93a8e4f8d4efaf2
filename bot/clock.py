"""Time as the application sees it: injectable, so tests can move it by hand (tests/clock.py)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

Clock = Callable[[], datetime]


def utcnow() -> datetime:
    """The current time, aware, in UTC."""
    return datetime.now(UTC)
