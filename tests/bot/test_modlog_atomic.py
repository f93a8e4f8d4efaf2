"""A moderator's action and its entry in the moderators' log commit together (bot/modlog.py):
the entry is written by the action's own transaction, once, and rolled back with it. On the
poll."""

from __future__ import annotations

from typing import Any

import pytest

from bot import modlog
from bot.service import Actor, Outcome
from db import repo
from tests.bot.poll import poll_registry
from tests.bot.services import quiet_services
from tests.clock import FakeClock
from tests.e2e.poll_game.service import PollService

MOD = Actor(id=3, name="Mod", lang="en", manages_guild=True)


async def lobby(sessions: Any) -> tuple[PollService, int, int]:
    clock = FakeClock()
    service = PollService(quiet_services(sessions, clock, registry=poll_registry()))
    async with sessions.begin() as s:
        ids = [
            (await repo.create_game(s, kind="poll", guild_id=1, channel_id=c, created_by=3)).id
            for c in (2, 4)
        ]
    return service, ids[0], ids[1]


async def entries(sessions: Any, game_id: int) -> list[str]:
    async with sessions() as s:
        return [e.action for e in await repo.mod_actions(s, game_id)]


async def test_the_entry_is_written_by_the_action_s_own_commit_once(sessions: Any) -> None:
    service, game_id, other = await lobby(sessions)
    values = modlog.values_of(MOD, 1, game_id, "cancel", "a test")
    with modlog.pending(values) as entry:
        await service.moderation.cancel(MOD, game_id)
    assert entry.written
    assert await entries(sessions, game_id) == ["cancel"]
    # another game's commit meanwhile writes nothing of it
    with modlog.pending(modlog.values_of(MOD, 1, game_id, "remind", None)) as entry:
        await service.moderation.cancel(MOD, other)
    assert not entry.written
    assert await entries(sessions, other) == []


async def test_an_action_that_fails_after_its_commit_keeps_no_entry(sessions: Any) -> None:
    service, game_id, _ = await lobby(sessions)
    values = modlog.values_of(MOD, 1, game_id, "resolve", None)
    with modlog.pending(values) as entry, pytest.raises(RuntimeError):
        async with service.action(game_id) as (s, game):
            await service.commit_outcome(s, game, Outcome("done"))
            raise RuntimeError("the action fails before its transaction commits")
    assert entry.written  # written in the transaction, and rolled back with it
    assert await entries(sessions, game_id) == []
