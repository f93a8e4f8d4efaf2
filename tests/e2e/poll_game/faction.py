"""The poll's faction, a collaborator of its service made of core parts only: a private thread
for the faction (``bot.effects.PrivateThread``, ``ThreadPost``, ``ThreadMembers``), a secret
pick by DM (``bot.choice.SecretChoice``: a select, a deadline and its reminder, ``/poll pick``
as its fallback) and the player it picks silenced in the poll's channel
(``bot.effects.Silence``); at the poll's end ``CloseSpaces`` archives the thread and lets the
silenced player post again, exactly as before. Nothing of it is in ``bot/``, ``cogs/``, ``db/``
or ``sandbox/``.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from sqlalchemy.ext.asyncio import AsyncSession

from bot import posts
from bot.choice import Offer, SecretChoice
from bot.effects import (
    CloseSpaces,
    PrivateThread,
    Silence,
    ThreadMembers,
    ThreadPost,
)
from bot.i18n import t
from bot.names import listing, shown
from bot.service import Actor, Effect, Outcome
from db import repo
from db.models import Game
from tests.e2e.poll_game.rules import Poll

if TYPE_CHECKING:  # the service imports this module: its class only for the annotations
    from tests.e2e.poll_game.service import PollService

PICK = "pl_pick"  # the pick's deadline (and, with "_reminder", its reminder's)
THREAD = "faction"  # the slot the faction's thread is kept under


class Faction:
    """The faction of a poll opened with ``faction``: what its service asks of it."""

    def __init__(self, service: PollService) -> None:
        self.service = service
        self.pick = SecretChoice(service, PICK, self, reminder="poll.pick.reminder")

    @staticmethod
    def wanted(game: Game) -> bool:
        return bool(game.options.get("faction"))

    def in_text_channel(self, game: Game) -> bool:
        """A private thread and a member's overwrite need a text channel (not a forum post)."""
        return game.thread_id is None

    # -- ChoiceRules (bot/choice.py) --------------------------------------------------------

    def step(self, game: Game) -> int | None:
        return 1 if self.service.load(game).pick_open else None

    def waiting(self, game: Game) -> Collection[int]:
        state = self.service.load(game)
        return [state.picker] if state.pick_open and state.picker is not None else []

    async def answer(self, s: AsyncSession, game: Game, actor: Actor, value: str) -> Outcome:
        state = self.service.running(game)
        target = int(value) if value.isdigit() else 0
        events = state.pick(actor.id, target)
        await self.service.save(s, game, state, events, actor.id)
        await self.pick.close(s, game)
        name = shown(state.player(target).name)
        effects: list[Effect] = [ThreadPost(THREAD, t("poll.faction.picked", game.lang, name=name))]
        if self.in_text_channel(game):
            effects.append(Silence(posts.where(game), (target,), True))
        if target in state.faction:
            effects.append(ThreadMembers(THREAD, remove=(target,)))
        return Outcome(t("poll.pick.done", actor.lang, name=name), effects)

    async def timeout(self, s: AsyncSession, game: Game) -> Outcome | None:
        state = self.service.load(game)
        events = state.close_pick()
        await self.service.save(s, game, state, events, None)
        return Outcome("", [ThreadPost(THREAD, t("poll.faction.missed", game.lang))])

    # -- the poll's start and end -----------------------------------------------------------

    async def open(self, s: AsyncSession, game: Game, state: Poll) -> list[Effect]:
        """At the start: the faction's thread, its welcome, the picker's secret menu."""
        events = state.open_faction()
        await self.service.save(s, game, state, events, None)
        names = {p.id: p.name for p in state.players}
        effects: list[Effect] = []
        if self.in_text_channel(game):
            title = t("poll.faction.name", game.lang)
            effects.append(PrivateThread(posts.where(game), THREAD, title, tuple(state.faction)))
            members = listing([(i, names[i]) for i in state.faction], game.lang)
            effects.append(ThreadPost(THREAD, t("poll.faction.welcome", game.lang, names=members)))
        hours = float(game.options.get("pick_hours") or 1.0)
        due = self.service.now() + timedelta(hours=hours)
        offer = await self.offer(s, game, state, due)
        remind_at = due - timedelta(hours=hours / 2)
        return effects + await self.pick.open(s, game, 1, [offer], due, remind_at)

    async def offer(self, s: AsyncSession, game: Game, state: Poll, due: datetime) -> Offer:
        """The picker's menu: every other player, in their language."""
        picker = state.picker
        assert picker is not None
        options = tuple((p.name, str(p.id)) for p in state.players if p.id != picker)
        lang = next(p.locale for p in await repo.players(s, game.id) if p.user_id == picker)
        text = t("poll.pick.dm", lang, deadline=f"<t:{int(due.timestamp())}:F>")
        return Offer(picker, text, options, t("poll.pick.placeholder", lang))

    async def seat(
        self, s: AsyncSession, game: Game, state: Poll, old: int, new: int
    ) -> list[Effect]:
        """``new`` has taken ``old``'s seat (in the state already): in the faction, they join
        its thread as the leaver leaves it, and a pick still to make is theirs."""
        if new not in state.faction:
            return []
        effects: list[Effect] = []
        if self.in_text_channel(game):
            effects.append(ThreadMembers(THREAD, add=(new,), remove=(old,)))
        due = await self.pick.due_at(s, game)
        if state.pick_open and state.picker == new and due is not None:
            effects.append(self.pick.menu(game, 1, await self.offer(s, game, state, due)))
        return effects

    async def close(self, s: AsyncSession, game: Game) -> list[Effect]:
        """At the poll's end: the pick closes; the thread is archived, the silenced restored."""
        await self.pick.close(s, game)
        return [CloseSpaces()]
