"""One secret choice by DM, a core part that a game configures and names no game.

A private menu goes to one player (or each of several): a select of up to 25 options, or up
to 5 buttons. The game says which step is open, who still owes an answer and what an answer
does (its check, its effects); the part sends the menus, arms the deadline and its reminder,
answers each click once (an interaction delivered again is answered as the first was), refuses
a click at or after the deadline ("too late", at the click's own time) or on a menu whose step
is over (in the game's words), and keeps working after a restart: a menu's meaning is in its
custom_id (``choice:<name>:<game>:<step>``, ``cogs/choice.py``), the game and step in the
database. A slash command of the game's is its fallback: :meth:`SecretChoice.choose` with no
step.

Its pick mode (:class:`SecretPick`) asks for exactly N values: a select (min = max = N, the pick
so far shown as its defaults) and a confirm button. A select's values reach only its own
interaction, so the pick is kept in ``bot_state`` (per menu and chooser, read by the confirm in
any process, after a restart too; dropped when confirmed or at the game's end); the select is
answered by its own message edited in place, with the game's text for the pick so far."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from sqlalchemy.ext.asyncio import AsyncSession

from bot import posts
from bot.effects import DirectMessage, View
from bot.errors import UserError
from bot.i18n import t
from bot.render.common import channel, ts
from bot.service import Actor, Effect, GameService, Outcome
from db import repo
from db.models import Deadline, Game

#: The view kind of every secret choice's menu (its builder: ``cogs/choice.py``).
VIEW = "secret_choice"
#: Discord's limits: options of a select, buttons on one row.
MAX_OPTIONS, MAX_BUTTONS = 25, 5
#: The value of a pick's confirm button in its custom_id (``choice:<name>:<game>:<step>:ok``).
CONFIRM = "ok"


class ChoiceRules(Protocol):
    """What a game tells its secret choice."""

    def step(self, game: Game) -> int | None:
        """The number of the choice open now (None: none is)."""

    def waiting(self, game: Game) -> Collection[int]:
        """Who still owes an answer to the open choice (the reminder goes to them)."""

    async def answer(self, s: AsyncSession, game: Game, actor: Actor, value: str) -> Outcome:
        """Check ``value`` against the game (raise a ``GameError`` or ``UserError`` to refuse:
        nothing changes) and record it: the private answer and the effects."""

    async def timeout(self, s: AsyncSession, game: Game) -> Outcome | None:
        """The deadline passed (or a moderator closed it) with answers missing."""


@dataclass(frozen=True)
class Offer:
    """One chooser's menu: the DM's text (and embeds), the options offered as (label, value)
    or (label, value, description) (a button's value is at most 40 characters of no ``:``),
    the select's placeholder, or buttons instead of a select. A pick's (:class:`SecretPick`):
    ``size`` values to pick, those ``chosen`` so far, the ``confirm`` button's label."""

    user_id: int
    text: str
    options: tuple[tuple[str, ...], ...]
    placeholder: str = ""
    buttons: bool = False
    embeds: tuple[Mapping[str, Any], ...] = ()
    size: int = 0
    chosen: tuple[str, ...] = ()
    confirm: str = ""


#: How a click or the game's command is answered: (actor, game id, step or None, value).
Submit = Callable[[Actor, int, int | None, str], Awaitable[str]]


class SecretMenu:
    """The menus alone, registered under ``name``: a DM with a private select or buttons
    whose clicks go to ``submit``. :class:`SecretChoice` is built on it; a game that records
    its answers its own way (by group commit, bot/batch.py) uses it directly, its batch
    checking the step and the deadline."""

    def __init__(self, service: GameService, name: str, submit: Submit) -> None:
        self.name, self.choose, self.kind = name, submit, service.kind
        choices = getattr(service.app, "choices", None)  # None: a service without the app
        if choices is None:  # (its posts and renderers alone, in tests): nothing to answer
            return
        known = choices.get(name)
        if known is not None and known.kind != self.kind:  # a new service of a game replaces
            raise ValueError(f"two games' secret choices named {name!r}")
        choices[name] = self

    def view(self, game: Game, step: int, offer: Offer) -> View:
        """The menu of ``step`` as a view record (its builder: ``cogs/choice.py``)."""
        limit = MAX_BUTTONS if offer.buttons else MAX_OPTIONS
        options = [list(option) for option in offer.options[:limit]]
        args: tuple[Any, ...] = (self.name, game.id, step, options, offer.placeholder)
        args += (offer.buttons,)
        if offer.size:
            args += (offer.size, list(offer.chosen), offer.confirm)
        return View(VIEW, args)

    def menu(self, game: Game, step: int, offer: Offer) -> DirectMessage:
        """The chooser's DM with the menu of ``step``."""
        view = self.view(game, step, offer)
        return DirectMessage(offer.user_id, offer.text, embeds=offer.embeds, view=view)


async def in_step(
    service: GameService,
    s: AsyncSession,
    game: Game,
    actor: Actor,
    asked: int | None,
    step: Callable[[Game], int | None],
    stale: str,
    deadline: str | None,
) -> int | None:
    """The step open now, once a click on a menu of step ``asked`` (None: the game's command)
    may be answered: the game runs, that step is the one open (else ``stale``), the click
    came before ``deadline`` (its kind) fell due. The chooser's language is kept."""
    if game.status != "running":
        raise UserError(stale) if asked is not None else service.game_over()
    await service.prepare(s, game)
    current = step(game)
    if asked is not None and asked != current:
        raise UserError(stale)
    if current is not None and deadline is not None:
        await service.actions.require_in_time(s, game, deadline, actor)
    await repo.set_player_locale(s, game.id, actor.id, actor.lang)
    return current


class SecretChoice:
    """A game's secret choice. ``name`` (the game's prefix first, e.g. ``pl_pick``) is in its
    menus' custom_id; its deadline's kind is ``name`` and its reminder's ``<name>_reminder``,
    unless ``kinds`` names them (two choices of a game may share them: each answers only while
    its own step is open). ``reminder`` is the catalogue key of the reminder DM (``deadline``
    and ``where`` given), ``stale`` the answer to a menu whose step is over."""

    def __init__(
        self,
        service: GameService,
        name: str,
        rules: ChoiceRules,
        *,
        reminder: str,
        kinds: tuple[str, str] | None = None,
        stale: str = "common.choice.closed",
    ) -> None:
        self.service, self.name, self.rules = service, name, rules
        self.reminder_key, self.stale = reminder, stale
        self.deadline, self.reminder = kinds or (name, f"{name}_reminder")
        self.menus = SecretMenu(service, name, self.choose)

    @property
    def kinds(self) -> tuple[str, str]:
        """Its deadline's kind and its reminder's."""
        return self.deadline, self.reminder

    def menu(self, game: Game, step: int, offer: Offer) -> DirectMessage:
        return self.menus.menu(game, step, offer)

    async def open(
        self,
        s: AsyncSession,
        game: Game,
        step: int,
        offers: Collection[Offer],
        due: datetime,
        remind_at: datetime | None = None,
    ) -> list[Effect]:
        """Step ``step`` opens: its deadline (and reminder, if still to come), the menus."""
        scheduler = self.service.app.scheduler
        assert scheduler is not None
        dues = [(self.deadline, due)]
        if remind_at is not None and self.service.now() < remind_at < due:
            dues.append((self.reminder, remind_at))
        for kind, at in dues:
            payload = {"step": step}
            await scheduler.add(
                s, game_id=game.id, guild_id=game.guild_id, kind=kind, due_at=at, payload=payload
            )
        return [self.menu(game, step, offer) for offer in offers]

    async def close(self, s: AsyncSession, game: Game) -> None:
        """The choice is over (answered, timed out): its deadline and reminder are dropped."""
        if self.service.app.scheduler is not None:
            await self.service.app.scheduler.cancel_for_game(s, game.id, list(self.kinds))

    async def choose(self, actor: Actor, game_id: int, step: int | None, value: str) -> str:
        """A click on a menu of ``step``, or the game's command (``step`` None): an answer
        to the open step, else the game's own refusal (``rules.answer`` checks)."""
        service = self.service
        async with service.action(game_id, actor) as (s, game):
            gate = (self.rules.step, self.stale, self.deadline)
            await in_step(service, s, game, actor, step, *gate)
            outcome = await self.rules.answer(s, game, actor, value)
            await service.commit_outcome(s, game, outcome)
        return await service.run(outcome)

    def owns(self, deadline: Deadline) -> bool:
        return deadline.kind in self.kinds

    async def due(self, s: AsyncSession, game: Game, deadline: Deadline) -> Outcome | None:
        """Its deadline or reminder fell due (for the step still open, else nothing)."""
        if self.rules.step(game) != (deadline.payload or {}).get("step"):
            return None
        if deadline.kind == self.reminder:
            return await self.remind(s, game)
        return await self.rules.timeout(s, game)

    async def due_at(self, s: AsyncSession, game: Game) -> datetime | None:
        found = await repo.open_deadlines(s, game.id, kinds=[self.deadline])
        return found[0].due_at if found else None

    async def remind(self, s: AsyncSession, game: Game) -> Outcome:
        """The reminder DM to each chooser who still owes an answer, in their language (a
        moderator's ``remind`` too: its reply counts them)."""
        due = await self.due_at(s, game)
        where = channel(posts.where(game))
        deadline = ts(due) if due else "—"
        waiting = set(self.rules.waiting(game))
        players = [p for p in await repo.players(s, game.id) if p.user_id in waiting]
        dms: list[Effect] = [
            DirectMessage(p.user_id, t(self.reminder_key, p.locale, deadline=deadline, where=where))
            for p in players
        ]
        return Outcome(t("common.choice.reminded", game.lang, count=len(dms)), dms)


class PickRules(Protocol):
    """What a game tells its pick (:class:`SecretPick`)."""

    def step(self, game: Game) -> int | None:
        """The number of the pick open now (None: none is)."""

    def check(self, game: Game, actor: Actor, picked: Sequence[str]) -> None:
        """Refuse a pick (raise a ``GameError`` or ``UserError``: nothing is kept): not the
        chooser's, or values the game would not take."""

    async def offer(
        self, s: AsyncSession, game: Game, actor: Actor, picked: Sequence[str]
    ) -> Offer:
        """The chooser's menu as it stands: its text says the pick so far, ``chosen`` is
        ``picked``."""

    async def confirm(
        self, s: AsyncSession, game: Game, actor: Actor, picked: Sequence[str]
    ) -> Outcome:
        """The confirm button, with the pick kept (empty: none was made, the game's refusal):
        check it as the game's command would and act on it, not committed."""


class SecretPick(SecretMenu):
    """A pick of exactly ``Offer.size`` values by DM, registered under ``name``: the game's
    ``rules`` check a pick, word it and act on its confirm. ``deadline`` is the kind of the
    deadline after which a click is "too late" (a game arms it itself, or by a
    :class:`SecretChoice` of that kind), ``stale`` the answer to a menu whose step is over."""

    def __init__(
        self,
        service: GameService,
        name: str,
        rules: PickRules,
        *,
        deadline: str | None = None,
        stale: str = "common.choice.closed",
    ) -> None:
        super().__init__(service, name, self.confirm)
        self.service, self.rules, self.deadline, self.stale = service, rules, deadline, stale

    def key(self, game_id: int, user_id: int) -> str:
        """The ``bot_state`` key of a chooser's pick (``<kind>:…:<game>``: dropped at the end)."""
        return f"{self.kind}:pick:{self.name}:{user_id}:{game_id}"

    async def kept(self, s: AsyncSession, game: Game, user_id: int, step: int | None) -> list[str]:
        """The chooser's pick in the menu of ``step``, if any."""
        raw = await repo.get_bot_state(s, self.key(game.id, user_id))
        pick = json.loads(raw) if raw else {}
        return [str(v) for v in pick.get("values", [])] if pick.get("step") == step else []

    async def pick(
        self, actor: Actor, game_id: int, step: int, values: Sequence[str]
    ) -> tuple[str, View]:
        """A pick in the select of ``step``: checked, kept, and the menu's text and view
        again, with the pick so far."""
        service, gate = self.service, (self.rules.step, self.stale, self.deadline)
        async with service.action(game_id, actor) as (s, game):
            await in_step(service, s, game, actor, step, *gate)
            picked = list(values)
            self.rules.check(game, actor, picked)
            pick = json.dumps({"step": step, "values": picked})
            await repo.set_bot_state(s, self.key(game.id, actor.id), pick, at=service.now())
            offer = await self.rules.offer(s, game, actor, picked)
            await service.commit_outcome(s, game, Outcome(offer.text))
        return offer.text, self.view(game, step, offer)

    async def confirm(self, actor: Actor, game_id: int, step: int | None, value: str) -> str:
        """The confirm button of ``step`` (its ``value`` is :data:`CONFIRM`): the kept pick
        goes to the game, and is used up."""
        service, gate = self.service, (self.rules.step, self.stale, self.deadline)
        async with service.action(game_id, actor) as (s, game):
            current = await in_step(service, s, game, actor, step, *gate)
            picked = await self.kept(s, game, actor.id, current)
            await repo.delete_bot_state(s, self.key(game.id, actor.id))
            outcome = await self.rules.confirm(s, game, actor, picked)
            await service.commit_outcome(s, game, outcome)
        return await service.run(outcome)
