"""The vote batch's direct path (db/direct.py) reads and writes what SQLAlchemy's statements
of db/repo.py read and write; on SQLite it queues on the engine's writer gate like them and
rolls back what it does not commit; on PostgreSQL it writes only what it read unchanged."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import sqlite3
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import make_url, text
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from db import repo
from db.direct import (
    _PG_READ,
    _PG_STATES,
    _PG_WRITE,
    _PG_WRITE_KNOWN,
    APP,
    DirectVotes,
    PostgresVotes,
    SqliteVotes,
    Stale,
    Unavailable,
    _lost,
    open_direct_votes,
)
from db.engine import make_engine, sqlite_file, writer_gate
from tests.db import queries

Sessions = async_sessionmaker[AsyncSession]
T0 = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
async def direct(engine: AsyncEngine) -> AsyncIterator[DirectVotes]:
    """The engine's direct path (SQLite's or PostgreSQL's), closed after the test."""
    votes = open_direct_votes(engine)
    assert votes is not None
    yield votes
    await votes.close()


async def two_games(sessions: Sessions) -> tuple[int, int]:
    """Two games with players 11 and 12, a vote on record, and deadlines."""
    async with sessions.begin() as s:
        ids = []
        for channel in (100, 101):
            game = await repo.create_game(
                s, kind="resistance", guild_id=1, channel_id=channel, created_by=42, at=T0
            )
            game.options = {"early_close": channel == 101, "vote_hours": 24}
            ids.append(game.id)
        game_id, other = ids
        for gid in ids:
            for uid in (11, 12):
                await repo.add_player(s, gid, uid, f"p{uid}", locale="en", at=T0)
        await repo.record_vote(s, game_id, "p1", "team", 11, "accept", at=T0)
        for hours in (2, 1):
            await repo.add_deadline(
                s, game_id=game_id, guild_id=1, kind="rs_vote", due_at=T0 + timedelta(hours=hours)
            )
        await repo.add_deadline(s, game_id=other, guild_id=1, kind="rs_reminder", due_at=T0)
    return game_id, other


async def vote_backends(s: AsyncSession, what: str) -> list[Any]:
    """``what`` of each PostgreSQL connection of the vote path (pg_stat_activity, by its
    application name): ``pid``, or ``pg_terminate_backend(pid)`` to close them all."""
    found = await s.scalars(
        text(
            f"SELECT {what} FROM pg_stat_activity"
            " WHERE datname = current_database() AND application_name = :app"
        ),
        {"app": APP},
    )
    return list(found)


def assert_same_heads(heads: dict[int, Any], heads_sa: dict[int, Any]) -> None:
    """The direct path read the heads that SQLAlchemy reads (db/repo.py's lock_games)."""
    assert sorted(heads) == sorted(heads_sa)
    for gid, head in heads.items():
        sa = heads_sa[gid]
        assert (head.status, head.version, head.guild_id, head.options) == (
            sa.status,
            sa.version,
            sa.guild_id,
            sa.options,
        )
        assert head.created_at == sa.created_at and head.created_at.tzinfo is not None
        assert head.due_at == sa.due_at


async def test_direct_reads_and_writes_what_sqlalchemy_does(
    direct: DirectVotes, sessions: Sessions
) -> None:
    game_id, other = await two_games(sessions)
    async with sessions.begin() as s:
        heads_sa = await repo.lock_games(s, [other, game_id, 999], "rs_vote")
        ballots_sa, locales_sa = await repo.ballots_and_locales(s, [game_id, other], [11, 12])
        states_sa = await repo.game_states(s, [game_id])
    async with direct.transaction([other, game_id, 999], "rs_vote", [11, 12]) as (
        tx,
        heads,
        ballots,
        locales,
    ):
        assert sorted(heads) == [game_id, other]
        assert_same_heads(heads, heads_sa)
        assert heads[game_id].due_at == T0 + timedelta(hours=1)  # the earliest open one
        assert heads[other].due_at is None
        assert (ballots, locales) == (ballots_sa, locales_sa)
        assert await tx.game_states([game_id]) == states_sa == {game_id: None}
        await tx.write_and_commit(
            [
                (game_id, "p1", "team", 11, "reject"),  # a change: seq 2
                (game_id, "p1", "mission", 11, "support"),
                (other, "p1", "team", 12, "accept"),
            ],
            [(game_id, 11, "fr")],
            T0 + timedelta(minutes=1),
        )
    async with sessions.begin() as s:
        rows = await queries.vote_rows(s, game_id)
        assert [(r.round_key, r.kind, r.user_id, r.value, r.seq) for r in rows] == [
            ("p1", "team", 11, "reject", 2),
            ("p1", "mission", 11, "support", 1),
        ]
        assert all(r.updated_at == T0 + timedelta(minutes=1) for r in rows)
        assert await repo.votes_for(s, other, "p1", "team") == {12: "accept"}
        _, locales = await repo.ballots_and_locales(s, [game_id], [11, 12])
        assert locales == {(game_id, 11): "fr", (game_id, 12): "en"}


