"""Turn deadlines of The Refutation Game through the sandbox (real bot, real SQLite).

Time is the bot's injected clock (``FakeClock``): a test moves it and sweeps the scheduler, as
the scheduler's own sweep would once that time came. Clicks keep the sandbox's real time (the
interaction's own), so a clock set behind real time makes every click come after a deadline
that the bot has not resolved yet."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from db import repo
from db.models import Deadline
from games.refutation.players import RfGame, in_front
from playtest.players import text_of, until
from tests.clock import FakeClock
from tests.harness import running_bot

pytestmark = pytest.mark.timeout(120)

TURN_DEADLINE = re.compile(r"Deadline: <t:(\d+):F> \(<t:\d+:R>\), then the turn passes")
REMINDER = "⏰ Reminder: it is still your turn"
SKIPPED = "did not play turn"
TOO_LATE = "Too late"


async def game_id(bot: Any, table: Any) -> int:
    async with bot.sessions() as s:
        game = await repo.active_game_in_channel(s, table.channel.id)
        assert game is not None
        return game.id


async def turn_deadlines(bot: Any, gid: int) -> list[Deadline]:
    """The game's open deadlines of its turns (the deadline and its reminder)."""
    async with bot.sessions() as s:
        found = await repo.open_deadlines(s, gid, kinds=["rf_turn", "rf_turn_reminder"])
    return sorted(found, key=lambda d: (d.kind, d.id))


async def seat_order(bot: Any, gid: int, game: RfGame) -> list[Any]:
    async with bot.sessions() as s:
        rows = sorted(await repo.players(s, gid), key=lambda p: p.seat or 0)
    return [game.by_id[p.user_id] for p in rows]


def next_in(order: list[Any], user: Any) -> Any:
    return order[(order.index(user) + 1) % len(order)]


def reminders(game: RfGame, user: Any) -> list[str]:
    return [text_of(x) for x in game.sb.dms(user) if REMINDER in text_of(x)]


async def status_deadline(game: RfGame) -> int | None:
    match = TURN_DEADLINE.search(await game.status())
    return int(match.group(1)) if match else None


async def started(table: Any, players: list[Any], **options: Any) -> RfGame:
    game = RfGame(table, players)
    await game.open(**options)
    await game.start()
    return game


async def test_an_absent_players_turn_passes_at_its_deadline_after_a_reminder(table: Any) -> None:
    clock = FakeClock(datetime.now(UTC))
    opened = clock()
    players = [table.users[i] for i in (0, 1, 3)]
    async with running_bot(table.sb, table.url(), clock=clock) as bot:
        game = await started(table, players)  # turn_hours 48 and reminder_hours 2: the defaults
        gid = await game_id(bot, table)
        order = await seat_order(bot, gid, game)
        turn, absent = game.turn()
        due = opened + timedelta(hours=48)
        prompt = next(x for x in reversed(game.public()) if "it is your turn" in x)
        assert f"If nothing is played by <t:{int(due.timestamp())}:F>" in prompt, prompt
        call = next(text_of(x) for x in reversed(table.sb.dms(absent)) if "🎲" in text_of(x))
        assert "your turn passes to the next player" in call, call
        assert await status_deadline(game) == int(due.timestamp())
        deadline, reminder = await turn_deadlines(bot, gid)
        assert (deadline.kind, deadline.due_at, deadline.payload) == ("rf_turn", due, {"turn": 1})
        assert (reminder.kind, reminder.due_at) == ("rf_turn_reminder", due - timedelta(hours=2))

        # 46 hours on: the reminder, to the active player alone.
        clock.advance(hours=46)
        await bot.scheduler.sweep()
        dm = await until(lambda: reminders(game, absent), what="the turn reminder")
        assert f"<t:{int(due.timestamp())}:F>" in dm[0] and "turn 1" in dm[0], dm
        assert all(not reminders(game, u) for u in players if u is not absent)
        assert game.turn() == (turn, absent)  # nothing else happened

        # 48 hours: the turn passes, said publicly, no card played; the next turn is posted.
        fronts = await in_front(game)
        since = len(game.public())
        clock.advance(hours=2)
        await bot.scheduler.sweep()
        line = await game.new_public(since, SKIPPED)
        assert f"**{absent.name}** did not play turn 1 in time" in line, line
        assert "no card is played" in line
        nxt = next_in(order, absent)
        await game.new_public(since, f"Turn 2 — <@{nxt.id}>")
        assert game.turn() == (2, nxt)
        assert await in_front(game) == fronts
        # ... with its own deadline, 48 hours from now; the earlier turn's are gone.
        new_due = clock() + timedelta(hours=48)
        assert await status_deadline(game) == int(new_due.timestamp())
        deadline, reminder = await turn_deadlines(bot, gid)
        assert (deadline.due_at, deadline.payload) == (new_due, {"turn": 2})
        assert reminder.due_at == new_due - timedelta(hours=2)

        # The next player plays; the skipped one can no longer.
        card = game.feed()[0]
        assert "It is not your turn" in await game.watch(absent, card)
        since = len(game.public())
        assert "now in front of you" in await game.watch(nxt, card)
        await game.new_public(since, f"Turn 3 — <@{next_in(order, nxt).id}>")
        assert (await turn_deadlines(bot, gid))[0].payload == {"turn": 3}
        assert "Turn 3: " in await game.status()


