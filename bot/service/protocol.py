"""What a game gives the core: the protocol its service implements (``GameRules``) and what
is open now in a running game (``Step``).

The parts of a service (bot/service/) call only these; everything else — the lobby, the
start's DM check, the transactions, the replacement list, extend, resolve, remind, cancel —
is written once in the core. Ten methods are the game's own; the rest have a default in
``GameService`` that a game overrides only to add to it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from sqlalchemy.ext.asyncio import AsyncSession

from bot.effects import Post
from bot.service.outcome import Actor, Effect, Outcome
from db.models import Deadline, Game, Player


@dataclass(frozen=True)
class Step:
    """What a running game waits for now (a vote, a secret choice, a turn), as a moderator's
    ``extend`` and ``remind`` see it."""

    #: the remind cooldown's key: a new step may be reminded at once (``"vote p3"``)
    name: str
    #: the kinds of the deadlines that move together when it is extended (its reminders too)
    deadlines: tuple[str, ...]
    #: the catalogue key of the public notice of an extension; it takes ``{deadline}`` and
    #: ``args``
    extended: str
    #: what the step's texts take besides the deadline (a number, a name)
    args: Mapping[str, Any] = field(default_factory=dict)


class GameRules(Protocol):
    """A game as the core's parts see it (implemented by each ``GameService`` subclass)."""

    kind: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    #: the kinds of its deadlines that only remind (a DM before a deadline): never sent late
    reminder_kinds: ClassVar[frozenset[str]]

    # -- the game's own ---------------------------------------------------------------------

    def load(self, game: Game) -> Any:
        """The game's engine state, read from its stored row."""

    async def deal(
        self, s: AsyncSession, game: Game, players: list[Player], actor: Actor
    ) -> Outcome:
        """Set the game up in this transaction; the effects deal it on Discord."""

    def bad_player_count(self, count: int) -> Exception:
        """The game's own error for a wrong number of players."""

    async def deadline_due(self, s: AsyncSession, game: Game, deadline: Deadline) -> Outcome | None:
        """What the game does when one of its deadlines falls due (None: nothing)."""

    def step(self, state: Any) -> Step | None:
        """What the game waits for now (None: nothing a deadline closes)."""

    async def close_step(self, s: AsyncSession, game: Game, state: Any, actor: Actor) -> Outcome:
        """A moderator closes what is open now, in this transaction (the game's refusal when
        nothing is); the reply is in ``actor``'s language."""

    async def remind_step(self, s: AsyncSession, game: Game, state: Any, actor: Actor) -> Outcome:
        """DM whoever the open step waits for (the game's refusal when nobody)."""

    async def seat(
        self, s: AsyncSession, game: Game, old: Actor, new: Actor, actor: Actor
    ) -> Outcome:
        """``new`` takes ``old``'s seat in this transaction (``Seats.hand_over``): the rules,
        the public announcement (never the role), the newcomer's DMs."""

    def end_state(self, state: Any) -> list[Any]:
        """The engine's events for a game ended from outside (cancelled, its place gone)."""

    async def running_status(self, s: AsyncSession, game: Game, lang: str) -> str:
        """The game's own status text once it started (its phase, its deadline…)."""

    # -- hooks with a default (GameService) -------------------------------------------------

    def game_over(self) -> Exception:
        """The refusal of an action on a game that is over (each game's own words)."""

    async def cancelled(
        self, s: AsyncSession, game: Game, state: Any, events: Sequence[Any]
    ) -> list[Effect]:
        """What a started game says when a moderator cancels it (its end, its reveal)."""

    async def resync_effects(self, s: AsyncSession, game: Game) -> list[Effect]:
        """The Discord side of the game's current state, put back by ``resync``."""

    async def prepare(self, s: AsyncSession, game: Game) -> None:
        """What ``load`` needs besides the row, loaded in every action (a deck)."""

    def before_start(self, game: Game, players: list[Player]) -> None:
        """A last check before anyone is asked anything at the start."""

    def shape_options(self, options: dict[str, Any], given: Mapping[str, Any]) -> None:
        """What the game makes of its merged options before they are checked together."""

    def lobby_text(self, game: Game, players: list[Player]) -> str:
        """The lobby message's text."""

    def opened_in(self, channel: Any, options: dict[str, Any]) -> None:
        """What the game keeps in its options of the place it opens in (``/<game> new``)."""

    def needed_permissions(self, channel: Any, options: dict[str, Any]) -> list[str]:
        """What the bot must be allowed in the game's channel (``/<game> new`` checks it)."""

    async def record_post(self, s: AsyncSession, game: Game, state: Any) -> Post:
        """The post that carries the game's record when it ends or is cancelled (the game's
        own pictures attached before it)."""

    def unheard(self, game: Game) -> frozenset[int]:
        """Who may not post where the game lives though Discord lets them (the dead of a game
        in a thread or forum post): ``activity`` marks their posts for the moderators."""
