"""Cross-process wake-ups: a deadline moved by a process that does not own its guild is
resolved by the owner at once (PostgreSQL NOTIFY), never by the mover."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from bot.clock import utcnow
from bot.notify import DeadlineListener, asyncpg_dsn, notify_owner, parse_payload
from bot.scheduler import DeadlineScheduler, shard_owner
from db import repo
from db.models import Deadline
from tests.bot.test_scheduler import GUILD, Recorder

Sessions = async_sessionmaker[AsyncSession]
OWNER = shard_owner([1], 2)  # GUILD is on shard 1 of 2
OTHER = shard_owner([0], 2)
#: the owner, another process, the owner's handler, its listener (the ``schedulers`` fixture)
Schedulers = tuple[DeadlineScheduler, DeadlineScheduler, Recorder, DeadlineListener]


def test_payload_and_dsn() -> None:
    assert parse_payload("123:45") == (123, 45)
    assert parse_payload("nope") is None
    assert parse_payload("1:x") is None
    dsn = asyncpg_dsn("postgresql+asyncpg://u:secret@127.0.0.1:5432/db")
    assert dsn == "postgresql://u:secret@127.0.0.1:5432/db"


@pytest.fixture
async def game_id(sessions: Sessions) -> int:
    async with sessions.begin() as s:
        game = await repo.create_game(s, kind="poll", guild_id=GUILD, channel_id=10, created_by=1)
        return game.id


async def in_an_hour(scheduler: DeadlineScheduler, s: AsyncSession, game_id: int) -> Deadline:
    """A vote deadline of the game an hour from now, added by ``scheduler``."""
    return await scheduler.add(
        s, game_id=game_id, guild_id=GUILD, kind="pl_vote", due_at=utcnow() + timedelta(hours=1)
    )


@pytest.fixture
async def schedulers(sessions: Sessions, engine: AsyncEngine) -> AsyncIterator[Schedulers]:
    """The owner of GUILD (hourly sweep: only a notification can wake it) and another process."""
    owner_handler, other_handler = Recorder(), Recorder()
    owner = DeadlineScheduler(sessions, owner_handler, clock=utcnow, owns=OWNER, sweep_seconds=3600)
    other = DeadlineScheduler(sessions, other_handler, clock=utcnow, owns=OTHER, sweep_seconds=3600)
    listener = DeadlineListener(engine.url, owner.sweep, owns=OWNER, debounce_seconds=0.01)
    await owner.start()
    await other.start()
    await listener.start()
    try:
        yield owner, other, owner_handler, listener
    finally:
        await listener.stop()
        await owner.shutdown()
        await other.shutdown()
        assert other_handler.calls == []


async def test_sqlite_sends_nothing(backend: str, sessions: Sessions) -> None:
    async with sessions.begin() as s:
        sent = await notify_owner(s, GUILD, 1)
    assert sent == (backend == "postgresql")


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)  # LISTEN/NOTIFY
async def test_moved_deadline_wakes_the_owner(
    sessions: Sessions, game_id: int, schedulers: Schedulers
) -> None:
    owner, other, handler, listener = schedulers
    assert listener.listening
    async with sessions.begin() as s:
        d = await in_an_hour(owner, s, game_id)
    # The other process (a DM click on shard 0) brings it forward in its own transaction.
    async with sessions.begin() as s:
        await repo.get_game(s, game_id, for_update=True)
        moved = await other.bring_forward(s, game_id, ["pl_vote"])
        assert moved == [d.id]
        await asyncio.sleep(0.3)
        assert handler.calls == []  # nothing is delivered before the commit
    await asyncio.wait_for(handler.done.wait(), timeout=5)
    assert handler.calls == [d.id]
    assert listener.wakes >= 1


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)  # LISTEN/NOTIFY
async def test_rolled_back_move_wakes_nobody(
    sessions: Sessions, game_id: int, schedulers: Schedulers
) -> None:
    owner, other, handler, listener = schedulers
    async with sessions.begin() as s:
        d = await in_an_hour(owner, s, game_id)
    with pytest.raises(RuntimeError):
        async with sessions.begin() as s:
            await other.bring_forward(s, game_id, ["pl_vote"])
            raise RuntimeError("the vote failed")
    await asyncio.sleep(0.5)
    assert listener.wakes == 0 and handler.calls == []
    async with sessions() as s:
        again = await s.get(Deadline, d.id)
        assert again is not None and again.status == "open" and again.due_at > utcnow()


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)  # row locks
async def test_bring_forward_skips_a_deadline_being_claimed(
    sessions: Sessions, game_id: int
) -> None:
    """A resolution holding the deadline row: the mover skips it instead of waiting (which
    would deadlock against the game row lock the mover holds)."""
    other = DeadlineScheduler(sessions, Recorder(), clock=utcnow, owns=OTHER)
    async with sessions.begin() as s:
        d = await in_an_hour(other, s, game_id)
    async with sessions.begin() as claim:
        await claim.get(Deadline, d.id, with_for_update=True)
        async with sessions.begin() as s:
            moved = await asyncio.wait_for(other.bring_forward(s, game_id, ["pl_vote"]), 5)
        assert moved == []