async def test_an_overdue_turn_passes_when_the_bot_starts_again(table: Any) -> None:
    clock = FakeClock(datetime.now(UTC))
    players = [table.users[i] for i in (0, 1)]
    async with running_bot(table.sb, table.url(), clock=clock) as bot:
        game = await started(table, players, turn_hours=10.0, reminder_hours=1.0)
        gid = await game_id(bot, table)
        _, absent = game.turn()
        assert len(await turn_deadlines(bot, gid)) == 2
    dms_before = len(table.sb.dms(absent))
    since = len(game.public())
    clock.advance(hours=11)  # the bot is down across the reminder and the deadline
    async with running_bot(table.sb, table.url(), clock=clock) as bot:
        line = await game.new_public(since, SKIPPED)
        assert f"**{absent.name}** did not play turn 1 in time" in line, line
        other = next(u for u in players if u is not absent)
        await game.new_public(since, f"Turn 2 — <@{other.id}>")
        # The reminder speaks of what is to come: hours late, it was dropped.
        assert not [x for x in table.sb.dms(absent)[dms_before:] if REMINDER in text_of(x)]
        (deadline, _) = await turn_deadlines(bot, gid)
        assert deadline.payload == {"turn": 2}
        assert deadline.due_at == clock() + timedelta(hours=10)
        since = len(game.public())
        assert "now in front of you" in await game.watch(other, game.feed()[0])
        await game.new_public(since, f"Turn 3 — <@{absent.id}>")


