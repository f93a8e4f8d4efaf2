from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from bot.clock import utcnow
from tests.clock import FakeClock


def test_utcnow_is_aware_utc() -> None:
    now = utcnow()
    assert now.tzinfo is UTC


def test_fake_clock() -> None:
    clock = FakeClock(datetime(2030, 1, 1, 14, tzinfo=timezone(timedelta(hours=2))))
    assert clock() == datetime(2030, 1, 1, 12, tzinfo=UTC)
    assert clock().tzinfo is UTC
    assert clock.advance(hours=2) == datetime(2030, 1, 1, 14, tzinfo=UTC)
    clock.advance(timedelta(minutes=30))
    assert clock.now() == datetime(2030, 1, 1, 14, 30, tzinfo=UTC)
    clock.set(datetime(2031, 1, 1, tzinfo=UTC))
    assert clock() == datetime(2031, 1, 1, tzinfo=UTC)
    with pytest.raises(ValueError):
        clock.advance(hours=-1)
    with pytest.raises(ValueError):
        clock.set(datetime(2031, 1, 1))  # noqa: DTZ001 - naive on purpose
    assert FakeClock()().tzinfo is UTC
