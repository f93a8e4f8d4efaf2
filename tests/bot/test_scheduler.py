from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, TypedDict, Unpack

import pytest
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import Clock, utcnow
from bot.locks import GameLocks
from bot.scheduler import AfterCommit, DeadlineHandler, DeadlineScheduler, job_id, shard_owner
from db import repo
from db.models import Deadline
from tests.clock import FakeClock

Sessions = async_sessionmaker[AsyncSession]
T0 = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)
GUILD = 1 << 22  # shard 1 of 2


class SchedulerOptions(TypedDict, total=False):
    """The options of a DeadlineScheduler a test may set (make_scheduler)."""

    clock: Clock
    owns: Callable[[int], bool]
    sweep_seconds: float
    window_seconds: float | None
    game_lock: Callable[[int], asyncio.Lock] | None
    reminder: Callable[[str], bool]


@dataclass
class Recorder:
    """A handler that records what it resolves, and writes an event in the same transaction."""

    calls: list[int] = field(default_factory=list)
    effects: list[int] = field(default_factory=list)
    fail: bool = False
    delay: float = 0.0
    sessions: Sessions | None = None
    seen_after_commit: list[str] = field(default_factory=list)
    entered: asyncio.Event = field(default_factory=asyncio.Event)
    done: asyncio.Event = field(default_factory=asyncio.Event)

    async def __call__(self, s: AsyncSession, d: Deadline) -> AfterCommit | None:
        self.entered.set()
        assert d.status == "done"
        await repo.append_event(s, d.game_id, "deadline", {"id": d.id, "kind": d.kind})
        if self.delay:
            await asyncio.sleep(self.delay)
        if self.fail:
            raise RuntimeError("handler failed")
        self.calls.append(d.id)

        async def effect() -> None:
            self.effects.append(d.id)
            self.done.set()
            if self.sessions is not None:  # the claim is committed by now
                async with self.sessions() as s2:
                    again = await repo.get_deadline(s2, d.id)
                    assert again is not None
                    self.seen_after_commit.append(again.status)

        return effect


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(T0)


@pytest.fixture
def handler() -> Recorder:
    return Recorder()


@pytest.fixture
async def game_id(sessions: Sessions) -> int:
    async with sessions.begin() as s:
        game = await repo.create_game(s, kind="poll", guild_id=GUILD, channel_id=10, created_by=1)
        return game.id


@pytest.fixture
async def make_scheduler(
    sessions: Sessions, clock: FakeClock, handler: Recorder
) -> AsyncIterator[Callable[..., DeadlineScheduler]]:
    made: list[DeadlineScheduler] = []

    def make(
        handler: DeadlineHandler = handler, **kw: Unpack[SchedulerOptions]
    ) -> DeadlineScheduler:
        kw.setdefault("clock", clock)
        # A window of a day: the deadlines these tests add (hours ahead) are jobs at once; the
        # window's own tests set a shorter one.
        kw.setdefault("window_seconds", 86_400)
        scheduler = DeadlineScheduler(sessions, handler, **kw)
        made.append(scheduler)
        return scheduler

    yield make
    for scheduler in made:
        await scheduler.shutdown()


async def add(
    scheduler: DeadlineScheduler,
    sessions: Sessions,
    game_id: int,
    due_at: datetime,
    kind: str = "vote",
    guild_id: int = GUILD,
) -> int:
    async with sessions.begin() as s:
        d = await scheduler.add(
            s, game_id=game_id, guild_id=guild_id, kind=kind, due_at=due_at, payload={"p": 1}
        )
        return d.id


async def deadline(sessions: Sessions, deadline_id: int) -> Deadline:
    async with sessions() as s:
        d = await repo.get_deadline(s, deadline_id)
    assert d is not None
    return d


async def status(sessions: Sessions, deadline_id: int) -> str:
    return (await deadline(sessions, deadline_id)).status


