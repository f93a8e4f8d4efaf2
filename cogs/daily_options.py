"""The daily-deadline options every game offers (``/<game> new``, ``/settings <game>``)."""

from __future__ import annotations

DAILY_OPTIONS = {
    "deadline_time": (
        "Close votes and choices at this time of day, HH:MM in the server's time zone "
        "(empty: after the hours)"
    ),
    "min_hours": "With deadline_time: the least time a step stays open (default 12)",
}
