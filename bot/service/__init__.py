"""A game's service, put together from the core's parts and the game's protocol.

A service method is one user action: it takes the game's lock, opens one transaction (load,
apply the rules, write), and in that same transaction writes the Discord effects it decided as
rows of the ``outbox`` table (``Actions.commit_outcome``). After the commit the dispatcher
(:mod:`bot.dispatcher`) delivers them; ``Actions.run`` wakes it, waits a little for the
delivery and returns the private answer for the user, already localized.

The parts, each one concern: ``actions`` (transactions), ``moderators`` (who may),
``lobby``, ``starter`` (the start), ``seats`` (substitutions, the replacement list),
``deadlines`` and ``moderation`` (extend, resolve, remind, cancel, resync, status). A game
subclasses ``GameService`` and implements the protocol of :mod:`bot.service.protocol`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar

from sqlalchemy.ext.asyncio import AsyncSession

from bot.effects import Post
from bot.errors import UserError
from bot.posts import archive_post
from bot.service.actions import INTERACTION, Actions, consume_interaction
from bot.service.deadlines import Deadlines
from bot.service.lobby import Lobby, check_permissions, starting_key
from bot.service.moderation import Moderation
from bot.service.moderators import REMINDED, Moderators
from bot.service.outcome import Actor, AfterCommit, Effect, Outcome, Reply, TagRequired, flatten
from bot.service.protocol import GameRules, Step
from bot.service.seats import OFFER_HOURS, Seats
from bot.service.services import Services
from bot.service.start import Start
from db.models import Deadline, Game, Player
from rulebase import Event

if TYPE_CHECKING:
    from bot.ballots import BallotBox

__all__ = [
    "INTERACTION",
    "OFFER_HOURS",
    "REMINDED",
    "Actor",
    "AfterCommit",
    "Effect",
    "GameRules",
    "GameService",
    "Outcome",
    "Reply",
    "Services",
    "Step",
    "TagRequired",
    "check_permissions",
    "consume_interaction",
    "flatten",
    "starting_key",
]


class GameService(ABC):
    """The parts of a game's service, the entry points the shared commands, the scheduler and
    the app call, and the protocol's defaults; the abstract methods are the game's own."""

    kind: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    #: the kinds of its deadlines that only remind (a DM before a deadline): never sent late
    reminder_kinds: ClassVar[frozenset[str]] = frozenset()

    #: the game's votes and secret choices (bot/ballots.py), if it has any: the hooks below
    #: open it, read its games ahead and close it
    ballot_box: BallotBox[Any, Any] | None = None

    def __init__(self, app: Services) -> None:
        self.app = app
        self.actions = Actions(app, self.kind, self.prepare)
        self.moderators = Moderators(app)
        self.lobby = Lobby(app, self, self.actions, self.moderators)
        self.seats = Seats(app, self, self.actions, self.moderators, self.lobby)
        self.starter = Start(app, self, self.actions, self.moderators, self.seats)
        self.deadlines = Deadlines(app, self, self.actions, self.seats)
        self.moderation = Moderation(
            app, self, self.actions, self.moderators, self.lobby, self.seats
        )

    # What every game's own code uses most: the action's transaction and its delivery.

    def action(
        self, game_id: int, actor: Actor | None = None, *, locked: bool = False
    ) -> AbstractAsyncContextManager[tuple[AsyncSession, Game]]:
        return self.actions.action(game_id, actor, locked=locked)

    async def commit_outcome(self, s: AsyncSession, game: Game, outcome: Outcome) -> Outcome:
        return await self.actions.commit_outcome(s, game, outcome)

    async def run(self, outcome: Outcome, *, wait: bool = True) -> str:
        return await self.actions.run(outcome, wait=wait)

    async def save(
        self, s: AsyncSession, game: Game, state: Any, events: Sequence[Event], actor: int | None
    ) -> None:
        await self.actions.save(s, game, state, events, actor)

    def now(self) -> datetime:
        return self.actions.now()

    async def open(self) -> None:
        """Open what the service keeps of its own before the first click (the bot is
        starting): its ballot box's connection. A failure is logged, not fatal."""
        if self.ballot_box is not None:
            await self.ballot_box.open()

    async def shutdown(self) -> None:
        """Release what the service holds of its own (the bot is closing)."""
        if self.ballot_box is not None:
            await self.ballot_box.shutdown()

    async def warm(self) -> None:
        """Read ahead, once the service is open, what the first click on each of its games
        would read (the bot has just started; clicks may come meanwhile): its ballot box's
        games waiting for ballots. A failure is logged, not fatal."""
        if self.ballot_box is not None:
            await self.ballot_box.warm()

    def running(self, game: Game) -> Any:
        """The state of a game that runs (the refusal of a lobby, or of a game that is over)."""
        return self.moderation.running(game)

    async def new_game(
        self,
        actor: Actor,
        *,
        guild_id: int,
        channel: Any,
        given: dict[str, Any],
        validate: Callable[[dict[str, Any]], None] | None = None,
        tag: str | None = None,
    ) -> str:
        """``/<game> new`` (a game may check more of its options first: ``validate``)."""
        return await self.lobby.new_game(
            actor, guild_id=guild_id, channel=channel, given=given, validate=validate, tag=tag
        )

    # -- the game's own (bot/service/protocol.py says what each does) --------------------------

    @abstractmethod
    def load(self, game: Game) -> Any: ...

    @abstractmethod
    async def deal(
        self, s: AsyncSession, game: Game, players: list[Player], actor: Actor
    ) -> Outcome: ...

    @abstractmethod
    def bad_player_count(self, count: int) -> Exception: ...

    @abstractmethod
    async def deadline_due(
        self, s: AsyncSession, game: Game, deadline: Deadline
    ) -> Outcome | None: ...

    @abstractmethod
    def step(self, state: Any) -> Step | None: ...

    @abstractmethod
    async def close_step(
        self, s: AsyncSession, game: Game, state: Any, actor: Actor
    ) -> Outcome: ...

    @abstractmethod
    async def remind_step(
        self, s: AsyncSession, game: Game, state: Any, actor: Actor
    ) -> Outcome: ...

    @abstractmethod
    async def seat(
        self, s: AsyncSession, game: Game, old: Actor, new: Actor, actor: Actor
    ) -> Outcome: ...

    @abstractmethod
    def end_state(self, state: Any) -> list[Any]: ...

    @abstractmethod
    async def running_status(self, s: AsyncSession, game: Game, lang: str) -> str: ...

    # -- the protocol's defaults --------------------------------------------------------------

    def game_over(self) -> Exception:
        return UserError("common.error.no_game")

    async def cancelled(
        self, s: AsyncSession, game: Game, state: Any, events: Sequence[Any]
    ) -> list[Effect]:
        return []

    async def resync_effects(self, s: AsyncSession, game: Game) -> list[Effect]:
        if game.status == "lobby":
            return [await self.lobby.refresh(s, game)]
        return []

    async def prepare(self, s: AsyncSession, game: Game) -> None:
        return None

    def before_start(self, game: Game, players: list[Player]) -> None:
        return None

    def shape_options(self, options: dict[str, Any], given: Mapping[str, Any]) -> None:
        return None

    def lobby_text(self, game: Game, players: list[Player]) -> str:
        return self.lobby.text(game, players)

    def opened_in(self, channel: Any, options: dict[str, Any]) -> None:
        return None

    def needed_permissions(self, channel: Any, options: dict[str, Any]) -> list[str]:
        return self.lobby.needed_permissions(channel)

    async def record_post(self, s: AsyncSession, game: Game, state: Any) -> Post:
        return archive_post(game)

    def unheard(self, game: Game) -> frozenset[int]:
        return frozenset()
