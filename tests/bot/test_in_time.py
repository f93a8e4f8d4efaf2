"""Deadlines exact at the click, at the service level: the boundary, the click's own time, and
the per-game lock that a resolution and a click share. On the poll (its vote deadline,
``pl_vote``)."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import pytest

from bot.errors import UserError
from bot.scheduler import DeadlineScheduler
from bot.service import Actor
from db import repo
from tests.bot.poll import poll_registry
from tests.bot.services import quiet_services
from tests.clock import FakeClock
from tests.e2e.poll_game.service import VOTE, PollService


async def setup(sessions: Any, clock: FakeClock) -> tuple[PollService, int]:
    app = quiet_services(sessions, clock, registry=poll_registry())
    async with sessions.begin() as s:
        game = await repo.create_game(
            s, kind="poll", guild_id=1, channel_id=2, created_by=3, at=clock()
        )
        await repo.add_deadline(
            s, game_id=game.id, guild_id=1, kind=VOTE, due_at=clock() + timedelta(hours=1)
        )
        return PollService(app), game.id


@pytest.mark.parametrize(
    ("offset", "refused"),
    [
        (timedelta(hours=-1), False),
        (timedelta(milliseconds=-1), False),
        (timedelta(0), True),  # at the deadline: too late
        (timedelta(milliseconds=1), True),
        (timedelta(days=2), True),
    ],
)
async def test_the_click_time_decides(sessions: Any, offset: timedelta, refused: bool) -> None:
    clock = FakeClock()
    service, game_id = await setup(sessions, clock)
    due = clock() + timedelta(hours=1)
    # The service's clock is far past the deadline (a click delayed by a busy database): only
    # the click's own time counts.
    clock.advance(hours=30)
    actor = Actor(id=9, name="p", lang="fr", at=due + offset)
    async with service.action(game_id) as (s, game):
        if refused:
            with pytest.raises(UserError) as caught:
                await service.actions.require_in_time(s, game, VOTE, actor)
            assert caught.value.key == "common.error.too_late"
        else:
            await service.actions.require_in_time(s, game, VOTE, actor)


async def test_without_a_click_time_the_clock_decides(sessions: Any) -> None:
    clock = FakeClock()
    service, game_id = await setup(sessions, clock)
    actor = Actor(id=9, name="p", lang="en")
    async with service.action(game_id) as (s, game):
        await service.actions.require_in_time(s, game, VOTE, actor)
    clock.advance(hours=1)
    async with service.action(game_id) as (s, game):
        with pytest.raises(UserError):
            await service.actions.require_in_time(s, game, VOTE, actor)


async def test_a_resolution_waits_for_a_click_holding_the_game(sessions: Any) -> None:
    clock = FakeClock()
    service, game_id = await setup(sessions, clock)
    order: list[str] = []

    async def handler(s: Any, deadline: Any) -> None:
        order.append("resolved")

    scheduler = DeadlineScheduler(
        sessions, handler, clock=clock, game_lock=service.app.locks, sweep_seconds=3600
    )
    async with sessions() as s:
        (deadline,) = await repo.open_deadlines(s, game_id)
    clock.advance(hours=2)
    async with service.app.locks(game_id):  # a click in progress on this game
        resolving = asyncio.create_task(scheduler.fire(deadline.id))
        await asyncio.sleep(0.2)
        assert not resolving.done()  # it waits for the click
        order.append("click")
    assert await resolving is True
    assert order == ["click", "resolved"]


async def test_status_waits_for_an_action_holding_the_game(sessions: Any) -> None:
    """Right after a start the overdue deadlines are resolved with the game's lock held
    (tests/bot/test_scheduler.py): /status asked meanwhile waits, then shows what they
    changed, never the state before them."""
    app = quiet_services(sessions, FakeClock(), registry=poll_registry())
    service = PollService(app)
    async with sessions.begin() as s:
        game = await repo.create_game(
            s, kind="poll", guild_id=1, channel_id=2, created_by=3, at=app.clock()
        )
        game_id = game.id
    lock = app.locks(game_id)
    await lock.acquire()
    reading = asyncio.create_task(
        service.moderation.status(Actor(id=9, name="p", lang="en"), game_id)
    )
    done, _ = await asyncio.wait({reading}, timeout=0.5)
    assert not done
    async with sessions.begin() as s:  # what the lock's holder commits
        await repo.add_player(s, game_id, 11, "Zoé")
    lock.release()
    assert "Zoé" in await asyncio.wait_for(reading, timeout=5)
