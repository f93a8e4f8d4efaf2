"""The vote path on SQLite, through the service: a batch that nothing makes wait is written at
once (bot/ballots.py's BallotBox.record_now, db/direct.py's begin_now), without awaiting and so
without taking its games' locks; a batch of a game whose lock is held or waited for (a
resolution, a proposal) waits for it, as before."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from bench.seed import SeedGame, seed_games
from bot.service import Actor
from db import repo
from db.direct import SqliteVotes
from games.builtin import builtin_registry
from games.resistance.rules.model import MissionChoice, TeamVote
from games.resistance.service import ResistanceService
from playtest.players import until
from tests.bot.services import TakenLocks, quiet_services
from tests.clock import FakeClock

NOW = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)
AT = NOW + timedelta(minutes=1)


def service(sessions: Any) -> tuple[ResistanceService, TakenLocks]:
    rs = ResistanceService(quiet_services(sessions, FakeClock(NOW), registry=builtin_registry()))
    rs.app.locks = locks = TakenLocks()
    return rs, locks


async def running_game(db_url: str) -> SeedGame:
    game = SeedGame(1, 500, 600, 700, [(1000 + i, f"p{i}") for i in range(10)])
    await seed_games(db_url, [game], now=NOW)
    return game


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
async def test_clicks_that_nothing_holds_are_written_at_once(db_url: str, sessions: Any) -> None:
    game = await running_game(db_url)
    rs, locks = service(sessions)
    try:
        assert isinstance(rs.ballot_box.direct_votes(), SqliteVotes)
        players = [uid for uid, _ in game.players]
        lead = game.team[0]
        replies = await asyncio.gather(
            *(rs.vote(Actor(uid, "p", "en", at=AT), 1, None, TeamVote.ACCEPT) for uid in players),
            rs.vote(Actor(lead, "p", "en", at=AT), 1, None, MissionChoice.SUPPORT),
        )
        assert all("On record" in r for r in replies)
        # The lead's second answer shows both its choices: its own batch's earlier write.
        assert "Accept" in replies[-1] and "Support" in replies[-1], replies[-1]
        assert locks.taken == []  # written at once: no game lock asked for
        async with sessions.begin() as s:
            assert await repo.votes_for(s, 1, "p1", "team") == dict.fromkeys(players, "accept")
            assert await repo.votes_for(s, 1, "p1", "mission") == {lead: "support"}
    finally:
        await rs.shutdown()


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
async def test_a_click_on_a_game_whose_lock_is_held_waits_for_it(
    db_url: str, sessions: Any
) -> None:
    game = await running_game(db_url)
    rs, locks = service(sessions)
    voter = game.players[3][0]
    try:
        async with locks(1):  # an action of the game (a resolution, say) under way
            click = asyncio.ensure_future(
                rs.vote(Actor(voter, "p", "en", at=AT), 1, None, TeamVote.REJECT)
            )
            await until(lambda: locks.taken == [1, 1], what="the batch asking for the lock")
            assert locks.held(1)
            async with sessions() as s:
                assert await repo.votes_for(s, 1, "p1", "team") == {}  # not written meanwhile
            assert not click.done()
        assert "On record" in await asyncio.wait_for(click, 10)
        async with sessions() as s:
            assert await repo.votes_for(s, 1, "p1", "team") == {voter: "reject"}
    finally:
        await rs.shutdown()
