"""A clock for tests that stands still until told to move: what the application's injectable
clock (bot.clock.Clock) is given in tests of deadlines, reminders and late clicks."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta


class FakeClock:
    """A clock for tests: stands still until told to move.

    ``clock = FakeClock(); clock()`` returns the current fake time (aware UTC).
    """

    def __init__(self, start: datetime | None = None) -> None:
        self._now = _aware(start) if start is not None else datetime(2030, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self._now

    def now(self) -> datetime:
        return self._now

    def set(self, when: datetime) -> None:
        self._now = _aware(when)

    def advance(self, delta: timedelta | None = None, **kwargs: float) -> datetime:
        """Move forward by ``delta`` or by ``timedelta(**kwargs)`` (e.g. ``hours=2``)."""
        step = delta if delta is not None else timedelta(**kwargs)
        if step < timedelta(0):
            raise ValueError("a clock does not go backwards")
        self._now += step
        return self._now


def _aware(when: datetime) -> datetime:
    if when.tzinfo is None or when.utcoffset() is None:
        raise ValueError(f"naive datetime refused: {when!r}")
    return when.astimezone(UTC)
