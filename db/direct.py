"""The vote batch's transaction straight through the driver: ``sqlite3`` on the event loop's
thread, or one asyncpg connection.

Through SQLAlchemy's async layer a batch of clicks cost about 1.7 ms of CPU on SQLite (measured:
1,500 one-click batches), most of it not SQLite's: each statement is four trips to aiosqlite's
thread (cursor, execute, fetch, close), each trip a future, a thread switch and a wake-up of the
event loop, plus the session's begin/commit machinery and its greenlet switches. Here a batch is
run on one ``sqlite3`` connection of its own: ``BEGIN IMMEDIATE`` and the reads, then the writes
and ``COMMIT`` (0.1 ms of CPU for the same batch), on the loop's thread without ever waiting
(:class:`SqliteVotes` says how). The transaction is the same one (same statements, same write
lock, the same pragmas as every other connection) and the process's writers still queue on the
engine's writer gate before ``BEGIN IMMEDIATE``.

On PostgreSQL the same batch through SQLAlchemy cost about 1.7 ms of CPU too (the pool's
pre-ping, the session, the compiled-statement cache, result processing, greenlet switches);
here it is two statements on asyncpg connections that the vote path keeps (asyncpg prepares
each once): one reads, the other writes and commits once nothing it read has changed; and once
the vote path has read a game's head, the next batches of that game are one statement
(:class:`PostgresVotes` says how).

On SQLite, a batch that nothing makes wait (the writer gate free, the write lock free) is run
without awaiting at all (:meth:`DirectVotes.begin_now`): nothing else of the process runs
meanwhile, so its games' locks need not be taken; and what the connection read of a game is
kept until another connection commits (:class:`Known`), so that a game's later batches read
nothing but SQLite's data_version.

Only what the vote path needs is here; everything else goes through SQLAlchemy.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sqlite3
from collections.abc import AsyncIterator, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncEngine

from adapters import switch
from adapters.sqlalchemy_asyncpg import connect_args
from db.engine import set_pragmas, sqlite_file, writer_gate
from db.models import DeadlineStatus
from db.types import aware_utc

# SQLAlchemy's storage format of a DateTime on SQLite (naive UTC text, microseconds always).
_STORED = "%Y-%m-%d %H:%M:%S.%f"


def _read(text: str | None) -> datetime | None:
    return None if text is None else datetime.fromisoformat(text).replace(tzinfo=UTC)


def _marks(n: int) -> str:
    return ", ".join("?" * n)


@dataclass(frozen=True, slots=True)
class Head:
    """A game's head as :func:`db.repo.lock_games` reads it (not the state)."""

    id: int
    status: str
    version: int
    created_at: datetime
    guild_id: int
    options: dict[str, Any]
    due_at: datetime | None


# The same statements as db/repo.py's _LOCK_GAMES, _BALLOTS_AND_LOCALES, _GAME_STATES,
# _vote_upsert and _SET_LOCALE (tests/db/test_direct.py checks they read and write the same).
# One difference of plan, not of result: in _BALLOTS, ``+p.user_id`` keeps SQLite from
# searching the (game_id, user_id) index with both IN lists, which probes their cross product
# (a batch of 256 clicks: 65,536 probes, 11-26 ms on the event loop); it searches by game (10
# players each) and filters the users instead (1 ms).
_HEADS = (
    "SELECT g.id, g.status, g.version, g.created_at, g.guild_id, g.options,"
    " (SELECT min(d.due_at) FROM deadlines d"
    "  WHERE d.game_id = g.id AND d.kind = ? AND d.status = ?)"
    " FROM games g WHERE g.id IN ({}) ORDER BY g.id"
)
_BALLOTS = (
    "SELECT p.game_id, p.user_id, p.locale, v.round_key, v.kind, v.value FROM players p"
    " LEFT OUTER JOIN votes v ON v.game_id = p.game_id AND v.user_id = p.user_id"
    " WHERE p.game_id IN ({}) AND +p.user_id IN ({})"
)
# What the vote path keeps of a game it has not read since the last change (:class:`Known`):
# all its players and their votes, _BALLOTS without the users' filter.
_GAME_BALLOTS = (
    "SELECT p.game_id, p.user_id, p.locale, v.round_key, v.kind, v.value FROM players p"
    " LEFT OUTER JOIN votes v ON v.game_id = p.game_id AND v.user_id = p.user_id"
    " WHERE p.game_id IN ({})"
)
_STATES = "SELECT id, state FROM games WHERE id IN ({})"
_UPSERT = (
    "INSERT INTO votes (game_id, round_key, kind, user_id, value, updated_at, seq)"
    " VALUES (?, ?, ?, ?, ?, ?, 1)"
    " ON CONFLICT (game_id, round_key, kind, user_id) DO UPDATE SET"
    " value = excluded.value, updated_at = excluded.updated_at, seq = votes.seq + 1"
)
_LOCALE = "UPDATE players SET locale = ? WHERE game_id = ? AND user_id = ? AND locale != ?"

log = logging.getLogger(__name__)

Ballots = dict[tuple[int, str, str, int], str]
Locales = dict[tuple[int, int], str]


class Unavailable(Exception):
    """The direct path could not go on, and nothing was written: SQLite's write lock held by
    another process longer than ``busy_timeout``, the PostgreSQL connection lost before the
    read, or, on PostgreSQL, a game of the batch locked by another transaction or changed
    between the read and the write. The caller goes through SQLAlchemy instead (which waits,
    or reconnects)."""


