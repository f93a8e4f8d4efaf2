"""A game's deadlines: armed with the state that opens them, moved to now when everyone has
answered, resolved by the game when they fall due, and their reminders dropped once what
they announce has passed."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from sqlalchemy.ext.asyncio import AsyncSession

from bot import daily, prods
from bot.reminders import why_dropped
from bot.service.actions import Actions
from bot.service.outcome import AfterCommit, Effect, Outcome
from bot.service.seats import Seats
from bot.service.services import Services
from db import repo
from db.models import Deadline, Game

if TYPE_CHECKING:
    from bot.service.protocol import GameRules

log = logging.getLogger(__name__)


@dataclass(eq=False)
class Deadlines:
    """The deadlines of one game's service; the game resolves them (``rules.deadline_due``)."""

    app: Services
    rules: GameRules
    actions: Actions
    seats: Seats

    async def arm(
        self, s: AsyncSession, game: Game, kind: str, due: datetime, payload: dict[str, Any]
    ) -> list[Effect]:
        """A deadline of ``kind`` at ``due``, written in this transaction; the effect schedules
        it after the commit (none without a scheduler)."""
        scheduler = self.app.scheduler
        if scheduler is None:
            return []
        deadline = await scheduler.add(
            s, game_id=game.id, guild_id=game.guild_id, kind=kind, due_at=due, payload=payload
        )
        deadline_id, due_at = deadline.id, deadline.due_at

        async def schedule() -> None:
            scheduler.schedule(deadline_id, due_at)

        return [schedule]

    async def arm_with_reminder(
        self,
        s: AsyncSession,
        game: Game,
        kinds: tuple[str, str],
        due: datetime,
        before_hours: float,
        payload: dict[str, Any],
    ) -> list[Effect]:
        """A deadline of ``kinds[0]`` at ``due`` and, ``before_hours`` earlier (if still to
        come), its reminder of ``kinds[1]``."""
        effects = await self.arm(s, game, kinds[0], due, payload)
        reminder = due - timedelta(hours=before_hours)
        if before_hours > 0 and reminder > self.app.clock():
            effects += await self.arm(s, game, kinds[1], reminder, payload)
        return effects

    async def cancel(self, s: AsyncSession, game: Game, kinds: Sequence[str]) -> None:
        """Drop the game's open deadlines of these kinds (their step is over)."""
        if self.app.scheduler is not None:
            await self.app.scheduler.cancel_for_game(s, game.id, list(kinds))

    async def due(self, s: AsyncSession, game: Game, kind: str) -> datetime | None:
        """When the game's open deadline of ``kind`` falls (None: none is open)."""
        found = await repo.open_deadlines(s, game.id, kinds=[kind])
        return found[0].due_at if found else None

    async def due_at(self, s: AsyncSession, game: Game, hours_option: str) -> datetime:
        """When a step opening now closes: after the ``hours_option`` hours, or at the game's
        daily ``deadline_time`` in the guild's time zone."""
        zone = "UTC"
        if game.options.get("deadline_time"):
            zone = (await repo.get_guild_settings(s, game.guild_id)).timezone
        return daily.due(self.app.clock(), game.options, hours_option, zone)

    async def on_deadline(self, s: AsyncSession, deadline: Deadline) -> AfterCommit | None:
        """A deadline of this game fell due; called by the scheduler inside the transaction that
        claimed it, where the effects are written. Returns what to do after the commit."""
        game = await repo.get_game(s, deadline.game_id, for_update=True)
        if game is None or game.status != "running":
            return None
        if deadline.kind in self.rules.reminder_kinds:
            # A reminder names what is still to come: never sent once it has passed.
            why = await why_dropped(s, deadline, self.rules.reminder_kinds, self.app.clock())
            if why is not None:
                log.info("game %s: reminder %s dropped: %s", game.id, deadline.kind, why)
                return None
        if deadline.kind == self.seats.offer_kind:
            outcome: Outcome | None = await self.seats.offer_expired(s, game, deadline)
        elif deadline.kind == prods.kind_of(self.seats):  # bot/prods.py
            outcome = Outcome("", await prods.due(self.seats, s, game, deadline))
        else:
            outcome = await self.rules.deadline_due(s, game, deadline)
        if outcome is None:
            return None
        done = await self.actions.commit_outcome(s, game, outcome)

        async def after() -> None:
            await self.actions.run(done, wait=False)

        return after

    async def close_early(
        self, s: AsyncSession, game: Game, kind: str, close: AfterCommit
    ) -> list[Effect]:
        """Everyone has answered: close now, as the process that owns the game's guild.

        DM clicks arrive on shard 0, maybe in a process that does not own the guild: that one
        moves the open deadline of ``kind`` to now in this transaction and its owner resolves it
        (woken by NOTIFY, else by its sweep). The owner (always, with one process) runs
        ``close`` itself after the commit."""
        scheduler = self.app.scheduler
        if (
            scheduler is not None
            and not scheduler.owns(game.guild_id)
            and await scheduler.bring_forward(s, game.id, [kind])
        ):
            return []
        return [close]
