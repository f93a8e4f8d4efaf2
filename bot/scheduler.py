"""Durable deadlines: the ``deadlines`` table is the truth, APScheduler only wakes us up.

- One APScheduler 3 ``DateTrigger`` job per open deadline this process owns that falls due
  within the next window (``window_seconds``, default ten sweeps), in memory
  (``id="deadline:<id>"``); the later ones wait in the database alone, the table being the
  timetable: every sweep reads the owned open deadlines due within the window (the
  ``(status, due_at)`` index) and turns those without a job into jobs, which still fire at the
  deadline's exact time. Nothing about jobs is ever stored, and nothing is held in memory for a
  deadline further ahead. (An APScheduler job costs about 0.1 ms to add: 10,000 of them at
  start took 1–2 s; reading every open deadline at each sweep cost 0.6 s of the event loop
  with 100,000 of them, in stalls of up to 0.4 s, once a minute.)
- Resolving is a claim: ``UPDATE deadlines SET status='done' WHERE id=:id AND status='open'
  AND due_at <= now`` in one transaction with the handler's own database work. Whoever updates
  the row resolves the deadline; a second firing (a late job, the sweep, another process)
  updates nothing. A handler exception rolls the claim back: the deadline stays open and the
  next sweep retries it.
- At start, and then every ``sweep_seconds``, the sweep resolves every owned open deadline
  that is due and (re)schedules the others, which also picks up deadlines created or moved by
  another process.
- ``start(overdue_in_background=True)`` (the bot's): the deadlines that fell due while the
  process was down are resolved in the background, a few games at a time, so the bot connects
  without waiting for them; each of their games' locks is taken before ``start`` returns and
  released once that game's overdue deadlines are resolved, so no click or action on such a
  game is handled by this process before its overdue deadlines are resolved (and a click made
  after a deadline is refused anyway, :meth:`GameService.check_in_time`).
- Each process only handles the guilds it ``owns`` (see :func:`shard_owner`). A deadline of
  another process's guild created or moved here is announced to its owner with a PostgreSQL
  ``NOTIFY`` in the same transaction (:mod:`bot.notify`), which makes the owner sweep at once.

Usage::

    scheduler = DeadlineScheduler(sessions, handler, clock=clock, owns=shard_owner([0], 1))
    await scheduler.start()
    async with sessions.begin() as s:
        d = await scheduler.add(s, game_id=g.id, guild_id=g.guild_id, kind="vote", due_at=when)
    # the job is scheduled when that transaction commits (or call scheduler.schedule(d.id, ...))
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from apscheduler.jobstores.base import JobLookupError
from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.date import DateTrigger
from apscheduler.triggers.interval import IntervalTrigger
from sqlalchemy import event, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.orm import Session

from bot import metrics
from bot.clock import Clock, utcnow
from bot.english import counted
from bot.notify import notify_owner
from db import repo
from db.models import Deadline, DeadlineStatus, Game

log = logging.getLogger(__name__)

AfterCommit = Callable[[], Awaitable[None]]
# Runs INSIDE the claiming transaction (its database work commits with the claim). May return
# an "after commit" coroutine function for the Discord effects, awaited after the commit.
DeadlineHandler = Callable[[AsyncSession, Deadline], Awaitable[AfterCommit | None]]

JOB_PREFIX = "deadline:"
SWEEP_JOB_ID = "deadline-sweep"
#: How long the interactions already handled are remembered (bot/service/actions.py, ``action``).
INTERACTIONS_KEPT = timedelta(days=3)
PRUNE_EVERY = timedelta(hours=1)
SHUTDOWN_GRACE_SECONDS = 10.0
#: the job window, in sweeps, when ``window_seconds`` is not given
WINDOW_SWEEPS = 10
#: games whose overdue deadlines are resolved at once after a start in the background
OVERDUE_CONCURRENCY = 4
_OPEN = DeadlineStatus.OPEN.value


def job_id(deadline_id: int) -> str:
    return f"{JOB_PREFIX}{deadline_id}"


def shard_owner(shard_ids: Collection[int], shard_count: int) -> Callable[[int], bool]:
    """``owns`` for a process running ``shard_ids`` out of ``shard_count`` shards."""
    if shard_count < 1:
        raise ValueError("shard_count must be at least 1")
    mine = frozenset(shard_ids)

    def owns(guild_id: int) -> bool:
        return (guild_id >> 22) % shard_count in mine

    return owns


@dataclass
class _Pending:
    """Job changes to apply once the session's transaction commits."""

    schedule: dict[int, datetime] = field(default_factory=dict)
    unschedule: set[int] = field(default_factory=set)


