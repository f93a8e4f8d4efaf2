"""What every game service shares: the lobby, moderators, languages, the per-game transaction.

A service method is one user action: it takes the game's lock, opens one transaction (load,
apply the rules, write), and in that same transaction writes the Discord effects it decided as
rows of the ``outbox`` table (:meth:`GameService.commit_outcome`). After the commit the
dispatcher (:mod:`bot.dispatcher`) delivers them; :meth:`GameService.run` wakes it, waits a
little for the delivery and returns the private answer for the user, already localized.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import random
import unicodedata
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar, cast

import discord
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot import daily, metrics, notices, prods
from bot.clock import Clock
from bot.config import ModerationSettings
from bot.courier import Courier
from bot.effects import (
    Attachment,
    CloseSpaces,
    DebateLock,
    DirectMessage,
    EditSlot,
    Notice,
    Post,
    Record,
    View,
    from_payload,
)
from bot.errors import Redelivered, UserError
from bot.i18n import Lang, first_defined, game_name, lang_of, t
from bot.listing import lobby_call
from bot.locks import GameLocks
from bot.names import clean, listing, ordered, shown
from bot.notify import notify_effects
from bot.options import OptionsSchema
from bot.reachable import OFFER_VIEW, can_dm, is_member
from bot.reminders import why_dropped
from db import repo
from db.engine import is_busy
from db.models import Deadline, EffectStatus, Game, Player
from rulebase import Event, Substitution
from rulebase import Player as EnginePlayer

if TYPE_CHECKING:
    from bot.activity import Activity
    from bot.ballots import BallotBox
    from bot.choice import SecretMenu
    from bot.dispatcher import Dispatcher
    from bot.plugins import Registry
    from bot.scheduler import DeadlineScheduler

log = logging.getLogger(__name__)

T = TypeVar("T")

# The event recording a moderator's reminder (its time starts the remind cooldown).
REMINDED = "moderator_reminded"

# What a service decides: effect records (bot.effects; lists of them are flattened), and
# in-process steps to run once the transaction has committed (e.g. an early close).
AfterCommit = Callable[[], Awaitable[Any]]
Effect = Record | AfterCommit | list[Any]

# Refused effects that resync does not send again: a DM refused (closed DMs are the player's
# choice) and the bot's own notices (a missing permission: stale once it is given back).
NOT_RESENT = (DirectMessage.KIND, Notice.KIND)

DELIVERY_WAIT = 10.0  # seconds an action waits for its effects before answering anyway

#: How long a volunteer has to accept a seat before the next one is asked.
OFFER_HOURS = timedelta(hours=24)

#: How long a start's claim on its lobby lasts (the DM check of ten players takes seconds; a
#: claim older than this is of a process that died during its start).
STARTING_FOR = timedelta(minutes=5)


def starting_key(game_id: int) -> str:
    """The ``bot_state`` key of a start under way (``GameService.start``)."""
    return f"starting:{game_id}"


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


def flatten(effects: Iterable[Any]) -> list[Any]:
    out: list[Any] = []
    for effect in effects:
        if isinstance(effect, list | tuple):
            out += flatten(effect)
        elif effect is not None:
            out.append(effect)
    return out


NO_ROLES: frozenset[int] = frozenset()  # a DM's actor (no member, no roles)


@dataclass(frozen=True)
class Actor:
    """Who is acting: the parts of a Discord member a service needs."""

    id: int
    name: str
    lang: Lang
    manages_guild: bool = False
    role_ids: frozenset[int] = frozenset()
    #: when the user clicked or typed (the interaction's snowflake time): a click made before
    #: a deadline counts even if it reaches the database after it; None: now
    at: datetime | None = None
    bot: bool = False
    #: where the interaction happened (guild, channel); None: not from an interaction
    place: tuple[int | None, int | None] | None = None
    #: a member of the server (False: a user Discord resolved without a member, someone not
    #: or no longer in the server, whom the bot cannot DM)
    member: bool = True
    #: the interaction that acts (its action is recorded with it, once: see
    #: ``GameService.action``); None: not from an interaction
    interaction_id: int | None = None

    @classmethod
    def of(cls, interaction: discord.Interaction) -> Actor:
        user = interaction.user
        perms = interaction.permissions
        roles = getattr(user, "roles", [])
        return cls(
            id=user.id,
            name=clean(user.display_name),
            lang=lang_of(interaction.locale),
            manages_guild=bool(perms.manage_guild or perms.administrator),
            role_ids=frozenset(r.id for r in roles) if roles else NO_ROLES,
            at=interaction.created_at,
            bot=user.bot,
            place=(interaction.guild_id, interaction.channel_id),
            interaction_id=interaction.id,
        )

    @classmethod
    def of_member(cls, member: discord.abc.User, lang: Lang) -> Actor:
        """A user named in a command's option: a member of the server when Discord resolved
        one (``discord.Member``), else a user who is not in it."""
        return cls(
            id=member.id,
            name=clean(member.display_name),
            lang=lang,
            bot=member.bot,
            member=isinstance(member, discord.Member),
        )


@dataclass
class Outcome:
    """A private answer, the effects it decided, and (once written) where they went:
    ``written`` = (game id, guild id, last seq)."""

    reply: str
    effects: list[Any] = field(default_factory=list)
    written: tuple[int, int, int] | None = None


@dataclass
class Reply:
    """A private answer with embeds (cards) or files (pictures, records), when text alone is
    not enough. ``files`` are built when sent: a ``discord.File`` can be read only once."""

    content: str
    embeds: list[discord.Embed] = field(default_factory=list)
    files: list[Callable[[], discord.File]] = field(default_factory=list)
    view: discord.ui.View | None = None


class TagRequired(UserError):
    """The forum requires a tag on every post, none was given and none is named like the
    game: the moderator is asked privately to choose one of ``tags`` (id, name)."""

    def __init__(self, tags: list[tuple[int, str]]) -> None:
        super().__init__("common.lobby.choose_tag")
        self.tags = tags


def _plain(text: str) -> str:
    """Casefolded, without accents: how tag names are compared with game names."""
    decomposed = unicodedata.normalize("NFKD", text.casefold().strip())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


class Services:
    """What services need from the application; the Bot subclass builds one."""

    def __init__(
        self,
        *,
        sessions: async_sessionmaker[AsyncSession],
        courier: Courier,
        clock: Clock,
        rng: random.Random,
        defaults: dict[str, dict[str, Any]],
        options: dict[str, OptionsSchema] | None = None,
        busy_wait: float = 600.0,
        limits: ModerationSettings | None = None,
        vote_lanes: int = 1,
        registry: Registry | None = None,
        sections: dict[str, Any] | None = None,
    ) -> None:
        self.sessions = sessions
        #: the games this bot runs (bot.plugins): their hooks (record, stats, rules text)
        self.registry = registry
        #: the config sections the games read (``Settings.sections``), by name
        self.sections = sections or {}
        self.limits = limits or ModerationSettings()
        #: seconds an action waits for a database kept busy by another process
        self.busy_wait = busy_wait
        #: PostgreSQL: vote batches of different games under way at once (bot/batch.py)
        self.vote_lanes = vote_lanes
        self.courier = courier
        self.clock = clock
        self.rng = rng
        self.defaults = defaults
        #: each registered game's options schema, by kind (bot.plugins)
        self.options = options or {}
        self.locks = GameLocks()
        self.scheduler: DeadlineScheduler | None = None
        self.dispatcher: Dispatcher | None = None
        #: the games' secret choices by DM, by name (bot/choice.py): what a menu's click finds
        self.choices: dict[str, SecretMenu] = {}
        #: the posts counted in the games' places (bot/activity.py), once the bot runs
        self.activity: Activity | None = None

    def schema(self, kind: str) -> OptionsSchema:
        """The options schema of a game (an empty one for a game that has none)."""
        return self.options.get(kind) or OptionsSchema(kind, ())


class GameService(ABC):
    """What every game offers the shared commands, the scheduler and the app.

    Shared, written here: the lobby (``join``, ``leave``; ``add`` and ``remove`` are these by a
    moderator), ``start``, ``resync``, ``abandon`` and ``on_deadline``. Each game's own, declared
    here as abstract: ``load``, ``end_state``, ``deal``, ``bad_player_count``, ``deadline_due``,
    and the moderation and status the shared commands call (``cancel``, ``extend``,
    ``close_now``, ``remind``, ``substitute``, ``status``)."""

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

    # -- transactions -------------------------------------------------------------------------

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

    async def prepare(self, s: AsyncSession, game: Game) -> None:
        """Load what ``load(game)`` needs besides the row (the Refutation Game: its deck). An
        optional hook: nothing by default."""
        return None

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
        ``DELIVERY_WAIT`` when ``wait``), then run its in-process steps; the reply."""
        effects = flatten(outcome.effects)
        if outcome.written is None and any(isinstance(e, Record) for e in effects):
            log.error("effects never written: commit_outcome() belongs inside the transaction")
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

    # -- Discord put back in order -----------------------------------------------------------

    async def game_to_resync(self, channel_id: int) -> int:
        """The game of this channel or post to resync: the active one, else the last one (a
        game that ended while a permission was missing still left players muted)."""
        async with self.app.sessions() as s:
            game = await repo.active_game_in_channel(s, channel_id)
            if game is None or game.kind != self.kind:
                game = await repo.last_game_in_place(s, channel_id, self.kind)
            if game is None:
                raise UserError("common.error.no_game_here")
            return game.id

    async def resync(self, actor: Actor, game_id: int) -> str:
        """A moderator, once a missing permission is given back: what Discord refused is queued
        again (DMs apart: closed DMs are the player's choice), then the game's own state is put
        back (its pinned messages, the debate lock as the phase wants it)."""
        async with self.action(game_id, actor) as (s, game):
            await self.require_moderator(s, actor, game, game.guild_id)
            refused = [
                r
                for r in await repo.effects_of(s, game.id, [EffectStatus.FAILED.value])
                if r.kind not in NOT_RESENT
            ]
            again = [from_payload(r.kind, r.payload) for r in refused]
            for r in refused:
                await repo.update_effect(s, r.id, status=EffectStatus.DROPPED.value)
            await notices.forget(s, game)  # a permission lost again is told again
            effects: list[Effect] = [*again, *await self.resync_effects(s, game)]
            reply = t("common.resync.done", actor.lang, count=len(again))
            outcome = await self.commit_outcome(s, game, Outcome(reply, effects))
        return await self.run(outcome)

    async def resync_effects(self, s: AsyncSession, game: Game) -> list[Effect]:
        """The Discord side of the game's current state (each game adds its own)."""
        if game.status == "lobby":
            return [await self.refresh_lobby(s, game)]
        return []

    # -- moderators ---------------------------------------------------------------------------

    async def is_moderator(
        self, s: AsyncSession, actor: Actor, game: Game | None, guild_id: int
    ) -> bool:
        """Checked at each use, from the roles and permissions the interaction carries now:
        Manage Server, or the guild's moderator role. A game's creator moderates it only while
        they could open it: when the guild lets members host (``/settings members_host``)."""
        if actor.manages_guild:
            return True
        settings = await repo.get_guild_settings(s, guild_id)
        if settings.moderator_role_id is not None and settings.moderator_role_id in actor.role_ids:
            return True
        return bool(settings.members_host) and game is not None and game.created_by == actor.id

    async def can_host(self, s: AsyncSession, actor: Actor, guild_id: int) -> bool:
        """Whether ``actor`` may open a game here: a moderator, or anyone with members_host."""
        if await self.is_moderator(s, actor, None, guild_id):
            return True
        return bool((await repo.get_guild_settings(s, guild_id)).members_host)

    async def require_host(self, s: AsyncSession, actor: Actor, guild_id: int) -> None:
        """May open a game, and has fewer open games here than the per-member limit."""
        if not await self.can_host(s, actor, guild_id):
            raise UserError("common.error.not_moderator")
        limit = self.app.limits.max_open_games_per_member
        if limit and await repo.count_open_games_by(s, guild_id, actor.id) >= limit:
            raise UserError("common.error.too_many_games", max=limit)

    async def require_remind_allowed(
        self, s: AsyncSession, game: Game, actor: Actor, step: str
    ) -> None:
        """One moderator reminder per ``remind_cooldown_minutes`` for a step of a game (a vote,
        a secret choice: ``step`` names it; a new step may be reminded at once). Records it."""
        cooldown = timedelta(minutes=self.app.limits.remind_cooldown_minutes)
        now = self.now()
        earlier = [
            e
            for e in await repo.events(s, game.id, kinds=[REMINDED])
            if e.payload.get("step") == step
        ]
        if earlier and now - earlier[-1].at < cooldown:
            left = cooldown - (now - earlier[-1].at)
            minutes = max(1, -(-int(left.total_seconds()) // 60))
            raise UserError("common.error.remind_cooldown", minutes=minutes)
        # Private to the moderator: not part of the game's public history.
        await repo.append_event(
            s, game.id, REMINDED, {"step": step}, actor_id=actor.id, private_to=actor.id, at=now
        )

    async def require_moderator(
        self, s: AsyncSession, actor: Actor, game: Game | None, guild_id: int
    ) -> None:
        if not await self.is_moderator(s, actor, game, guild_id):
            raise UserError("common.error.not_moderator")

    # -- options ------------------------------------------------------------------------------

    async def options_for(
        self, s: AsyncSession, guild_id: int, given: dict[str, Any]
    ) -> dict[str, Any]:
        """Config defaults, then the guild's defaults, then what the moderator typed; shaped
        by the game (:meth:`shape_options`), then checked together by the game's schema (the
        check the config and ``/settings`` make: ``OptionsSchema.verify``)."""
        settings = await repo.get_guild_settings(s, guild_id)
        schema = self.app.schema(self.kind)
        options = schema.merge(
            self.app.defaults[self.kind], settings.defaults_for(self.kind), given
        )
        self.shape_options(options, given)
        schema.verify(options)
        return options

    def shape_options(self, options: dict[str, Any], given: Mapping[str, Any]) -> None:
        """What a game makes of its merged options before they are checked together (Avalon's
        roles count only in an Avalon game). An optional hook: nothing by default."""
        return None

    async def due_at(self, s: AsyncSession, game: Game, hours_option: str) -> datetime:
        """When a step opening now closes: after the ``hours_option`` hours, or at the game's
        daily ``deadline_time`` in the guild's time zone."""
        zone = "UTC"
        if game.options.get("deadline_time"):
            zone = (await repo.get_guild_settings(s, game.guild_id)).timezone
        return daily.due(self.now(), game.options, hours_option, zone)

    # -- lobby --------------------------------------------------------------------------------

    def where(self, game: Game) -> int:
        """The channel or forum post where the game's public messages go."""
        return game.thread_id or game.channel_id

    def link(self, game: Game) -> str:
        """A link to the game's channel or post that works from a DM."""
        return f"https://discord.com/channels/{game.guild_id}/{self.where(game)}"

    def lobby_text(self, game: Game, players: list[Player]) -> str:
        names = listing([(p.user_id, p.display_name) for p in players], game.lang)
        return t(
            "common.lobby.text",
            game.lang,
            game=game_name(self.kind, game.lang, game.options),
            count=len(players),
            min=self.min_players,
            max=self.max_players,
            players=names,
        )

    def lobby_view(self, game: Game) -> View:
        """The Join / Leave buttons (built by the cogs' ``lobby`` view builder)."""
        return View("lobby", (self.kind, game.id, game.lang))

    async def refresh_lobby(self, s: AsyncSession, game: Game) -> Effect:
        """The lobby message shows who has joined: edited in place, posted anew if refused."""
        players = await repo.players(s, game.id)
        return EditSlot(
            self.where(game),
            "lobby",
            text=self.lobby_text(game, players),
            view=self.lobby_view(game),
            repost=True,
        )

    def announce(self, game: Game, text: str, *, mention: int | None = None) -> Effect:
        """A public message where the game lives; ``mention``: the one member it calls to act
        (pinged; a ``<@id>`` of anyone else in it never pings)."""
        return Post(self.where(game), text, mention=mention)

    def debate_lock(self, game: Game, players: list[Player], *, lock: bool) -> Effect:
        """Close (or reopen) the debate: lock the thread or forum post the game lives in, or
        deny Send Messages to the players in its text channel (restoring what was there)."""
        return DebateLock(self.where(game), tuple(p.user_id for p in players), lock)

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
        """Open a game: in a forum channel a new post (tagged, see ``post_tags``), else this
        channel."""
        is_forum = isinstance(channel, discord.ForumChannel)
        if actor.bot:
            raise UserError("common.error.bot_seat")
        async with self.app.sessions.begin() as s:
            await consume_interaction(s, actor)  # a redelivered one: answered as it was
            await self.require_host(s, actor, guild_id)
            if not is_forum and await repo.active_game_in_channel(s, channel.id) is not None:
                raise UserError("common.error.channel_busy")
            options = await self.options_for(s, guild_id, given)
            if validate is not None:
                validate(options)
            settings = await repo.get_guild_settings(s, guild_id)
            lang: Lang = "fr" if settings.language == "fr" else "en"
        check_permissions(channel, self.needed_permissions(channel, options))
        applied = self.post_tags(channel, tag)
        title = game_name(self.kind, lang, options)
        thread_id: int | None = None
        if is_forum:
            text = t("common.lobby.opening", lang, game=title)
            created = await channel.create_thread(
                name=t("common.lobby.post_title", lang, game=title),
                content=text,
                applied_tags=applied,
            )
            thread_id = created.thread.id
            where = created.thread
        else:
            where = channel
        if is_forum:
            reply = t("common.lobby.opened_post", actor.lang, game=title, post=f"<#{thread_id}>")
        else:
            reply = t("common.lobby.opened", actor.lang, game=title)
        async with self.app.sessions.begin() as s:
            await consume_interaction(s, actor)  # another delivery may have opened it meanwhile
            game = await repo.create_game(
                s,
                kind=self.kind,
                guild_id=guild_id,
                channel_id=channel.id,
                thread_id=thread_id,
                created_by=actor.id,
                options=options,
                lang=lang,
                at=self.app.clock(),
            )
            lobby = Post(
                where.id, self.lobby_text(game, []), view=self.lobby_view(game), slot="lobby"
            )
            called = await lobby_call(s, game, where.id)  # lobby_role (bot/listing.py)
            outcome = await self.commit_outcome(s, game, Outcome(reply, [lobby, *called]))
        return await self.run(outcome)

    def require_place(self, game: Game, place: tuple[int | None, int | None] | None) -> None:
        """Joining and leaving count only where the lobby is: ``place`` is the interaction's
        (guild, channel); a forwarded copy of the lobby clicked elsewhere is refused."""
        if place is not None and place != (game.guild_id, self.where(game)):
            raise UserError("common.error.wrong_place", where=f"<#{self.where(game)}>")

    def post_tags(self, channel: Any, tag: str | None) -> list[discord.ForumTag]:
        """The tags of a new forum post: the one the moderator gave (by id, as autocomplete
        sends it, or by name), else a tag named like the game, else none — unless the forum
        requires one (REQUIRE_TAG: Discord refuses the post with 40067), then the moderator
        is asked to choose (``TagRequired``)."""
        if not isinstance(channel, discord.ForumChannel):
            if tag is not None:
                raise UserError("common.error.tag_not_forum")
            return []
        tags = list(channel.available_tags)
        if tag is not None and tag.strip():
            wanted = tag.strip()
            for candidate in tags:
                if str(candidate.id) == wanted or _plain(candidate.name) == _plain(wanted):
                    return [candidate]
            raise UserError(
                "common.error.unknown_tag",
                tag=discord.utils.escape_markdown(wanted[:100]),
                tags=", ".join(discord.utils.escape_markdown(x.name) for x in tags) or "—",
            )
        names = {_plain(self.kind)} | {_plain(game_name(self.kind, lang)) for lang in ("en", "fr")}
        named = [x for x in tags if _plain(x.name) in names]
        if named:
            return named[:1]
        if channel.flags.require_tag:
            if not tags:
                raise UserError("common.error.forum_without_tags")
            raise TagRequired([(x.id, x.name) for x in tags])
        return []

    def needed_permissions(self, channel: Any, options: dict[str, Any]) -> list[str]:
        """What the bot does in any game's channel (the README's permission table): read and
        post there, with embeds and files (the game's record at the end), and fetch its own
        messages to edit them. A forum post needs Send Messages in the forum (Discord ignores
        Create Public Threads for forum posts); everything after it goes into the post."""
        needed = [
            "view_channel",
            "send_messages",
            "embed_links",
            "attach_files",  # the vote matrix and the game's record at the end
            "read_message_history",
        ]
        if isinstance(channel, discord.ForumChannel | discord.Thread):
            needed.append("send_messages_in_threads")
        return needed

    async def join(
        self, actor: Actor, game_id: int, *, member: Actor | None = None, by_moderator: bool = False
    ) -> str:
        """Sign ``member`` (or the actor) up for the lobby."""
        who = member or actor
        if who.bot:
            raise UserError("common.error.bot_seat")
        if not who.member:  # a bot can DM only the members of a server it shares with them
            raise UserError("common.error.not_a_member", name=shown(who.name))
        async with self.action(game_id, actor) as (s, game):
            self.require_place(game, actor.place)
            if by_moderator:
                await self.require_moderator(s, actor, game, game.guild_id)
            if game.status != "lobby":
                raise UserError("common.error.not_in_lobby")
            await self.refuse_if_starting(s, game)
            if await repo.player(s, game.id, who.id) is not None:
                raise UserError("common.error.already_joined", name=shown(who.name))
            if len(await repo.players(s, game.id)) >= self.max_players:
                raise UserError("common.error.lobby_full", max=self.max_players)
            # Someone signed up by a moderator gets DMs in the guild's language: Discord tells
            # a member's language only when they interact themselves.
            locale = game.lang if by_moderator else who.lang
            await repo.add_player(s, game.id, who.id, who.name, locale=locale, at=self.app.clock())
            effect = await self.refresh_lobby(s, game)
            key = "common.lobby.added" if by_moderator else "common.lobby.joined"
            outcome = Outcome(t(key, actor.lang, name=shown(who.name)), [effect])
            await self.commit_outcome(s, game, outcome)
        return await self.run(outcome)

    async def leave(
        self, actor: Actor, game_id: int, *, member: Actor | None = None, by_moderator: bool = False
    ) -> str:
        who = member or actor
        async with self.action(game_id, actor) as (s, game):
            self.require_place(game, actor.place)
            if by_moderator:
                await self.require_moderator(s, actor, game, game.guild_id)
            if game.status != "lobby":
                raise UserError("common.error.not_in_lobby")
            if await repo.player(s, game.id, who.id) is None:
                raise UserError("common.error.not_joined", name=shown(who.name))
            await repo.remove_player(s, game.id, who.id)
            effect = await self.refresh_lobby(s, game)
            key = "common.lobby.removed" if by_moderator else "common.lobby.left"
            outcome = Outcome(t(key, actor.lang, name=shown(who.name)), [effect])
            await self.commit_outcome(s, game, outcome)
        return await self.run(outcome)

    @abstractmethod
    def load(self, game: Game) -> Any:
        """The game's engine state, read from its stored row."""
        raise NotImplementedError

    @abstractmethod
    def end_state(self, state: Any) -> list[Any]:
        """The engine's events for a game ended from outside (its place is gone)."""
        raise NotImplementedError

    async def abandon(self, game_id: int, reason: str, where: str) -> bool:
        """The game's place is gone: its channel or post was deleted (``reason``
        "place_deleted"), or the bot was removed from its server ("bot_removed"). The game
        ends as cancelled in one transaction, its deadlines and pending effects dropped; the
        DM that tells its creator (``where`` names the place) is an outbox row of that same
        transaction, so it is sent once even across a crash. Nothing is posted: there is
        nowhere to post. False if the game was already over."""
        async with self.action(game_id) as (s, game):
            if game.status not in ("lobby", "running"):
                return False
            if game.status == "running":
                try:
                    state = self.load(game)
                except Exception:
                    log.warning("game %s: state unreadable, cancelled without it", game.id)
                else:
                    await self.save(s, game, state, self.end_state(state), None)
            if self.app.scheduler is not None:
                await self.app.scheduler.cancel_for_game(s, game.id)
            await repo.drop_pending_effects(s, game.id, at=self.now())
            await repo.set_status(s, game, "cancelled", at=self.now())
            lang = game.lang
            text = t(
                f"common.lifecycle.{reason}",
                lang,
                game=game_name(self.kind, lang, game.options),
                where=discord.utils.escape_markdown(where),
            )
            told = Outcome("", [DirectMessage(game.created_by, text)])
            await self.commit_outcome(s, game, told)
        log.info("game %s cancelled: %s", game_id, reason)
        await self.run(told, wait=False)
        return True

    async def on_deadline(self, s: AsyncSession, deadline: Deadline) -> AfterCommit | None:
        """A deadline of this game fell due; called by the scheduler inside the transaction that
        claimed it, where the effects are written. Returns what to do after the commit."""
        game = await repo.get_game(s, deadline.game_id, for_update=True)
        if game is None or game.status != "running":
            return None
        if deadline.kind in self.reminder_kinds:
            # A reminder names what is still to come: never sent once it has passed.
            why = await why_dropped(s, deadline, self.reminder_kinds, self.now())
            if why is not None:
                log.info("game %s: reminder %s dropped: %s", game.id, deadline.kind, why)
                return None
        if deadline.kind == self.offer_kind:
            outcome: Outcome | None = await self.offer_expired(s, game, deadline)
        elif deadline.kind == prods.kind_of(self):  # bot/prods.py
            outcome = Outcome("", await prods.due(self, s, game, deadline))
        else:
            outcome = await self.deadline_due(s, game, deadline)
        if outcome is None:
            return None
        done = await self.commit_outcome(s, game, outcome)

        async def after() -> None:
            await self.run(done, wait=False)

        return after

    @abstractmethod
    async def deadline_due(self, s: AsyncSession, game: Game, deadline: Deadline) -> Outcome | None:
        """What the game does when one of its deadlines falls due (None: nothing)."""
        raise NotImplementedError

    async def hand_over_seat(
        self, s: AsyncSession, game: Game, state: Any, old: Actor, new: Actor
    ) -> tuple[str, list[Event], Player]:
        """A substitution, in the rules and in the players table: ``new`` takes ``old``'s seat.

        Returns the leaver's name, the engine's events and the newcomer's row (DMs in the
        guild's language until they act themselves)."""
        if new.bot:
            raise UserError("common.error.bot_seat")
        if not new.member:
            raise UserError("common.error.not_a_member", name=shown(new.name))
        old_name: str = state.player(old.id).name if state.is_player(old.id) else old.name
        events: list[Event] = []
        for event in state.substitute(old.id, EnginePlayer(new.id, new.name)):
            if isinstance(event, Substitution):  # the engine has forgotten the leaver's name
                event = dataclasses.replace(cast(Any, event), old_name=old_name)
            events.append(event)
        old_row = await repo.player(s, game.id, old.id)
        await repo.deactivate_player(s, game.id, old.id)
        row = await repo.add_player(s, game.id, new.id, new.name, locale=game.lang, at=self.now())
        row.seat = old_row.seat if old_row else None
        return old_name, events, row

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

    # -- each game's moderation and status (the shared commands call these) -----------------

    async def cancel(self, actor: Actor, game_id: int) -> str:
        """A moderator ends the game (lobby or running) without a winner, in one transaction:
        its deadlines dropped, the engine's end (:meth:`end_state`) saved, what the game says of
        it posted (:meth:`cancelled`), and the record attached once it had started."""
        async with self.action(game_id, actor) as (s, game):
            await self.require_moderator(s, actor, game, game.guild_id)
            if game.status not in ("lobby", "running"):
                raise self.game_over()
            effects: list[Effect] = []
            if game.status == "running":
                state = self.load(game)
                events = self.end_state(state)
                if self.app.scheduler is not None:
                    await self.app.scheduler.cancel_for_game(s, game.id)
                await self.save(s, game, state, events, actor.id)
                effects += await self.cancelled(s, game, state, events)
                effects.append(CloseSpaces())  # its silenced members restored, threads archived
            else:
                effects.append(self.announce(game, t("common.lobby.cancelled", game.lang)))
            await repo.set_status(s, game, "cancelled", at=self.now())
            if game.state is not None:
                effects.append(self.archive_post(game))
            outcome = Outcome(t("common.moderation.cancelled", actor.lang), effects)
            await self.commit_outcome(s, game, outcome)
        return await self.run(outcome)

    def game_over(self) -> Exception:
        """The refusal of an action on a game that is over (each game's own words)."""
        return UserError("common.error.no_game")

    async def cancelled(
        self, s: AsyncSession, game: Game, state: Any, events: Sequence[Any]
    ) -> list[Effect]:
        """What a game that had started says when a moderator cancels it (its end, its
        reveal): nothing by default."""
        return []

    def archive_post(self, game: Game) -> Effect:
        """A post with the game's record attached (the end of a game, a cancellation): its
        words are the game's own (``<kind>.archive.posted``), else the common ones."""
        keys = (f"{game.kind}.archive.posted", "archive.posted")
        text = first_defined(keys, game.lang) or ""
        return Post(self.where(game), text, files=(Attachment("record", (game.id, game.lang)),))

    @abstractmethod
    async def extend(self, actor: Actor, game_id: int, hours: float) -> str:
        """A moderator pushes the current deadline back by ``hours``."""
        raise NotImplementedError

    @abstractmethod
    async def close_now(self, actor: Actor, game_id: int) -> str:
        """A moderator closes the current vote or choice now."""
        raise NotImplementedError

    @abstractmethod
    async def remind(self, actor: Actor, game_id: int) -> str:
        """A moderator reminds the players who have not answered yet."""
        raise NotImplementedError

    async def substitute(self, actor: Actor, game_id: int, old: Actor, new: Actor) -> str:
        """A moderator gives ``old``'s seat to ``new`` (a volunteer of the replacement list
        leaves it)."""
        async with self.action(game_id, actor) as (s, game):
            await self.require_moderator(s, actor, game, game.guild_id)
            if not new.member and await repo.volunteer(s, game.id, new.id) is not None:
                effects = await self.pass_seat_on(s, game, old.id, new.id)
                key = f"common.standby.volunteer_left{'' if effects else '_alone'}"
                outcome = Outcome(t(key, actor.lang, name=shown(new.name)), effects)
            else:
                outcome = await self.seat(s, game, old, new, actor)
                await repo.remove_volunteer(s, game.id, new.id)
            await self.commit_outcome(s, game, outcome)
        return await self.run(outcome)

    async def pass_seat_on(
        self, s: AsyncSession, game: Game, seat: int, gone: int, declined: Iterable[int] = ()
    ) -> list[Effect]:
        """The volunteer ``gone`` left the server and cannot take ``seat``: off the list, and
        the seat offered to the next volunteer (none: nothing more)."""
        await repo.remove_volunteer(s, game.id, gone)
        return await self.offer_seat(s, game, seat, declined=[*declined, gone])

    @abstractmethod
    async def seat(
        self, s: AsyncSession, game: Game, old: Actor, new: Actor, actor: Actor
    ) -> Outcome:
        """``new`` takes ``old``'s seat in this transaction (a moderator's ``substitute``, or a
        volunteer who accepted the seat): the rules and the players table (``hand_over_seat``),
        the public announcement (never the role), the newcomer's private DMs; the reply is in
        ``actor``'s language."""
        raise NotImplementedError

    # -- the replacement list -----------------------------------------------------------------

    async def standby(self, actor: Actor, game_id: int) -> str:
        """``/<game> standby``: put the actor on the game's replacement list, or take them off
        it when they are on it already. A player of the game is refused."""
        if actor.bot:
            raise UserError("common.error.bot_seat")
        await self.probe_volunteer(actor, game_id)
        async with self.action(game_id, actor) as (s, game):
            self.require_place(game, actor.place)
            if game.status not in ("lobby", "running"):
                raise UserError("common.error.no_game_here")
            row = await repo.player(s, game.id, actor.id)
            if row is not None and row.active:
                raise UserError("common.standby.playing")
            if await repo.remove_volunteer(s, game.id, actor.id):
                reply = t("common.standby.left", actor.lang)
            else:
                await repo.add_volunteer(
                    s, game.id, actor.id, actor.name, actor.lang, at=self.now()
                )
                count = len(await repo.volunteers(s, game.id))
                reply = t("common.standby.joined", actor.lang, position=count)
            outcome = await self.commit_outcome(s, game, Outcome(reply))
        return await self.run(outcome)

    async def probe_volunteer(self, actor: Actor, game_id: int) -> None:
        """A seat is offered by DM: refuse a member who would join the list and whom the bot
        cannot DM (the probe of ``start``), saying how to open DMs. Outside any transaction (a
        DM takes time); whoever ``standby`` refuses, or takes off the list, is not probed."""
        async with self.app.sessions() as s:
            game = await repo.get_game(s, game_id)
            if game is None or game.status not in ("lobby", "running"):
                return
            self.require_place(game, actor.place)
            row = await repo.player(s, game.id, actor.id)
            if (row is not None and row.active) or await repo.volunteer(s, game.id, actor.id):
                return
        probe = t(
            "common.standby.dm_check",
            actor.lang,
            game=game_name(self.kind, actor.lang, game.options),
            where=f"<#{self.where(game)}>",
        )
        if not await can_dm(self.app.courier, actor.id, probe):
            raise UserError("common.standby.dms_closed")

    async def overview(self, actor: Actor, game_id: int) -> str:
        """``/<game> status``: the game's own status, then its replacement list."""
        text = await self.status(actor, game_id)
        async with self.app.sessions() as s:
            game = await repo.get_game(s, game_id)
            line = await self.standby_line(s, game, actor.lang) if game is not None else None
        return f"{text}\n{line}" if line else text

    async def standby_line(self, s: AsyncSession, game: Game, lang: str) -> str | None:
        """The replacement list for ``/<game> status`` (None: nobody is on it)."""
        found = await repo.volunteers(s, game.id)
        if not found:
            return None
        names = ", ".join(shown(v.display_name) for v in found)  # in the order they are asked
        return t("common.standby.status", lang, count=len(found), names=names)

    async def standby_choices(self, channel_id: int, typed: str) -> list[tuple[str, str]]:
        """Autocomplete of ``substitute volunteer``: the game's replacement list (name, id)."""
        async with self.app.sessions() as s:
            game = await repo.active_game_in_channel(s, channel_id)
            if game is None or game.kind != self.kind:
                return []
            found = await repo.volunteers(s, game.id)
        needle = typed.strip().casefold()
        return [
            (clean(v.display_name)[:100] or str(v.user_id), str(v.user_id))
            for v in found
            if needle in v.display_name.casefold()
        ][:25]

    async def volunteer_actor(self, game_id: int, user_id: int) -> Actor:
        """The volunteer ``substitute volunteer:`` names, as the seat's new holder."""
        async with self.app.sessions() as s:
            found = await repo.volunteer(s, game_id, user_id)
            game = await repo.get_game(s, game_id)
        if found is None or game is None:
            raise UserError("common.standby.not_on_list")
        member = await is_member(self.app.courier, game.guild_id, user_id)
        return Actor(
            id=found.user_id, name=found.display_name, lang=lang_of(found.locale), member=member
        )

    @property
    def offer_kind(self) -> str:
        """The deadline kind of a seat offered to a volunteer (``<prefix>_offer``)."""
        registry = self.app.registry
        plugin = registry.by_kind.get(self.kind) if registry is not None else None
        prefix = plugin.deadline_prefixes[0] if plugin is not None else self.kind[:2]
        return f"{prefix}_offer"

    async def count_misses(
        self, s: AsyncSession, game: Game, missed: Iterable[int], answered: Iterable[int]
    ) -> list[Effect]:
        """A deadline of the game passed: ``missed`` did not answer it, ``answered`` did. A
        player who reaches ``replace_after`` missed deadlines in a row (0: off) has their seat
        offered to the first volunteer of the replacement list (none: nothing changes)."""
        counts = await repo.count_misses(s, game.id, missed, answered)
        limit = int(game.options.get("replace_after", 0) or 0)
        if limit <= 0:
            return []
        offered = {
            int((d.payload or {}).get("seat", 0))
            for d in await repo.open_deadlines(s, game.id, kinds=[self.offer_kind])
        }
        effects: list[Effect] = []
        for seat, n in sorted(counts.items()):
            if n >= limit and seat not in offered:
                effects += await self.offer_seat(s, game, seat, declined=())
        return effects

    async def offer_seat(
        self, s: AsyncSession, game: Game, seat: int, declined: Iterable[int]
    ) -> list[Effect]:
        """Offer ``seat`` to the first volunteer who has not declined it: a DM with Accept /
        Decline, and a deadline of its own (``OFFER_HOURS``) after which the next one is
        asked. Nothing secret is in the offer: the role or hand comes only with the seat."""
        scheduler = self.app.scheduler
        row = await repo.player(s, game.id, seat)
        if scheduler is None or row is None or not row.active:
            return []
        refused = set(declined)
        found = next(
            (v for v in await repo.volunteers(s, game.id) if v.user_id not in refused), None
        )
        if found is None:
            return []
        due = self.now() + OFFER_HOURS
        payload = {"seat": seat, "volunteer": found.user_id, "declined": sorted(refused)}
        deadline = await scheduler.add(
            s,
            game_id=game.id,
            guild_id=game.guild_id,
            kind=self.offer_kind,
            due_at=due,
            payload=payload,
        )
        lang = found.locale
        text = t(
            "common.standby.offer",
            lang,
            game=game_name(self.kind, lang),
            where=f"<#{self.where(game)}>",
            name=shown(row.display_name),
            missed=int(row.missed or 0),
            deadline=f"<t:{int(due.timestamp())}:R>",
        )
        view = View(OFFER_VIEW, (self.kind, game.id, deadline.id, lang_of(lang)))
        deadline_id, due_at = deadline.id, deadline.due_at

        async def schedule() -> None:
            scheduler.schedule(deadline_id, due_at)

        return [DirectMessage(found.user_id, text, view=view), schedule]

    async def answer_offer(self, actor: Actor, game_id: int, offer: int, accept: bool) -> str:
        """A volunteer's Accept or Decline: on Accept the seat, its role or hand and its place
        pass as ``substitute`` does; on Decline (or at the offer's deadline, or on an Accept
        by someone no longer a member of the server) the next volunteer is asked. An offer
        already answered, or not this member's, is stale."""
        if accept:
            actor = dataclasses.replace(actor, member=await self.still_member(game_id, actor.id))
        async with self.action(game_id, actor) as (s, game):
            deadline = await repo.get_deadline(s, offer)
            payload = dict(deadline.payload or {}) if deadline is not None else {}
            if (
                deadline is None
                or deadline.game_id != game.id
                or deadline.kind != self.offer_kind
                or deadline.status != "open"
                or int(payload.get("volunteer", 0)) != actor.id
                or game.status != "running"
            ):
                raise UserError("common.standby.stale")
            self.check_in_time([deadline.due_at], actor)
            if self.app.scheduler is not None:
                await self.app.scheduler.cancel(deadline.id, session=s)
            seat = int(payload["seat"])
            row = await repo.player(s, game.id, seat)
            if accept and not actor.member:
                declined = payload.get("declined", [])
                effects = await self.pass_seat_on(s, game, seat, actor.id, declined)
                outcome = Outcome(t("common.standby.not_a_member", actor.lang), effects)
            elif not accept or row is None or not row.active:
                declined = [*payload.get("declined", []), actor.id]
                effects = [] if accept else await self.offer_seat(s, game, seat, declined)
                outcome = Outcome(t("common.standby.declined", actor.lang), effects)
            else:
                old = Actor(id=row.user_id, name=row.display_name, lang=lang_of(row.locale))
                outcome = await self.seat(s, game, old, actor, actor)
                await repo.remove_volunteer(s, game.id, actor.id)
            await self.commit_outcome(s, game, outcome)
        return await self.run(outcome)

    async def still_member(self, game_id: int, user_id: int) -> bool:
        """Whether ``user_id`` is still a member of the game's server (bot/reachable.py)."""
        async with self.app.sessions() as s:
            game = await repo.get_game(s, game_id)
        return game is None or await is_member(self.app.courier, game.guild_id, user_id)

    async def offer_refused(self, game_id: int, offer: int) -> None:
        """Discord refused the offer's DM (closed DMs, a member who left the server): its
        deadline moves to now, so the next volunteer is asked at once (``offer_expired``)."""
        if self.app.scheduler is not None and await self.app.scheduler.extend(offer, self.now()):
            log.info("game %s: offer %s refused by Discord, passed on", game_id, offer)

    async def offer_expired(self, s: AsyncSession, game: Game, deadline: Deadline) -> Outcome:
        """No answer to an offer by its deadline: the next volunteer is asked."""
        payload = dict(deadline.payload or {})
        declined = [*payload.get("declined", []), int(payload.get("volunteer", 0))]
        effects = await self.offer_seat(s, game, int(payload.get("seat", 0)), declined)
        return Outcome("", effects)

    async def status(self, actor: Actor, game_id: int) -> str:
        """Where the game stands, as anyone may see it: the lobby, or the game running."""
        await self.settled(game_id)
        async with self.app.sessions() as s:
            game = await repo.get_game(s, game_id)
            if game is None:
                raise UserError("common.error.no_game")
            if game.status == "lobby":
                return self.lobby_text(game, await repo.players(s, game.id))
            return await self.running_status(s, game, actor.lang)

    @abstractmethod
    async def running_status(self, s: AsyncSession, game: Game, lang: str) -> str:
        """The game's own status text once it started (its phase, its deadline…)."""
        raise NotImplementedError

    # -- start --------------------------------------------------------------------------------

    @abstractmethod
    def bad_player_count(self, count: int) -> Exception:
        """The game's own error for a wrong number of players."""
        raise NotImplementedError

    def before_start(self, game: Game, players: list[Player]) -> None:
        """A last check before anyone is asked anything (e.g. the deck still loads, the goal
        can be reached by this many players). An optional hook: nothing by default."""
        return None

    @abstractmethod
    async def deal(
        self, s: AsyncSession, game: Game, players: list[Player], actor: Actor
    ) -> Outcome:
        """Set the game up in this transaction; the effects deal it on Discord."""
        raise NotImplementedError

    async def start(self, actor: Actor, game_id: int) -> str:
        """Check every player's DMs, then deal. The players dealt in are the ones probed: the
        game's lock is held from the first check to the deal (a join in this process waits for
        it; a second start finds the game started), and a claim in the database (``starting``)
        refuses a join or a start from another process meanwhile."""
        async with self.app.locks(game_id):
            async with self.action(game_id, actor, locked=True) as (s, game):
                await self.require_moderator(s, actor, game, game.guild_id)
                if game.status != "lobby":
                    raise UserError("common.error.not_in_lobby")
                await self.refuse_if_starting(s, game)
                players = await repo.players(s, game.id)
                if not self.min_players <= len(players) <= self.max_players:
                    raise self.bad_player_count(len(players))
                self.before_start(game, players)
                await repo.set_bot_state(s, starting_key(game.id), self.now().isoformat())
                s.info.pop(INTERACTION, None)  # recorded with the deal (or the refusal)
            try:
                # DMs before dealing: nobody gets a role or a hand unless everybody can.
                unreachable = await self.check_dms(game, players)
            except BaseException:
                async with self.app.sessions.begin() as s:
                    await repo.delete_bot_state(s, starting_key(game_id))
                raise
            async with self.action(game_id, actor, locked=True) as (s, game):
                await repo.delete_bot_state(s, starting_key(game.id))
                if unreachable:
                    outcome = await self.unreachable(s, game, actor, unreachable)
                elif game.status != "lobby":
                    raise UserError("common.error.not_in_lobby")
                else:
                    probed = {p.user_id for p in players}
                    now = await repo.players(s, game.id)
                    joined = [p for p in now if p.user_id not in probed]
                    if joined or len(now) != len(players):  # another process changed the lobby
                        names = listing([(p.user_id, p.display_name) for p in joined], game.lang)
                        outcome = Outcome(t("common.start.lobby_changed", actor.lang, names=names))
                    else:
                        outcome = await self.deal(s, game, now, actor)
                        await prods.arm(self, s, game)  # bot/prods.py
                await self.commit_outcome(s, game, outcome)
        return await self.run(outcome)

    async def unreachable(
        self, s: AsyncSession, game: Game, actor: Actor, players: list[Player]
    ) -> Outcome:
        """The start is refused: these players' DMs are closed (named publicly and privately)."""
        names = listing([(p.user_id, p.display_name) for p in players], game.lang, bold=True)
        for p in players:
            row = await repo.player(s, game.id, p.user_id)
            if row is not None:
                row.dm_failed = True
        notice = self.announce(game, t("common.start.unreachable", game.lang, names=names))
        return Outcome(t("common.start.unreachable_private", actor.lang, names=names), [notice])

    async def refuse_if_starting(self, s: AsyncSession, game: Game) -> None:
        """Refuse a lobby change while a start checks the players' DMs (in another process: in
        this one the game's lock makes it wait). A claim older than ``STARTING_FOR`` is of a
        process that died meanwhile: it is ignored."""
        claimed = await repo.get_bot_state(s, starting_key(game.id))
        if claimed is None:
            return
        with contextlib.suppress(ValueError):
            if self.now() - datetime.fromisoformat(claimed) < STARTING_FOR:
                raise UserError("common.error.starting")

    async def check_dms(self, game: Game, players: list[Player]) -> list[Player]:
        """DM every player that the game starts; those who cannot be reached, in name order."""
        unreachable: list[Player] = []
        where = f"<#{self.where(game)}>"
        for player in players:
            sent = await self.app.courier.dm(
                player.user_id,
                t(
                    "common.start.dm_check",
                    player.locale,
                    game=game_name(self.kind, player.locale, game.options),
                    where=where,
                ),
            )
            if sent is None:
                unreachable.append(player)
        return ordered(unreachable, game.lang, lambda p: (p.user_id, p.display_name))

    def now(self) -> datetime:
        return self.app.clock()


def check_permissions(channel: Any, needed: list[str]) -> None:
    """Refuse early, naming what the bot lacks, rather than fail halfway through a game."""
    me = channel.guild.me
    perms = channel.permissions_for(me)
    missing = [name for name in needed if not getattr(perms, name)]
    if missing:
        raise UserError("common.error.bot_missing", permissions=", ".join(missing))