async def test_direct_rolls_back_what_it_does_not_commit(
    direct: DirectVotes, sessions: Sessions
) -> None:
    game_id, _ = await two_games(sessions)
    async with direct.transaction([game_id], "rs_vote", [11]):
        pass  # left without writing
    with pytest.raises(RuntimeError, match="refused"):
        async with direct.transaction([game_id], "rs_vote", [11]):
            raise RuntimeError("refused")
    # The write lock was released each time: a SQLAlchemy writer goes at once.
    async with asyncio.timeout(2), sessions.begin() as s:
        await repo.record_vote(s, game_id, "p1", "team", 12, "reject", at=T0)
    async with sessions.begin() as s:
        assert await repo.votes_for(s, game_id, "p1", "team") == {11: "accept", 12: "reject"}


# SQLite's path only: PostgreSQL's reads without waiting and writes only what it read unchanged
# (test_postgresql_writes_only_what_it_read_unchanged).
@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
async def test_direct_queues_behind_a_sqlalchemy_writer(
    direct: DirectVotes, sessions: Sessions
) -> None:
    """A direct transaction waits for the process's SQLAlchemy writer to commit (the writer
    gate orders them), then reads what it committed."""
    game_id, _ = await two_games(sessions)
    started = asyncio.Event()

    async def direct_read() -> dict[tuple[int, str, str, int], str]:
        async with direct.transaction([game_id], "rs_vote", [11, 12]) as (_, _, ballots, _):
            started.set()
            return ballots

    async with sessions.begin() as s:
        await repo.lock_games(s, [game_id], "rs_vote")
        await repo.record_vote(s, game_id, "p1", "team", 12, "accept", at=T0)
        task = asyncio.create_task(direct_read())
        await asyncio.sleep(0.2)
        assert not started.is_set()  # queued behind the open transaction
    ballots = await asyncio.wait_for(task, 5)
    assert ballots[(game_id, "p1", "team", 12)] == "accept"


CHANGES = {
    "a vote of another player": "INSERT INTO votes (game_id, round_key, kind, user_id, value,"
    " updated_at, seq) VALUES (:g, 'p1', 'team', 12, 'reject', now(), 1)",
    "a vote changed": "UPDATE votes SET value = 'reject', seq = seq + 1 WHERE game_id = :g",
    "a locale": "UPDATE players SET locale = 'fr' WHERE game_id = :g AND user_id = 12",
    "the state saved": "UPDATE games SET version = version + 1 WHERE id = :g",
    "the game over": "UPDATE games SET status = 'ended' WHERE id = :g",
    "the options": "UPDATE games SET options = '{\"early_close\": true}' WHERE id = :g",
    "the deadline resolved": "UPDATE deadlines SET status = 'done' WHERE game_id = :g"
    " AND kind = 'rs_vote' AND due_at = (SELECT min(due_at) FROM deadlines WHERE game_id = :g)",
}


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
@pytest.mark.parametrize("change", [None, "held", *CHANGES])
async def test_postgresql_writes_only_what_it_read_unchanged(
    direct: DirectVotes, sessions: Sessions, change: str | None
) -> None:
    """PostgreSQL's path reads in one statement, then writes and commits in another, only if
    nothing its checks read has changed in between (the game's head: status, state version,
    options, earliest open deadline; the clickers' ballots and locales) and no other
    transaction holds a game's lock: otherwise it writes nothing and raises Unavailable (the
    service then goes through SQLAlchemy, which waits for the lock and reads again)."""
    assert isinstance(direct, PostgresVotes)
    game_id, _ = await two_games(sessions)
    write = [(game_id, "p1", "mission", 11, "support")]
    async with direct.transaction([game_id], "rs_vote", [11, 12]) as (tx, heads, ballots, _):
        assert heads[game_id].version == 0
        assert ballots == {(game_id, "p1", "team", 11): "accept"}
        if change is None:
            await tx.write_and_commit(write, [(game_id, 11, "fr")], T0)
        elif change == "held":
            async with sessions.begin() as s:
                await repo.lock_games(s, [game_id], "rs_vote")  # another writer, open
                with pytest.raises(Unavailable):
                    async with asyncio.timeout(2):  # NOWAIT: refused, not queued
                        await tx.write_and_commit(write, [(game_id, 11, "fr")], T0)
        else:
            async with sessions.begin() as s:
                await s.execute(text(CHANGES[change]), {"g": game_id})
            with pytest.raises(Unavailable):
                await tx.write_and_commit(write, [(game_id, 11, "fr")], T0)
    async with sessions.begin() as s:
        missions = await repo.votes_for(s, game_id, "p1", "mission")
        _, locales = await repo.ballots_and_locales(s, [game_id], [11])
    if change is None:
        assert (missions, locales) == ({11: "support"}, {(game_id, 11): "fr"})
    else:
        assert (missions, locales) == ({}, {(game_id, 11): "en"})  # nothing written