class Stale(Unavailable):
    """PostgreSQL: a game's head, as the vote path last read it, changed since (a new
    proposal, a deadline resolved, the game over): nothing was written; the batch is checked
    again against a fresh read."""


class VoteTransaction:
    """One batch's transaction, open (begun, the reads made)."""

    done = False
    #: the heads are the ones last read, not read again for this batch (PostgreSQL): a refusal
    #: against them must be checked again against a fresh read (:meth:`stale`)
    known = False

    def stale(self) -> Stale:
        """The error to raise when the batch must be checked again against a fresh read."""
        return Stale("a game's head changed since it was last read")

    async def game_states(self, game_ids: Sequence[int]) -> dict[int, Any]:
        """``{game_id: state}`` (the engine's dict, or None before the start)."""
        raise NotImplementedError

    async def write_and_commit(
        self,
        votes: Sequence[tuple[int, str, str, int, str]],
        locales: Sequence[tuple[int, int, str]],
        at: datetime,
    ) -> None:
        """The votes ``(game_id, round_key, kind, user_id, value)`` (one UPSERT executemany),
        the players' locales that changed ``(game_id, user_id, locale)``, then ``COMMIT``.
        Returns once committed; raises :class:`Unavailable` when nothing was written."""
        utc = aware_utc(at)
        self.done = True
        await self._commit(votes, [(loc, g, u) for g, u, loc in locales], utc)

    async def _commit(
        self,
        votes: Sequence[tuple[int, str, str, int, str]],
        locales: list[tuple[str, int, int]],
        at: datetime,
    ) -> None:
        """:meth:`write_and_commit`'s work (``locales``: (locale, game_id, user_id))."""
        raise NotImplementedError


class DirectVotes:
    """A vote path's own connection. :func:`open_direct_votes` makes it; :meth:`close`
    closes it."""

    def transaction(
        self, game_ids: Sequence[int], due_kind: str, user_ids: Sequence[int]
    ) -> contextlib.AbstractAsyncContextManager[
        tuple[VoteTransaction, dict[int, Head], Ballots, Locales]
    ]:
        """Begin, and the batch's reads: the games' heads (their earliest open ``due_kind``
        deadline; rows locked), and of these players in these games their votes and locales.
        Leaving without :meth:`VoteTransaction.write_and_commit` rolls back. Raises
        :class:`Unavailable` when it could not begin."""
        raise NotImplementedError

    def begin_now(
        self, game_ids: Sequence[int], due_kind: str, user_ids: Sequence[int]
    ) -> NowTransaction | None:
        """:meth:`transaction`'s begin and reads made at once, without awaiting, when nothing
        makes them wait; None when something would (a writer of this process, another
        process's lock) or when this path always waits (PostgreSQL: every statement is a trip
        to the server). The caller does not await until :meth:`NowTransaction.commit` or
        :meth:`NowTransaction.close`: nothing else of this process runs meanwhile."""
        return None

    async def open(self) -> None:
        """Open the connection and prepare the batch's statements before the first click,
        which would otherwise wait for them. Optional: the first batch opens what is not."""
        return None

    async def warm(
        self, game_ids: Sequence[int], due_kind: str
    ) -> tuple[dict[int, Head], dict[int, Any]] | None:
        """Read these games as a batch's first read of them does, into what the vote path
        keeps of them (their heads and, on SQLite, their players' votes and locales), writing
        nothing: their heads and their states (as :meth:`VoteTransaction.game_states`), read
        together. None when another process holds SQLite's write lock."""
        raise NotImplementedError

    async def close(self) -> None:
        raise NotImplementedError


def _ballots(rows: Sequence[Sequence[Any]]) -> tuple[Ballots, Locales]:
    ballots: Ballots = {}
    locales: Locales = {}
    for game_id, user_id, locale, round_key, kind, value in rows:
        locales[(game_id, user_id)] = locale
        if round_key is not None:
            ballots[(game_id, round_key, kind, user_id)] = value
    return ballots, locales


class NowTransaction:
    """A batch's transaction run without awaiting (:meth:`DirectVotes.begin_now`): begun, the
    games' heads and the clickers' votes and locales read; :meth:`commit` writes and commits,
    :meth:`close` rolls back what was not committed."""

    def __init__(self, db: SqliteVotes, heads: dict[int, Head], ballots: Ballots, locales: Locales):
        self._db = db
        self.heads, self.ballots, self.locales = heads, ballots, locales
        self.done = False

    def game_states(self, game_ids: Sequence[int]) -> dict[int, Any]:
        """``{game_id: state}`` (the engine's dict, or None before the start)."""
        return self._db.states(game_ids)

    def commit(
        self,
        votes: Sequence[tuple[int, str, str, int, str]],
        locales: Sequence[tuple[int, int, str]],
        at: datetime,
    ) -> None:
        """As :meth:`VoteTransaction.write_and_commit`, at once."""
        self.done = True
        self._db.write(votes, [(loc, g, u) for g, u, loc in locales], aware_utc(at))

    def close(self) -> None:
        if not self.done:
            self.done = True
            _rollback(self._db.connection())


class SqliteTransaction(VoteTransaction):
    def __init__(self, db: SqliteVotes) -> None:
        self._db = db

    async def game_states(self, game_ids: Sequence[int]) -> dict[int, Any]:
        return self._db.states(game_ids)

    async def _commit(
        self,
        votes: Sequence[tuple[int, str, str, int, str]],
        locales: list[tuple[str, int, int]],
        at: datetime,
    ) -> None:
        self._db.write(votes, locales, at)


