"""Whether a reminder may still go out: never once what it announces has passed.

A reminder (a deadline kind in the service's ``reminder_kinds``) is armed with the deadline it
announces, both with the same payload (the proposal, the turn…). When it falls due it is
dropped if that deadline is no longer open (resolved, perhaps earlier in the same sweep, or
cancelled), if it is due by now (it resolves next: the scheduler resolves the overdue
deadlines before their reminders' leftovers), or if the reminder itself is more than
:data:`REMINDER_GRACE` late (the bot was down): it would speak of the past.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from db import repo
from db.models import Deadline

#: How late a reminder may still go out: the scheduler's sweep runs every minute, so a
#: reminder that fires on time is at most about that late; one later than this is dropped.
REMINDER_GRACE = timedelta(seconds=90)


async def why_dropped(
    s: AsyncSession, reminder: Deadline, reminder_kinds: Collection[str], now: datetime
) -> str | None:
    """Why the reminder is not sent (for the log), or None: it goes out."""
    late = now - reminder.due_at
    if late > REMINDER_GRACE:
        return f"{late} late"
    announced = [
        d
        for d in await repo.open_deadlines(s, reminder.game_id)
        if d.kind not in reminder_kinds and (d.payload or {}) == (reminder.payload or {})
    ]
    if not announced:
        return "what it announces is over"
    if announced[0].due_at <= now:
        return f"its {announced[0].kind} deadline is due"
    return None
