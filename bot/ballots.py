"""Ballots: every game's votes and secret choices, one path from the click to the ``votes`` table.

A ballot is one row per player, round and kind (an upsert: the last click wins), so players
clicking at once never overwrite each other and the game's state is not rewritten per click. A
game gives :class:`BallotRules` (the check of a ballot against its state, the answer, and
optionally what parsing its state needs and its early close); :class:`BallotBox` does the rest,
the same for every game: the clicks queued by group commit (bot/batch.py), each answered once
its batch has committed; each game's state parsed once per saved version and kept; the games
waiting for votes read ahead at start; and each batch's one transaction, straight through the
driver (db/direct.py) when nothing is unusual, through SQLAlchemy otherwise.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Mapping
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from datetime import datetime
from typing import Any, Generic, Literal, NamedTuple, Protocol, TypeVar

from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession

from bot import metrics
from bot.batch import GroupCommit
from bot.errors import UserError
from bot.service import Actor, Effect, Outcome, Services
from db import repo
from db.direct import DirectVotes, Stale, Unavailable, open_direct_votes

#: Games read ahead at start (:meth:`BallotBox.warm`), at most: under half of what the vote
#: path keeps (db/direct.py's ``Known``, 5,000 games; the parsed states, :data:`PARSED`), so
#: that the games not read ahead still fit when they are first clicked. In chunks of WARM_CHUNK.
WARM_GAMES = 2_000
WARM_CHUNK = 100
PARSED = 10_000

#: What the votes table holds: ``{(game_id, round_key, kind, user_id): value}``.
Ballots = dict[tuple[int, str, str, int], str]
Locales = dict[tuple[int, int], str]


class Ballot(Protocol):
    """A click queued for the box: who, on which game (the rest is the game's)."""

    @property
    def actor(self) -> Actor: ...

    @property
    def game_id(self) -> int: ...


B = TypeVar("B", bound=Ballot)
S = TypeVar("S")


class Mark(NamedTuple):
    """A ballot the rules accepted: the row it writes (round, kind, value) and a private note
    for its answer (a NamedTuple, not a dataclass: one is made per click)."""

    round_key: str
    kind: str
    value: str
    note: str | None = None


class BallotRules(ABC, Generic[B, S]):
    """What a game tells the box. ``head``: a game's row as :func:`db.repo.lock_games` reads
    it (status, version, options, guild_id, and ``due_at``, its earliest open :attr:`deadline`).
    """

    #: the game's kind (the metrics' label)
    kind: str
    #: the deadline kind read with the heads (and of the games read ahead): a ballot at or
    #: after its open one is too late
    deadline: str
    #: its ballots may go straight through the driver (db/direct.py): its states parse from
    #: their rows alone, every ballot is bounded by :attr:`deadline`, and a batch that closes
    #: a game early goes through SQLAlchemy
    direct = True
    #: a ballot sets its player's locale to the client's (their later DMs follow it)
    follows_locale = True

    @abstractmethod
    def refused(self, head: Any, ballot: B) -> Exception:
        """The refusal of a ballot on a game that is not running."""

    @abstractmethod
    def parse(self, head: Any, state: dict[str, Any], extra: Any) -> S:
        """The engine's state from its row (``extra``: what :meth:`prepare` read for it)."""

    @abstractmethod
    def check(self, state: S, ballot: B, due: list[datetime]) -> Mark:
        """Whether this ballot may be recorded now (``due``: when its open deadlines fall);
        raises the error to answer otherwise. ``state`` is shared: read it, never change it."""

    @abstractmethod
    def reply(self, state: S, ballot: B, mark: Mark, on_record: Ballots, changed: bool) -> str:
        """The private answer once committed (``on_record``: the clickers' ballots, this
        batch's included; ``changed``: the player had this row on record already)."""

    def due_kind(self, ballot: B) -> str:
        """The deadline kind that bounds this ballot."""
        return self.deadline

    async def prepare(self, s: AsyncSession, heads: Mapping[int, Any]) -> Mapping[int, Any]:
        """What parsing these running games' states needs besides their rows (SQLAlchemy's
        path only: see :attr:`direct`), by game."""
        return {}

    def closes_early(self, head: Any) -> bool:
        """Whether a ballot on this game may close its round (:meth:`close_if_all_in`)."""
        return False

    async def close_if_all_in(
        self, s: AsyncSession, head: Any, state: S, kinds: set[str]
    ) -> list[Effect]:
        """Once the batch is written: the effects that close the round if everyone is in
        (``kinds``: of the ballots accepted on it)."""
        return []


# An accepted ballot: (its place in the batch, the ballot, its game's state, its mark, whether
# a ballot before it in the batch wrote the same row).
_Accepted = tuple[int, B, S, Mark, bool]
# _check: (results, ballots to write, clickers' locales, accepted ballots).
_Checked = tuple[list[Outcome | BaseException], Ballots, Locales, list[_Accepted[B, S]]]
# A batch written: (results, accepted, what is on record, the rows it changed (not new),
# early-close effects by game, writes).
_Done = tuple[
    list[Outcome | BaseException],
    list[_Accepted[B, S]],
    Ballots,
    set[tuple[int, str, str, int]],
    dict[int, list[Effect]],
    Ballots,
]
_Planned = tuple[_Done[B, S], list[tuple[int, str, str, int, str]], list[tuple[int, int, str]]]
Heads = dict[int, Any]
Transaction = Callable[
    [Callable[[AsyncSession], Awaitable[Heads]], str],
    AbstractAsyncContextManager[tuple[AsyncSession, Heads]],
]


def on_top(on_record: Ballots, writes: Ballots) -> set[tuple[int, str, str, int]]:
    """Put a batch's ``writes`` on what was on record; the rows they change (not new)."""
    had = {key for key in writes if key in on_record}
    on_record.update(writes)
    return had


def direct_lanes(app: Services) -> int:
    """How many batches of different games are written at once on the direct path: on
    PostgreSQL ``[database] vote_lanes`` (a connection each); SQLite's writes serialize anyway."""
    bind = app.sessions.kw.get("bind")
    pg = isinstance(bind, AsyncEngine) and bind.dialect.name == "postgresql"
    return app.vote_lanes if pg else 1


class BallotBox(Generic[B, S]):
    """A game's ballots by group commit (``transaction``: the service's, which waits for a
    database kept busy by another process)."""

    def __init__(self, app: Services, rules: BallotRules[B, S], transaction: Transaction) -> None:
        if rules.direct and type(rules).due_kind is not BallotRules.due_kind:
            raise TypeError("rules whose ballots go direct are bounded by their one deadline")
        self.app, self.rules, self.transaction = app, rules, transaction
        lanes = direct_lanes(app) if rules.direct else 1
        self.writer: GroupCommit[B, Outcome] = GroupCommit(
            self.record, lanes=lanes, lane=lambda b: b.game_id
        )
        self._parsed: dict[int, tuple[tuple[int, Any], S]] = {}
        # False: not opened yet; None: none (an in-memory database, or not rules.direct)
        self._direct: DirectVotes | Literal[False] | None = False if rules.direct else None

    async def submit(self, ballot: B) -> Outcome:
        """The ballot's answer, once the batch that holds it has committed."""
        return await self.writer.submit(ballot)

    # -- the parsed states ------------------------------------------------------------------

    def cached(self, game_id: int, head: Any) -> S | None:
        """The game's state as parsed for its saved version, if it was."""
        hit = self._parsed.get(game_id)
        return hit[1] if hit is not None and hit[0] == (head.version, head.created_at) else None

    def unparsed(self, heads: Heads) -> list[int]:
        """The games of ``heads`` whose state was not parsed for their saved version."""
        return [g for g, head in heads.items() if self.cached(g, head) is None]

    def parsed(self, game_id: int, head: Any, state: dict[str, Any] | None, extra: Any) -> S:
        """Parse the state once per saved version (``version`` + ``created_at``: an id that
        SQLite gives again after a deletion is another game)."""
        if state is None:
            raise UserError("common.error.not_started")
        if len(self._parsed) > PARSED:
            self._parsed.clear()
        parsed = self.rules.parse(head, state, extra)
        self._parsed[game_id] = ((head.version, head.created_at), parsed)
        return parsed

    # -- the direct path's connection -------------------------------------------------------

    def direct_votes(self) -> DirectVotes | None:
        """The direct path (db/direct.py: sqlite3 on the loop's thread, or asyncpg), made on
        first use; None for an in-memory SQLite database or rules that do not go direct."""
        if self._direct is False:
            bind = self.app.sessions.kw.get("bind")
            self._direct = open_direct_votes(bind) if isinstance(bind, AsyncEngine) else None
        return self._direct

    async def open(self) -> None:
        """The direct path's connection, before the first click (which would wait for it)."""
        direct = self.direct_votes()
        if direct is not None:
            await direct.open()

    async def warm(self) -> None:
        """The games waiting for ballots, :data:`WARM_GAMES` at most, those whose
        :attr:`~BallotRules.deadline` falls soonest first: read into the direct path's caches
        and their states parsed, so that the first click on each after a start costs what the
        next ones do (docs/performance.md)."""
        direct = self.direct_votes()
        if direct is None:
            return
        kind = self.rules.deadline
        async with self.app.sessions() as s:
            due = await repo.soonest_open_deadlines(s, kind, WARM_GAMES)
        scheduler = self.app.scheduler
        ids = [g for g, guild in due if scheduler is None or scheduler.owns(guild)]
        for start in range(0, len(ids), WARM_CHUNK):
            read = await direct.warm(ids[start : start + WARM_CHUNK], kind)
            if read is None:  # another process writes: the first clicks read what they need
                return
            heads, states = read
            for game_id in self.unparsed(heads):
                if heads[game_id].status == "running" and states.get(game_id) is not None:
                    self.parsed(game_id, heads[game_id], states[game_id], None)
            await asyncio.sleep(0)  # one chunk at a time: clicks go on meanwhile

    async def shutdown(self) -> None:
        if self._direct:
            await self._direct.close()
        self._direct = False if self.rules.direct else None

    # -- a batch ----------------------------------------------------------------------------

    async def record(self, batch: list[B]) -> list[Outcome | BaseException]:
        """Many ballots in one transaction: each checked against its game as the rules say (in
        the order they came), the accepted ones written by one UPSERT (the last click of a
        player wins), then each answered with what the votes table holds; a game closed early
        has its effects on its last accepted ballot. A refused ballot refuses only itself."""
        game_ids = sorted({b.game_id for b in batch})
        done = self.record_now(batch, game_ids)
        if done is None:
            async with AsyncExitStack() as stack:
                for game_id in game_ids:  # in id order, like the row locks: no deadlock
                    await stack.enter_async_context(self.app.locks(game_id))
                direct = self.direct_votes()
                if direct is not None:
                    done = await self.record_direct(direct, batch)
                if done is None:
                    done = await self.record_sqlalchemy(batch, game_ids)
        return self.answers(batch, done)

    def answers(self, batch: list[B], done: _Done[B, S]) -> list[Outcome | BaseException]:
        """Each accepted ballot's answer (a refusal stays its exception), counted."""
        results, accepted, on_record, had, closing, writes = done
        metrics.VOTE_BATCH.observe(len(batch))
        for _game, _round, kind, _user in writes:
            metrics.child(metrics.VOTES_RECORDED, self.rules.kind, kind).inc()
        last = {b.game_id: i for i, b, *_ in accepted}
        for i, b, state, mark, again in accepted:
            changed = again or (
                bool(had) and (b.game_id, mark.round_key, mark.kind, b.actor.id) in had
            )
            reply = self.rules.reply(state, b, mark, on_record, changed)
            effects = closing.get(b.game_id, []) if last[b.game_id] == i else []
            results[i] = Outcome(reply, effects)
        return results

    def check(
        self,
        batch: list[B],
        heads: Heads,
        states: dict[int, Any],
        extra: Mapping[int, Any],
        dues: Mapping[tuple[int, str], list[datetime]],
    ) -> _Checked[B, S]:
        """Each ballot checked against its game's head (``states``: the raw states of the games
        not parsed yet; ``dues``: the open deadlines of the kinds other than the heads')."""
        results: list[Outcome | BaseException] = [RuntimeError("ballot not handled") for _ in batch]
        writes: Ballots = {}
        locales: Locales = {}
        accepted: list[_Accepted[B, S]] = []
        for i, b in enumerate(batch):
            try:
                state, mark = self.check_one(b, heads.get(b.game_id), states, extra, dues)
            except Exception as exc:  # refused: this ballot only
                results[i] = exc
                continue
            key = (b.game_id, mark.round_key, mark.kind, b.actor.id)
            accepted.append((i, b, state, mark, key in writes))
            writes[key] = mark.value
            locales[(b.game_id, b.actor.id)] = b.actor.lang
        return results, writes, locales, accepted

    def check_one(
        self,
        b: B,
        head: Any,
        states: dict[int, Any],
        extra: Mapping[int, Any],
        dues: Mapping[tuple[int, str], list[datetime]],
    ) -> tuple[S, Mark]:
        """One ballot against its game: its state and its mark, or the refusal raised."""
        if head is None:
            raise UserError("common.error.no_game")
        if head.status != "running":
            raise self.rules.refused(head, b)
        state = self.cached(b.game_id, head)
        if state is None:
            state = self.parsed(b.game_id, head, states.get(b.game_id), extra.get(b.game_id))
        # ``dues`` holds the other kinds' deadlines of the batch: none, none of its ballots is
        # bounded by another kind (on the direct path, none may be: see __init__)
        kind = self.rules.due_kind(b) if dues else self.rules.deadline
        if kind != self.rules.deadline:
            due = dues[(b.game_id, kind)]
        else:
            due = [head.due_at] if head.due_at is not None else []
        return state, self.rules.check(state, b, due)

    def changed_locales(self, locales: Locales, stored: Locales) -> list[tuple[int, int, str]]:
        """The clickers' locales to write (only when the rules follow them, and they changed)."""
        if not self.rules.follows_locale:
            return []
        return [(g, u, loc) for (g, u), loc in locales.items() if stored.get((g, u)) != loc]

    # -- straight through the driver --------------------------------------------------------

    def record_now(self, batch: list[B], game_ids: list[int]) -> _Done[B, S] | None:
        """The batch's transaction straight through the driver without awaiting, when nothing
        makes it wait (:meth:`DirectVotes.begin_now`: SQLite on the loop's thread, the write
        lock free): no lock of its games held or waited for, none taken, since no other task
        runs until it has committed. None (nothing written) otherwise, and when a game of the
        batch closes early: the batch then takes its games' locks and goes the way that waits."""
        direct = self.direct_votes()
        if direct is None or any(self.app.locks.held(g) for g in game_ids):
            return None
        tx = direct.begin_now(game_ids, self.rules.deadline, [b.actor.id for b in batch])
        if tx is None:
            return None
        try:
            misses = self.unparsed(tx.heads)
            raw = tx.game_states(misses) if misses else {}
            planned = self.plan(batch, tx.heads, raw, tx.ballots, tx.locales)
            if planned is not None and planned[1]:
                tx.commit(*planned[1:], self.app.clock())
        finally:
            tx.close()  # rolled back unless committed
        return None if planned is None else planned[0]

    async def record_direct(self, direct: DirectVotes, batch: list[B]) -> _Done[B, S] | None:
        """The batch's transaction straight through the driver: the same checks, statements
        and answers as :meth:`record_sqlalchemy`. None (nothing written) when a game of the
        batch closes early, or when the direct path cannot begin (SQLite's lock held by another
        process past ``busy_timeout``, the PostgreSQL connection lost: that path waits, or
        reconnects). On PostgreSQL a batch checked against heads as last read that finds one
        changed (:class:`Stale`) is checked again once against a fresh read."""
        game_ids = [b.game_id for b in batch]
        for _ in range(2):  # once more when a head, as it was last read, changed (Stale)
            try:
                return await self.record_once(direct, batch, game_ids)
            except Stale:
                continue
            except Unavailable:
                return None  # nothing was read or written
        return None

    async def record_once(
        self, direct: DirectVotes, batch: list[B], game_ids: list[int]
    ) -> _Done[B, S] | None:
        """One attempt of :meth:`record_direct`."""
        users = [b.actor.id for b in batch]
        async with direct.transaction(game_ids, self.rules.deadline, users) as (
            tx,
            heads,
            on_record,
            stored,
        ):
            misses = self.unparsed(heads)
            raw = await tx.game_states(misses) if misses else {}
            stale = tx.stale if tx.known else None
            planned = self.plan(batch, heads, raw, on_record, stored, stale=stale)
            if planned is None:
                return None  # rolled back: nothing was written
            if planned[1]:
                await tx.write_and_commit(*planned[1:], self.app.clock())
        return planned[0]

    def plan(
        self,
        batch: list[B],
        heads: Heads,
        raw: dict[int, Any],
        on_record: Ballots,
        stored: Locales,
        *,
        stale: Callable[[], Stale] | None = None,
    ) -> _Planned[B, S] | None:
        """The batch checked against what its transaction read (``on_record``, ``stored``:
        the clickers' ballots and locales): what it will have done once committed, the ballots
        to write and the locales that changed (none: nothing to commit). None when a game of
        the batch closes early (SQLAlchemy's path does it). ``stale``: the heads are the ones
        last read, not read for this batch (PostgreSQL): a refusal against them raises its
        :class:`Stale`, to be checked again against a fresh read."""
        results, writes, locales, accepted = self.check(batch, heads, raw, {}, {})
        if stale is not None and len(accepted) < len(batch):
            raise stale()
        if any(self.rules.closes_early(heads[b.game_id]) for _, b, *_ in accepted):
            return None
        if not accepted:
            return (results, accepted, {}, set(), {}, writes), [], []
        had = on_top(on_record, writes)
        votes = [(*key, v) for key, v in writes.items()]
        done: _Done[B, S] = (results, accepted, on_record, had, {}, writes)
        return done, votes, self.changed_locales(locales, stored)

    # -- through SQLAlchemy -----------------------------------------------------------------

    async def record_sqlalchemy(self, batch: list[B], game_ids: list[int]) -> _Done[B, S]:
        """The batch's transaction through SQLAlchemy (a game of the batch closes early, the
        direct path is unavailable or not the rules', or an in-memory database)."""
        rules = self.rules
        # The heads of the games, with their earliest open deadline (deadlines exact at the
        # click), in one statement.
        async with self.transaction(
            lambda s: repo.lock_games(s, game_ids, rules.deadline), "ballots"
        ) as (s, heads):
            misses = self.unparsed(heads)
            raw = await repo.game_states(s, misses) if misses else {}
            running = {g: heads[g] for g in misses if heads[g].status == "running"}
            extra = await rules.prepare(s, running) if running else {}
            dues = await self.other_dues(s, batch, heads)
            results, writes, locales, accepted = self.check(batch, heads, raw, extra, dues)
            if not accepted:
                return results, accepted, {}, set(), {}, writes
            # What the clickers have on record and their locales, read before the write
            # (their games are locked): the answers show that with this batch's on top.
            on_record, stored = await repo.ballots_and_locales(
                s, [b.game_id for _, b, *_ in accepted], [b.actor.id for _, b, *_ in accepted]
            )
            had = on_top(on_record, writes)
            votes = [(*key, v) for key, v in writes.items()]
            await repo.record_votes(s, votes, at=self.app.clock())
            await repo.set_player_locales(s, self.changed_locales(locales, stored))
            closing = await self.closing(s, heads, accepted)
        # Committed: every accepted ballot is on record.
        return results, accepted, on_record, had, closing, writes

    async def other_dues(
        self, s: AsyncSession, batch: list[B], heads: Heads
    ) -> dict[tuple[int, str], list[datetime]]:
        """The open deadlines of the ballots bounded by another kind than the heads'."""
        dues: dict[tuple[int, str], list[datetime]] = {}
        for b in batch:
            key = (b.game_id, self.rules.due_kind(b))
            if key[1] != self.rules.deadline and b.game_id in heads and key not in dues:
                found = await repo.open_deadlines(s, b.game_id, kinds=[key[1]])
                dues[key] = [d.due_at for d in found]
        return dues

    async def closing(
        self, s: AsyncSession, heads: Heads, accepted: list[_Accepted[B, S]]
    ) -> dict[int, list[Effect]]:
        """The effects of the games that everyone has now answered, by game (in id order)."""
        kinds: dict[int, set[str]] = {}
        states: dict[int, S] = {}
        for _, b, state, mark, _again in accepted:
            kinds.setdefault(b.game_id, set()).add(mark.kind)
            states[b.game_id] = state
        closing: dict[int, list[Effect]] = {}
        for game_id in sorted(kinds):
            head = heads[game_id]
            if self.rules.closes_early(head):
                closing[game_id] = await self.rules.close_if_all_in(
                    s, head, states[game_id], kinds[game_id]
                )
        return closing
