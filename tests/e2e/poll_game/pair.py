"""The poll's pair, the core's pick mode (``bot.choice.SecretPick``) on a test-only game: the
first player pairs two players in secret (a select of exactly two, then a confirm button, as
Werewolf's Cupid links two lovers), and each of the two learns it by DM. The pick so far is
kept by the core; the poll gives only its check, its texts and what the confirm does. Nothing
of it is in ``bot/``, ``cogs/``, ``db/`` or ``sandbox/``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from sqlalchemy.ext.asyncio import AsyncSession

from bot.choice import Offer, SecretPick
from bot.effects import DirectMessage
from bot.errors import UserError
from bot.i18n import t
from bot.names import listing, shown
from bot.service import Actor, Effect, Outcome
from db import repo
from db.models import Game
from tests.e2e.poll_game.rules import Poll

if TYPE_CHECKING:  # the service imports this module: its class only for the annotations
    from tests.e2e.poll_game.service import PollService

PAIR = "pl_pair"  # the menus' name (``choice:pl_pair:<game>:1``)
STEP = 1  # the poll has one pair to make


def ids(picked: Sequence[str]) -> list[int]:
    return [int(v) if v.isdigit() else 0 for v in picked]


class Pairing:
    """The pair of a poll opened with ``pair``: ``PickRules`` (bot/choice.py) for its pick,
    "too late" at the poll's deadline."""

    def __init__(self, service: PollService, deadline: str) -> None:
        self.service = service
        self.pick = SecretPick(service, PAIR, self, deadline=deadline)

    @staticmethod
    def wanted(game: Game) -> bool:
        return bool(game.options.get("pair"))

    async def open(self, s: AsyncSession, game: Game, state: Poll) -> list[Effect]:
        """At the start: the pairer's menu, nothing picked yet."""
        await self.service.save(s, game, state, state.open_pair(), None)
        lang = await self.lang_of(s, game, state.pairer)
        return [self.pick.menu(game, STEP, self.menu(state, state.pairer, lang, ()))]

    async def lang_of(self, s: AsyncSession, game: Game, user_id: int) -> str:
        row = await repo.player(s, game.id, user_id)
        return row.locale if row is not None else game.lang

    def menu(self, state: Poll, user_id: int, lang: str, picked: Sequence[str]) -> Offer:
        options = tuple((p.name, str(p.id)) for p in state.players)
        text = t("poll.pair.dm", lang)
        if picked:
            names = listing([(i, state.player(i).name) for i in ids(picked)], lang)
            text += "\n" + t("poll.pair.chosen", lang, names=names)
        placeholder, confirm = t("poll.pair.placeholder", lang), t("poll.pair.confirm", lang)
        return Offer(
            user_id, text, options, placeholder, size=2, chosen=tuple(picked), confirm=confirm
        )

    # -- PickRules (bot/choice.py) -----------------------------------------------------------

    def step(self, game: Game) -> int | None:
        state = self.service.load(game)
        return STEP if state.pair_open and not state.closed else None

    def check(self, game: Game, actor: Actor, picked: Sequence[str]) -> None:
        self.service.load(game).verify_pair(actor.id, ids(picked))

    async def offer(
        self, s: AsyncSession, game: Game, actor: Actor, picked: Sequence[str]
    ) -> Offer:
        return self.menu(self.service.load(game), actor.id, actor.lang, picked)

    async def confirm(
        self, s: AsyncSession, game: Game, actor: Actor, picked: Sequence[str]
    ) -> Outcome:
        state = self.service.load(game)
        if actor.id == state.pairer and not picked:
            raise UserError("poll.pair.none")
        events = state.make_pair(actor.id, ids(picked))
        await self.service.save(s, game, state, events, actor.id)
        first, second = (state.player(i) for i in state.pair)
        dms: list[Effect] = []
        for one, other in ((first, second), (second, first)):
            lang = await self.lang_of(s, game, one.id)
            dms.append(DirectMessage(one.id, t("poll.pair.told", lang, name=shown(other.name))))
        names = listing([(p.id, p.name) for p in (first, second)], actor.lang)
        return Outcome(t("poll.pair.done", actor.lang, names=names), dms)