async def test_a_watch_or_refute_after_the_turns_deadline_is_refused_while_it_waits(
    table: Any,
) -> None:
    # The bot's clock is 49 hours behind the clicks: a turn's 48 hours are over for every
    # click, while the bot has not resolved its deadline yet (as when its scheduler is late).
    clock = FakeClock(datetime.now(UTC) - timedelta(hours=49))
    players = [table.users[i] for i in (0, 1, 3)]
    async with running_bot(table.sb, table.url(), clock=clock) as bot:
        game = await started(table, players, turn_hours=48.0)
        gid = await game_id(bot, table)
        order = await seat_order(bot, gid, game)
        _, first = game.turn()
        second = next_in(order, first)
        before, status = len(game.public()), await game.status()
        card = game.feed()[0]
        assert TOO_LATE in await game.watch(first, card)
        assert TOO_LATE in await game.watch(first, card, refresh=True)
        # Not the player's mistake to fix: another player is told it is not their turn.
        assert "It is not your turn" in await game.watch(second, card)
        assert len(game.public()) == before and await game.status() == status

        # A moderator gives the first player 2 hours more (the turn's deadline and reminder
        # move): in time again, they watch.
        reply = await game.slash(table.mod, "refutation extend", hours=2.0)
        assert "Deadline moved to" in reply, reply
        notice = await game.new_public(before, "extended the deadline")
        assert f"turn 1 of **{first.name}** now closes" in notice, notice
        since = len(game.public())
        assert "now in front of you" in await game.watch(first, card)
        await game.new_public(since, f"Turn 2 — <@{second.id}>")

        # The second turn's 48 hours are over for every click: refute and watch are refused.
        (deadline, _) = await turn_deadlines(bot, gid)
        assert deadline.payload == {"turn": 2}
        before, status = len(game.public()), await game.status()
        assert TOO_LATE in await game.slash(second, "refutation refute", target=first)
        assert TOO_LATE in await game.watch(second, game.feed()[0])
        assert len(game.public()) == before and await game.status() == status
        assert (await turn_deadlines(bot, gid))[0].id == deadline.id  # still open

        # Resolved late: the turn passes; the next player's turn has 48 hours of its own.
        clock.set(deadline.due_at)
        await bot.scheduler.sweep()
        await game.new_public(before, f"**{second.name}** did not play turn 2 in time")
        third = next_in(order, second)
        await game.new_public(before, f"Turn 3 — <@{third.id}>")
        since = len(game.public())
        assert "is open" in await game.refute(third, first)
        assert await turn_deadlines(bot, gid) == []


async def test_a_moderator_skips_the_turn_and_a_player_cannot(table: Any, bot: Any) -> None:
    players = [table.users[i] for i in (0, 1, 3)]
    game = await started(table, players)
    gid = await game_id(bot, table)
    order = await seat_order(bot, gid, game)
    _, active = game.turn()
    first = await status_deadline(game)
    assert first is not None

    for user in (active, next_in(order, active)):
        ix = await game.sb.slash(user, "refutation skip", channel=game.channel)
        message = await ix.reply_message(10.0)
        assert message is not None and message.ephemeral
        assert "Only moderators" in text_of(message)
    assert game.turn() == (1, active)

    since = len(game.public())
    reply = await game.slash(table.mod, "refutation skip")
    assert f"Turn 1 of {active.name} skipped" in reply, reply
    line = await game.new_public(since, "A moderator skips")
    assert f"A moderator skips the turn of **{active.name}** (turn 1)" in line, line
    nxt = next_in(order, active)
    await game.new_public(since, f"Turn 2 — <@{nxt.id}>")
    (deadline, _) = await turn_deadlines(bot, gid)
    assert deadline.payload == {"turn": 2}
    second = await status_deadline(game)
    assert second is not None and second >= first

    # During a refutation there is no turn to skip: its choice and vote have their deadlines.
    since = len(game.public())
    assert "now in front of you" in await game.watch(nxt, game.feed()[0])
    await game.new_public(since, "Turn 3 — ")
    _, refuter = game.turn()
    assert "is open" in await game.refute(refuter, nxt)
    assert await turn_deadlines(bot, gid) == []  # the turn ended with the refutation
    refused = await game.slash(table.mod, "refutation skip")
    assert "No player's turn is open right now" in refused, refused
    since = len(game.public())
    await game.choose_all({})  # everyone passes: nothing refuted, the turn passes
    await game.new_public(since, "Turn 4 — ")
    (deadline, _) = await turn_deadlines(bot, gid)
    assert deadline.payload == {"turn": 4}

    # Cancelled: no deadline is left; the record tells the skipped turn.
    await game.slash(table.mod, "refutation cancel")
    assert await turn_deadlines(bot, gid) == []
    post = await until(
        lambda: next((x for x in game.messages() if x.attachments), None), what="the record"
    )
    record = post.file().decode("utf-8")
    assert f"A moderator skipped turn 1 of {active.name}." in record, record


