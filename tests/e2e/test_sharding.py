"""Two bot processes, one shard each, one PostgreSQL database, one sandbox.

Discord delivers DM clicks on shard 0, so the shard-0 process records the votes of every game;
a game's announcements and deadlines belong to the process that owns its guild. Needs
PostgreSQL (``TEST_DATABASE_URL``); skipped without it.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import discord
import pytest
from sqlalchemy import select

from db import repo
from db.engine import make_engine, make_sessions, migrate
from db.models import Deadline
from games.resistance.players import END_MARKERS, RESULT_MARKERS, Game
from tests.db.support import _unique, pg_create, pg_drop, pg_url
from tests.e2e.shard_procs import BotProcess, processes, shard_config

pytestmark = [
    pytest.mark.timeout(150),
    pytest.mark.skipif(pg_url() is None, reason="PostgreSQL: set TEST_DATABASE_URL to run"),
]

SHARDS = 2


@dataclass
class Table:
    """What ``tests.e2e.play.Game`` needs: the sandbox, a channel, a moderator."""

    sb: Any
    guild: Any
    channel: Any
    mod: Any
    users: list[Any]


def table_on_shard(sb: Any, shard_id: int) -> Table:
    guild = sb.add_guild(f"Shard {shard_id}", shard=(shard_id, SHARDS))
    mods = guild.add_role("Game masters", permissions=discord.Permissions(manage_guild=True).value)
    mod = sb.add_user(f"Mod{shard_id}")
    guild.add_member(mod, roles=[mods])
    users = []
    for n in range(5):
        user = sb.add_user(f"P{shard_id}{n}")
        guild.add_member(user)
        users.append(user)
    return Table(sb, guild, guild.add_text_channel("resistance"), mod, users)


@pytest.fixture
def pg_database() -> Any:
    name = _unique("shards")
    url = pg_create(name)
    try:
        yield url
    finally:
        pg_drop(name)


def shard_processes(sb: Any, database_url: str, tmp_path: Path) -> list[BotProcess]:
    """One bot process per shard, each with its config file and log in ``tmp_path``."""
    procs = []
    for shard_id in range(SHARDS):
        config = tmp_path / f"shard{shard_id}.toml"
        config.write_text(shard_config(sb, database_url, [shard_id], SHARDS))
        procs.append(BotProcess(f"shard {shard_id}", config, tmp_path / f"shard{shard_id}.log"))
    return procs


def results(game: Game) -> list[str]:
    return [x for x in game.public() if any(m in x for m in RESULT_MARKERS)]


async def next_result(game: Game, before: int, timeout: float = 15.0) -> str:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while len(results(game)) <= before:
        assert loop.time() < end, "no result announced"
        await asyncio.sleep(0.02)
    result = results(game)[before]
    # The leader list is edited after the result is posted, then the next leader is called:
    # wait for that call (or the end) before anyone reads the list (else a stale leader
    # proposes).
    at = game.public().index(result)
    while not any(
        "/resistance propose" in x or any(m in x for m in END_MARKERS)
        for x in game.public()[at + 1 :]
    ):
        assert loop.time() < end, "no call to the next leader"
        await asyncio.sleep(0.02)
    return result


async def play_round(
    game: Game, team: list[Any], *, accept: list[Any], reject: list[Any], timeout: float = 15
) -> str:
    """Propose ``team``; everyone votes by DM; the team supports; early close gives the result."""
    before, pinned = len(results(game)), game.pinned_text()
    await game.propose(team)
    await game.vote(accept=accept, reject=reject, support=team)
    result = await next_result(game, before, timeout)
    await game.settled(pinned)
    return result


def team_of(game: Game, size: int) -> list[Any]:
    leader = game.leader()
    return [leader, *[u for u in game.players if u is not leader][: size - 1]]


async def test_two_shard_processes_share_one_database(
    sb: Any, pg_database: str, tmp_path: Path
) -> None:
    started = time.monotonic()
    await migrate(pg_database)
    a, b = table_on_shard(sb, 0), table_on_shard(sb, 1)
    p0, p1 = shard_processes(sb, pg_database, tmp_path)
    async with processes(p0, p1):
        # Each process connected its own shard, and only that one.
        assert "ready: shard [0] of 2, 1 guild" in p0.text()
        assert "ready: shard [1] of 2, 1 guild" in p1.text()
        assert len(sb.gateway.live_sessions()) == 2
        assert sb.shard_ids_for(a.guild) == [0] and sb.shard_ids_for(b.guild) == [1]
        # One process registered the commands, not both.
        assert len(sb.requests_to("PUT /applications/{application_id}/commands")) == 1
        game_a, game_b = Game(a, a.users), Game(b, b.users)

        async def setup(game: Game) -> None:
            await game.open(early_close=True, lock_during_vote=False, reminder_hours=0.0)
            await game.start()

        await asyncio.gather(setup(game_a), setup(game_b))

        # Mission 1 in both games at once. Every DM click reaches the shard-0 process; game B's
        # last vote there wakes the shard-1 process (NOTIFY), which announces the result fast.
        t0 = time.monotonic()
        size = game_a.team_size(1)
        first = await asyncio.gather(
            play_round(game_a, team_of(game_a, size), accept=a.users, reject=[]),
            play_round(game_b, team_of(game_b, size), accept=b.users, reject=[], timeout=10),
        )
        assert all("Accepted (5)" in r and "Mission 1 succeeds" in r for r in first), first
        assert time.monotonic() - t0 < 10  # not the one-minute sweep

        # Mission 2 of game B: its owner is killed mid-vote; the votes keep arriving at shard 0
        # and are acknowledged; the owner resolves the (now overdue) vote when it is back.
        team = team_of(game_b, game_b.team_size(2))
        before, pinned = len(results(game_b)), game_b.pinned_text()
        await game_b.propose(team)
        await game_b.vote(accept=b.users[:2])
        await p1.kill()
        await game_b.vote(accept=b.users[2:4], reject=b.users[4:], support=team)
        await asyncio.sleep(0.5)
        assert len(results(game_b)) == before  # nobody else announces game B's result
        await p1.start()
        await p1.wait_ready()
        result = await next_result(game_b, before)
        await game_b.settled(pinned)
        assert "Accepted (4)" in result and "Rejected (1)" in result, result
        assert "Mission 2 succeeds" in result, result

        # Mission 2 of game A: the shard-0 process (owner, and receiver of every click) is
        # killed after some votes and a mission choice are acknowledged; nothing is lost.
        team = team_of(game_a, game_a.team_size(2))
        before, pinned = len(results(game_a)), game_a.pinned_text()
        await game_a.propose(team)
        await game_a.vote(accept=a.users[:3], support=team[:1])
        await p0.kill()
        await p0.start()
        await p0.wait_ready()
        await game_a.vote(reject=a.users[3:], support=team[1:])
        result = await next_result(game_a, before)
        await game_a.settled(pinned)
        assert "Accepted (3)" in result and "Rejected (2)" in result, result
        assert "Mission 2 succeeds" in result and "0 sabotages." in result, result

        # Mission 3 in both: the Resistance wins both games.
        size = game_a.team_size(3)
        await asyncio.gather(
            play_round(game_a, team_of(game_a, size), accept=a.users, reject=[]),
            play_round(game_b, team_of(game_b, size), accept=b.users, reject=[]),
        )
        for game in (game_a, game_b):
            await game.new_public(0, "The Resistance wins")
        await asyncio.sleep(1.0)  # time for a duplicate to show up, if any

    # Each result and each end announced exactly once.
    for game in (game_a, game_b):
        assert len(results(game)) == 3, results(game)
        assert sum(any(m in x for m in END_MARKERS) for x in game.public()) == 1
    # Restarts of the shard-0 process did not sync again: the command tree did not change.
    assert p0.starts > 1
    assert len(sb.requests_to("PUT /applications/{application_id}/commands")) == 1

    engine = make_engine(pg_database)
    try:
        async with make_sessions(engine)() as s:
            games = {g.guild_id: g for g in await repo.running_games(s)}
            assert games == {}  # both ended
            rows = (await s.scalars(select(Deadline).order_by(Deadline.id))).all()
    finally:
        await engine.dispose()
    assert rows and all(d.status in ("done", "cancelled") for d in rows), rows
    votes = [d for d in rows if d.kind == "rs_vote"]
    assert len(votes) == 6  # three proposals per game
    # Game B's votes closed early in another process: each of its vote deadlines was resolved
    # through the table, once, by the process that owns guild B.
    by_guild = Counter((d.guild_id, d.status) for d in votes)
    assert by_guild[(b.guild.id, "done")] == 3, by_guild
    logged = p0.resolved() + p1.resolved()
    assert len(logged) == len({d for d, _, _ in logged}), logged  # never twice
    done_b = {d.id for d in votes if d.guild_id == b.guild.id}
    assert done_b <= {d for d, _, _ in p1.resolved()}
    assert not done_b & {d for d, _, _ in p0.resolved()}
    assert time.monotonic() - started < 90


async def test_a_late_click_while_the_owner_is_down_is_refused(
    sb: Any, pg_database: str, tmp_path: Path
) -> None:
    """The guild's process is down past a vote's deadline; the DM clicks still reach the
    shard-0 process, which refuses those made after the deadline; the vote cast in time counts
    when the owner is back and resolves the deadline."""
    await migrate(pg_database)
    table_on_shard(sb, 0)
    b = table_on_shard(sb, 1)
    p0, p1 = shard_processes(sb, pg_database, tmp_path)
    async with processes(p0, p1):
        game = Game(b, b.users)
        await game.open(vote_hours=0.002, lock_during_vote=False, reminder_hours=0.0)
        await game.start()
        before = len(results(game))
        await game.propose(team_of(game, game.team_size(1)))
        in_time, late = b.users[0], b.users[1]
        assert "On record" in await game.click(in_time, "accept")
        await p1.kill()
        engine = make_engine(pg_database)
        try:
            async with make_sessions(engine)() as s:
                due = (
                    await s.scalars(select(Deadline.due_at).where(Deadline.kind == "rs_vote"))
                ).one()
        finally:
            await engine.dispose()
        await asyncio.sleep(max(0.0, (due - discord.utils.utcnow()).total_seconds()) + 0.5)
        reply = await game.click(in_time, "reject")
        assert "Too late" in reply, reply
        assert "Too late" in await game.click(late, "accept")
        assert len(results(game)) == before
        await p1.start()
        await p1.wait_ready()
        result = await next_result(game, before)
        assert f"Accepted (1): {in_time.name}" in result, result