class Known:
    """What the vote path's SQLite connection read of its games, kept while no other
    connection has committed anything (SQLite's ``PRAGMA data_version``, read in each batch's
    transaction, changes then: everything is forgotten). Its own commits change nothing of it
    but what they write, which :meth:`wrote` puts in. A batch then reads only the games it has
    not read since the last change: their heads (of one kind of deadline), and all their
    players' locales and votes (in the burst of the bench, a game's first click reads it and
    its next twelve read nothing: ``BEGIN IMMEDIATE`` and the version, 4 µs, instead of the two
    reads, 40 µs, measured alone)."""

    #: games kept, at most (then all forgotten at once)
    GAMES = 5_000

    def __init__(self) -> None:
        self.version: int | None = None
        self.heads: dict[tuple[str, int], Head] = {}
        #: game → user → locale, and game → user → (round_key, kind) → value
        self.locales: dict[int, dict[int, str]] = {}
        self.votes: dict[int, dict[int, dict[tuple[str, str], str]]] = {}

    def check(self, conn: sqlite3.Connection) -> None:
        """In the batch's transaction: forget everything if another connection committed."""
        version = conn.execute("PRAGMA data_version").fetchone()[0]
        if version != self.version or len(self.locales) > self.GAMES:
            self.forget()
            self.version = version

    def forget(self) -> None:
        self.version = None
        self.heads.clear()
        self.locales.clear()
        self.votes.clear()

    def read(self, rows: Iterable[Sequence[Any]]) -> None:
        """Put in the rows of :data:`_GAME_BALLOTS` (whole games)."""
        for game_id, user_id, locale, round_key, kind, value in rows:
            self.locales.setdefault(game_id, {})[user_id] = locale
            votes = self.votes.setdefault(game_id, {}).setdefault(user_id, {})
            if round_key is not None:
                votes[(round_key, kind)] = value

    def ballots(self, games: Sequence[int], users: Sequence[int]) -> tuple[Ballots, Locales]:
        """Of these players in these games (all read), what :data:`_BALLOTS` reads."""
        ballots: Ballots = {}
        locales: Locales = {}
        for g in games:
            players, votes = self.locales.get(g, {}), self.votes.get(g, {})
            for u in users:
                locale = players.get(u)
                if locale is None:
                    continue
                locales[(g, u)] = locale
                for (round_key, kind), value in votes.get(u, {}).items():
                    ballots[(g, round_key, kind, u)] = value
        return ballots, locales

    def wrote(
        self,
        votes: Sequence[tuple[int, str, str, int, str]],
        locales: Sequence[tuple[str, int, int]],
    ) -> None:
        """This connection committed these votes and locales (of games kept or not)."""
        for g, round_key, kind, u, value in votes:
            if g in self.votes:
                self.votes[g].setdefault(u, {})[(round_key, kind)] = value
        for locale, g, u in locales:
            if u in self.locales.get(g, {}):
                self.locales[g][u] = locale


