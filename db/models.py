"""SQLAlchemy models: the durable truth of every game, vote and deadline.

Conventions:

- Discord ids (guilds, channels, users, messages, roles) are ``BigInteger``.
- Every datetime is an aware UTC datetime (:class:`db.types.UTCDateTime` refuses naive ones).
- JSON columns hold plain dicts; JSON object keys are strings, so an ``int`` key comes back as a
  ``str``. JSON columns are not mutation-tracked: assign a new dict to save a change.
- No ORM relationships: repositories query explicitly (lazy loading does not work in asyncio).
- Constraint and index names come from the naming convention below, so Alembic diffs are stable.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Any, ClassVar

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    false,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from db.types import UTCDateTime, utcnow

NAMING_CONVENTION: dict[str, str] = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map = {datetime: UTCDateTime(), dict[str, Any]: JSON()}

    if TYPE_CHECKING:
        # SQLAlchemy's stub types ``__table__`` as any FromClause (a class may be mapped onto a
        # subquery); every model here declares ``__tablename__``, so declarative makes a Table,
        # which ``insert()``/``update()`` accept. Declared for the type checker only, as
        # SQLAlchemy's own DeclarativeBase does.
        __table__: ClassVar[Table]


class Language(StrEnum):
    EN = "en"
    FR = "fr"


class GameStatus(StrEnum):
    LOBBY = "lobby"
    RUNNING = "running"
    ENDED = "ended"
    CANCELLED = "cancelled"


ACTIVE_STATUSES: tuple[str, ...] = (GameStatus.LOBBY.value, GameStatus.RUNNING.value)


class DeadlineStatus(StrEnum):
    OPEN = "open"
    DONE = "done"
    CANCELLED = "cancelled"


def _in(column: str, values: type[StrEnum]) -> str:
    return f"{column} IN ({', '.join(repr(v.value) for v in values)})"


_ACTIVE_SQL = "status IN ('lobby', 'running')"


def _game_fk() -> ForeignKey:
    return ForeignKey("games.id", ondelete="CASCADE")


class GuildSettings(Base):
    """A guild's settings. ``get_guild_settings`` returns a default (unsaved) one if none exists."""

    __tablename__ = "guild_settings"
    __table_args__ = (CheckConstraint(_in("language", Language), name="language"),)

    guild_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    language: Mapped[str] = mapped_column(String(2), default=Language.EN.value)
    moderator_role_id: Mapped[int | None] = mapped_column(BigInteger)
    #: the role a new lobby mentions once (``/settings lobby_role``; None: none)
    lobby_role_id: Mapped[int | None] = mapped_column(BigInteger)
    #: the channel where each moderator action is posted (``/settings mod_log``; None: none)
    mod_log_channel_id: Mapped[int | None] = mapped_column(BigInteger)
    #: the guild's defaults for new games, by kind: ``{"resistance": {"vote_hours": 48.0}}``
    #: (only the options it set; read through the game's options schema, bot/options.py)
    game_defaults: Mapped[dict[str, Any]] = mapped_column(default=dict)
    #: any member may open a game (and moderates the games they opened)
    members_host: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    #: IANA zone of the daily deadline time (``deadline_time`` option)
    timezone: Mapped[str] = mapped_column(String(64), default="UTC", server_default="UTC")
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)

    def defaults_for(self, kind: str) -> dict[str, Any]:
        """The guild's defaults for one game (only the options it set)."""
        return dict((self.game_defaults or {}).get(kind) or {})

    def set_defaults_for(self, kind: str, values: dict[str, Any]) -> None:
        """Replace one game's defaults (a new dict, so the JSON column is seen as changed)."""
        self.game_defaults = {**(self.game_defaults or {}), kind: dict(values)}


