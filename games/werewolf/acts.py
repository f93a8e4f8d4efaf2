"""Werewolf's secret choices, each a ``bot.choice.SecretChoice`` (a menu by DM or in the den,
its command as the fallback): the wolves' pick, the seer's look, the witch's potions, Cupid's
lovers, the day's vote (and the captain's election), the hunter's shot and the captain's
successor. The service arms and resolves the night's and the day's deadlines itself (a night
has several choices open at once): a choice here only answers, refusing a click once its
deadline has passed or its step is over."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlalchemy.ext.asyncio import AsyncSession

from bot.choice import Offer, SecretChoice
from bot.effects import DirectMessage
from bot.service import Actor, Outcome
from db.models import Game
from games.werewolf.rules import Phase, Werewolf

if TYPE_CHECKING:  # the service imports this module: its class only for the annotations
    from games.werewolf.service import WerewolfService

#: What an answer does: (transaction, game, state, who, value) -> the outcome.
Apply = Callable[[AsyncSession, Game, Werewolf, Actor, str], Awaitable[Outcome]]


def night_step(state: Werewolf) -> int | None:
    return state.night if state.phase is Phase.NIGHT else None


def vote_step(state: Werewolf) -> int | None:
    """The election is step 0, day ``n`` step ``n``."""
    return state.day if state.phase in (Phase.ELECTION, Phase.DAY) else None


def last_step(state: Werewolf) -> int | None:
    """A hunter's shot or a captain's succession, numbered by when it falls."""
    if state.phase not in (Phase.HUNTER, Phase.SUCCESSION):
        return None
    return (state.night * 64 + state.day) * 2 + (state.phase is Phase.SUCCESSION)


@dataclass(eq=False)
class Act:
    """One secret choice of the game as bot/choice.py asks it (``ChoiceRules``)."""

    service: WerewolfService
    step_of: Callable[[Werewolf], int | None]
    apply: Apply

    def step(self, game: Game) -> int | None:
        return self.step_of(self.service.load(game)) if game.status == "running" else None

    def waiting(self, game: Game) -> Collection[int]:
        return self.service.load(game).owing()

    async def answer(self, s: AsyncSession, game: Game, actor: Actor, value: str) -> Outcome:
        return await self.apply(s, game, self.service.running(game), actor, value)

    async def timeout(self, s: AsyncSession, game: Game) -> Outcome | None:
        return None  # the service's own deadlines close the step


def choice(
    service: WerewolfService,
    name: str,
    kinds: tuple[str, str],
    step: Callable[[Werewolf], int | None],
    apply: Apply,
) -> SecretChoice:
    return SecretChoice(
        service, name, Act(service, step, apply), reminder="werewolf.reminder.act", kinds=kinds
    )


def menu(act: SecretChoice, game: Game, step: int | None, offer: Offer) -> DirectMessage:
    assert step is not None
    return act.menu(game, step, offer)