class SqliteVotes(DirectVotes):
    """One ``sqlite3`` connection for the vote batches of one engine's database file, used on
    the event loop's thread: the batch's statements take about 0.1 ms there, less than handing
    them to a thread and back (measured: 12 % less CPU per click than two trips to a thread of
    its own). Nothing on this connection waits: ``busy_timeout`` is 0, so a ``BEGIN IMMEDIATE``
    that meets the write lock fails at once and is tried again after short pauses that leave the
    loop free (:data:`BEGIN_PAUSES`, 0.1 s in all); a lock still held then (another process's)
    makes the batch :class:`Unavailable` (it goes through SQLAlchemy, which waits in its
    driver's thread), and its commits never checkpoint
    the WAL (``wal_autocheckpoint`` 0: the fsync of a checkpoint must not stall the loop); a
    ``PASSIVE`` checkpoint runs in a worker thread every :attr:`CHECKPOINT_EVERY` commits or
    :attr:`CHECKPOINT_ROWS` rows written, whichever comes first (the engine's connections still
    checkpoint at their own commits as usual). By rows too because a batch's pages grow with
    it: a commit of one click adds 2 pages to the WAL, one of 256 clicks about 130 (measured),
    so 250 large batches would have let the WAL reach 130 MB between two checkpoints; 2,000
    rows keep it near SQLite's own 1,000-page threshold."""

    CHECKPOINT_EVERY = 250
    CHECKPOINT_ROWS = 2000
    #: distinct head rows remembered, at most (then forgotten all at once)
    HEADS = 20_000

    def __init__(self, path: str, engine: AsyncEngine) -> None:
        self._path = path
        gate = writer_gate(engine)
        assert gate is not None, "open_direct_votes() checks it"
        self._gate = gate
        self._conn: sqlite3.Connection | None = None
        self._commits = 0
        self._rows = 0
        self._checkpoint: asyncio.Task[None] | None = None
        self._heads: dict[tuple[Any, ...], Head] = {}
        self.known = Known()
        #: checkpoints run (for the tests)
        self.checkpoints = 0

    def head(self, row: tuple[Any, ...]) -> Head:
        """The head of a row as read, made once per distinct row: between two changes of a
        game every batch reads the same row (no JSON or dates to parse again). Heads are
        frozen, and their options only read."""
        head = self._heads.get(row)
        if head is None:
            if len(self._heads) > self.HEADS:
                self._heads.clear()
            gid, status, version, created, guild, opt, due = row
            head = Head(
                gid, status, version, _read(created) or _never(), guild, _json(opt), _read(due)
            )
            self._heads[row] = head
        return head

    def connection(self) -> sqlite3.Connection:
        """The vote path's connection, opened on first use."""
        if self._conn is None:
            self._conn = _connect(self._path)
            self._conn.execute("PRAGMA busy_timeout=0")
            self._conn.execute("PRAGMA wal_autocheckpoint=0")
        return self._conn

    async def call(self, fn: Any, *args: Any) -> Any:
        """``fn(connection, *args)``, at once (nothing on this connection waits)."""
        return fn(self.connection(), *args)

    def states(self, game_ids: Sequence[int]) -> dict[int, Any]:
        """``{game_id: state}`` of these games, in the open transaction."""
        ids = list(game_ids)
        rows = _fetch(self.connection(), _STATES.format(_marks(len(ids))), ids)
        return {gid: None if state is None else json.loads(state) for gid, state in rows}

    def write(
        self,
        votes: Sequence[tuple[int, str, str, int, str]],
        locales: Sequence[tuple[str, int, int]],
        at: datetime,
    ) -> None:
        """The open transaction's writes (``locales``: (locale, game_id, user_id)), then
        ``COMMIT``."""
        now = at.strftime(_STORED)
        rows = [(g, r, k, u, v, now) for g, r, k, u, v in votes]
        try:
            _write_and_commit(self.connection(), rows, [(*row, row[0]) for row in locales])
        except BaseException:
            self.known.forget()  # whatever it left: read again
            raise
        self.known.wrote(votes, locales)
        self.committed(len(rows) + len(locales))

    def begin_now(
        self, game_ids: Sequence[int], due_kind: str, user_ids: Sequence[int]
    ) -> NowTransaction | None:
        # The gate free: no writer of this process between its BEGIN and its COMMIT, and none
        # can start before this one's COMMIT (it does not await). The write lock free too, or
        # another process holds it: the batch waits for it the usual way (:meth:`transaction`).
        if not self._gate.free():
            return None
        return self._begin_known(game_ids, due_kind, user_ids)

    def _begin_known(
        self, game_ids: Sequence[int], due_kind: str, user_ids: Sequence[int]
    ) -> NowTransaction | None:
        """``BEGIN IMMEDIATE`` and the reads of :meth:`begin_now`, no writer of this process
        under way; None when another process holds the write lock."""
        conn = self.connection()
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            if _lock_held(exc):
                return None
            raise
        try:
            heads, ballots, locales = self._read_known(conn, game_ids, due_kind, user_ids)
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        return NowTransaction(self, heads, ballots, locales)

    async def warm(
        self, game_ids: Sequence[int], due_kind: str
    ) -> tuple[dict[int, Head], dict[int, Any]] | None:
        # Its turn at the writer gate, as a batch's; then, without awaiting, a batch's write
        # transaction, rolled back: no other connection can commit between the data_version
        # that Known keeps and the rows read with it.
        await self._gate.acquire_now()
        try:
            tx = self._begin_known(game_ids, due_kind, [])
            if tx is None:
                return None
            try:
                return dict(tx.heads), tx.game_states(list(tx.heads))
            finally:
                tx.close()
        finally:
            self._gate.release_now()

    def _read_known(
        self,
        conn: sqlite3.Connection,
        game_ids: Sequence[int],
        due_kind: str,
        user_ids: Sequence[int],
    ) -> tuple[dict[int, Head], Ballots, Locales]:
        """In the transaction: the batch's reads, of the games :attr:`known` does not hold."""
        known = self.known
        known.check(conn)
        games, users = sorted(set(game_ids)), sorted(set(user_ids))
        unread = [g for g in games if (due_kind, g) not in known.heads]
        if unread:
            params = [due_kind, DeadlineStatus.OPEN.value, *unread]
            for row in conn.execute(_HEADS.format(_marks(len(unread))), params):
                known.heads[(due_kind, row[0])] = self.head(row)
        unread = [g for g in games if g not in known.locales]
        if unread:
            known.read(conn.execute(_GAME_BALLOTS.format(_marks(len(unread))), unread))
            for g in unread:  # a game without players (gone): read, nothing to keep
                known.locales.setdefault(g, {})
        heads = {g: known.heads[(due_kind, g)] for g in games if (due_kind, g) in known.heads}
        return (heads, *known.ballots(games, users))

    def committed(self, rows: int) -> None:
        """A batch of ``rows`` rows committed: a checkpoint aside when enough was written since
        the last one (none while one runs)."""
        self._commits += 1
        self._rows += rows
        due = self._commits >= self.CHECKPOINT_EVERY or self._rows >= self.CHECKPOINT_ROWS
        if due and (self._checkpoint is None or self._checkpoint.done()):
            self._commits = self._rows = 0
            self._checkpoint = asyncio.get_running_loop().create_task(self._run_checkpoint())

    async def _run_checkpoint(self) -> None:
        try:
            await asyncio.to_thread(_checkpoint, self._path)
            self.checkpoints += 1
        except Exception as exc:  # the engine's own connections checkpoint too
            log.warning("WAL checkpoint after vote batches failed: %s", exc)

    @contextlib.asynccontextmanager
    async def transaction(
        self, game_ids: Sequence[int], due_kind: str, user_ids: Sequence[int]
    ) -> AsyncIterator[tuple[VoteTransaction, dict[int, Head], Ballots, Locales]]:
        games, users = sorted(set(game_ids)), sorted(set(user_ids))
        try:
            await self._gate.acquire_now()
        except sqlite3.OperationalError as exc:
            raise Unavailable(str(exc)) from exc
        try:
            # The gate opens once this process's last writer has committed (db/engine.py), so
            # only another process can hold the lock here: try again without blocking the
            # loop (about 0.1 s in all), then leave the batch to SQLAlchemy.
            for pause in (*BEGIN_PAUSES, None):
                try:
                    heads_rows, ballot_rows = await self.call(
                        _begin_and_read,
                        _HEADS.format(_marks(len(games))),
                        [due_kind, DeadlineStatus.OPEN.value, *games],
                        _BALLOTS.format(_marks(len(games)), _marks(len(users))),
                        [*games, *users],
                    )
                    break
                except sqlite3.OperationalError as exc:
                    if not _lock_held(exc):
                        raise
                    if pause is None:
                        raise Unavailable(str(exc)) from exc
                    await asyncio.sleep(pause)
            tx = SqliteTransaction(self)
            try:
                heads = {row[0]: self.head(row) for row in heads_rows}
                yield (tx, heads, *_ballots(ballot_rows))
            finally:
                if not tx.done:
                    await self.call(_rollback)
        finally:
            self._gate.release_now()

    async def close(self) -> None:
        if self._checkpoint is not None:
            with contextlib.suppress(Exception):
                await self._checkpoint
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()


