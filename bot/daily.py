"""Daily deadline time: a step's deadline falls at a set hour of the server's time zone.

With a game's ``deadline_time`` ("21:00"; empty = off), a vote, mission or secret-choice
deadline falls on the first ``deadline_time`` in the guild's zone that is at least
``min_hours`` (default 12) after the step opens — as forum moderators "count the votes at 9 pm".
Wall-clock arithmetic goes through :mod:`zoneinfo` (the ``tzdata`` package where the host has
no zone database), so daylight-saving changes are exact: 21:00 stays 21:00 local on both sides
of a change. A time that does not exist on a spring-forward day (02:30 in a skipped hour) falls
at the same distance after the gap (03:30); a time that happens twice on a fall-back day falls
on its first occurrence.
"""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from functools import cache
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from bot.errors import UserError
from bot.options import time_of_day

DEFAULT_ZONE = "UTC"
DEFAULT_MIN_HOURS = 12.0


def parse_time(value: str) -> time:
    """``"21:00"`` → 21:00; anything else is refused with a clear message. (The option
    ``deadline_time`` is checked by its schema, bot/options.py, before it is kept.)"""
    at = time_of_day(value)
    if at is None:
        raise UserError("daily.bad_time", value=value[:20])
    return time(*at)


@cache
def zone_names() -> tuple[str, ...]:
    """Every IANA zone name this host knows (with tzdata: all of them), sorted."""
    return tuple(sorted(available_timezones()))


def zone(name: str | None) -> ZoneInfo:
    try:
        return ZoneInfo(name or DEFAULT_ZONE)
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo(DEFAULT_ZONE)


def check_zone(name: str) -> str:
    """The zone's canonical spelling, or a clear refusal."""
    wanted = name.strip()
    for known in zone_names():
        if known.casefold() == wanted.casefold():
            return known
    raise UserError("daily.bad_zone", zone=wanted[:64])


def matching_zones(typed: str, limit: int = 25) -> list[str]:
    """Autocomplete: zones containing what is typed (``paris``, ``new_york``, ``new york``)."""
    wanted = typed.strip().casefold().replace(" ", "_")
    starts = [z for z in zone_names() if z.casefold().startswith(wanted)]
    inside = [z for z in zone_names() if wanted in z.casefold() and z not in starts]
    return (starts + inside)[:limit]


def next_deadline(opened: datetime, at: time, where: ZoneInfo, min_hours: float) -> datetime:
    """The first ``at`` (wall clock in ``where``) at least ``min_hours`` after ``opened``
    (an aware datetime); returned in UTC."""
    earliest = opened.astimezone(UTC) + timedelta(hours=min_hours)
    day = earliest.astimezone(where).date()
    for _ in range(3):
        candidate = datetime.combine(day, at, tzinfo=where).astimezone(UTC)
        if candidate >= earliest:
            return candidate
        day += timedelta(days=1)
    raise AssertionError("unreachable: a day later is always late enough")


def due(opened: datetime, options: dict[str, Any], hours_option: str, zone_name: str) -> datetime:
    """When a step opened at ``opened`` closes: ``hours_option`` hours later, or at the daily
    deadline time when the game has one."""
    at = options.get("deadline_time")
    if not at:
        return opened + timedelta(hours=float(options.get(hours_option, 24)))
    min_hours = float(options.get("min_hours", DEFAULT_MIN_HOURS))
    return next_deadline(opened, parse_time(str(at)), zone(zone_name), min_hours)
