"""The vote path on PostgreSQL, through the service (ResistanceService.vote, group commit and
the direct path of db/direct.py): clicks are on record as answered, and a game held by another
transaction between the batch's read and its write makes the batch go through SQLAlchemy,
which waits for that transaction and records every click once."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import text

from bench.seed import SeedGame, seed_games
from bot.errors import UserError
from bot.service import Actor
from db import repo
from db.direct import PostgresVotes
from games.builtin import builtin_registry
from games.resistance.rules.model import MissionChoice, TeamVote
from games.resistance.service import ResistanceService
from tests.bot.services import quiet_services
from tests.clock import FakeClock

NOW = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)


async def running_game(db_url: str) -> SeedGame:
    game = SeedGame(1, 500, 600, 700, [(1000 + i, f"p{i}") for i in range(10)])
    await seed_games(db_url, [game], now=NOW)
    return game


def service(sessions: Any) -> ResistanceService:
    return ResistanceService(
        quiet_services(sessions, FakeClock(NOW), registry=builtin_registry(), vote_lanes=2)
    )


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
async def test_clicks_through_the_direct_path_are_on_record(db_url: str, sessions: Any) -> None:
    game = await running_game(db_url)
    rs = service(sessions)
    try:
        assert isinstance(rs.ballot_box.direct_votes(), PostgresVotes)
        assert rs.ballot_box.writer.lanes == 2  # [database] vote_lanes: other games at once
        players = [uid for uid, _ in game.players]
        at = NOW + timedelta(minutes=1)
        lead = game.team[0]
        replies = await asyncio.gather(
            *(
                rs.vote(Actor(uid, f"p{uid}", "fr" if uid % 2 else "en", at=at), 1, None, v)
                for uid in players
                for v in (TeamVote.ACCEPT, TeamVote.REJECT)
            ),
            rs.vote(
                Actor(lead, "t", "fr" if lead % 2 else "en", at=at), 1, None, MissionChoice.SUPPORT
            ),
        )
        assert all(r for r in replies)
        async with sessions.begin() as s:
            assert await repo.votes_for(s, 1, "p1", "team") == dict.fromkeys(players, "reject")
            assert await repo.votes_for(s, 1, "p1", "mission") == {lead: "support"}
            _, locales = await repo.ballots_and_locales(s, [1], players)
        assert locales == {(1, u): "fr" if u % 2 else "en" for u in players}
        # A click after the vote's deadline is refused, even through the direct path.
        late = Actor(players[0], "p", "en", at=NOW + timedelta(hours=25))
        with pytest.raises(UserError) as refused:
            await rs.vote(late, 1, None, TeamVote.ACCEPT)
        assert refused.value.key == "common.error.too_late"
    finally:
        await rs.shutdown()


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
async def test_a_game_held_by_another_transaction_is_waited_for(db_url: str, sessions: Any) -> None:
    game = await running_game(db_url)
    rs = service(sessions)
    players = [uid for uid, _ in game.players]
    at = NOW + timedelta(minutes=1)
    try:
        async with sessions.begin() as s:  # another process's transaction on the game
            await s.execute(text("SELECT id FROM games WHERE id = 1 FOR UPDATE"))
            await repo.record_vote(s, 1, "p1", "team", players[0], "reject", at=NOW)
            clicks = asyncio.gather(
                *(
                    rs.vote(Actor(uid, "p", "en", at=at), 1, None, TeamVote.ACCEPT)
                    for uid in players[1:]
                )
            )
            await asyncio.sleep(0.5)
            assert not clicks.done()  # not confirmed while the other transaction is open
        await asyncio.wait_for(clicks, 10)
        async with sessions.begin() as s:
            votes = await repo.votes_for(s, 1, "p1", "team")
        assert votes == {players[0]: "reject", **dict.fromkeys(players[1:], "accept")}
    finally:
        await rs.shutdown()


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
async def test_a_refusal_is_checked_against_a_fresh_read(db_url: str, sessions: Any) -> None:
    """The vote path remembers each game's head between batches (one statement per batch):
    a click it would refuse against the head as it last read it is checked again against a
    fresh read. The moderator extended the vote after the game was last read: a click after
    the old deadline and before the new one is on record, and only the head changed since is
    read again."""
    game = await running_game(db_url)
    rs = service(sessions)
    players = [uid for uid, _ in game.players]
    try:
        direct = rs.ballot_box.direct_votes()
        assert isinstance(direct, PostgresVotes)
        await rs.vote(Actor(players[0], "p", "en", at=NOW), 1, None, TeamVote.ACCEPT)
        await rs.vote(Actor(players[1], "p", "en", at=NOW), 1, None, TeamVote.ACCEPT)
        assert (direct.reads, direct.known_writes) == (1, 1)  # the second: one statement
        async with sessions.begin() as s:
            await s.execute(
                text(
                    "UPDATE deadlines SET due_at = due_at + interval '2 hours'"
                    " WHERE game_id = 1 AND kind = 'rs_vote' AND status = 'open'"
                )
            )
        late = Actor(players[2], "p", "en", at=NOW + timedelta(hours=25))
        assert await rs.vote(late, 1, None, TeamVote.REJECT)
        assert direct.reads == 2
        async with sessions.begin() as s:
            votes = await repo.votes_for(s, 1, "p1", "team")
        assert votes == {players[0]: "accept", players[1]: "accept", players[2]: "reject"}
        too_late = Actor(players[3], "p", "en", at=NOW + timedelta(hours=27))
        with pytest.raises(UserError) as refused:  # after the new deadline: refused for good
            await rs.vote(too_late, 1, None, TeamVote.ACCEPT)
        assert refused.value.key == "common.error.too_late"
    finally:
        await rs.shutdown()


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
async def test_the_vote_connection_is_opened_before_the_first_click(
    db_url: str, sessions: Any
) -> None:
    """The bot opens each service at start (bot/app.py setup_hook): the vote connection is
    there, its statements prepared, and the first click runs on it."""
    game = await running_game(db_url)
    rs = service(sessions)
    try:
        await rs.open()
        direct = rs.ballot_box.direct_votes()
        assert isinstance(direct, PostgresVotes)
        (conn,) = direct._idle
        assert direct.reads == 0
        voter = game.players[0][0]
        at = NOW + timedelta(minutes=1)
        await rs.vote(Actor(voter, "p", "en", at=at), 1, None, TeamVote.ACCEPT)
        assert (direct.reads, direct._idle) == (1, [conn])
        async with sessions.begin() as s:
            assert await repo.votes_for(s, 1, "p1", "team") == {voter: "accept"}
    finally:
        await rs.shutdown()