async def event_count(sessions: Sessions, game_id: int) -> int:
    async with sessions() as s:
        return len(await repo.events(s, game_id, kinds=["deadline"]))


async def test_overdue_while_down_resolves_once_at_start(
    sessions: Sessions,
    game_id: int,
    clock: FakeClock,
    handler: Recorder,
    make_scheduler: Callable[..., DeadlineScheduler],
) -> None:
    before = make_scheduler()
    overdue = await add(before, sessions, game_id, T0 + timedelta(hours=1))
    later = await add(before, sessions, game_id, T0 + timedelta(hours=5))
    # ... the process is down while the first deadline falls due
    clock.advance(hours=2)
    first, second = make_scheduler(), make_scheduler()
    await first.start()
    await second.start()  # a second start (another process, a restart) changes nothing
    assert handler.calls == [overdue]
    assert handler.effects == [overdue]
    assert await status(sessions, overdue) == "done"
    assert await status(sessions, later) == "open"
    assert first.scheduled_at(later) == T0 + timedelta(hours=5)
    assert first.scheduled_at(overdue) is None
    assert await event_count(sessions, game_id) == 1
    d = await deadline(sessions, overdue)
    assert d.resolved_at == clock()


async def test_fired_twice_resolves_once(
    sessions: Sessions,
    game_id: int,
    clock: FakeClock,
    handler: Recorder,
    make_scheduler: Callable[..., DeadlineScheduler],
) -> None:
    scheduler = make_scheduler()
    deadline_id = await add(scheduler, sessions, game_id, T0)
    assert await scheduler.fire(deadline_id) is True
    assert await scheduler.fire(deadline_id) is False
    assert await scheduler.sweep() == 0
    assert handler.calls == [deadline_id]


async def test_fired_concurrently_resolves_once(
    sessions: Sessions,
    game_id: int,
    handler: Recorder,
    make_scheduler: Callable[..., DeadlineScheduler],
) -> None:
    handler.delay = 0.05  # hold the claim while the others try
    a, b = make_scheduler(), make_scheduler()  # two processes
    deadline_id = await add(a, sessions, game_id, T0)
    results = await asyncio.gather(
        *(s.fire(deadline_id) for s in (a, b, a, b, a)), a.sweep(), b.sweep()
    )
    assert sum(1 for r in results if r is True or r == 1) == 1
    assert handler.calls == [deadline_id]
    assert await event_count(sessions, game_id) == 1


async def test_extended_deadline_fires_at_its_new_time_only(
    sessions: Sessions,
    game_id: int,
    clock: FakeClock,
    handler: Recorder,
    make_scheduler: Callable[..., DeadlineScheduler],
) -> None:
    scheduler = make_scheduler()
    await scheduler.start()
    deadline_id = await add(scheduler, sessions, game_id, T0 + timedelta(hours=1))
    assert scheduler.scheduled_at(deadline_id) == T0 + timedelta(hours=1)
    assert await scheduler.extend(deadline_id, T0 + timedelta(hours=3)) is True
    assert scheduler.scheduled_at(deadline_id) == T0 + timedelta(hours=3)
    clock.advance(hours=2)
    assert await scheduler.fire(deadline_id) is False  # the old job, if it ran: too early
    assert await scheduler.sweep() == 0
    assert handler.calls == []
    clock.advance(hours=1)
    assert await scheduler.sweep() == 1
    assert handler.calls == [deadline_id]
    assert await scheduler.extend(deadline_id, T0 + timedelta(hours=9)) is False  # done


async def test_extend_in_the_callers_transaction(
    sessions: Sessions,
    game_id: int,
    clock: FakeClock,
    make_scheduler: Callable[..., DeadlineScheduler],
) -> None:
    scheduler = make_scheduler()
    deadline_id = await add(scheduler, sessions, game_id, T0 + timedelta(hours=1))
    with pytest.raises(RuntimeError):
        async with sessions.begin() as s:
            assert await scheduler.extend(deadline_id, T0 + timedelta(hours=5), session=s)
            raise RuntimeError("the action fails: rolled back")
    assert scheduler.scheduled_at(deadline_id) == T0 + timedelta(hours=1)
    d = await deadline(sessions, deadline_id)
    assert d.due_at == T0 + timedelta(hours=1)


