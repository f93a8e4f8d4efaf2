"""Daily deadline time across daylight-saving changes (Europe/Paris, America/New_York)."""

from __future__ import annotations

from datetime import UTC, datetime, time
from zoneinfo import ZoneInfo

import pytest

from bot import daily
from bot.errors import UserError
from bot.options import DAILY_OPTIONS, OptionError, OptionsSchema

PARIS, NEW_YORK = ZoneInfo("Europe/Paris"), ZoneInfo("America/New_York")

#: The daily-deadline options as every game declares them (here the poll's kind).
DAILY = OptionsSchema("poll", DAILY_OPTIONS)


def utc(year: int, month: int, day: int, hour: int = 0, minute: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, tzinfo=UTC)


# (zone, opened (UTC), deadline time, min hours, expected deadline (UTC)).
# Paris: CET (UTC+1) until 2026-03-29 01:00 UTC, CEST (UTC+2) until 2026-10-25 01:00 UTC.
# New York: EST (UTC-5) until 2026-03-08 07:00 UTC, EDT (UTC-4) until 2026-11-01 06:00 UTC.
TABLE = [
    # -- Paris, spring forward (Sunday 2026-03-29) --
    (PARIS, utc(2026, 3, 28, 8, 0), "21:00", 12, utc(2026, 3, 28, 20, 0)),  # Sat 21:00 CET
    (PARIS, utc(2026, 3, 28, 9, 30), "21:00", 12, utc(2026, 3, 29, 19, 0)),  # Sun 21:00 CEST
    (PARIS, utc(2026, 3, 28, 20, 0), "21:00", 12, utc(2026, 3, 29, 19, 0)),  # 23 h later
    (PARIS, utc(2026, 3, 29, 7, 0), "21:00", 12, utc(2026, 3, 29, 19, 0)),  # exactly 12 h
    (PARIS, utc(2026, 3, 29, 7, 1), "21:00", 12, utc(2026, 3, 30, 19, 0)),  # 1 min too late
    (
        PARIS,
        utc(2026, 3, 28, 12, 0),
        "02:30",
        12,
        utc(2026, 3, 29, 1, 30),
    ),  # skipped: 03:30
    (PARIS, utc(2026, 3, 28, 20, 0), "09:00", 0, utc(2026, 3, 29, 7, 0)),  # 09:00 CEST
    # -- Paris, fall back (Sunday 2026-10-25) --
    (PARIS, utc(2026, 10, 24, 7, 0), "21:00", 12, utc(2026, 10, 24, 19, 0)),  # Sat 21:00 CEST
    (PARIS, utc(2026, 10, 24, 8, 1), "21:00", 12, utc(2026, 10, 25, 20, 0)),  # Sun 21:00 CET
    (PARIS, utc(2026, 10, 25, 8, 0), "21:00", 12, utc(2026, 10, 25, 20, 0)),  # exactly 12 h
    (PARIS, utc(2026, 10, 24, 12, 0), "02:30", 12, utc(2026, 10, 25, 0, 30)),  # first 02:30 (CEST)
    (PARIS, utc(2026, 10, 24, 13, 0), "02:30", 12, utc(2026, 10, 26, 1, 30)),  # past it: Monday
    (PARIS, utc(2026, 10, 24, 22, 0), "23:59", 24, utc(2026, 10, 25, 22, 59)),  # 25-hour day
    # -- New York, spring forward (Sunday 2026-03-08) --
    (NEW_YORK, utc(2026, 3, 7, 14, 0), "21:00", 12, utc(2026, 3, 8, 2, 0)),  # Sat 21:00 EST
    (NEW_YORK, utc(2026, 3, 7, 14, 1), "21:00", 12, utc(2026, 3, 9, 1, 0)),  # Sun 21:00 EDT
    (NEW_YORK, utc(2026, 3, 8, 13, 0), "21:00", 12, utc(2026, 3, 9, 1, 0)),  # exactly 12 h
    (
        NEW_YORK,
        utc(2026, 3, 7, 12, 0),
        "02:15",
        12,
        utc(2026, 3, 8, 7, 15),
    ),  # skipped: 03:15
    # -- New York, fall back (Sunday 2026-11-01) --
    (NEW_YORK, utc(2026, 10, 31, 12, 0), "21:00", 12, utc(2026, 11, 1, 1, 0)),  # Sat 21:00 EDT
    (NEW_YORK, utc(2026, 10, 31, 13, 1), "21:00", 12, utc(2026, 11, 2, 2, 0)),  # Sun 21:00 EST
    (NEW_YORK, utc(2026, 10, 31, 12, 0), "01:30", 12, utc(2026, 11, 1, 5, 30)),  # first 01:30 (EDT)
    (NEW_YORK, utc(2026, 11, 1, 2, 0), "21:00", 48, utc(2026, 11, 3, 2, 0)),  # 48 h: Mon 21:00 EST
]


@pytest.mark.parametrize(("where", "opened", "at", "min_hours", "expected"), TABLE)
def test_the_first_deadline_time_at_least_min_hours_after_opening(
    where: ZoneInfo, opened: datetime, at: str, min_hours: float, expected: datetime
) -> None:
    due = daily.next_deadline(opened, daily.parse_time(at), where, min_hours)
    assert due == expected, (due, due.astimezone(where))
    assert due >= opened and (due - opened).total_seconds() >= min_hours * 3600
    local = due.astimezone(where)
    skipped = (local.hour, local.minute) != (daily.parse_time(at).hour, daily.parse_time(at).minute)
    # Only a time that does not exist that day (a spring-forward gap) moves, by the gap.
    assert not skipped or at in ("02:30", "02:15")


def test_without_a_deadline_time_the_hours_apply_and_reminders_count_back() -> None:
    opened = utc(2026, 3, 28, 9, 30)
    assert daily.due(opened, {"vote_hours": 5.0}, "vote_hours", "Europe/Paris") == utc(
        2026, 3, 28, 14, 30
    )
    options = {"vote_hours": 5.0, "deadline_time": "21:00", "min_hours": 12}
    assert daily.due(opened, options, "vote_hours", "Europe/Paris") == utc(2026, 3, 29, 19, 0)
    assert daily.due(opened, options, "vote_hours", "nowhere/zone") == utc(2026, 3, 29, 21, 0)


def test_bad_times_and_zones_are_refused_clearly() -> None:
    for bad in ("24:00", "9pm", "21h", "", "21:60"):
        with pytest.raises(UserError):
            daily.parse_time(bad)
    assert daily.parse_time("9:05") == time(9, 5)
    # the option is checked and kept by its schema (bot/options.py), as the config reads it
    deadline = DAILY["deadline_time"]
    assert deadline.validate("9:05") == "09:05" and deadline.validate("") == ""
    for bad in ("24:00", "9pm", " "):
        with pytest.raises(OptionError) as caught:
            deadline.validate(bad, "poll")
        assert caught.value.key == "daily.bad_time" and caught.value.params["value"] == bad
    assert DAILY.parse_config({"deadline_time": "9:05"})["deadline_time"] == "09:05"
    with pytest.raises(OptionError):
        DAILY["min_hours"].validate(-1)
    assert daily.check_zone("europe/paris") == "Europe/Paris"
    with pytest.raises(UserError):
        daily.check_zone("Mars/Olympus")
    assert daily.matching_zones("new york")[0] == "America/New_York"
    assert "Europe/Paris" in daily.matching_zones("paris")
    assert len(daily.matching_zones("")) == 25