class Game(Base):
    """One game. ``state`` is the rules engine's ``to_dict()``; ``version`` guards its saves.

    At most one lobby/running game per place: per channel for games without a thread, per
    thread (forum post) for the others. The repository checks it, two partial unique indexes
    enforce it against races.
    """

    __tablename__ = "games"
    __table_args__ = (
        CheckConstraint(_in("status", GameStatus), name="status"),
        CheckConstraint(_in("lang", Language), name="lang"),
        Index("ix_games_channel_id_status", "channel_id", "status"),
        Index("ix_games_guild_id", "guild_id"),
        Index(
            "uq_games_active_channel",
            "channel_id",
            unique=True,
            sqlite_where=text(f"thread_id IS NULL AND {_ACTIVE_SQL}"),
            postgresql_where=text(f"thread_id IS NULL AND {_ACTIVE_SQL}"),
        ),
        Index(
            "uq_games_active_thread",
            "thread_id",
            unique=True,
            sqlite_where=text(f"thread_id IS NOT NULL AND {_ACTIVE_SQL}"),
            postgresql_where=text(f"thread_id IS NOT NULL AND {_ACTIVE_SQL}"),
        ),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    #: the game's kind, one of the registered games' (bot.plugins: the application checks it,
    #: so a game added as a plugin needs no migration)
    kind: Mapped[str] = mapped_column(String(16))
    guild_id: Mapped[int] = mapped_column(BigInteger)
    channel_id: Mapped[int] = mapped_column(BigInteger)
    thread_id: Mapped[int | None] = mapped_column(BigInteger)
    status: Mapped[str] = mapped_column(String(16), default=GameStatus.LOBBY.value)
    options: Mapped[dict[str, Any]] = mapped_column(default=dict)
    created_by: Mapped[int] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column()
    ended_at: Mapped[datetime | None] = mapped_column()
    state: Mapped[dict[str, Any] | None] = mapped_column()
    version: Mapped[int] = mapped_column(Integer, default=0)
    lang: Mapped[str] = mapped_column(String(2), default=Language.EN.value)

    @property
    def place_id(self) -> int:
        """Where the game lives: its thread (forum post) if it has one, else its channel."""
        return self.thread_id if self.thread_id is not None else self.channel_id


class Player(Base):
    __tablename__ = "players"
    __table_args__ = (
        UniqueConstraint("game_id", "user_id"),
        CheckConstraint(_in("locale", Language), name="locale"),
        Index("ix_players_user_id", "user_id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[int] = mapped_column(_game_fk())
    user_id: Mapped[int] = mapped_column(BigInteger)
    display_name: Mapped[str] = mapped_column(String(100))
    seat: Mapped[int | None] = mapped_column(Integer)
    role: Mapped[str | None] = mapped_column(String(32))
    locale: Mapped[str] = mapped_column(String(2), default=Language.EN.value)
    dm_failed: Mapped[bool] = mapped_column(Boolean, default=False)
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    joined_at: Mapped[datetime] = mapped_column(default=utcnow)
    #: the deadlines this player let pass in a row without answering (a vote, a mission
    #: choice, a secret choice, a turn); an answer sets it back to 0 (the replacement list)
    missed: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    #: every deadline this player let pass, in a row or not (``/<game> activity``)
    missed_total: Mapped[int] = mapped_column(Integer, default=0, server_default="0")


class Activity(Base):
    """A player's posts in the game's channel or forum post (bot/activity.py writes them in
    batches): in all, on ``day`` (a date of the server's zone) and in the round ``round_key``
    (the step open when they posted), and the last post's time. Authors and times only."""

    __tablename__ = "activity"

    game_id: Mapped[int] = mapped_column(_game_fk(), primary_key=True)
    user_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    posts: Mapped[int] = mapped_column(Integer, default=0)
    day: Mapped[str] = mapped_column(String(10), default="")
    day_posts: Mapped[int] = mapped_column(Integer, default=0)
    round_key: Mapped[str] = mapped_column(String(32), default="")
    round_posts: Mapped[int] = mapped_column(Integer, default=0)
    last_at: Mapped[datetime] = mapped_column()


class ModAction(Base):
    """One moderator action (bot/modlog.py): who, when, what (``action`` and its ``detail``:
    names, hours; never a role or a hand), why (the moderator's ``reason``)."""

    __tablename__ = "mod_actions"
    __table_args__ = (Index("ix_mod_actions_game_id", "game_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    guild_id: Mapped[int] = mapped_column(BigInteger)
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id", ondelete="SET NULL"))
    at: Mapped[datetime] = mapped_column(default=utcnow)
    moderator_id: Mapped[int] = mapped_column(BigInteger)
    moderator_name: Mapped[str] = mapped_column(String(100))
    action: Mapped[str] = mapped_column(String(32))
    detail: Mapped[dict[str, Any]] = mapped_column(default=dict)
    reason: Mapped[str | None] = mapped_column(Text)


class Volunteer(Base):
    """A member on a game's replacement list: offered the seat of a player who misses too many
    deadlines in a row (``replace_after``), in the order they volunteered."""

    __tablename__ = "volunteers"

    game_id: Mapped[int] = mapped_column(_game_fk(), primary_key=True)
    user_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    display_name: Mapped[str] = mapped_column(String(100))
    locale: Mapped[str] = mapped_column(String(2), default=Language.EN.value)
    joined_at: Mapped[datetime] = mapped_column(default=utcnow)


class Vote(Base):
    """One player's current choice for one question. ``seq`` counts the changes (1 = first)."""

    __tablename__ = "votes"
    __table_args__ = (UniqueConstraint("game_id", "round_key", "kind", "user_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[int] = mapped_column(_game_fk())
    round_key: Mapped[str] = mapped_column(String(32))
    kind: Mapped[str] = mapped_column(String(32))
    user_id: Mapped[int] = mapped_column(BigInteger)
    value: Mapped[str] = mapped_column(String(100))
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)
    seq: Mapped[int] = mapped_column(Integer, default=1)


class Event(Base):
    """Append-only game history. ``private_to``: only that user may see the event."""

    __tablename__ = "events"
    __table_args__ = (Index("ix_events_game_id", "game_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[int] = mapped_column(_game_fk())
    at: Mapped[datetime] = mapped_column(default=utcnow)
    actor_id: Mapped[int | None] = mapped_column(BigInteger)
    kind: Mapped[str] = mapped_column(String(64))
    payload: Mapped[dict[str, Any]] = mapped_column(default=dict)
    private_to: Mapped[int | None] = mapped_column(BigInteger)


class Deadline(Base):
    """A durable deadline: the scheduler's truth. ``guild_id`` decides which process owns it."""

    __tablename__ = "deadlines"
    __table_args__ = (
        CheckConstraint(_in("status", DeadlineStatus), name="status"),
        Index("ix_deadlines_status_due_at", "status", "due_at"),
        Index("ix_deadlines_game_id", "game_id"),
        # a game's earliest open deadline of a kind, in one seek (the vote path's heads)
        Index("ix_deadlines_game_id_kind_status", "game_id", "kind", "status", "due_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[int] = mapped_column(_game_fk())
    guild_id: Mapped[int] = mapped_column(BigInteger)
    kind: Mapped[str] = mapped_column(String(32))
    due_at: Mapped[datetime] = mapped_column()
    status: Mapped[str] = mapped_column(String(16), default=DeadlineStatus.OPEN.value)
    payload: Mapped[dict[str, Any]] = mapped_column(default=dict)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    resolved_at: Mapped[datetime | None] = mapped_column()


class Message(Base):
    """A Discord message the bot edits later. ``user_id`` is 0 for channel messages."""

    __tablename__ = "messages"
    __table_args__ = (UniqueConstraint("game_id", "purpose", "user_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[int] = mapped_column(_game_fk())
    purpose: Mapped[str] = mapped_column(String(64))
    channel_id: Mapped[int] = mapped_column(BigInteger)
    message_id: Mapped[int] = mapped_column(BigInteger)
    user_id: Mapped[int] = mapped_column(BigInteger, default=0)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class HandledInteraction(Base):
    """An interaction (a command, a click) whose action committed, with the answer it got:
    Discord may deliver the same INTERACTION_CREATE again (after a RESUME), and a redelivered
    one is answered as the first was, without acting again. Kept a few days."""

    __tablename__ = "handled_interactions"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id", ondelete="SET NULL"))
    reply: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=utcnow, index=True)


class BotState(Base):
    """Small facts the bot keeps about itself (e.g. the hash of the commands last synced)."""

    __tablename__ = "bot_state"

    key: Mapped[str] = mapped_column(String(200), primary_key=True)
    value: Mapped[str] = mapped_column(Text)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class EffectStatus(StrEnum):
    PENDING = "pending"
    DONE = "done"
    FAILED = "failed"  # a permanent refusal (403, 404, closed DMs...) or out of attempts
    DROPPED = "dropped"  # the game ended before it was delivered (cancelled, channel gone)


class Outbox(Base):
    """One Discord side effect of a game action (``bot.effects``), written in the same
    transaction as the state change; ``bot.dispatcher`` delivers a game's rows in ``seq``
    order. ``key`` is the idempotency key (the messages' nonces derive from it);
    ``parts_done`` counts the messages of a split post already sent; a process holds a row
    it is delivering until ``claimed_until``."""

    __tablename__ = "outbox"
    __table_args__ = (
        CheckConstraint(_in("status", EffectStatus), name="status"),
        UniqueConstraint("game_id", "seq"),
        UniqueConstraint("key"),
        Index("ix_outbox_status_game_id", "status", "game_id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[int] = mapped_column(_game_fk())
    guild_id: Mapped[int] = mapped_column(BigInteger)
    seq: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(16))
    payload: Mapped[dict[str, Any]] = mapped_column(default=dict)
    key: Mapped[str] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(16), default=EffectStatus.PENDING.value)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    parts_done: Mapped[int] = mapped_column(Integer, default=0)
    next_try_at: Mapped[datetime] = mapped_column(default=utcnow)
    claimed_by: Mapped[str | None] = mapped_column(String(64))
    claimed_until: Mapped[datetime | None] = mapped_column()
    discord_id: Mapped[int | None] = mapped_column(BigInteger)
    last_error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    done_at: Mapped[datetime | None] = mapped_column()


class MemberOverwrite:
    """A member's own overwrite in one channel of a game, as it was before the bot changed it
    (``present`` False: there was none): what the bot puts back."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[int] = mapped_column(_game_fk())
    channel_id: Mapped[int] = mapped_column(BigInteger)
    user_id: Mapped[int] = mapped_column(BigInteger)
    present: Mapped[bool] = mapped_column(Boolean, default=False)
    allow: Mapped[int] = mapped_column(BigInteger, default=0)
    deny: Mapped[int] = mapped_column(BigInteger, default=0)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class SavedOverwrite(MemberOverwrite, Base):
    """A player's member overwrite in a text channel as it was before the bot closed the
    debate (``present`` False: there was none), restored exactly when the debate reopens."""

    __tablename__ = "saved_overwrites"
    __table_args__ = (UniqueConstraint("game_id", "channel_id", "user_id"),)


class SilencedMember(MemberOverwrite, Base):
    """A member's own overwrite in a text channel as it was before the game silenced them
    (``bot.effects.Silence``; ``present`` False: there was none), restored exactly when they
    may post again. Kept apart from the debate's :class:`SavedOverwrite`: a member silenced
    during a closed debate keeps the debate's record of what was there first."""

    __tablename__ = "silenced_members"
    __table_args__ = (UniqueConstraint("game_id", "channel_id", "user_id"),)