# Pauses between attempts at BEGIN IMMEDIATE while the lock is held (seconds; 0.1 s in all).
BEGIN_PAUSES = (0.0, 0.001, 0.002, 0.005, 0.01, 0.02, 0.03, 0.032)


def _lock_held(exc: sqlite3.OperationalError) -> bool:
    """Whether ``BEGIN IMMEDIATE`` failed because another connection holds the write lock."""
    return "locked" in str(exc) or "busy" in str(exc)


def _checkpoint(path: str) -> None:
    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
    finally:
        conn.close()


def _never() -> datetime:  # pragma: no cover - created_at is NOT NULL
    raise ValueError("a game without created_at")


def _json(value: Any) -> dict[str, Any]:
    return {} if value is None else dict(json.loads(value))


def _connect(path: str) -> sqlite3.Connection:
    """A connection set up as db/engine.py sets every SQLite connection: the pragmas, and no
    implicit transactions (BEGIN is ours)."""
    conn = sqlite3.connect(path, isolation_level=None)
    set_pragmas(conn)
    return conn


def _fetch(conn: sqlite3.Connection, sql: str, params: list[Any]) -> list[Any]:
    return conn.execute(sql, params).fetchall()


def _begin_and_read(
    conn: sqlite3.Connection,
    heads_sql: str,
    heads_params: list[Any],
    ballots_sql: str,
    ballots_params: list[Any],
) -> tuple[list[Any], list[Any]]:
    conn.execute("BEGIN IMMEDIATE")
    try:
        heads = conn.execute(heads_sql, heads_params).fetchall()
        ballots = conn.execute(ballots_sql, ballots_params).fetchall()
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return heads, ballots


def _write_and_commit(
    conn: sqlite3.Connection, votes: list[tuple[Any, ...]], locales: list[tuple[Any, ...]]
) -> None:
    try:
        if votes:
            conn.executemany(_UPSERT, votes)
        if locales:
            conn.executemany(_LOCALE, locales)
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def _rollback(conn: sqlite3.Connection) -> None:
    if conn.in_transaction:
        conn.execute("ROLLBACK")