class DeadlineScheduler:
    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        handler: DeadlineHandler,
        *,
        clock: Clock = utcnow,
        owns: Callable[[int], bool] = lambda guild_id: True,
        sweep_seconds: float = 60,
        window_seconds: float | None = None,
        game_lock: Callable[[int], asyncio.Lock] | None = None,
        reminder: Callable[[str], bool] = lambda kind: False,
    ) -> None:
        """``reminder``: whether a deadline kind is a reminder (the services'
        ``reminder_kinds``): of the deadlines due at once, those come after the others."""
        self._sessions = sessions
        self._reminder = reminder
        self._handler = handler
        self._clock = clock
        self._owns = owns
        self._sweep_seconds = sweep_seconds
        self._pruned_at: datetime | None = None
        # Longer than a sweep, so that every sweep finds the deadlines it must turn into jobs
        # well before they fall due (ten sweeps: nine may fail before one is late).
        self._window = timedelta(
            seconds=max(
                window_seconds if window_seconds is not None else WINDOW_SWEEPS * sweep_seconds,
                2 * sweep_seconds,
            )
        )
        self._aps = AsyncIOScheduler(timezone=UTC)
        self._running: set[asyncio.Task[Any]] = set()
        self._overdue: asyncio.Task[int] | None = None
        self._started = False
        # The services' per-game lock: a resolution waits for the clicks of its game that
        # arrived before it (and they for it), in this process; the game row lock does the
        # same across processes.
        self._game_lock = game_lock
        self._game_of: dict[int, int] = {}

    # -- lifecycle ---------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._started

    def owns(self, guild_id: int) -> bool:
        """Whether this process schedules and resolves the deadlines of ``guild_id``."""
        return self._owns(guild_id)

    async def start(self, *, overdue_in_background: bool = False) -> None:
        """Resolve every overdue owned open deadline, schedule the rest, start the sweep.

        ``overdue_in_background``: return once the rest is scheduled and the overdue
        deadlines' games are locked; they are resolved by a task (:meth:`overdue_resolved`
        awaits it), each game's lock released once its overdue deadlines are resolved."""
        if self._started:
            return
        self._aps.start()
        self._started = True
        if overdue_in_background:
            due = await self._plan(self._clock())
            await self._resolve_in_background(due)
        else:
            resolved = await self.sweep()
        self._aps.add_job(
            self._sweep_job,
            IntervalTrigger(seconds=self._sweep_seconds, timezone=UTC),
            id=SWEEP_JOB_ID,
            replace_existing=True,
            coalesce=True,
            max_instances=1,
            misfire_grace_time=None,
        )
        if overdue_in_background:
            log.info(
                "deadline scheduler started: %s within the window, %d overdue being resolved",
                counted(len(self.scheduled_ids()), "deadline"),
                len(due),
            )
        else:
            log.info(
                "deadline scheduler started: %s resolved", counted(resolved, "overdue deadline")
            )

    async def overdue_resolved(self) -> int:
        """Wait until the overdue deadlines of a start in the background are resolved; how
        many it resolved (0 without one)."""
        if self._overdue is None:
            return 0
        return await asyncio.shield(self._overdue)

    async def _resolve_in_background(self, due: list[tuple[int, int]]) -> None:
        """Lock the games of ``due`` ((deadline id, game id), in due order), then resolve their
        deadlines in a task, ``OVERDUE_CONCURRENCY`` games at a time, in due order within a
        game; each game's lock is released once its deadlines are resolved."""
        by_game: dict[int, list[int]] = {}
        for deadline_id, game_id in due:
            by_game.setdefault(game_id, []).append(deadline_id)
        held: list[tuple[list[int], asyncio.Lock | None]] = []
        for game_id, ids in by_game.items():
            lock = self._game_lock(game_id) if self._game_lock is not None else None
            if lock is not None:
                await lock.acquire()  # nothing holds it yet at start: taken at once
            held.append((ids, lock))
        limit = asyncio.Semaphore(OVERDUE_CONCURRENCY)

        async def one_game(ids: list[int], lock: asyncio.Lock | None) -> int:
            resolved = 0
            try:
                async with limit:
                    for deadline_id in ids:
                        try:
                            resolved += await self._resolve_locked(deadline_id)
                        except Exception:
                            log.exception("deadline %s: overdue resolution failed", deadline_id)
            finally:
                if lock is not None:
                    lock.release()
            return resolved

        async def resolve_all() -> int:
            counts = await asyncio.gather(*(one_game(ids, lock) for ids, lock in held))
            resolved = sum(counts)
            log.info("overdue deadlines resolved: %d of %d", resolved, len(due))
            return resolved

        task = asyncio.get_running_loop().create_task(resolve_all())
        self._overdue = task
        self._running.add(task)
        task.add_done_callback(self._running.discard)

    async def shutdown(self, grace: float = SHUTDOWN_GRACE_SECONDS) -> None:
        """Stop scheduling, then let the resolutions in progress finish (up to ``grace``
        seconds)."""
        if self._started:
            self._started = False
            self._aps.shutdown(wait=False)
            await asyncio.sleep(0)  # AsyncIOScheduler shuts down on the next loop iteration
        if self._running:
            _done, pending = (
                await asyncio.wait(set(self._running), timeout=grace)
                if grace > 0
                else ((), self._running.copy())
            )
            for task in pending:
                task.cancel()
            log.info(
                "deadline scheduler stopped (%s cut short)", counted(len(pending), "resolution")
            )

    # -- jobs --------------------------------------------------------------------------------

    def schedule(self, deadline_id: int, due_at: datetime) -> None:
        """(Re)place the in-memory job that fires the deadline at ``due_at`` (now if past);
        after the window, none (and nothing else in memory): the sweep that finds it within
        the window makes its job."""
        if due_at > self._clock() + self._window:
            self._game_of.pop(deadline_id, None)
            with contextlib.suppress(JobLookupError):
                self._aps.remove_job(job_id(deadline_id))
            return
        self._aps.add_job(
            self._job,
            DateTrigger(run_date=due_at, timezone=UTC),
            args=[deadline_id],
            id=job_id(deadline_id),
            replace_existing=True,
            misfire_grace_time=None,
            coalesce=True,
            max_instances=1,
        )

    def after_commit(self, deadline: Deadline) -> AfterCommit:
        """An effect for the caller's after-commit list that schedules ``deadline``.

        ``add``/``extend`` already schedule on commit; this is for callers that keep their own
        list of effects (calling both is harmless: ``replace_existing``).
        """
        deadline_id, due_at, guild_id = deadline.id, deadline.due_at, deadline.guild_id

        async def schedule() -> None:
            if self._owns(guild_id):
                self.schedule(deadline_id, due_at)

        return schedule

    def unschedule(self, deadline_id: int) -> None:
        self._game_of.pop(deadline_id, None)
        with contextlib.suppress(JobLookupError):
            self._aps.remove_job(job_id(deadline_id))

    def scheduled_at(self, deadline_id: int) -> datetime | None:
        """When the job for this deadline will run, if there is one (None for a deadline
        after the window: only the database knows it; for tests, diagnostics)."""
        job = self._aps.get_job(job_id(deadline_id))
        if job is None:
            return None
        when = getattr(job, "next_run_time", None)
        if when is None:  # added before start(): the trigger's date
            trigger = job.trigger
            when = trigger.run_date if isinstance(trigger, DateTrigger) else None
        return when.astimezone(UTC) if isinstance(when, datetime) else None

    def scheduled_ids(self) -> list[int]:
        """The deadlines with a job (those due within the window)."""
        return sorted(
            int(job.id.removeprefix(JOB_PREFIX))
            for job in self._aps.get_jobs()
            if job.id.startswith(JOB_PREFIX)
        )

    async def _job(self, deadline_id: int) -> None:
        # Shielded: a scheduler shutdown must not cancel a resolution in the middle.
        task = asyncio.get_running_loop().create_task(self._fire_logged(deadline_id))
        self._running.add(task)
        task.add_done_callback(self._running.discard)
        await asyncio.shield(task)

    async def _fire_logged(self, deadline_id: int) -> bool:
        try:
            return await self.fire(deadline_id)
        except Exception:
            log.exception("deadline %s: firing failed", deadline_id)
            return False

    async def _sweep_job(self) -> None:
        try:
            await self.sweep()
        except Exception:
            log.exception("deadline sweep failed")

    # -- after-commit bookkeeping ------------------------------------------------------------

    def _pending(self, s: AsyncSession) -> _Pending:
        """This session's job changes, applied when its transaction commits."""
        sync: Session = s.sync_session
        key = ("bot.scheduler.pending", id(self))
        pending = sync.info.get(key)
        if isinstance(pending, _Pending):
            return pending
        pending = _Pending()
        sync.info[key] = pending

        def after_commit(session: Session) -> None:
            for deadline_id in pending.unschedule:
                self.unschedule(deadline_id)
            for deadline_id, due_at in pending.schedule.items():
                self.schedule(deadline_id, due_at)
            pending.schedule.clear()
            pending.unschedule.clear()

        def after_rollback(session: Session) -> None:
            pending.schedule.clear()
            pending.unschedule.clear()

        event.listen(sync, "after_commit", after_commit)
        event.listen(sync, "after_rollback", after_rollback)
        return pending

    def _schedule_after_commit(self, s: AsyncSession, deadline_id: int, due_at: datetime) -> None:
        pending = self._pending(s)
        pending.unschedule.discard(deadline_id)
        pending.schedule[deadline_id] = due_at

    def _unschedule_after_commit(self, s: AsyncSession, deadline_ids: Sequence[int]) -> None:
        pending = self._pending(s)
        for deadline_id in deadline_ids:
            pending.schedule.pop(deadline_id, None)
            pending.unschedule.add(deadline_id)

    # -- the caller's transaction ------------------------------------------------------------

    async def add(
        self,
        s: AsyncSession,
        *,
        game_id: int,
        guild_id: int,
        kind: str,
        due_at: datetime,
        payload: dict[str, Any] | None = None,
    ) -> Deadline:
        """Insert an open deadline in the caller's transaction.

        Its job is scheduled when that transaction commits (nothing if it rolls back);
        ``schedule(d.id, d.due_at)`` after the commit does the same, harmlessly twice.
        """
        deadline = await repo.add_deadline(
            s,
            game_id=game_id,
            guild_id=guild_id,
            kind=kind,
            due_at=due_at,
            payload=payload,
            at=self._clock(),
        )
        self._game_of[deadline.id] = game_id
        if self._owns(guild_id):
            self._schedule_after_commit(s, deadline.id, deadline.due_at)
        else:
            await notify_owner(s, guild_id, deadline.id)
        return deadline

    async def cancel_for_game(
        self, s: AsyncSession, game_id: int, kinds: Sequence[str] | None = None
    ) -> list[int]:
        """Cancel the game's open deadlines (of ``kinds``) in the caller's transaction."""
        stmt = (
            update(Deadline)
            .where(Deadline.game_id == game_id, Deadline.status == _OPEN)
            .values(status=DeadlineStatus.CANCELLED.value, resolved_at=self._clock())
            .returning(Deadline.id)
            .execution_options(synchronize_session=False)
        )
        if kinds is not None:
            stmt = stmt.where(Deadline.kind.in_(kinds))
        ids = sorted((await s.execute(stmt)).scalars().all())
        self._unschedule_after_commit(s, ids)
        return ids

    # -- own transaction, or the caller's with session= --------------------------------------

    async def extend(
        self, deadline_id: int, due_at: datetime, *, session: AsyncSession | None = None
    ) -> bool:
        """Move an open deadline to ``due_at`` (database, then job). False if not open."""
        if session is not None:
            return await self._extend(session, deadline_id, due_at)
        async with self._sessions.begin() as s:
            return await self._extend(s, deadline_id, due_at)

    async def _extend(self, s: AsyncSession, deadline_id: int, due_at: datetime) -> bool:
        result = await s.execute(
            update(Deadline)
            .where(Deadline.id == deadline_id, Deadline.status == _OPEN)
            .values(due_at=due_at)
            .returning(Deadline.guild_id)
            .execution_options(synchronize_session="fetch")
        )
        guild_id = result.scalar_one_or_none()
        if guild_id is None:
            return False
        if self._owns(guild_id):
            self._schedule_after_commit(s, deadline_id, due_at)
        else:
            await notify_owner(s, guild_id, deadline_id)
        return True

    async def bring_forward(
        self, s: AsyncSession, game_id: int, kinds: Sequence[str], due_at: datetime | None = None
    ) -> list[int]:
        """Move the game's open deadlines of ``kinds`` to ``due_at`` (now) in the caller's
        transaction; the owner (this process, or another one told by NOTIFY) resolves them.

        Rows another transaction holds are skipped (PostgreSQL ``SKIP LOCKED``): that is a
        resolution claiming them, which then waits for the game's row lock the caller holds,
        and sees the caller's work. Waiting for them instead would deadlock. Returns the ids
        moved."""
        when = due_at or self._clock()
        rows = await s.execute(
            select(Deadline.id)
            .where(Deadline.game_id == game_id, Deadline.status == _OPEN, Deadline.kind.in_(kinds))
            .order_by(Deadline.id)
            .with_for_update(skip_locked=True)
        )
        return [
            deadline_id
            for deadline_id in rows.scalars().all()
            if await self._extend(s, deadline_id, when)
        ]

    async def cancel(self, deadline_id: int, *, session: AsyncSession | None = None) -> bool:
        """Cancel an open deadline: it will never fire. False if it was not open."""
        if session is not None:
            return await self._cancel(session, deadline_id)
        async with self._sessions.begin() as s:
            return await self._cancel(s, deadline_id)

    async def _cancel(self, s: AsyncSession, deadline_id: int) -> bool:
        result = await s.execute(
            update(Deadline)
            .where(Deadline.id == deadline_id, Deadline.status == _OPEN)
            .values(status=DeadlineStatus.CANCELLED.value, resolved_at=self._clock())
            .returning(Deadline.id)
            .execution_options(synchronize_session="fetch")
        )
        if result.scalar_one_or_none() is None:
            return False
        self._unschedule_after_commit(s, [deadline_id])
        return True

    # -- resolving ---------------------------------------------------------------------------

    async def fire(self, deadline_id: int) -> bool:
        """Resolve the deadline if it is open and due; True if this call resolved it.

        A job that fires before the deadline's ``due_at`` (moved meanwhile, perhaps by another
        process) resolves nothing and is rescheduled at the new time.
        """
        return await self._resolve(deadline_id)

    async def _game_lock_of(self, deadline_id: int) -> Any:
        """The per-game lock of the deadline's game (a null one without ``game_lock``)."""
        if self._game_lock is None:
            return contextlib.nullcontext()
        game_id = self._game_of.get(deadline_id)
        if game_id is None:
            async with self._sessions() as s:
                game_id = await s.scalar(select(Deadline.game_id).where(Deadline.id == deadline_id))
        if game_id is None:
            return contextlib.nullcontext()
        self._game_of[deadline_id] = game_id
        return self._game_lock(game_id)

    async def _resolve(self, deadline_id: int) -> bool:
        async with await self._game_lock_of(deadline_id):
            return await self._resolve_locked(deadline_id)

    async def _resolve_locked(self, deadline_id: int) -> bool:
        now = self._clock()
        after: AfterCommit | None = None
        try:
            async with self._sessions.begin() as s:
                # Lock the game before the deadline, in the order every user action takes
                # (game row, then its deadlines), so the two can never deadlock on PostgreSQL.
                game_of = select(Deadline.game_id).where(Deadline.id == deadline_id)
                await s.execute(
                    select(Game.id).where(Game.id == game_of.scalar_subquery()).with_for_update()
                )
                claim = (
                    update(Deadline)
                    .where(
                        Deadline.id == deadline_id,
                        Deadline.status == _OPEN,
                        Deadline.due_at <= now,
                    )
                    .values(status=DeadlineStatus.DONE.value, resolved_at=now)
                    .returning(Deadline)
                    .execution_options(populate_existing=True)
                )
                deadline = (await s.scalars(claim)).first()
                if deadline is None:
                    await self._reschedule_if_early(s, deadline_id, now)
                    return False
                metrics.DEADLINES_DUE.labels(deadline.kind).inc()
                after = await self._handler(s, deadline)
        except Exception:
            log.exception(
                "deadline %s: resolution failed and was rolled back; it stays open "
                "and the sweep will retry it",
                deadline_id,
            )
            return False
        self.unschedule(deadline_id)
        metrics.DEADLINES_RESOLVED.labels(deadline.kind).inc()
        lateness = (self._clock() - deadline.due_at).total_seconds()
        metrics.DEADLINE_LATENESS.labels(deadline.kind).observe(max(0.0, lateness))
        log.info("deadline %s (%s, game %s) resolved", deadline_id, deadline.kind, deadline.game_id)
        if after is not None:
            try:
                await after()
            except Exception:
                log.exception("deadline %s: after-commit effect failed", deadline_id)
        return True

    async def _reschedule_if_early(self, s: AsyncSession, deadline_id: int, now: datetime) -> None:
        deadline = await repo.get_deadline(s, deadline_id)
        if deadline is None or deadline.status != _OPEN or not self._owns(deadline.guild_id):
            return
        if deadline.due_at > now and self._started:
            self._schedule_after_commit(s, deadline_id, deadline.due_at)

    async def sweep(self) -> int:
        """Resolve every owned open deadline due by now and (re)schedule the other owned open
        ones whose job is missing or set for another time. Returns how many it resolved."""
        resolved = 0
        for deadline_id, _game_id in await self._plan(self._clock()):
            if await self.fire(deadline_id):
                resolved += 1
        if resolved:
            log.info("deadline sweep resolved %s", counted(resolved, "deadline"))
        await self._forget_interactions()
        return resolved

    async def _forget_interactions(self) -> None:
        """Once an hour: forget the interactions handled more than ``INTERACTIONS_KEPT`` ago
        (a redelivery comes within minutes; a few days leave a wide margin)."""
        now = self._clock()
        if self._pruned_at is not None and now - self._pruned_at < PRUNE_EVERY:
            return
        self._pruned_at = now
        try:
            async with self._sessions.begin() as s:
                gone = await repo.prune_interactions(s, now - INTERACTIONS_KEPT)
        except Exception as exc:  # the next hour tries again
            log.warning("could not forget old interactions: %s", exc)
            return
        if gone:
            log.info(
                "forgot %s handled before %s",
                counted(gone, "interaction"),
                now - INTERACTIONS_KEPT,
            )

    async def _plan(self, now: datetime) -> list[tuple[int, int]]:
        """(Re)schedule every owned open deadline due after ``now`` within the window whose
        job is missing or set for another time (one read of the columns it needs, of the
        deadlines due by the window's end only); the owned ones due by ``now``, (deadline id,
        game id) in due order, the reminders after the rest: a deadline is resolved before
        the leftovers of its reminders, which then see it has passed (bot/reminders.py)."""
        async with self._sessions() as s:
            rows = (
                await s.execute(
                    select(
                        Deadline.id,
                        Deadline.guild_id,
                        Deadline.due_at,
                        Deadline.game_id,
                        Deadline.kind,
                    )
                    .where(Deadline.status == _OPEN, Deadline.due_at <= now + self._window)
                    .order_by(Deadline.due_at, Deadline.id)
                )
            ).all()
        due: list[tuple[int, int]] = []
        reminders: list[tuple[int, int]] = []
        for deadline_id, guild_id, due_at, game_id, kind in rows:
            if not self._owns(guild_id):
                continue
            self._game_of[deadline_id] = game_id
            if due_at <= now:
                (reminders if self._reminder(kind) else due).append((deadline_id, game_id))
            elif self.scheduled_at(deadline_id) != due_at:
                self.schedule(deadline_id, due_at)
        return due + reminders