HEAD_CHANGES = ["the state saved", "the game over", "the options", "the deadline resolved"]


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
@pytest.mark.parametrize("change", [None, "a vote", *HEAD_CHANGES])
async def test_postgresql_a_known_head_is_written_in_one_statement_if_unchanged(
    direct: DirectVotes, sessions: Sessions, change: str | None
) -> None:
    """Once a batch has read a game's head, the next batches of that game send no read: one
    statement locks the head, compares it with its fingerprint as last read, writes, commits
    and returns what the clickers had on record before. A head changed since (a state saved,
    the game over, its options, a deadline resolved): nothing written, Stale, and the next
    batch reads again. Another player's vote does not change the head."""
    assert isinstance(direct, PostgresVotes)
    game_id, _ = await two_games(sessions)
    async with direct.transaction([game_id], "rs_vote", [11]) as (tx, heads, _, _):
        assert not tx.known and heads[game_id].version == 0
        await tx.write_and_commit([(game_id, "p1", "mission", 11, "support")], [], T0)
    assert (direct.reads, direct.known_writes) == (1, 0)
    if change == "a vote":
        async with sessions.begin() as s:
            await repo.record_vote(s, game_id, "p1", "team", 12, "reject", at=T0)
    elif change is not None:
        async with sessions.begin() as s:
            await s.execute(text(CHANGES[change]), {"g": game_id})
    write = [(game_id, "p1", "team", 11, "reject"), (game_id, "p1", "team", 12, "accept")]
    with contextlib.ExitStack() as refused:
        if change in HEAD_CHANGES:
            refused.enter_context(pytest.raises(Stale))
        async with direct.transaction([game_id], "rs_vote", [11, 12]) as (
            tx,
            heads,
            on_record,
            _,
        ):
            assert tx.known and heads[game_id].version == 0  # as last read
            assert on_record == {}  # nothing read yet
            on_record.update({(g, r, k, u): v for g, r, k, u, v in write})
            await tx.write_and_commit(write, [(game_id, 12, "fr")], T0)
    assert (direct.reads, direct.known_writes) == (1, 1)
    async with sessions.begin() as s:
        team = await repo.votes_for(s, game_id, "p1", "team")
        _, locales = await repo.ballots_and_locales(s, [game_id], [12])
    if change in HEAD_CHANGES:
        assert team == {11: "accept"} and locales == {(game_id, 12): "en"}  # nothing written
        async with direct.transaction([game_id], "rs_vote", [11]) as (tx, heads, _, _):
            assert not tx.known  # read again
        assert direct.reads == 2
    else:
        assert team == {11: "reject", 12: "accept"} and locales == {(game_id, 12): "fr"}
        # what was on record before, this batch's votes on top
        assert on_record == {
            (game_id, "p1", "mission", 11): "support",
            (game_id, "p1", "team", 11): "reject",
            (game_id, "p1", "team", 12): "accept",
        }


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
async def test_postgresql_reads_a_state_only_of_the_version_it_checks(
    direct: DirectVotes, sessions: Sessions
) -> None:
    """The read returns the games' states with their heads, in one snapshot: no statement of
    its own. A batch without a read (its heads as last read) reads a state on its own, and one
    saved since those heads is not returned under their older version (the service caches
    parsed states by version): Unavailable."""
    assert isinstance(direct, PostgresVotes)
    game_id, _ = await two_games(sessions)
    async with sessions.begin() as s:
        await s.execute(
            text("UPDATE games SET state = '{\"round\": 1}' WHERE id = :g"), {"g": game_id}
        )
    async with direct.transaction([game_id], "rs_vote", [11]) as (tx, heads, _, _):
        async with sessions.begin() as s:
            await s.execute(text(CHANGES["the state saved"]), {"g": game_id})
        # as the read found it, with the head it checks against
        assert await tx.game_states([game_id]) == {game_id: {"round": 1}}
        assert (heads[game_id].version, direct.reads, direct.state_reads) == (0, 1, 0)
    async with direct.transaction([game_id], "rs_vote", [11]) as (tx, heads, _, _):
        assert tx.known and heads[game_id].version == 0  # as last read: no read
        with pytest.raises(Unavailable):
            await tx.game_states([game_id])
        assert (direct.reads, direct.state_reads) == (1, 1)


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
async def test_postgresql_plans_each_vote_statement_once(
    direct: DirectVotes, sessions: Sessions
) -> None:
    """The vote connections run the generic plan of each prepared statement: left to choose,
    PostgreSQL planned the batch's statements again at every execution (1.0-1.1 ms each on an
    idle machine, against 0.3-0.6 ms). pg_prepared_statements counts the plans of each."""
    assert isinstance(direct, PostgresVotes)
    game_id, _ = await two_games(sessions)
    for i in range(8):  # past the 5 custom plans PostgreSQL tries before choosing
        if i % 2:
            direct.forget([game_id])  # read again: both statements run
        async with direct.transaction([game_id], "rs_vote", [11]) as (tx, _, _, _):
            vote = [(game_id, "p1", "team", 11, ("accept", "reject")[i % 2])]
            await tx.write_and_commit(vote, [], T0)
    conn = await direct._connection()  # the one the batches ran on, out of the pool
    try:
        plans = await conn.fetchrow(
            "SELECT sum(custom_plans) AS custom, sum(generic_plans) AS generic"
            " FROM pg_prepared_statements"
        )
    finally:
        await conn.close()
    assert (plans["custom"], plans["generic"] > 8) == (0, True)


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
async def test_postgresql_batches_of_other_games_run_at_once(
    direct: DirectVotes, sessions: Sessions
) -> None:
    """Two batches under way at once (disjoint games) each get a connection of their own, and
    both commit; the connections are kept for the next batches. One of them closed by the
    server: the next two batches still both commit (a connection opened again)."""
    assert isinstance(direct, PostgresVotes)
    game_id, other = await two_games(sessions)
    both = asyncio.Barrier(2)

    async def batch(gid: int, uid: int, value: str) -> None:
        async with direct.transaction([gid], "rs_vote", [uid]) as (tx, heads, _, _):
            assert list(heads) == [gid]
            await both.wait()  # both read, neither written
            await tx.write_and_commit([(gid, "p1", "team", uid, value)], [], T0)

    async def connections(kill: int = 0) -> int:
        async with sessions.begin() as s:
            pids = await vote_backends(s, "pid")
            for pid in pids[:kill]:
                await s.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
        return len(pids)

    for value in ("reject", "accept"):
        async with asyncio.timeout(5):
            await asyncio.gather(batch(game_id, 11, value), batch(other, 12, value))
        async with sessions.begin() as s:
            assert await repo.votes_for(s, game_id, "p1", "team") == {11: value}
            assert await repo.votes_for(s, other, "p1", "team") == {12: value}
        assert await connections(kill=1) == 2
        await asyncio.sleep(0.2)
    assert await connections() == 1  # the other is kept for the next batches