# PostgreSQL: the batch in two round trips and no explicit transaction (``BEGIN``, the reads,
# the writes and ``COMMIT`` were five, each a wait for the server and then for the event loop,
# which is busy at load; pg_stat_activity showed the connection "idle in transaction" most of
# the time). The first reads the heads and the clickers' ballots and locales in one statement,
# with a fingerprint of all of it, and the games' states (in the same snapshot as the heads:
# a read is most often a game's first batch since its state changed, which the service has
# not parsed yet; a third trip for it was the slowest click of each game); the clicks are
# checked in Python (the rules); the second is
# one statement, committed on its own: the heads locked in id order ``FOR UPDATE NOWAIT``, the
# fingerprint computed again, and only when it is the same (nothing the checks read changed:
# status, version of the state, options, the earliest open deadline, the ballots and locales)
# the UPSERT and the locale UPDATE. Otherwise, or when another transaction holds a head's lock,
# nothing is written and the batch goes through SQLAlchemy (which waits for the lock).
# What a batch reads: the heads (``h``, locked when ``{lock}`` says so) and the clickers'
# ballots and locales (``b``).
_PG_HEADS_BALLOTS = """
h AS (
  SELECT g.id, g.status, g.version, g.created_at, g.guild_id, g.options::text AS options,
    (SELECT min(d.due_at) FROM deadlines d
     WHERE d.game_id = g.id AND d.kind = $1 AND d.status = $2) AS due_at
  FROM games g WHERE g.id = ANY($3::integer[]) ORDER BY g.id{lock}
), b AS (
  SELECT p.game_id, p.user_id, p.locale, v.round_key, v.kind, v.value FROM players p
  LEFT OUTER JOIN votes v ON v.game_id = p.game_id AND v.user_id = p.user_id
  WHERE p.game_id = ANY($3::integer[]) AND p.user_id = ANY($4::bigint[])
)"""
# ... and the fingerprint of all of it (``f``).
_PG_READS = (
    _PG_HEADS_BALLOTS
    + """, f AS (
  SELECT md5(
    coalesce((SELECT string_agg(h::text, ';' ORDER BY h.id) FROM h), '') || '|'
    || coalesce((SELECT string_agg(b::text, ';' ORDER BY b.game_id, b.user_id, b.round_key, b.kind)
                 FROM b), '')) AS fp
)"""
)
_PG_READ = (
    "WITH"
    + _PG_READS.format(lock="")
    + """
SELECT 0, h.id, h.status, h.version, h.created_at, h.guild_id, h.options, h.due_at,
  NULL::bigint, NULL::text, NULL::text, NULL::text, md5(h::text) FROM h
UNION ALL
SELECT 1, b.game_id, NULL, NULL, NULL, NULL, NULL, NULL,
  b.user_id, b.locale, b.round_key, b.kind, b.value FROM b
UNION ALL
SELECT 2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, f.fp FROM f
UNION ALL
SELECT 3, g.id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, g.state::text
FROM games g WHERE g.id = ANY($3::integer[])"""
)
# The writes of both: only when ``ok.same`` ($6: the time; the votes' and locales' columns).
_PG_WRITES = """
, ins AS (
  INSERT INTO votes (game_id, round_key, kind, user_id, value, updated_at, seq)
  SELECT w.game_id, w.round_key, w.kind, w.user_id, w.value, $6, 1
  FROM unnest($7::integer[], $8::text[], $9::text[], $10::bigint[], $11::text[])
    AS w(game_id, round_key, kind, user_id, value)
  WHERE (SELECT same FROM ok)
  ON CONFLICT (game_id, round_key, kind, user_id) DO UPDATE SET
    value = excluded.value, updated_at = excluded.updated_at, seq = votes.seq + 1
  RETURNING 1
), loc AS (
  UPDATE players p SET locale = l.locale
  FROM unnest($12::integer[], $13::bigint[], $14::text[]) AS l(game_id, user_id, locale)
  WHERE p.game_id = l.game_id AND p.user_id = l.user_id AND p.locale != l.locale
    AND (SELECT same FROM ok)
  RETURNING 1
)
"""
_PG_WRITE = (
    "WITH"
    + _PG_READS.format(lock=" FOR UPDATE OF g NOWAIT")
    + """, ok AS (
  SELECT (SELECT fp FROM f) = $5 AS same
)"""
    + _PG_WRITES
    + "SELECT (SELECT same FROM ok), (SELECT count(*) FROM ins), (SELECT count(*) FROM loc)"
)
# A batch whose games' heads were all read before (by an earlier batch) skips the read: one
# statement locks the heads, compares each with its fingerprint as last read (``md5(h::text)``,
# the same row as the read's), and only when all are the same writes, commits, and returns
# what the clickers had on record before it (read in the same snapshot, under the games'
# locks: the answers show that with this batch's votes on top). Otherwise nothing is written
# and the batch is checked again against a fresh read (:class:`Stale`).
_PG_WRITE_KNOWN = (
    "WITH"
    + _PG_HEADS_BALLOTS.format(lock=" FOR UPDATE OF g NOWAIT")
    + """, ok AS (
  SELECT count(*) = cardinality($3::integer[]) AND coalesce(bool_and(md5(h::text) = e.fp), false)
    AS same
  FROM h JOIN unnest($3::integer[], $5::text[]) AS e(id, fp) ON e.id = h.id
)"""
    + _PG_WRITES
    + """SELECT ok.same, b.game_id, b.user_id, b.locale, b.round_key, b.kind, b.value
FROM ok LEFT OUTER JOIN b ON ok.same"""
)
_PG_STATES = "SELECT id, version, created_at, state FROM games WHERE id = ANY($1::integer[])"


APP = "pbp-votes"
#: the vote connections' settings. ``plan_cache_mode``: each statement is planned once, when
#: prepared (PostgreSQL 12+). Left to choose, PostgreSQL planned the batch's statements again
#: at every execution (their arrays make a custom plan look better than the generic one): on
#: an idle machine 1.0-1.1 ms a statement, 0.3-0.6 ms with the generic plan, which seeks by
#: the same indexes.
VOTES_SETTINGS = {
    "application_name": APP,
    "plan_cache_mode": "force_generic_plan",
    "enable_seqscan": "off",
}


def _pg_json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str | bytes) else value


