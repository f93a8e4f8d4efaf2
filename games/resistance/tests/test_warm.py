"""Read ahead at start (``GameService.warm``; the ballot box's: BallotBox.warm): the
games waiting for votes, of this process's shards, have their heads in the vote path and their
states parsed before their first click, which then reads no state; a game changed after it was
read ahead is checked against its new state, not the one read."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import text

from bench.seed import SeedGame, seed_games
from bot.errors import UserError
from bot.scheduler import DeadlineScheduler
from bot.service import Actor
from db import repo
from db.direct import PostgresVotes, SqliteVotes
from games.builtin import builtin_registry
from games.resistance.rules.model import TeamVote
from games.resistance.service import VOTE, ResistanceService
from tests.bot.services import quiet_services
from tests.clock import FakeClock

NOW = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)
AT = NOW + timedelta(minutes=1)


def game(gid: int, guild: int) -> SeedGame:
    return SeedGame(gid, guild, 600 + gid, 700, [(1000 * gid + i, f"p{i}") for i in range(10)])


async def no_handler(*_: Any) -> None:
    return None


async def test_warm_reads_the_games_of_this_process_waiting_for_votes(
    db_url: str, sessions: Any
) -> None:
    games = [game(1, 500), game(2, 500), game(3, 501)]
    await seed_games(db_url, games, now=NOW)
    rs = ResistanceService(quiet_services(sessions, FakeClock(NOW), registry=builtin_registry()))
    # this process runs the shards of guild 500 only
    rs.app.scheduler = DeadlineScheduler(sessions, no_handler, owns=lambda guild: guild == 500)
    try:
        await rs.warm()
        async with sessions() as s:
            heads = await repo.lock_games(s, [1, 2, 3], VOTE)
        assert [g for g in (1, 2, 3) if rs.ballot_box.cached(g, heads[g]) is not None] == [1, 2]
        direct = rs.ballot_box.direct_votes()
        reads_before = direct.reads if isinstance(direct, PostgresVotes) else 0
        if isinstance(direct, SqliteVotes):
            assert sorted(g for _, g in direct.known.heads) == [1, 2]
        voter = games[0].players[0][0]
        reply = await rs.vote(Actor(voter, "p", "en", at=AT), 1, None, TeamVote.ACCEPT)
        assert "On record" in reply
        if isinstance(direct, PostgresVotes):
            assert (direct.reads, direct.known_writes) == (reads_before, 1)  # no read
        async with sessions() as s:
            assert await repo.votes_for(s, 1, f"p{games[0].proposal}", "team") == {voter: "accept"}
    finally:
        await rs.shutdown()


async def test_a_game_changed_after_it_was_read_ahead_is_checked_as_it_is_now(
    db_url: str, sessions: Any
) -> None:
    seeded = game(1, 500)
    await seed_games(db_url, [seeded], now=NOW)
    rs = ResistanceService(quiet_services(sessions, FakeClock(NOW), registry=builtin_registry()))
    try:
        await rs.warm()
        async with sessions.begin() as s:  # the game ends meanwhile (another connection)
            await s.execute(text("UPDATE games SET status = 'ended', version = version + 1"))
        voter = seeded.players[0][0]
        with pytest.raises(UserError) as refused:
            await rs.vote(Actor(voter, "p", "en", at=AT), 1, None, TeamVote.ACCEPT)
        assert refused.value.key == "resistance.error.game_over"
        async with sessions() as s:
            assert await repo.votes_for(s, 1, f"p{seeded.proposal}", "team") == {}
    finally:
        await rs.shutdown()