async def test_cancelled_deadline_never_fires(
    sessions: Sessions,
    game_id: int,
    clock: FakeClock,
    handler: Recorder,
    make_scheduler: Callable[..., DeadlineScheduler],
) -> None:
    scheduler = make_scheduler()
    await scheduler.start()
    deadline_id = await add(scheduler, sessions, game_id, T0 + timedelta(hours=1))
    assert scheduler.scheduled_at(deadline_id) is not None
    assert await scheduler.cancel(deadline_id) is True
    assert scheduler.scheduled_at(deadline_id) is None
    assert await scheduler.cancel(deadline_id) is False
    clock.advance(days=2)
    assert await scheduler.sweep() == 0
    assert await scheduler.fire(deadline_id) is False
    async with sessions.begin() as s:  # a moderator's resolve moves only open deadlines
        assert await scheduler.bring_forward(s, game_id, ["vote"]) == []
    assert handler.calls == []
    assert await status(sessions, deadline_id) == "cancelled"


async def test_cancel_for_game(
    sessions: Sessions,
    game_id: int,
    clock: FakeClock,
    handler: Recorder,
    make_scheduler: Callable[..., DeadlineScheduler],
) -> None:
    scheduler = make_scheduler()
    await scheduler.start()
    vote = await add(scheduler, sessions, game_id, T0 + timedelta(hours=1), kind="vote")
    reminder = await add(scheduler, sessions, game_id, T0 + timedelta(hours=1), kind="reminder")
    async with sessions.begin() as s:
        assert await scheduler.cancel_for_game(s, game_id, kinds=["reminder"]) == [reminder]
    assert scheduler.scheduled_ids() == [vote]
    async with sessions.begin() as s:
        assert await scheduler.cancel_for_game(s, game_id) == [vote]
    assert scheduler.scheduled_ids() == []
    clock.advance(hours=2)
    assert await scheduler.sweep() == 0
    assert handler.calls == []


async def test_a_deadline_brought_forward_resolves_at_once_and_once(
    sessions: Sessions,
    game_id: int,
    handler: Recorder,
    make_scheduler: Callable[..., DeadlineScheduler],
) -> None:
    """A moderator's resolve: the deadline moved to now, then resolved by its job or the
    sweep, once."""
    scheduler = make_scheduler()
    await scheduler.start()
    deadline_id = await add(scheduler, sessions, game_id, T0 + timedelta(hours=24), kind="vote")
    async with sessions.begin() as s:
        assert await scheduler.bring_forward(s, game_id, ["vote"]) == [deadline_id]
    assert await scheduler.sweep() == 1
    assert await scheduler.fire(deadline_id) is False
    assert scheduler.scheduled_at(deadline_id) is None
    assert handler.calls == [deadline_id]
    assert await status(sessions, deadline_id) == "done"


async def test_handler_exception_leaves_the_deadline_open(
    sessions: Sessions,
    game_id: int,
    clock: FakeClock,
    handler: Recorder,
    make_scheduler: Callable[..., DeadlineScheduler],
    caplog: pytest.LogCaptureFixture,
) -> None:
    scheduler = make_scheduler()
    deadline_id = await add(scheduler, sessions, game_id, T0)
    handler.fail = True
    with caplog.at_level(logging.ERROR, logger="bot.scheduler"):
        assert await scheduler.fire(deadline_id) is False
    assert "stays open" in caplog.text
    assert await status(sessions, deadline_id) == "open"
    assert await event_count(sessions, game_id) == 0  # the handler's writes rolled back too
    assert handler.effects == []
    handler.fail = False
    assert await scheduler.sweep() == 1  # retried
    assert handler.calls == [deadline_id]
    assert await event_count(sessions, game_id) == 1