class PostgresTransaction(VoteTransaction):
    """A batch read (no transaction open: nothing is held while the clicks are checked)."""

    def __init__(
        self,
        votes: PostgresVotes,
        conn: Any,
        args: tuple[str, str, list[int], list[int]],
        heads: dict[int, Head],
        fingerprint: str,
        states: dict[int, str | None] | None = None,
    ) -> None:
        self._votes, self._conn, self._args = votes, conn, args
        self._heads, self._fp = heads, fingerprint
        #: the games' states as the read found them (the text, parsed only when asked for)
        self._states = states or {}

    async def game_states(self, game_ids: Sequence[int]) -> dict[int, Any]:
        if all(gid in self._states for gid in game_ids):  # read with the heads: no trip
            return {gid: _pg_json(self._states[gid]) for gid in game_ids}
        self._votes.state_reads += 1
        rows = await self._conn.fetch(_PG_STATES, list(game_ids))
        for gid, version, created_at, _ in rows:
            head = self._heads.get(gid)
            if head is None or (head.version, head.created_at) != (version, _utc(created_at)):
                # saved since the read: checking against it would cache it under the old version
                raise Unavailable(f"game {gid} changed since the batch's read")
        return {gid: _pg_json(state) for gid, _, _, state in rows}

    async def _commit(
        self,
        votes: Sequence[tuple[int, str, str, int, str]],
        locales: list[tuple[str, int, int]],
        at: datetime,
    ) -> None:
        rows = await self._write(_PG_WRITE, self._fp, votes, locales, at)
        if not rows[0][0]:
            raise Unavailable("a game of the batch changed since its read")

    async def _write(
        self,
        statement: str,
        fingerprint: str | list[str],
        votes: Sequence[tuple[int, str, str, int, str]],
        locales: list[tuple[str, int, int]],
        at: datetime,
    ) -> list[Any]:
        """The write statement; :class:`Unavailable` when another transaction holds a head or
        the connection was lost (committed or not: the batch then goes through SQLAlchemy,
        whose UPSERT writes the same rows)."""
        import asyncpg

        try:
            rows: list[Any] = await self._conn.fetch(
                statement,
                *self._args,
                fingerprint,
                at,
                *_columns(votes, 5),
                [g for _, g, _ in locales],
                [u for _, _, u in locales],
                [loc for loc, _, _ in locales],
            )
        except asyncpg.LockNotAvailableError as exc:  # another transaction holds a head
            raise Unavailable(str(exc)) from exc
        except Exception as exc:
            if not _lost(exc):
                raise
            _terminate(self._conn)
            raise Unavailable(str(exc)) from exc
        return rows


class PostgresKnownTransaction(PostgresTransaction):
    """A batch whose games' heads are the ones an earlier batch read: nothing read yet, one
    statement writes and commits (:data:`_PG_WRITE_KNOWN`)."""

    known = True

    def __init__(
        self,
        votes: PostgresVotes,
        conn: Any,
        args: tuple[str, str, list[int], list[int]],
        heads: dict[int, Head],
        fingerprints: list[str],
        on_record: Ballots,
    ) -> None:
        super().__init__(votes, conn, args, heads, "")
        self._fps, self._on_record = fingerprints, on_record

    def stale(self) -> Stale:
        self._votes.forget(self._heads)
        return super().stale()

    async def _commit(
        self,
        votes: Sequence[tuple[int, str, str, int, str]],
        locales: list[tuple[str, int, int]],
        at: datetime,
    ) -> None:
        self._votes.known_writes += 1
        rows = await self._write(_PG_WRITE_KNOWN, self._fps, votes, locales, at)
        if not rows[0][0]:
            raise self.stale()
        before, _ = _ballots([row[1:] for row in rows if row[1] is not None])
        for key, value in before.items():  # this batch's votes, already there, win
            self._on_record.setdefault(key, value)


