"""A reminder is never sent once what it announces has passed: after a restart across a
deadline and its reminder, the deadline is resolved and the reminder dropped, in English and
French; a reminder a little late whose deadline is still to come goes out, in both."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from games.resistance.players import RESULT_MARKERS, Game
from playtest.players import until
from tests.e2e.test_debate_lock import team_of
from tests.harness import running_bot

pytestmark = pytest.mark.timeout(120)

REMINDERS = ("⏰ Reminder", "⏰ Rappel")


def move(db: Path, kind: str, seconds_from_now: float) -> None:
    """Set the open deadline of ``kind`` to that moment (the bot is stopped)."""
    when = datetime.now(UTC).replace(tzinfo=None) + timedelta(seconds=seconds_from_now)
    with sqlite3.connect(db) as conn:
        moved = conn.execute(
            "UPDATE deadlines SET due_at = ? WHERE kind = ? AND status = 'open'",
            (when.isoformat(sep=" "), kind),
        ).rowcount
    assert moved == 1, kind


def reminded(table: Any, players: list[Any]) -> dict[str, list[str]]:
    return {
        u.name: [m.text for m in table.sb.dms(u) if m.text.startswith(REMINDERS)] for u in players
    }


async def vote_armed(table: Any) -> Game:
    """A game whose team vote closes in 24 h, with its reminder 2 h before; the bot stopped."""
    game = Game(table, table.users[:5])  # Chloé reads French
    async with running_bot(table.sb, table.url()):
        await game.open(vote_hours=24.0, reminder_hours=2.0, lock_during_vote=False)
        await game.start()
        await game.propose(team_of(game))
    return game


async def test_a_vote_and_its_reminder_both_passed_while_down_resolve_without_the_reminder(
    table: Any,
) -> None:
    game = await vote_armed(table)
    players = game.players
    since = len(game.public())
    move(table.db, "rs_reminder", -20)  # well within the 90 s a late reminder is allowed
    move(table.db, "rs_vote", -10)
    async with running_bot(table.sb, table.url()):
        await game.new_public(since, *RESULT_MARKERS, timeout=20)
    assert reminded(table, players) == {u.name: [] for u in players}


async def test_a_leader_reminder_is_dropped_when_the_skip_it_announces_is_due(
    table: Any,
) -> None:
    players = table.users[:5]
    game = Game(table, players)
    async with running_bot(table.sb, table.url()):
        await game.open(leader_hours=3.0, reminder_hours=1.0, lock_during_vote=False)
        await game.start()
    since = len(game.public())
    move(table.db, "rs_leader_reminder", -5)
    move(table.db, "rs_leader", 0)  # due now
    async with running_bot(table.sb, table.url()):
        await game.new_public(since, "did not propose a team in time", "à temps", timeout=20)
    assert reminded(table, players) == {u.name: [] for u in players}


async def test_a_late_reminder_whose_vote_is_still_open_goes_out_in_each_language(
    table: Any,
) -> None:
    players = (await vote_armed(table)).players
    move(table.db, "rs_reminder", -20)
    async with running_bot(table.sb, table.url()):
        await until(lambda: all(reminded(table, players).values()), what="the reminders")
    french = reminded(table, [u for u in players if u.name == "Chloé"])["Chloé"]
    assert [text.startswith("⏰ Rappel") for text in french] == [True]
    english = [texts for name, texts in reminded(table, players).items() if name != "Chloé"]
    assert all(len(t) == 1 and t[0].startswith("⏰ Reminder") for t in english)