async def test_no_direct_path_for_an_in_memory_database() -> None:
    engine = make_engine("sqlite+aiosqlite:///:memory:")
    try:
        assert open_direct_votes(engine) is None
    finally:
        await engine.dispose()


def test_a_connection_left_unusable_counts_as_lost_and_a_refused_statement_does_not() -> None:
    import asyncpg

    # what asyncpg raised when a statement met a backend terminated an instant before
    busy = asyncpg.exceptions.InternalClientError(
        "cannot switch to state 12; another operation (2) is in progress"
    )
    assert _lost(busy)
    assert _lost(asyncpg.exceptions.ConnectionDoesNotExistError("closed in the middle"))
    assert _lost(ConnectionResetError()) and _lost(TimeoutError())
    assert not _lost(asyncpg.exceptions.UniqueViolationError("duplicate key"))
    assert not _lost(ValueError("not asyncpg's"))


async def test_a_lost_postgresql_connection_is_opened_again_or_unavailable(
    backend: str, direct: DirectVotes, sessions: Sessions
) -> None:
    """The server closes the vote path's connection: the next batch opens a new one. A
    server that cannot be reached: Unavailable before anything is read (the service then
    goes through SQLAlchemy's pool)."""
    if backend != "postgresql":
        pytest.skip("SQLite's connection is a file")
    assert isinstance(direct, PostgresVotes)
    game_id, _ = await two_games(sessions)
    async with direct.transaction([game_id], "rs_vote", [11]) as (_, heads, _, _):
        assert list(heads) == [game_id]
    async with sessions.begin() as s:
        killed = len(await vote_backends(s, "pg_terminate_backend(pid)"))
    assert killed == 1
    await asyncio.sleep(0.2)
    async with direct.transaction([game_id], "rs_vote", [11]) as (tx, _, ballots, _):
        assert tx.known  # the head read before the kill: written in one statement
        await tx.write_and_commit([(game_id, "p1", "team", 11, "reject")], [], T0)
        assert ballots == {(game_id, "p1", "team", 11): "accept"}  # what was on record
    async with sessions.begin() as s:
        assert await repo.votes_for(s, game_id, "p1", "team") == {11: "reject"}
    with pytest.raises(Unavailable):  # lost again, under a known head's one statement
        async with direct.transaction([game_id], "rs_vote", [11]) as (tx, _, _, _):
            assert tx.known
            async with sessions.begin() as s:
                await vote_backends(s, "pg_terminate_backend(pid)")
            await asyncio.sleep(0.2)
            await tx.write_and_commit([(game_id, "p1", "team", 11, "accept")], [], T0)
    async with sessions.begin() as s:
        assert await repo.votes_for(s, game_id, "p1", "team") == {11: "reject"}
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        nowhere = sock.getsockname()[1]  # bound, not listening: connections refused
        unreachable = PostgresVotes({**direct.connect_args, "host": "127.0.0.1", "port": nowhere})
        with pytest.raises(Unavailable):
            async with unreachable.transaction([game_id], "rs_vote", [11]):
                pytest.fail("read without a connection")


