"""One user action as one transaction: the game's lock, the row locked for update, the state
saved with its events, the Discord effects written to the outbox in that same transaction
(``commit_outcome``), then delivered by the dispatcher (``run``), which answers the user.

A redelivered interaction is answered as its first delivery was (``consume_interaction``)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy.ext.asyncio import AsyncSession

from bot import metrics, modlog
from bot.effects import EditSlot, Record
from bot.errors import Redelivered, UserError
from bot.notify import notify_effects
from bot.service.outcome import Actor, Outcome, flatten
from bot.service.services import Services
from db import repo
from db.engine import is_busy
from db.models import Game
from rulebase import Event

log = logging.getLogger(__name__)

T = TypeVar("T")

DELIVERY_WAIT = 10.0  # seconds an action waits for its effects before answering anyway

#: The key of ``Session.info`` that holds the interaction an action's transaction consumes.
INTERACTION = "interaction"


async def consume_interaction(s: AsyncSession, actor: Actor) -> None:
    """Mark the transaction as the one of the actor's interaction (``commit_outcome`` records it
    with its answer); one whose action committed already raises ``Redelivered`` with the
    answer it gave."""
    if actor.interaction_id is None:
        return
    handled = await repo.handled_interaction(s, actor.interaction_id)
    if handled is not None:
        raise Redelivered(handled)
    s.info[INTERACTION] = actor.interaction_id


Prepare = Callable[[AsyncSession, Game], Awaitable[None]]


class Actions:
    """The transactions of one game's service. ``prepare``: what a game loads besides its row
    in every action (the Refutation Game: its deck)."""

    def __init__(self, app: Services, kind: str, prepare: Prepare) -> None:
        self.app = app
        self.kind = kind
        self.prepare = prepare

    @asynccontextmanager
    async def action(
        self, game_id: int, actor: Actor | None = None, *, locked: bool = False
    ) -> AsyncIterator[tuple[AsyncSession, Game]]:
        """The game's lock and one transaction with the game row locked for update.

        The deadline scheduler takes the same lock and row lock, so a click and the resolution
        of its deadline never overlap. A database kept busy by another process is waited for
        (:meth:`transaction`). ``locked``: the caller holds the game's lock already.

        ``actor``: who acts, through which interaction. Discord may deliver an interaction again
        (after a RESUME): one whose action already committed is answered as it was
        (``Redelivered``) and acts no more; otherwise :meth:`commit_outcome` records it in this
        transaction, with its answer."""
        held = contextlib.nullcontext() if locked else self.app.locks(game_id)
        async with (
            held,
            self.transaction(
                lambda s: repo.get_game(s, game_id, for_update=True), f"game {game_id}"
            ) as (s, game),
        ):
            if game is None:
                raise UserError("common.error.no_game")
            if actor is not None:
                await consume_interaction(s, actor)
            await self.prepare(s, game)
            yield s, game

    async def settled(self, game_id: int) -> None:
        """Wait until no action on this game is under way in this process, for a read-only view.
        Right after a start the game's overdue deadlines are resolved with its lock held: read
        before, a vote already past its deadline would show as still open."""
        async with self.app.locks(game_id):
            pass

    @asynccontextmanager
    async def transaction(
        self, first: Callable[[AsyncSession], Awaitable[T]], what: str
    ) -> AsyncIterator[tuple[AsyncSession, T]]:
        """One transaction and the result of its first statement (``first``, e.g. the game row
        locked for update). A database kept busy by another process (SQLite's write lock held
        longer than ``busy_timeout``) is waited for, up to ``app.busy_wait`` seconds: the
        interaction was deferred, its token lasts 15 minutes, and the click keeps its own time
        (``Actor.at``), so a click made before a deadline still counts."""
        loop = asyncio.get_running_loop()
        give_up = loop.time() + self.app.busy_wait
        pause = 0.05
        while True:
            stack = AsyncExitStack()
            s = await stack.enter_async_context(self.app.sessions.begin())
            try:
                result = await first(s)
            except Exception as exc:
                await stack.__aexit__(type(exc), exc, exc.__traceback__)
                if not is_busy(exc) or loop.time() + pause > give_up:
                    raise
                log.warning("%s: the database is busy, trying again", what)
                await asyncio.sleep(pause)
                pause = min(pause * 2, 1.0)
                continue
            break
        async with stack:
            yield s, result

    async def require_in_time(self, s: AsyncSession, game: Game, kind: str, actor: Actor) -> None:
        """Refuse an answer given at or after the deadline of its step (``kind``), in the
        transaction that would record it, even while that deadline waits to be resolved (the
        scheduler is late, busy, or its process is down). The time is the click's own."""
        deadlines = await repo.open_deadlines(s, game.id, kinds=[kind])
        self.check_in_time([d.due_at for d in deadlines], actor)

    def check_in_time(self, due: Iterable[datetime], actor: Actor) -> None:
        """:meth:`require_in_time` with the open deadlines' times already read."""
        clicked = actor.at or self.now()
        for due_at in due:
            if due_at <= clicked:
                epoch = int(due_at.timestamp())
                raise UserError("common.error.too_late", deadline=f"<t:{epoch}:F>")

    async def save(
        self, s: AsyncSession, game: Game, state: Any, events: Sequence[Event], actor: int | None
    ) -> None:
        """Write the engine's state and append its events to the game's log."""
        await repo.save_state(s, game, state.to_dict())
        at = self.now()
        for event in events:
            await repo.append_event(
                s,
                game.id,
                event.kind,
                event.payload(),
                actor_id=actor,
                private_to=event.private_to,
                at=at,
            )

    async def game_id_in(self, channel_id: int) -> int:
        async with self.app.sessions() as s:
            game = await repo.active_game_in_channel(s, channel_id)
            if game is None or game.kind != self.kind:
                raise UserError("common.error.no_game_here")
            return game.id

    async def commit_outcome(self, s: AsyncSession, game: Game, outcome: Outcome) -> Outcome:
        """Write the outcome's effect records to the game's outbox in the caller's transaction
        (the one that changes the state they come from)."""
        interaction = s.info.pop(INTERACTION, None)
        if interaction is not None:
            recorded = await repo.record_interaction(
                s, interaction, outcome.reply, game_id=game.id, at=self.now()
            )
            if not recorded:  # another delivery of it committed first: this one rolls back
                raise Redelivered(await repo.handled_interaction(s, interaction) or "")
        # a moderator's action: its entry in the moderators' log, in this same transaction
        outcome.effects += await modlog.write_pending(s, game, self.now())
        records = [e for e in flatten(outcome.effects) if isinstance(e, Record)]
        if records:
            rows = await repo.add_effects(
                s, game.id, game.guild_id, [(r.KIND, r.payload()) for r in records], at=self.now()
            )
            outcome.written = (game.id, game.guild_id, rows[-1].seq)
            scheduler = self.app.scheduler
            if scheduler is not None and not scheduler.owns(game.guild_id):
                await notify_effects(s, game.guild_id, game.id)
        return outcome

    async def run(self, outcome: Outcome, *, wait: bool = True) -> str:
        """After the commit: have the dispatcher deliver the outcome's effects (waiting up to
        ``DELIVERY_WAIT`` when ``wait``, and unless they are only live edits, which a later
        edit may supersede), then run its in-process steps; the reply."""
        effects = flatten(outcome.effects)
        records = [e for e in effects if isinstance(e, Record)]
        if outcome.written is None and records:
            log.error("effects never written: commit_outcome() belongs inside the transaction")
        wait = wait and not all(isinstance(e, EditSlot) and e.live for e in records)
        dispatcher = self.app.dispatcher
        if outcome.written is not None and dispatcher is not None:
            game_id, guild_id, seq = outcome.written
            scheduler = self.app.scheduler
            if scheduler is None or scheduler.owns(guild_id):
                dispatcher.wake(game_id)
                if wait:
                    await dispatcher.delivered(game_id, seq, DELIVERY_WAIT)
        for effect in effects:
            if isinstance(effect, Record):
                continue
            try:
                await metrics.effect_delivered(effect)
            except Exception:
                log.exception("an after-commit step failed")
        return outcome.reply

    def now(self) -> datetime:
        return self.app.clock()