async def test_after_commit_effect_runs_after_the_commit(
    sessions: Sessions,
    game_id: int,
    handler: Recorder,
    make_scheduler: Callable[..., DeadlineScheduler],
) -> None:
    handler.sessions = sessions
    scheduler = make_scheduler()
    deadline_id = await add(scheduler, sessions, game_id, T0)
    assert await scheduler.fire(deadline_id)
    assert handler.effects == [deadline_id]
    assert handler.seen_after_commit == ["done"]


async def test_failing_effect_does_not_reopen(
    sessions: Sessions, game_id: int, make_scheduler: Callable[..., DeadlineScheduler]
) -> None:
    async def handler(s: AsyncSession, d: Deadline) -> AfterCommit:
        async def effect() -> None:
            raise RuntimeError("Discord is down")

        return effect

    scheduler = make_scheduler(handler=handler)
    deadline_id = await add(scheduler, sessions, game_id, T0)
    assert await scheduler.fire(deadline_id) is True
    assert await status(sessions, deadline_id) == "done"


async def test_add_schedules_after_commit_only(
    sessions: Sessions, game_id: int, make_scheduler: Callable[..., DeadlineScheduler]
) -> None:
    scheduler = make_scheduler()
    await scheduler.start()
    with pytest.raises(RuntimeError):
        async with sessions.begin() as s:
            d = await scheduler.add(s, game_id=game_id, guild_id=GUILD, kind="vote", due_at=T0)
            assert scheduler.scheduled_at(d.id) is None  # not before the commit
            raise RuntimeError("rolled back")
    assert scheduler.scheduled_ids() == []
    deadline_id = await add(scheduler, sessions, game_id, T0 + timedelta(minutes=5))
    assert scheduler.scheduled_ids() == [deadline_id]


async def test_only_owned_guilds(
    sessions: Sessions,
    game_id: int,
    clock: FakeClock,
    handler: Recorder,
    make_scheduler: Callable[..., DeadlineScheduler],
) -> None:
    shard0 = make_scheduler(owns=shard_owner([0], 2))
    shard1 = make_scheduler(owns=shard_owner([1], 2))
    await shard0.start()
    await shard1.start()
    deadline_id = await add(shard0, sessions, game_id, T0 + timedelta(hours=1))
    assert shard0.scheduled_ids() == []  # GUILD belongs to shard 1
    clock.advance(hours=2)
    assert await shard0.sweep() == 0
    assert await status(sessions, deadline_id) == "open"
    assert await shard1.sweep() == 1
    assert handler.calls == [deadline_id]


async def test_sweep_picks_up_deadlines_added_elsewhere(
    sessions: Sessions, game_id: int, make_scheduler: Callable[..., DeadlineScheduler]
) -> None:
    other, mine = make_scheduler(owns=lambda guild_id: False), make_scheduler()
    await mine.start()
    deadline_id = await add(other, sessions, game_id, T0 + timedelta(hours=1))
    assert mine.scheduled_ids() == []
    await mine.sweep()
    assert mine.scheduled_at(deadline_id) == T0 + timedelta(hours=1)


async def test_after_commit_effect_schedules(
    sessions: Sessions, game_id: int, make_scheduler: Callable[..., DeadlineScheduler]
) -> None:
    scheduler = make_scheduler()
    async with sessions.begin() as s:
        d = await repo.add_deadline(s, game_id=game_id, guild_id=GUILD, kind="vote", due_at=T0)
    assert scheduler.scheduled_ids() == []
    await scheduler.after_commit(d)()
    assert scheduler.scheduled_at(d.id) == T0


def test_shard_owner() -> None:
    owns = shard_owner([0, 2], 4)
    assert [owns(shard << 22) for shard in range(5)] == [True, False, True, False, True]
    assert shard_owner([0], 1)(123456789012345678)
    with pytest.raises(ValueError):
        shard_owner([0], 0)