class PostgresVotes(DirectVotes):
    """asyncpg connections kept for the vote batches: one per batch under way (batches of
    disjoint games may run at once), opened on first use, opened again after one was lost.
    Each game's head is remembered as last read: a batch whose games are all known sends no
    read, only :data:`_PG_WRITE_KNOWN` (one round trip instead of two: each is a wait for the
    server, then for the busy event loop)."""

    #: games whose head is remembered, at most (then forgotten all at once)
    KNOWN = 20_000

    def __init__(self, connect_args: dict[str, Any]) -> None:
        #: asyncpg.connect()'s arguments
        self.connect_args = connect_args
        self._idle: list[Any] = []
        self._busy: set[Any] = set()
        #: each game's head as last read, with its fingerprint (``md5(h::text)``)
        self._known: dict[int, tuple[Head, str]] = {}
        #: the batches' reads, the writes without a read, and the states read on their own
        #: (for the tests)
        self.reads = self.known_writes = self.state_reads = 0

    def forget(self, game_ids: Iterable[int]) -> None:
        for gid in game_ids:
            self._known.pop(gid, None)

    async def _connection(self) -> Any:
        while self._idle:
            conn = self._idle.pop()
            if not conn.is_closed():
                return conn
        import asyncpg  # the postgres extra: present wherever a PostgreSQL URL works

        return await asyncpg.connect(**self.connect_args)

    async def open(self) -> None:
        # The first batch waited 20 ms for the connection and its statements' preparation (at
        # 650 clicks/s, 22 clicks were queued when it ended). Each statement runs once on no
        # game: it reads nothing and writes nothing (no fingerprint is the empty string).
        conn = await self._connection()
        try:
            empty: tuple[str, str, list[int], list[int]] = ("", DeadlineStatus.OPEN.value, [], [])
            no_rows: list[list[Any]] = [[]] * 8  # the votes' and locales' columns
            await conn.fetch(_PG_READ, *empty)
            await conn.fetch(_PG_WRITE, *empty, "", datetime.now(UTC), *no_rows)
            await conn.fetch(_PG_WRITE_KNOWN, *empty, [], datetime.now(UTC), *no_rows)
            await conn.fetch(_PG_STATES, [])
        except BaseException:
            _terminate(conn)
            raise
        self._idle.append(conn)

    def _read(
        self, rows: Sequence[Sequence[Any]]
    ) -> tuple[dict[int, Head], list[tuple[Any, ...]], str, dict[int, str | None]]:
        """The rows of :data:`_PG_READ`: the heads (remembered, with their fingerprints), the
        ballots' rows, the batch's fingerprint and the states' text."""
        heads: dict[int, Head] = {}
        ballot_rows: list[tuple[Any, ...]] = []
        fingerprint = ""
        states: dict[int, str | None] = {}
        if len(self._known) > self.KNOWN:
            self._known.clear()
        for part, gid, status, version, created, guild, opt, due, *ballot in rows:
            if part == 0:
                head = Head(gid, status, version, _utc(created), guild, _json(opt), due)
                heads[gid] = head
                self._known[gid] = (head, ballot[-1])
            elif part == 1:
                ballot_rows.append((gid, *ballot))
            elif part == 2:
                fingerprint = ballot[-1]
            else:
                states[gid] = ballot[-1]
        return heads, ballot_rows, fingerprint, states

    async def warm(
        self, game_ids: Sequence[int], due_kind: str
    ) -> tuple[dict[int, Head], dict[int, Any]] | None:
        # The batch's read on no player: the heads and the states, in one snapshot.
        conn = await self._connection()
        try:
            rows = await conn.fetch(
                _PG_READ, due_kind, DeadlineStatus.OPEN.value, sorted(set(game_ids)), []
            )
        except Exception as exc:
            if _lost(exc):
                _terminate(conn)
                raise Unavailable(str(exc)) from exc
            self._idle.append(conn)
            raise
        except BaseException:  # cancelled mid-statement: not reusable as is
            _terminate(conn)
            raise
        self._idle.append(conn)
        heads, _, _, states = self._read(rows)
        return heads, {gid: _pg_json(states.get(gid)) for gid in heads}

    @contextlib.asynccontextmanager
    async def transaction(
        self, game_ids: Sequence[int], due_kind: str, user_ids: Sequence[int]
    ) -> AsyncIterator[tuple[VoteTransaction, dict[int, Head], Ballots, Locales]]:
        games, users = sorted(set(game_ids)), sorted(set(user_ids))
        args = (due_kind, DeadlineStatus.OPEN.value, games, users)
        known = [self._known.get(g) for g in games]
        conn: Any = None
        try:
            conn = await self._connection()
            rows = None
            if not all(known):
                self.reads += 1
                rows = await conn.fetch(_PG_READ, *args)
        except Exception as exc:
            if _lost(exc):
                _terminate(conn)
                raise Unavailable(str(exc)) from exc
            if conn is not None:
                self._idle.append(conn)
            raise
        self._busy.add(conn)
        try:
            tx: PostgresTransaction
            if rows is None:  # every head as an earlier batch read it: no read
                heads = {g: k[0] for g, k in zip(games, known, strict=True) if k is not None}
                on_record: Ballots = {}
                fps = [k[1] for k in known if k is not None]
                tx = PostgresKnownTransaction(self, conn, args, heads, fps, on_record)
                yield (tx, heads, on_record, {})
            else:
                heads, ballot_rows, fingerprint, states = self._read(rows)
                tx = PostgresTransaction(self, conn, args, heads, fingerprint, states)
                yield (tx, heads, *_ballots(ballot_rows))
        finally:
            self._busy.discard(conn)
            if conn.is_closed():
                pass
            elif conn.is_in_transaction():  # cancelled mid-statement: not reusable as is
                _terminate(conn)
            else:
                self._idle.append(conn)

    async def close(self) -> None:
        conns, self._idle = [*self._idle, *self._busy], []
        self._busy.clear()
        for conn in conns:
            with contextlib.suppress(Exception):
                await conn.close(timeout=5)


def _columns(rows: Sequence[tuple[Any, ...]], width: int) -> list[list[Any]]:
    """Rows as columns (the arrays that ``unnest`` turns back into rows)."""
    return [list(column) for column in zip(*rows, strict=True)] if rows else [[]] * width


def _terminate(conn: Any) -> None:
    if conn is not None:
        with contextlib.suppress(Exception):
            conn.terminate()


def _utc(when: datetime) -> datetime:
    return when.astimezone(UTC)


def _lost(exc: BaseException) -> bool:
    """Whether an error says the connection is gone or unreachable (a timeout, a socket error,
    asyncpg's lost connection), not a refused statement. asyncpg's InternalClientError is one
    too: a statement sent while the protocol was still taking in a terminated backend's goodbye
    ("cannot switch to state …; another operation is in progress") leaves a connection that no
    statement can use again."""
    if isinstance(exc, TimeoutError | OSError):
        return True
    if not type(exc).__module__.startswith("asyncpg"):
        return False
    import asyncpg

    lost = (
        asyncpg.exceptions.ConnectionDoesNotExistError,
        asyncpg.InterfaceError,
        asyncpg.PostgresConnectionError,
        asyncpg.exceptions.InternalClientError,
    )
    return isinstance(exc, lost)


def open_direct_votes(engine: AsyncEngine) -> DirectVotes | None:
    """The direct path for this engine's database: a SQLite file, or PostgreSQL through
    asyncpg; None otherwise (in-memory SQLite, or the bypass off), where the vote batch goes
    through SQLAlchemy."""
    if not switch.runs(engine.sync_engine, switch.DIRECT_VOTES):  # [internals] bypasses
        return None
    if engine.dialect.name == "postgresql" and engine.dialect.driver == "asyncpg":
        kwargs = connect_args(engine)
        # named in pg_stat_activity (the bot's other connections are SQLAlchemy's pool)
        kwargs["server_settings"] = {**kwargs.get("server_settings", {}), **VOTES_SETTINGS}
        return PostgresVotes(dict(kwargs))
    path = sqlite_file(engine.url) if engine.dialect.name == "sqlite" else None
    if path is None or writer_gate(engine) is None:
        return None
    return SqliteVotes(str(path), engine)