async def test_without_turn_hours_a_turn_has_no_deadline(table: Any, bot: Any) -> None:
    players = [table.users[i] for i in (0, 1)]
    game = await started(table, players, turn_hours=0.0)
    gid = await game_id(bot, table)
    assert await turn_deadlines(bot, gid) == []
    assert "Deadline" not in await game.status()
    prompt = next(x for x in reversed(game.public()) if "it is your turn" in x)
    assert "passes to the next player" not in prompt
    _, active = game.turn()
    since = len(game.public())
    assert "now in front of you" in await game.watch(active, game.feed()[0])
    await game.new_public(since, "Turn 2 — ")
    assert await turn_deadlines(bot, gid) == []
    # A moderator can still move a stalled table on.
    since = len(game.public())
    assert "Turn 2 of" in await game.slash(table.mod, "refutation skip")
    await game.new_public(since, f"Turn 3 — <@{active.id}>")
    assert await turn_deadlines(bot, gid) == []


async def test_without_reminder_hours_the_turn_has_no_reminder(table: Any, bot: Any) -> None:
    players = [table.users[i] for i in (0, 1)]
    game = await started(table, players, turn_hours=6.0, reminder_hours=0.0)
    gid = await game_id(bot, table)
    (deadline,) = await turn_deadlines(bot, gid)
    assert deadline.kind == "rf_turn"
    assert await status_deadline(game) == int(deadline.due_at.timestamp())


async def test_the_turn_reminder_is_in_the_players_language(table: Any) -> None:
    clock = FakeClock(datetime.now(UTC))
    chloe = table.users[2]  # her Discord client is in French
    players = [chloe, table.users[0]]
    async with running_bot(table.sb, table.url(), clock=clock) as bot:
        game = await started(table, players, turn_hours=4.0, reminder_hours=3.0)
        gid = await game_id(bot, table)
        if game.active() is not chloe:
            since = len(game.public())
            await game.slash(table.mod, "refutation skip")
            await game.new_public(since, f"Turn 2 — <@{chloe.id}>")
        (deadline, reminder) = await turn_deadlines(bot, gid)
        # At most half way: 2 hours before a 4-hour turn, not 3.
        assert reminder.due_at == deadline.due_at - timedelta(hours=2)
        clock.set(reminder.due_at)
        await bot.scheduler.sweep()

        def rappel() -> list[str]:
            return [text_of(x) for x in table.sb.dms(chloe) if "⏰ Rappel" in text_of(x)]

        text = (await until(rappel, what="Chloé's reminder"))[0]
        assert "c’est toujours votre tour" in text and "\u00a0:" in text, text


async def test_a_moderator_reminds_the_active_player_during_a_turn(table: Any, bot: Any) -> None:
    """``remind`` during a turn prods the active player alone, by DM with the turn's deadline;
    once per turn within the cooldown; a player cannot."""
    players = [table.users[i] for i in (0, 1, 3)]
    game = await started(table, players)
    gid = await game_id(bot, table)
    turn, active = game.turn()
    others = [u for u in players if u is not active]
    (deadline, _) = await turn_deadlines(bot, gid)
    refusal = await game.slash(others[0], "refutation remind")
    assert "Only moderators" in refusal, refusal
    reply = await game.slash(table.mod, "refutation remind")
    assert f"Reminder sent to 1 player: **{active.name}**" in reply, reply
    dm = await until(lambda: reminders(game, active), what="the moderator's reminder")
    assert f"turn {turn}" in dm[0] and f"<t:{int(deadline.due_at.timestamp())}:F>" in dm[0], dm
    assert all(not reminders(game, u) for u in others)
    again = await game.slash(table.mod, "refutation remind")
    assert "Reminder sent" not in again, again
    assert len(reminders(game, active)) == 1
    assert game.turn() == (turn, active)  # a reminder plays nothing


async def test_without_turn_hours_the_reminder_names_no_deadline(table: Any, bot: Any) -> None:
    players = [table.users[i] for i in (0, 1)]
    game = await started(table, players, turn_hours=0.0)
    _, active = game.turn()
    assert "Reminder sent to 1 player" in await game.slash(table.mod, "refutation remind")
    dm = await until(lambda: reminders(game, active), what="the moderator's reminder")
    assert "it is still your turn" in dm[0] and "<t:" not in dm[0], dm