async def test_real_apscheduler_job_fires(
    sessions: Sessions,
    game_id: int,
    handler: Recorder,
    make_scheduler: Callable[..., DeadlineScheduler],
) -> None:
    """The APScheduler path with the real clock: a DateTrigger 0.3 s ahead."""
    scheduler = make_scheduler(clock=utcnow)
    await scheduler.start()
    due = utcnow() + timedelta(seconds=0.3)
    deadline_id = await add(scheduler, sessions, game_id, due)
    assert scheduler._aps.get_job(job_id(deadline_id)) is not None
    await asyncio.wait_for(handler.done.wait(), timeout=5)
    assert handler.calls == [deadline_id]
    assert await status(sessions, deadline_id) == "done"
    d = await deadline(sessions, deadline_id)
    assert d.resolved_at is not None and d.resolved_at >= due
    assert scheduler.scheduled_ids() == []


async def test_real_sweep_job_runs(
    sessions: Sessions,
    game_id: int,
    handler: Recorder,
    make_scheduler: Callable[..., DeadlineScheduler],
) -> None:
    """The periodic sweep catches a due deadline that has no job (e.g. added by another
    process for a guild this one owns)."""
    other = make_scheduler(clock=utcnow, owns=lambda guild_id: False)
    scheduler = make_scheduler(clock=utcnow, sweep_seconds=0.2)
    await scheduler.start()
    deadline_id = await add(other, sessions, game_id, utcnow() - timedelta(seconds=1))
    await asyncio.wait_for(handler.done.wait(), timeout=5)
    assert handler.calls == [deadline_id]


async def test_shutdown_lets_a_resolution_finish(
    sessions: Sessions,
    game_id: int,
    handler: Recorder,
    make_scheduler: Callable[..., DeadlineScheduler],
) -> None:
    handler.delay = 0.3
    scheduler = make_scheduler(clock=utcnow)
    await scheduler.start()
    deadline_id = await add(scheduler, sessions, game_id, utcnow())
    await asyncio.wait_for(handler.entered.wait(), timeout=5)  # in the middle of it
    await scheduler.shutdown()
    assert handler.calls == [deadline_id]
    assert await status(sessions, deadline_id) == "done"


# -- the job window: deadlines further ahead wait in the database alone, not as jobs --------


async def test_a_deadline_beyond_the_window_becomes_a_job_at_a_sweep_and_fires_once(
    sessions: Sessions,
    game_id: int,
    clock: FakeClock,
    handler: Recorder,
    make_scheduler: Callable[..., DeadlineScheduler],
) -> None:
    scheduler = make_scheduler(window_seconds=600)
    await scheduler.start()
    near = await add(scheduler, sessions, game_id, T0 + timedelta(minutes=5))
    far = await add(scheduler, sessions, game_id, T0 + timedelta(hours=2))
    # Only the one within the window is a job; the other is in the database alone.
    assert scheduler.scheduled_at(near) == T0 + timedelta(minutes=5)
    assert scheduler.scheduled_at(far) is None
    assert scheduler.scheduled_ids() == [near]
    assert scheduler.scheduled_ids() == [near]
    clock.advance(minutes=10)
    assert await scheduler.sweep() == 1  # near is due (its job did not run: a fake clock)
    assert scheduler.scheduled_ids() == []
    clock.advance(hours=1, minutes=45)  # T0 + 1 h 55: far is 5 minutes ahead
    assert await scheduler.sweep() == 0
    assert scheduler.scheduled_ids() == [far]
    assert scheduler.scheduled_at(far) == T0 + timedelta(hours=2)
    clock.advance(minutes=5)
    assert await scheduler.fire(far) is True
    assert await scheduler.fire(far) is False
    assert await scheduler.sweep() == 0
    assert handler.calls == [near, far]
    assert scheduler.scheduled_ids() == []


