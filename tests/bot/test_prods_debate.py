"""Prods (bot/prods.py) and a closed debate: while a vote keeps the players from posting
(``DebateLock``), nobody is prodded, and a silence counts from the debate's reopening. On the
poll."""

from __future__ import annotations

from typing import Any

from bot import prods
from bot.effects import DebateLock, DirectMessage
from db import repo
from db.models import Deadline
from tests.bot.poll import poll_registry
from tests.bot.services import quiet_services
from tests.clock import FakeClock
from tests.e2e.poll_game.service import PollService

PLAYER = 11


async def running(sessions: Any, clock: FakeClock) -> tuple[PollService, int]:
    service = PollService(quiet_services(sessions, clock, registry=poll_registry()))
    async with sessions.begin() as s:
        game = await repo.create_game(
            s, kind="poll", guild_id=1, channel_id=2, created_by=3, at=clock()
        )
        game.options = {**game.options, "prod_hours": 1.0}
        await repo.add_player(s, game.id, PLAYER, "Ana", at=clock())
        await repo.set_status(s, game, "running", at=clock())
        game.started_at = clock()
        return service, game.id


async def lock(sessions: Any, clock: FakeClock, game_id: int, locked: bool) -> None:
    effect = DebateLock(2, (PLAYER,), locked)
    async with sessions.begin() as s:
        await repo.add_effects(s, game_id, 1, [(effect.KIND, effect.payload())], at=clock())


async def run(service: PollService, sessions: Any, game_id: int) -> list[Any]:
    async with sessions.begin() as s:
        game = await repo.get_game(s, game_id)
        assert game is not None
        deadline = Deadline(game_id=game_id, guild_id=1, kind="pl_prod", payload={})
        return await prods.due(service.seats, s, game, deadline)


async def test_no_prod_while_the_debate_is_closed_then_from_its_reopening(
    sessions: Any,
) -> None:
    clock = FakeClock()
    clock.advance(hours=12 - clock().hour)  # noon UTC: out of the quiet hours
    service, game_id = await running(sessions, clock)
    await lock(sessions, clock, game_id, True)
    clock.advance(hours=2)  # two silent hours, all of them in a vote
    assert await run(service, sessions, game_id) == []
    await lock(sessions, clock, game_id, False)
    clock.advance(minutes=30)
    assert await run(service, sessions, game_id) == []  # silent for 30 min of open debate
    clock.advance(minutes=31)
    (prod,) = await run(service, sessions, game_id)
    assert isinstance(prod, DirectMessage) and prod.user_id == PLAYER