async def test_sqlite_never_waits_for_another_process_and_checkpoints_aside(
    backend: str, db_url: str, direct: DirectVotes, sessions: Sessions
) -> None:
    """SQLite's direct path runs on the event loop: the write lock held by another process
    (another connection, outside this process's gate) makes it Unavailable at once rather than
    wait; its commits leave the WAL to a PASSIVE checkpoint in a worker thread."""
    if backend != "sqlite":
        pytest.skip("SQLite's path")
    assert isinstance(direct, SqliteVotes)
    game_id, _ = await two_games(sessions)
    other = sqlite3.connect(str(sqlite_file(make_url(db_url))), isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        loop = asyncio.get_running_loop()
        started = loop.time()
        with pytest.raises(Unavailable):
            async with direct.transaction([game_id], "rs_vote", [11]):
                pytest.fail("began while another process holds the write lock")
        assert loop.time() - started < 1.0  # busy_timeout is 5 s elsewhere
        other.execute("ROLLBACK")
        direct.CHECKPOINT_EVERY = 2
        for value in ("reject", "accept"):
            async with direct.transaction([game_id], "rs_vote", [11]) as (tx, _, _, _):
                await tx.write_and_commit([(game_id, "p1", "team", 11, value)], [], T0)
        await asyncio.sleep(0.5)
        assert direct.checkpoints == 1
        async with sessions.begin() as s:
            assert await repo.votes_for(s, game_id, "p1", "team") == {11: "accept"}
    finally:
        other.close()


async def test_sqlite_checkpoints_by_rows_written_too(
    backend: str, db_url: str, direct: DirectVotes, sessions: Sessions
) -> None:
    """A few large batches write as many WAL pages as many small ones: the checkpoint aside
    comes after CHECKPOINT_ROWS rows as well as after CHECKPOINT_EVERY commits."""
    if backend != "sqlite":
        pytest.skip("SQLite's path")
    assert isinstance(direct, SqliteVotes)
    game_id, other = await two_games(sessions)
    direct.CHECKPOINT_EVERY, direct.CHECKPOINT_ROWS = 1000, 4
    async with direct.transaction([game_id], "rs_vote", [11, 12]) as (tx, _, _, _):
        await tx.write_and_commit([(game_id, "p1", "team", 12, "reject")], [], T0)
    await asyncio.sleep(0.3)
    assert direct.checkpoints == 0  # 1 row
    async with direct.transaction([game_id, other], "rs_vote", [11, 12]) as (tx, _, _, _):
        votes = [(g, "p1", "team", u, "accept") for g in (game_id, other) for u in (11, 12)]
        await tx.write_and_commit(votes[:3], [], T0)
    for _ in range(50):  # the checkpoint runs in a worker thread
        if direct.checkpoints:
            break
        await asyncio.sleep(0.05)
    assert direct.checkpoints == 1  # 4 rows


async def test_sqlite_batch_reads_seek_by_game(
    backend: str, db_url: str, engine: AsyncEngine, sessions: Sessions
) -> None:
    """The batch's reads cost a few index seeks per game of the batch, whatever the size of the
    database: each game's earliest open vote deadline is one seek in
    ``ix_deadlines_game_id_kind_status`` (not a walk over every open deadline, which cost
    0.6 ms per game at 2,000 open deadlines), and the ballots are searched by game, the users
    filtered (not a probe per pair of the two IN lists). The plans of the direct path's
    statements and of SQLAlchemy's (db/repo.py) alike."""
    if backend != "sqlite":
        pytest.skip("SQLite's plans")
    from sqlalchemy import event

    from db import direct as d

    await two_games(sessions)
    games, users = [1, 2, 3], [11, 12, 13]
    seen: list[tuple[str, list[Any]]] = []

    def capture(conn: object, cursor: object, sql: str, params: Any, *_: object) -> None:
        if "min(deadlines.due_at)" in sql:
            seen.append((sql, list(params)))

    event.listen(engine.sync_engine, "before_cursor_execute", capture)
    try:
        async with sessions.begin() as s:
            await repo.lock_games(s, games, "rs_vote")
    finally:
        event.remove(engine.sync_engine, "before_cursor_execute", capture)
    (lock_games,) = seen
    statements = {
        "direct heads": (d._HEADS.format(d._marks(3)), ["rs_vote", "open", *games]),
        "repo heads": lock_games,
        "direct ballots": (d._BALLOTS.format(d._marks(3), d._marks(3)), [*games, *users]),
    }
    conn = sqlite3.connect(str(sqlite_file(make_url(db_url))))
    try:
        plans = {
            name: [row[3] for row in conn.execute(f"EXPLAIN QUERY PLAN {sql}", params)]
            for name, (sql, params) in statements.items()
        }
    finally:
        conn.close()
    for name in ("direct heads", "repo heads"):
        deadlines = [step for step in plans[name] if step.startswith(("SEARCH d", "SCAN d"))]
        assert [step.replace("SEARCH deadlines ", "SEARCH d ") for step in deadlines] == [
            "SEARCH d USING COVERING INDEX ix_deadlines_game_id_kind_status"
            " (game_id=? AND kind=? AND status=?)"
        ], plans[name]
    players = [step for step in plans["direct ballots"] if step.startswith(("SEARCH p", "SCAN p"))]
    assert len(players) == 1 and players[0].startswith("SEARCH p USING INDEX"), plans
    assert players[0].endswith("(game_id=?)"), plans["direct ballots"]


def _seq_scans(plan: dict[str, Any]) -> set[str]:
    """The tables an EXPLAIN (FORMAT JSON) plan reads whole."""
    found = {plan["Relation Name"]} if plan.get("Node Type") == "Seq Scan" else set()
    for child in plan.get("Plans", []):
        found |= _seq_scans(child)
    return found


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
async def test_postgresql_vote_plans_seek_by_index_when_made_on_small_tables(
    direct: DirectVotes, sessions: Sessions
) -> None:
    """A vote connection keeps each statement's generic plan for its life. Made while the
    tables were small (a fresh database, not analyzed yet: the bench's, or a new server's), it
    read the votes and players whole at every batch as they grew (PostgreSQL at 0.3 of a core
    in the bench, 0.17 without). The vote connections' plans seek by index whatever the
    tables' size; the same statements on a connection with the planner's defaults do not."""
    assert isinstance(direct, PostgresVotes)
    game_id, other = await two_games(sessions)
    games, users = f"'{{{game_id},{other}}}'", "'{11,12}'"
    calls = {
        _PG_READ: f"'rs_vote', 'open', {games}, {users}",
        _PG_WRITE_KNOWN: f"'rs_vote', 'open', {games}, {users}, '{{a,b}}', now(),"
        f" {games}, '{{p1,p1}}', '{{team,team}}', {users}, '{{accept,accept}}',"
        " '{}', '{}', '{}'",
    }

    async def scans(conn: Any) -> set[str]:
        found: set[str] = set()
        for i, (statement, args) in enumerate(calls.items()):
            await conn.execute(f"PREPARE s{i} AS {statement}")
            plan = await conn.fetchval(f"EXPLAIN (FORMAT JSON) EXECUTE s{i}({args})")
            found |= _seq_scans(json.loads(plan)[0]["Plan"])
            await conn.execute(f"DEALLOCATE s{i}")
        return found

    conn = await direct._connection()
    try:
        assert await scans(conn) == set()
        await conn.execute("SET enable_seqscan = on")  # the planner's default
        assert "players" in await scans(conn)
    finally:
        await conn.close()


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
async def test_postgresql_vote_connection_is_ready_before_the_first_click(
    direct: DirectVotes, sessions: Sessions
) -> None:
    """open() (at the bot's start) connects and prepares the batch's four statements, writing
    nothing; the first batch then runs on that connection, without preparing anything."""
    assert isinstance(direct, PostgresVotes)
    game_id, _ = await two_games(sessions)
    statements = {_PG_READ, _PG_WRITE, _PG_WRITE_KNOWN, _PG_STATES}
    await direct.open()
    assert direct.reads == 0
    (conn,) = direct._idle
    prepared = await conn.fetch("SELECT statement FROM pg_prepared_statements")
    assert statements <= {row["statement"] for row in prepared}
    async with sessions() as s:
        rows = await queries.vote_rows(s, game_id)
        assert [(v.user_id, v.value, v.seq) for v in rows] == [(11, "accept", 1)]
    async with direct.transaction([game_id], "rs_vote", [12]) as (tx, heads, _, _):
        assert list(heads) == [game_id]
        await tx.write_and_commit([(game_id, "p1", "team", 12, "reject")], [], T0)
    assert direct._idle == [conn]
    again = await conn.fetch("SELECT statement FROM pg_prepared_statements")
    assert len(again) == len(prepared)


# SQLite's words for the same changes (CHANGES is PostgreSQL's: now()).
SQLITE_CHANGES = {k: v.replace("now()", "CURRENT_TIMESTAMP") for k, v in CHANGES.items()}


def reads_of(statements: list[str]) -> list[str]:
    return [s for s in statements if s.lstrip().upper().startswith("SELECT")]


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
@pytest.mark.parametrize("change", [None, *SQLITE_CHANGES])
async def test_sqlite_reads_a_game_again_only_after_another_connection_wrote(
    direct: DirectVotes, sessions: Sessions, change: str | None
) -> None:
    """A batch begun at once (``begin_now``, on the loop's thread) reads only what the vote
    path's connection has not read since another connection last committed (SQLite's
    data_version): a game read by an earlier batch, unchanged since, is not read again, and
    the connection's own writes are what it then holds. Any change by another connection (a
    vote, a locale, the game's head): the next batch reads again, and sees it. Either way it
    holds what SQLAlchemy reads."""
    assert isinstance(direct, SqliteVotes)
    game_id, _ = await two_games(sessions)
    tx = direct.begin_now([game_id], "rs_vote", [11])
    assert tx is not None
    try:
        assert tx.ballots == {(game_id, "p1", "team", 11): "accept"}
        tx.commit([(game_id, "p1", "mission", 11, "support")], [(game_id, 11, "fr")], T0)
    finally:
        tx.close()
    if change is not None:
        async with sessions.begin() as s:
            await s.execute(text(SQLITE_CHANGES[change]), {"g": game_id})
    async with sessions() as s:  # what SQLAlchemy reads now (read only: no change)
        heads_sa = await repo.lock_games(s, [game_id], "rs_vote")
        ballots_sa, locales_sa = await repo.ballots_and_locales(s, [game_id], [11, 12])
    statements: list[str] = []
    direct.connection().set_trace_callback(statements.append)
    tx = direct.begin_now([game_id], "rs_vote", [11, 12])
    assert tx is not None
    try:
        head, sa = tx.heads[game_id], heads_sa[game_id]
        assert (head.status, head.version, head.options, head.due_at) == (
            sa.status,
            sa.version,
            sa.options,
            sa.due_at,
        )
        assert (tx.ballots, tx.locales) == (ballots_sa, locales_sa)
    finally:
        tx.close()
        direct.connection().set_trace_callback(None)
    assert bool(reads_of(statements)) == (change is not None), statements


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
async def test_sqlite_begins_at_once_only_when_nothing_waits(
    engine: AsyncEngine, direct: DirectVotes, sessions: Sessions
) -> None:
    """``begin_now`` begins only when it can without waiting: not while a writer of this
    process holds the writer gate, nor while another connection holds SQLite's write lock
    (None: the batch takes the way that waits). What it did not commit is rolled back."""
    assert isinstance(direct, SqliteVotes)
    game_id, _ = await two_games(sessions)
    gate = writer_gate(engine)
    assert gate is not None
    await gate.acquire_now()
    try:
        assert direct.begin_now([game_id], "rs_vote", [11]) is None
    finally:
        gate.release_now()
    other = sqlite3.connect(sqlite_file(engine.url) or "", isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")  # another process's writer, say
        assert direct.begin_now([game_id], "rs_vote", [11]) is None
        other.execute("ROLLBACK")
    finally:
        other.close()
    tx = direct.begin_now([game_id], "rs_vote", [11])
    assert tx is not None
    tx.close()  # nothing committed: rolled back, the lock free
    async with asyncio.timeout(2), sessions.begin() as s:
        await repo.record_vote(s, game_id, "p1", "team", 12, "reject", at=T0)


async def test_warm_reads_games_as_their_first_batch_would(
    direct: DirectVotes, sessions: Sessions
) -> None:
    """``warm`` reads what a batch's first read of a game reads (its head, its state in the
    same snapshot; on SQLite its players' votes and locales too), writes nothing, and keeps it
    as that read does: the game's next batch reads nothing again (SQLite: not one SELECT;
    PostgreSQL: the one-statement write of a known head)."""
    game_id, other = await two_games(sessions)
    async with sessions() as s:
        heads_sa = await repo.lock_games(s, [game_id, other, 999], "rs_vote")
        states_sa = await repo.game_states(s, [game_id, other])
    read = await direct.warm([other, game_id, 999], "rs_vote")
    assert read is not None
    heads, states = read
    assert sorted(heads) == [game_id, other]
    assert_same_heads(heads, heads_sa)
    assert states == states_sa
    if isinstance(direct, SqliteVotes):
        statements: list[str] = []
        direct.connection().set_trace_callback(statements.append)
        now = direct.begin_now([game_id], "rs_vote", [11, 12])
        assert now is not None
        try:
            assert now.ballots == {(game_id, "p1", "team", 11): "accept"}
            assert now.locales == {(game_id, 11): "en", (game_id, 12): "en"}
        finally:
            now.close()
            direct.connection().set_trace_callback(None)
        assert reads_of(statements) == [], statements
    else:
        assert isinstance(direct, PostgresVotes)
        async with direct.transaction([game_id], "rs_vote", [12]) as (tx, heads, _, _):
            assert tx.known  # no read: the head as warm read it
            await tx.write_and_commit([(game_id, "p1", "team", 12, "reject")], [], T0)
        assert (direct.reads, direct.known_writes) == (0, 1)
    async with sessions() as s:  # warm wrote nothing; the batch after it, its vote
        assert await repo.votes_for(s, game_id, "p1", "team") == {11: "accept"} | (
            {} if isinstance(direct, SqliteVotes) else {12: "reject"}
        )


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
async def test_sqlite_warm_waits_its_turn_and_leaves_another_process_alone(
    engine: AsyncEngine, direct: DirectVotes, sessions: Sessions
) -> None:
    """On SQLite ``warm`` queues on the writer gate like a batch (it reads in a write
    transaction, so that what it keeps is of one version), and gives up, reading nothing,
    while another process holds the write lock."""
    assert isinstance(direct, SqliteVotes)
    game_id, _ = await two_games(sessions)
    gate = writer_gate(engine)
    assert gate is not None
    await gate.acquire_now()  # a writer of this process holds the gate
    warming = asyncio.create_task(direct.warm([game_id], "rs_vote"))

    async def writer_done() -> bool:
        # Runs after the read ahead's first step: it is still queued, not read already.
        queued = not warming.done()
        gate.release_now()
        return queued

    assert await asyncio.create_task(writer_done())
    read = await warming
    assert read is not None and list(read[0]) == [game_id]
    direct.known.forget()
    other = sqlite3.connect(sqlite_file(engine.url) or "", isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")  # another process's writer, say
        assert await direct.warm([game_id], "rs_vote") is None
        assert direct.known.heads == {}
        other.execute("ROLLBACK")
    finally:
        other.close()
    assert gate.free()