async def test_a_deadline_moved_beyond_the_window_leaves_its_job(
    sessions: Sessions,
    game_id: int,
    clock: FakeClock,
    handler: Recorder,
    make_scheduler: Callable[..., DeadlineScheduler],
) -> None:
    scheduler = make_scheduler(window_seconds=600)
    await scheduler.start()
    deadline_id = await add(scheduler, sessions, game_id, T0 + timedelta(minutes=5))
    assert scheduler.scheduled_ids() == [deadline_id]
    assert await scheduler.extend(deadline_id, T0 + timedelta(hours=3)) is True
    assert scheduler.scheduled_ids() == []
    assert scheduler.scheduled_at(deadline_id) is None
    clock.advance(hours=2, minutes=55)  # 5 minutes before its new time: a job again
    assert await scheduler.sweep() == 0
    assert scheduler.scheduled_at(deadline_id) == T0 + timedelta(hours=3)
    assert await scheduler.cancel(deadline_id) is True
    assert scheduler.scheduled_ids() == []
    clock.advance(hours=4)
    assert await scheduler.sweep() == 0
    assert handler.calls == []


async def test_real_sweep_turns_a_later_deadline_into_a_job_that_fires_on_time(
    sessions: Sessions,
    game_id: int,
    handler: Recorder,
    make_scheduler: Callable[..., DeadlineScheduler],
) -> None:
    """The real clock and APScheduler: a deadline 1.5 s ahead, beyond a 0.4 s window, is
    turned into a job by the periodic sweep, and resolved at (not before) its time."""
    scheduler = make_scheduler(clock=utcnow, sweep_seconds=0.2, window_seconds=0.4)
    await scheduler.start()
    due = utcnow() + timedelta(seconds=1.5)
    deadline_id = await add(scheduler, sessions, game_id, due)
    assert scheduler.scheduled_ids() == []
    assert scheduler.scheduled_at(deadline_id) is None
    await asyncio.wait_for(handler.done.wait(), timeout=10)
    assert handler.calls == [deadline_id]
    d = await deadline(sessions, deadline_id)
    assert d.status == "done"
    assert d.resolved_at is not None and d.resolved_at >= due


async def test_start_makes_jobs_only_within_the_window(
    sessions: Sessions,
    game_id: int,
    clock: FakeClock,
    make_scheduler: Callable[..., DeadlineScheduler],
) -> None:
    async with sessions.begin() as s:
        for i in range(2_000):  # one every 36 s over the next 20 hours
            await repo.add_deadline(
                s,
                game_id=game_id,
                guild_id=GUILD,
                kind="vote",
                due_at=T0 + timedelta(seconds=36 * (i + 1)),
                at=T0,
            )
    scheduler = make_scheduler(window_seconds=None)  # 60 s sweeps: a window of 10 minutes
    read: list[str] = []

    def reads(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if "FROM deadlines" in statement:
            read.append(statement)

    engine = sessions.kw["bind"].sync_engine
    event.listen(engine, "before_cursor_execute", reads)
    try:
        await scheduler.start(overdue_in_background=True)
    finally:
        event.remove(engine, "before_cursor_execute", reads)
    assert await scheduler.overdue_resolved() == 0
    assert len(scheduler.scheduled_ids()) == 600 // 36
    # The start read the deadlines due within the window only (by the (status, due_at) index),
    # not the 2,000 open ones: nothing is held in memory for those further ahead.
    assert read and all("due_at <=" in statement for statement in read)


# -- overdue deadlines resolved in the background, their games locked until then ------------


async def test_overdue_in_background_resolves_once_and_holds_the_game_until_then(
    sessions: Sessions,
    game_id: int,
    clock: FakeClock,
    handler: Recorder,
    make_scheduler: Callable[..., DeadlineScheduler],
) -> None:
    locks = GameLocks()
    before = make_scheduler()
    reminder = await add(before, sessions, game_id, T0 + timedelta(minutes=30), kind="reminder")
    overdue = await add(before, sessions, game_id, T0 + timedelta(hours=1))
    later = await add(before, sessions, game_id, T0 + timedelta(hours=5))
    clock.advance(hours=2)  # the process was down while two deadlines fell due
    handler.delay = 0.1
    first = make_scheduler(game_lock=locks)
    await first.start(overdue_in_background=True)
    # start() returned before resolving them, with their game locked.
    assert handler.calls == []
    assert locks(game_id).locked()
    order: list[str] = []

    async def click() -> None:  # what every action on the game does first
        async with locks(game_id):
            order.append(f"click after {len(handler.calls)} resolution(s)")

    clicking = asyncio.create_task(click())
    second = make_scheduler(game_lock=GameLocks())  # another process, started meanwhile
    await second.start(overdue_in_background=True)
    assert await first.overdue_resolved() + await second.overdue_resolved() == 2
    await clicking
    assert order == ["click after 2 resolution(s)"]
    assert handler.calls == [reminder, overdue]  # in due order, each once
    assert await event_count(sessions, game_id) == 2
    assert not locks(game_id).locked()
    assert await status(sessions, later) == "open"
    assert first.scheduled_at(later) == T0 + timedelta(hours=5)


async def test_a_failed_overdue_resolution_releases_the_game_and_stays_open(
    sessions: Sessions,
    game_id: int,
    clock: FakeClock,
    handler: Recorder,
    make_scheduler: Callable[..., DeadlineScheduler],
) -> None:
    locks = GameLocks()
    overdue = await add(make_scheduler(), sessions, game_id, T0 + timedelta(hours=1))
    clock.advance(hours=2)
    handler.fail = True
    scheduler = make_scheduler(game_lock=locks)
    await scheduler.start(overdue_in_background=True)
    assert await scheduler.overdue_resolved() == 0
    assert not locks(game_id).locked()
    assert await status(sessions, overdue) == "open"
    handler.fail = False
    assert await scheduler.sweep() == 1  # the next sweep retries it
    assert handler.calls == [overdue]


async def test_shutdown_during_the_overdue_resolution_releases_the_games(
    sessions: Sessions,
    game_id: int,
    clock: FakeClock,
    handler: Recorder,
    make_scheduler: Callable[..., DeadlineScheduler],
) -> None:
    locks = GameLocks()
    overdue = await add(make_scheduler(), sessions, game_id, T0 + timedelta(hours=1))
    clock.advance(hours=2)
    handler.delay = 0.2
    scheduler = make_scheduler(game_lock=locks)
    await scheduler.start(overdue_in_background=True)
    await asyncio.wait_for(handler.entered.wait(), timeout=5)
    await scheduler.shutdown()  # lets the resolution in progress finish
    assert handler.calls == [overdue]
    assert await status(sessions, overdue) == "done"
    assert not locks(game_id).locked()


@pytest.mark.parametrize("background", [False, True], ids=["sweep", "start"])
async def test_of_the_deadlines_due_at_once_the_reminders_come_last(
    sessions: Sessions,
    game_id: int,
    clock: FakeClock,
    handler: Recorder,
    make_scheduler: Callable[..., DeadlineScheduler],
    background: bool,
) -> None:
    """After a restart across a deadline and its reminder, the deadline is resolved first:
    the reminder's leftover then sees it has passed (bot/reminders.py)."""
    first = await add(make_scheduler(), sessions, game_id, T0 + timedelta(minutes=30), "reminder")
    vote = await add(make_scheduler(), sessions, game_id, T0 + timedelta(hours=1), "vote")
    other = await add(make_scheduler(), sessions, game_id, T0 + timedelta(hours=1, minutes=1))
    clock.advance(hours=2)
    scheduler = make_scheduler(reminder=lambda kind: kind == "reminder")
    await scheduler.start(overdue_in_background=background)
    assert await scheduler.overdue_resolved() == (3 if background else 0)
    assert handler.calls == [vote, other, first]
