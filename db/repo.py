"""Repositories: small async functions over an ``AsyncSession``.

The caller owns the transaction (one per user action)::

    async with sessions.begin() as s:
        game = await repo.get_game(s, game_id, for_update=True)
        ...

Timestamps: every function that writes one takes ``at`` (an aware datetime, normally the app's
clock); without it the current UTC time is used.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import (
    ColumnElement,
    CursorResult,
    Result,
    and_,
    bindparam,
    delete,
    func,
    or_,
    select,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm.attributes import set_committed_value

from db.models import (
    ACTIVE_STATUSES,
    Activity,
    BotState,
    Deadline,
    DeadlineStatus,
    EffectStatus,
    Event,
    Game,
    GameStatus,
    GuildSettings,
    HandledInteraction,
    Language,
    Message,
    ModAction,
    Outbox,
    Player,
    SavedOverwrite,
    SilencedMember,
    Volunteer,
    Vote,
)
from db.types import utcnow


class StaleState(Exception):
    """Another writer saved the game's state since this copy was loaded."""

    def __init__(self, game_id: int, version: int) -> None:
        super().__init__(f"game {game_id}: state version {version} is stale")
        self.game_id = game_id
        self.version = version


class ChannelBusy(Exception):
    """The channel or thread already holds a game in the lobby or running."""

    def __init__(self, place_id: int, game_id: int | None) -> None:
        super().__init__(f"channel {place_id} already holds game {game_id}")
        self.place_id = place_id
        self.game_id = game_id


def _now(at: datetime | None) -> datetime:
    return utcnow() if at is None else at


def _rowcount(result: Result[Any]) -> int:
    """The rows an UPDATE or DELETE matched. SQLAlchemy's stub types ``execute`` as a Result;
    a DML statement without RETURNING always gives a CursorResult, which counts them."""
    assert isinstance(result, CursorResult)
    return result.rowcount


def dialect_insert(s: AsyncSession, model: type[Any]) -> sqlite.Insert | postgresql.Insert:
    """The dialect's INSERT (with ``on_conflict_do_update``): sqlite or postgresql."""
    name = s.get_bind().dialect.name
    if name == "sqlite":
        return sqlite.insert(model)
    if name == "postgresql":
        return postgresql.insert(model)
    raise NotImplementedError(f"upsert is not implemented for {name}")


# -- guild settings --------------------------------------------------------------------------


async def get_guild_settings(s: AsyncSession, guild_id: int) -> GuildSettings:
    """The guild's settings; if it has none, a default row that is not saved (transient)."""
    settings = await s.get(GuildSettings, guild_id)
    if settings is not None:
        return settings
    return GuildSettings(
        guild_id=guild_id,
        language=Language.EN.value,
        moderator_role_id=None,
        game_defaults={},
        members_host=False,
        timezone="UTC",
    )


async def save_guild_settings(
    s: AsyncSession, settings: GuildSettings, *, at: datetime | None = None
) -> GuildSettings:
    """Insert or update ``settings``; returns the instance attached to ``s``."""
    settings.updated_at = _now(at)
    merged = await s.merge(settings)
    await s.flush()
    return merged


# -- the bot's own state ---------------------------------------------------------------------


async def get_bot_state(s: AsyncSession, key: str) -> str | None:
    row = await s.get(BotState, key)
    return None if row is None else row.value


async def set_bot_state(
    s: AsyncSession, key: str, value: str, *, at: datetime | None = None
) -> None:
    await s.merge(BotState(key=key, value=value, updated_at=_now(at)))
    await s.flush()


async def delete_bot_state(s: AsyncSession, key: str) -> None:
    await s.execute(delete(BotState).where(BotState.key == key))


# -- interactions already handled ------------------------------------------------------------


async def handled_interaction(s: AsyncSession, interaction_id: int) -> str | None:
    """The answer of an interaction whose action committed, or None."""
    stmt = select(HandledInteraction.reply).where(HandledInteraction.id == interaction_id)
    reply: str | None = (await s.execute(stmt)).scalar_one_or_none()
    return reply


async def record_interaction(
    s: AsyncSession,
    interaction_id: int,
    reply: str,
    *,
    game_id: int | None = None,
    at: datetime | None = None,
) -> bool:
    """Keep that this interaction acted (in the action's transaction); False if it already
    had (another delivery of it committed first)."""
    ins = (
        dialect_insert(s, HandledInteraction)
        .values(id=interaction_id, game_id=game_id, reply=reply, created_at=_now(at))
        .on_conflict_do_nothing(index_elements=[HandledInteraction.id])
    )
    result = await s.execute(ins)
    return bool(getattr(result, "rowcount", 1))


async def prune_interactions(s: AsyncSession, before: datetime) -> int:
    """Forget the interactions handled before ``before``; how many."""
    result = await s.execute(
        delete(HandledInteraction).where(HandledInteraction.created_at < before)
    )
    return int(getattr(result, "rowcount", 0) or 0)


# -- games -----------------------------------------------------------------------------------


def _in_place(place_id: int) -> ColumnElement[bool]:
    """Games located at ``place_id``: its thread, or its channel when it has no thread."""
    return or_(
        Game.thread_id == place_id,
        and_(Game.channel_id == place_id, Game.thread_id.is_(None)),
    )


async def active_game_in_channel(s: AsyncSession, channel_id: int) -> Game | None:
    """The lobby/running game in this channel or thread (forum post), if any."""
    stmt = (
        select(Game)
        .where(_in_place(channel_id), Game.status.in_(ACTIVE_STATUSES))
        .order_by(Game.id)
        .limit(1)
    )
    return (await s.scalars(stmt)).first()


async def active_games_at(s: AsyncSession, place_id: int) -> list[Game]:
    """Lobby/running games living in the channel ``place_id`` (also in its threads and forum
    posts) or in the thread ``place_id``; by id."""
    stmt = (
        select(Game)
        .where(
            or_(Game.channel_id == place_id, Game.thread_id == place_id),
            Game.status.in_(ACTIVE_STATUSES),
        )
        .order_by(Game.id)
    )
    return list((await s.scalars(stmt)).all())


async def active_game_places(s: AsyncSession) -> list[tuple[int, str, int, int]]:
    """(id, kind, guild, place) of every lobby/running game, without their states; the place
    is where the game lives: its forum post if it has one, else its channel or thread."""
    stmt = (
        select(Game.id, Game.kind, Game.guild_id, Game.channel_id, Game.thread_id)
        .where(Game.status.in_(ACTIVE_STATUSES))
        .order_by(Game.id)
    )
    return [(i, k, g, c if t is None else t) for i, k, g, c, t in (await s.execute(stmt)).all()]


async def count_open_games_by(s: AsyncSession, guild_id: int, user_id: int) -> int:
    """How many lobby/running games ``user_id`` opened in the guild."""
    stmt = select(func.count()).where(
        Game.guild_id == guild_id, Game.created_by == user_id, Game.status.in_(ACTIVE_STATUSES)
    )
    return int((await s.execute(stmt)).scalar_one())


async def create_game(
    s: AsyncSession,
    *,
    kind: str,
    guild_id: int,
    channel_id: int,
    created_by: int,
    thread_id: int | None = None,
    options: dict[str, Any] | None = None,
    lang: str | None = None,
    at: datetime | None = None,
) -> Game:
    """A new game in the lobby. ``lang`` defaults to the guild's language.

    Raises :class:`ChannelBusy` if the place (thread, else channel) holds an active game; the
    check is backed by a partial unique index, so a concurrent creation fails the same way
    (the caller's transaction stays usable: the insert runs in a savepoint).
    """
    place_id = thread_id if thread_id is not None else channel_id
    existing = await active_game_in_channel(s, place_id)
    if existing is not None:
        raise ChannelBusy(place_id, existing.id)
    if lang is None:
        lang = (await get_guild_settings(s, guild_id)).language
    game = Game(
        kind=kind,
        guild_id=guild_id,
        channel_id=channel_id,
        thread_id=thread_id,
        status=GameStatus.LOBBY.value,
        options=dict(options or {}),
        created_by=created_by,
        created_at=_now(at),
        state=None,
        version=0,
        lang=lang,
    )
    try:
        async with s.begin_nested():
            s.add(game)
    except IntegrityError as e:
        raise ChannelBusy(place_id, None) from e
    return game


async def last_game_in_place(s: AsyncSession, place_id: int, kind: str) -> Game | None:
    """The most recent game of ``kind`` in this channel or thread, whatever its status."""
    stmt = select(Game).where(_in_place(place_id), Game.kind == kind).order_by(Game.id.desc())
    return (await s.scalars(stmt.limit(1))).first()


async def get_game(s: AsyncSession, game_id: int, *, for_update: bool = False) -> Game | None:
    """The game; ``for_update`` locks its row until the transaction ends (PostgreSQL;
    SQLite transactions already hold the database's write lock) and reloads its columns."""
    stmt = select(Game).where(Game.id == game_id)
    if for_update:
        stmt = stmt.with_for_update().execution_options(populate_existing=True)
    return (await s.scalars(stmt)).first()


async def save_state(s: AsyncSession, game: Game, state: dict[str, Any]) -> int:
    """Save the engine's state, bumping ``game.version``; returns the new version.

    ``UPDATE ... WHERE version = <the version this copy was loaded with>``: raises
    :class:`StaleState` if another writer saved in between (roll back and retry the action).
    """
    old = game.version
    result = await s.execute(
        update(Game)
        .where(Game.id == game.id, Game.version == old)
        .values(state=state, version=old + 1)
        .execution_options(synchronize_session=False)
    )
    if _rowcount(result) != 1:
        raise StaleState(game.id, old)
    set_committed_value(game, "state", state)
    set_committed_value(game, "version", old + 1)
    return old + 1


async def running_games(
    s: AsyncSession,
    guild_ids: Iterable[int] | None = None,
    *,
    statuses: Sequence[str] = (GameStatus.RUNNING.value,),
) -> list[Game]:
    """Games in ``statuses`` (default: running), optionally only in ``guild_ids``; by id."""
    stmt = select(Game).where(Game.status.in_(statuses)).order_by(Game.id)
    if guild_ids is not None:
        stmt = stmt.where(Game.guild_id.in_(list(guild_ids)))
    return list((await s.scalars(stmt)).all())


async def set_status(
    s: AsyncSession, game: Game, status: str, *, at: datetime | None = None
) -> None:
    """Change the game's status; sets ``started_at`` / ``ended_at`` when it starts / ends. An
    end also drops what the game kept in ``bot_state`` while it ran (its keys
    ``<kind>:<what>:<game id>``, e.g. a leader's team picked and not proposed)."""
    now = _now(at)
    game.status = status
    if status == GameStatus.RUNNING.value and game.started_at is None:
        game.started_at = now
    if status in (GameStatus.ENDED.value, GameStatus.CANCELLED.value):
        if game.ended_at is None:
            game.ended_at = now
        await s.execute(
            delete(BotState).where(
                BotState.key.startswith(f"{game.kind}:", autoescape=True),
                BotState.key.endswith(f":{game.id}", autoescape=True),
            )
        )
    await s.flush()


# -- players ---------------------------------------------------------------------------------


async def add_player(
    s: AsyncSession,
    game_id: int,
    user_id: int,
    display_name: str,
    *,
    locale: str = Language.EN.value,
    seat: int | None = None,
    role: str | None = None,
    at: datetime | None = None,
) -> Player:
    """Add a player; a player who had left (inactive) comes back active with the new data."""
    existing = await player(s, game_id, user_id)
    if existing is not None:
        existing.display_name = display_name
        existing.locale = locale
        existing.active = True
        if seat is not None:
            existing.seat = seat
        if role is not None:
            existing.role = role
        await s.flush()
        return existing
    new = Player(
        game_id=game_id,
        user_id=user_id,
        display_name=display_name,
        seat=seat,
        role=role,
        locale=locale,
        dm_failed=False,
        active=True,
        joined_at=_now(at),
    )
    s.add(new)
    await s.flush()
    return new


async def remove_player(s: AsyncSession, game_id: int, user_id: int) -> bool:
    """Delete the player's row (lobby); returns whether there was one."""
    result = await s.execute(
        delete(Player).where(Player.game_id == game_id, Player.user_id == user_id)
    )
    return bool(_rowcount(result))


async def deactivate_player(s: AsyncSession, game_id: int, user_id: int) -> bool:
    """Mark the player inactive (substituted out, or left a running game)."""
    result = await s.execute(
        update(Player)
        .where(Player.game_id == game_id, Player.user_id == user_id, Player.active.is_(True))
        .values(active=False)
        .execution_options(synchronize_session="fetch")
    )
    return bool(_rowcount(result))


async def set_player_locale(s: AsyncSession, game_id: int, user_id: int, locale: str) -> bool:
    """Remember the language the player's Discord client uses (for later DMs)."""
    result = await s.execute(
        update(Player)
        .where(Player.game_id == game_id, Player.user_id == user_id, Player.locale != locale)
        .values(locale=locale)
        .execution_options(synchronize_session=False)
    )
    return bool(_rowcount(result))


async def players(s: AsyncSession, game_id: int, active_only: bool = True) -> list[Player]:
    """The game's players by seat (unseated last), then by joining order."""
    stmt = select(Player).where(Player.game_id == game_id)
    if active_only:
        stmt = stmt.where(Player.active.is_(True))
    stmt = stmt.order_by(Player.seat.is_(None), Player.seat, Player.joined_at, Player.id)
    return list((await s.scalars(stmt)).all())


# -- the replacement list --------------------------------------------------------------------


async def volunteers(s: AsyncSession, game_id: int) -> list[Volunteer]:
    """The game's replacement list, in the order they volunteered."""
    stmt = (
        select(Volunteer)
        .where(Volunteer.game_id == game_id)
        .order_by(Volunteer.joined_at, Volunteer.user_id)
    )
    return list((await s.scalars(stmt)).all())


async def volunteer(s: AsyncSession, game_id: int, user_id: int) -> Volunteer | None:
    return await s.get(Volunteer, (game_id, user_id))


async def add_volunteer(
    s: AsyncSession, game_id: int, user_id: int, name: str, locale: str, *, at: datetime | None
) -> Volunteer:
    row = Volunteer(
        game_id=game_id, user_id=user_id, display_name=name, locale=locale, joined_at=_now(at)
    )
    s.add(row)
    await s.flush()
    return row


async def remove_volunteer(s: AsyncSession, game_id: int, user_id: int) -> bool:
    result = await s.execute(
        delete(Volunteer).where(Volunteer.game_id == game_id, Volunteer.user_id == user_id)
    )
    return bool(getattr(result, "rowcount", 0))


async def count_misses(
    s: AsyncSession, game_id: int, missed: Iterable[int], answered: Iterable[int]
) -> dict[int, int]:
    """One deadline passed: those who did not answer it missed one more in a row, those who
    did start again from 0. The players' counts after it, by user id."""
    missed, answered = sorted(set(missed)), sorted(set(answered) - set(missed))
    if answered:
        await s.execute(
            update(Player)
            .where(Player.game_id == game_id, Player.user_id.in_(answered))
            .values(missed=0)
        )
    if missed:
        await s.execute(
            update(Player)
            .where(Player.game_id == game_id, Player.user_id.in_(missed), Player.active.is_(True))
            .values(missed=Player.missed + 1, missed_total=Player.missed_total + 1)
        )
    stmt = select(Player.user_id, Player.missed).where(
        Player.game_id == game_id, Player.active.is_(True)
    )
    return {uid: n for uid, n in (await s.execute(stmt)).all()}


async def player(s: AsyncSession, game_id: int, user_id: int) -> Player | None:
    """The player's row (active or not)."""
    stmt = select(Player).where(Player.game_id == game_id, Player.user_id == user_id)
    return (await s.scalars(stmt)).first()


async def games_with_open_deadline(
    s: AsyncSession, kind: str, deadline_kinds: Sequence[str]
) -> list[Game]:
    """Running games of ``kind`` with an open deadline of one of ``deadline_kinds``; by id."""
    has_deadline = (
        select(Deadline.id)
        .where(
            Deadline.game_id == Game.id,
            Deadline.status == DeadlineStatus.OPEN.value,
            Deadline.kind.in_(deadline_kinds),
        )
        .exists()
    )
    stmt = (
        select(Game)
        .where(Game.kind == kind, Game.status == GameStatus.RUNNING.value, has_deadline)
        .order_by(Game.id)
    )
    return list((await s.scalars(stmt)).all())


async def soonest_open_deadlines(s: AsyncSession, kind: str, limit: int) -> list[tuple[int, int]]:
    """``(game_id, guild_id)`` of the open deadlines of ``kind``, the soonest due first, at most
    ``limit`` (the ``(status, due_at)`` index)."""
    stmt = (
        select(Deadline.game_id, Deadline.guild_id)
        .where(Deadline.status == DeadlineStatus.OPEN.value, Deadline.kind == kind)
        .order_by(Deadline.due_at)
        .limit(limit)
    )
    return [(game_id, guild_id) for game_id, guild_id in (await s.execute(stmt)).all()]


async def games_of_user(
    s: AsyncSession, user_id: int, statuses: Sequence[str] = ACTIVE_STATUSES
) -> list[Game]:
    """Games (default: lobby or running) where the user is an active player; by id."""
    stmt = (
        select(Game)
        .join(Player, Player.game_id == Game.id)
        .where(Player.user_id == user_id, Player.active.is_(True), Game.status.in_(statuses))
        .order_by(Game.id)
    )
    return list((await s.scalars(stmt)).all())


# -- activity (bot/activity.py) ---------------------------------------------------------------


async def games_played_at(s: AsyncSession, places: Iterable[int], since: datetime) -> list[Game]:
    """The games living at any of ``places`` (a forum post, else a channel) that started and
    were still running at ``since`` or later; by id."""
    ids = sorted(set(places))
    if not ids:
        return []
    stmt = (
        select(Game)
        .where(
            Game.started_at.is_not(None),
            or_(Game.ended_at.is_(None), Game.ended_at >= since),
            or_(
                Game.thread_id.in_(ids),
                and_(Game.channel_id.in_(ids), Game.thread_id.is_(None)),
            ),
        )
        .order_by(Game.id)
    )
    return list((await s.scalars(stmt)).all())


async def players_of_games(s: AsyncSession, game_ids: Iterable[int]) -> list[Player]:
    """The active players of the games ``game_ids``."""
    stmt = select(Player).where(Player.game_id.in_(sorted(set(game_ids))), Player.active.is_(True))
    return list((await s.scalars(stmt)).all())


async def activity_of(s: AsyncSession, game_ids: Iterable[int]) -> list[Activity]:
    """What is written of the posts in the games ``game_ids`` (one row per poster)."""
    stmt = select(Activity).where(Activity.game_id.in_(sorted(set(game_ids))))
    return list((await s.scalars(stmt)).all())


async def open_deadlines_of(s: AsyncSession, game_ids: Iterable[int]) -> list[Deadline]:
    """The open deadlines of the games ``game_ids``, soonest first."""
    stmt = (
        select(Deadline)
        .where(
            Deadline.game_id.in_(sorted(set(game_ids))),
            Deadline.status == DeadlineStatus.OPEN.value,
        )
        .order_by(Deadline.due_at, Deadline.id)
    )
    return list((await s.scalars(stmt)).all())


async def zones_of(s: AsyncSession, guild_ids: Iterable[int]) -> dict[int, str]:
    """The time zone of each of ``guild_ids`` that set one (the others are UTC)."""
    stmt = select(GuildSettings.guild_id, GuildSettings.timezone).where(
        GuildSettings.guild_id.in_(sorted(set(guild_ids)))
    )
    return {g: z for g, z in (await s.execute(stmt)).all()}


# -- the moderators' log (bot/modlog.py) ----------------------------------------------------


async def add_mod_action(s: AsyncSession, **values: Any) -> ModAction:
    row = ModAction(**values)
    s.add(row)
    await s.flush()
    return row


async def mod_actions(s: AsyncSession, game_id: int) -> list[ModAction]:
    """A game's moderator actions, in order."""
    stmt = select(ModAction).where(ModAction.game_id == game_id).order_by(ModAction.id)
    return list((await s.scalars(stmt)).all())


# -- votes -----------------------------------------------------------------------------------


async def record_vote(
    s: AsyncSession,
    game_id: int,
    round_key: str,
    kind: str,
    user_id: int,
    value: str,
    *,
    at: datetime | None = None,
) -> int:
    """Record (or change) a vote in one UPSERT; returns its ``seq`` (1 for the first, +1 for
    every change). Concurrent clicks never make two rows: the last committed one wins."""
    ins = dialect_insert(s, Vote)
    stmt = ins.values(
        game_id=game_id,
        round_key=round_key,
        kind=kind,
        user_id=user_id,
        value=value,
        updated_at=_now(at),
        seq=1,
    )
    upsert = stmt.on_conflict_do_update(
        index_elements=[Vote.game_id, Vote.round_key, Vote.kind, Vote.user_id],
        set_={
            "value": stmt.excluded.value,
            "updated_at": stmt.excluded.updated_at,
            "seq": Vote.seq + 1,
        },
    ).returning(Vote.seq)
    seq: int = (await s.execute(upsert)).scalar_one()
    return seq


_VOTE_UPSERTS: dict[str, Any] = {}


def _vote_upsert(s: AsyncSession) -> Any:
    """The votes table's UPSERT for executemany, built once per dialect (a statement rebuilt
    per click cost more than running it)."""
    name = s.get_bind().dialect.name
    stmt = _VOTE_UPSERTS.get(name)
    if stmt is None:
        table = Vote.__table__
        ins = (sqlite.insert if name == "sqlite" else postgresql.insert)(table)
        stmt = ins.on_conflict_do_update(
            index_elements=[table.c.game_id, table.c.round_key, table.c.kind, table.c.user_id],
            set_={
                "value": ins.excluded.value,
                "updated_at": ins.excluded.updated_at,
                "seq": table.c.seq + 1,
            },
        )
        _VOTE_UPSERTS[name] = stmt
    return stmt


async def record_votes(
    s: AsyncSession,
    votes: Sequence[tuple[int, str, str, int, str]],
    *,
    at: datetime | None = None,
) -> None:
    """Record (or change) many votes ``(game_id, round_key, kind, user_id, value)`` in one
    executemany UPSERT (group commit of several clicks). At most one per question and player:
    the caller keeps the last click of each."""
    if not votes:
        return
    now = _now(at)
    await s.execute(
        _vote_upsert(s),
        [
            {
                "game_id": g,
                "round_key": r,
                "kind": k,
                "user_id": u,
                "value": v,
                "updated_at": now,
                "seq": 1,
            }
            for g, r, k, u, v in votes
        ],
    )


_SET_LOCALE = (
    update(Player.__table__)
    .where(
        Player.__table__.c.game_id == bindparam("b_game"),
        Player.__table__.c.user_id == bindparam("b_user"),
        Player.__table__.c.locale != bindparam("b_locale"),
    )
    .values(locale=bindparam("b_locale"))
)


async def set_player_locales(s: AsyncSession, rows: Sequence[tuple[int, int, str]]) -> None:
    """:func:`set_player_locale` for many ``(game_id, user_id, locale)`` in one executemany
    (a row whose locale is already that one is not written)."""
    if rows:
        await s.execute(
            _SET_LOCALE, [{"b_game": g, "b_user": u, "b_locale": loc} for g, u, loc in rows]
        )


_G, _D, _V = Game.__table__, Deadline.__table__, Vote.__table__

# The group commit's reads, built once: a statement object executed again keeps its compiled
# form and cache key (building select(...).where(...in_(...)) per batch cost more than running it).
_LOCK_GAMES = (
    select(
        _G.c.id,
        _G.c.status,
        _G.c.version,
        _G.c.created_at,
        _G.c.guild_id,
        _G.c.options,
        select(func.min(_D.c.due_at))
        .where(
            _D.c.game_id == _G.c.id,
            _D.c.kind == bindparam("due_kind"),
            _D.c.status == DeadlineStatus.OPEN.value,
        )
        .scalar_subquery()
        .label("due_at"),
    )
    .where(_G.c.id.in_(bindparam("ids", expanding=True)))
    .order_by(_G.c.id)
    .with_for_update(of=_G)
)
_GAME_STATES = select(_G.c.id, _G.c.state).where(_G.c.id.in_(bindparam("ids", expanding=True)))
_P = Player.__table__
_BALLOTS_AND_LOCALES = (
    select(_P.c.game_id, _P.c.user_id, _P.c.locale, _V.c.round_key, _V.c.kind, _V.c.value)
    .select_from(_P.outerjoin(_V, and_(_V.c.game_id == _P.c.game_id, _V.c.user_id == _P.c.user_id)))
    .where(
        _P.c.game_id.in_(bindparam("games", expanding=True)),
        _P.c.user_id.in_(bindparam("users", expanding=True)),
    )
)


async def lock_games(
    s: AsyncSession, game_ids: Sequence[int], due_kind: str = ""
) -> dict[int, Any]:
    """The head of each game (id, status, version, created_at, guild_id, options, and
    ``due_at``: when its earliest open deadline of ``due_kind`` falls, or None; not the state),
    rows locked for update in id order (PostgreSQL; SQLite's write lock is already held)."""
    rows = await s.execute(_LOCK_GAMES, {"ids": sorted(game_ids), "due_kind": due_kind})
    return {row.id: row for row in rows.all()}


async def game_states(s: AsyncSession, game_ids: Sequence[int]) -> dict[int, Any]:
    """``{game_id: state}`` (the engine's dict, or None before the start)."""
    rows = await s.execute(_GAME_STATES, {"ids": sorted(game_ids)})
    return {gid: state for gid, state in rows.all()}


async def ballots_and_locales(
    s: AsyncSession, game_ids: Sequence[int], user_ids: Sequence[int]
) -> tuple[dict[tuple[int, str, str, int], str], dict[tuple[int, int], str]]:
    """Of these players in these games, in one statement: their votes
    ``{(game_id, round_key, kind, user_id): value}`` and their locales ``{(game_id, user_id):
    locale}``."""
    rows = await s.execute(
        _BALLOTS_AND_LOCALES,
        {"games": sorted(set(game_ids)), "users": sorted(set(user_ids))},
    )
    votes: dict[tuple[int, str, str, int], str] = {}
    locales: dict[tuple[int, int], str] = {}
    for game_id, user_id, locale, round_key, kind, value in rows.all():
        locales[(game_id, user_id)] = locale
        if round_key is not None:
            votes[(game_id, round_key, kind, user_id)] = value
    return votes, locales


async def votes_for(s: AsyncSession, game_id: int, round_key: str, kind: str) -> dict[int, str]:
    """``{user_id: value}`` for one question."""
    stmt = select(Vote.user_id, Vote.value).where(
        Vote.game_id == game_id, Vote.round_key == round_key, Vote.kind == kind
    )
    return {user_id: value for user_id, value in (await s.execute(stmt)).all()}


async def delete_votes(
    s: AsyncSession,
    game_id: int,
    round_key: str | None = None,
    kind: str | None = None,
    *,
    user_id: int | None = None,
) -> int:
    """Delete the matching votes; returns how many."""
    stmt = delete(Vote).where(Vote.game_id == game_id)
    if round_key is not None:
        stmt = stmt.where(Vote.round_key == round_key)
    if kind is not None:
        stmt = stmt.where(Vote.kind == kind)
    if user_id is not None:
        stmt = stmt.where(Vote.user_id == user_id)
    result = await s.execute(stmt)
    return int(_rowcount(result))


# -- events ----------------------------------------------------------------------------------


async def append_event(
    s: AsyncSession,
    game_id: int,
    kind: str,
    payload: dict[str, Any] | None = None,
    *,
    actor_id: int | None = None,
    private_to: int | None = None,
    at: datetime | None = None,
) -> Event:
    """Append one event to the game's history (append-only)."""
    event = Event(
        game_id=game_id,
        at=_now(at),
        actor_id=actor_id,
        kind=kind,
        payload=dict(payload or {}),
        private_to=private_to,
    )
    s.add(event)
    await s.flush()
    return event


async def events(
    s: AsyncSession,
    game_id: int,
    public_only: bool = False,
    *,
    visible_to: int | None = None,
    kinds: Sequence[str] | None = None,
) -> list[Event]:
    """The game's events in order. ``public_only``: without private ones; ``visible_to``: the
    public ones plus those private to that user."""
    stmt = select(Event).where(Event.game_id == game_id).order_by(Event.id)
    if public_only:
        stmt = stmt.where(Event.private_to.is_(None))
    elif visible_to is not None:
        stmt = stmt.where(or_(Event.private_to.is_(None), Event.private_to == visible_to))
    if kinds is not None:
        stmt = stmt.where(Event.kind.in_(kinds))
    return list((await s.scalars(stmt)).all())


# -- messages --------------------------------------------------------------------------------


async def set_message(
    s: AsyncSession,
    game_id: int,
    purpose: str,
    channel_id: int,
    message_id: int,
    user_id: int = 0,
    *,
    at: datetime | None = None,
) -> None:
    """Remember (or replace) the message for ``purpose`` (``user_id`` 0: a channel message)."""
    ins = dialect_insert(s, Message)
    stmt = ins.values(
        game_id=game_id,
        purpose=purpose,
        channel_id=channel_id,
        message_id=message_id,
        user_id=user_id,
        created_at=_now(at),
    )
    stmt = stmt.on_conflict_do_update(
        index_elements=[Message.game_id, Message.purpose, Message.user_id],
        set_={
            "channel_id": stmt.excluded.channel_id,
            "message_id": stmt.excluded.message_id,
            "created_at": stmt.excluded.created_at,
        },
    )
    await s.execute(stmt)


async def get_message(
    s: AsyncSession, game_id: int, purpose: str, user_id: int = 0
) -> Message | None:
    stmt = select(Message).where(
        Message.game_id == game_id, Message.purpose == purpose, Message.user_id == user_id
    )
    return (await s.scalars(stmt.execution_options(populate_existing=True))).first()


async def messages_under(s: AsyncSession, game_id: int, prefix: str) -> list[Message]:
    """The game's messages whose purpose starts with ``prefix`` (``thread:``), by id."""
    stmt = (
        select(Message)
        .where(Message.game_id == game_id, Message.purpose.startswith(prefix, autoescape=True))
        .order_by(Message.id)
    )
    return list((await s.scalars(stmt)).all())


async def messages_of(s: AsyncSession, game_id: int, purpose: str) -> list[Message]:
    """Every message for ``purpose`` (the channel one and the per-player DMs), by id."""
    stmt = (
        select(Message)
        .where(Message.game_id == game_id, Message.purpose == purpose)
        .order_by(Message.id)
        .execution_options(populate_existing=True)
    )
    return list((await s.scalars(stmt)).all())


async def delete_message(s: AsyncSession, game_id: int, purpose: str, user_id: int = 0) -> bool:
    result = await s.execute(
        delete(Message).where(
            Message.game_id == game_id, Message.purpose == purpose, Message.user_id == user_id
        )
    )
    return bool(_rowcount(result))


# -- deadlines (the scheduler in bot/scheduler.py drives these) ------------------------------


async def add_deadline(
    s: AsyncSession,
    *,
    game_id: int,
    guild_id: int,
    kind: str,
    due_at: datetime,
    payload: dict[str, Any] | None = None,
    at: datetime | None = None,
) -> Deadline:
    deadline = Deadline(
        game_id=game_id,
        guild_id=guild_id,
        kind=kind,
        due_at=due_at,
        status=DeadlineStatus.OPEN.value,
        payload=dict(payload or {}),
        created_at=_now(at),
    )
    s.add(deadline)
    await s.flush()
    return deadline


async def get_deadline(s: AsyncSession, deadline_id: int) -> Deadline | None:
    stmt = (
        select(Deadline).where(Deadline.id == deadline_id).execution_options(populate_existing=True)
    )
    return (await s.scalars(stmt)).first()


async def open_deadlines(
    s: AsyncSession,
    game_id: int | None = None,
    kinds: Sequence[str] | None = None,
    *,
    due_before: datetime | None = None,
) -> list[Deadline]:
    """Open deadlines (of a game, of some kinds, due at or before a time), soonest first."""
    stmt = select(Deadline).where(Deadline.status == DeadlineStatus.OPEN.value)
    if game_id is not None:
        stmt = stmt.where(Deadline.game_id == game_id)
    if kinds is not None:
        stmt = stmt.where(Deadline.kind.in_(kinds))
    if due_before is not None:
        stmt = stmt.where(Deadline.due_at <= due_before)
    stmt = stmt.order_by(Deadline.due_at, Deadline.id).execution_options(populate_existing=True)
    return list((await s.scalars(stmt)).all())


# -- outbox (bot.dispatcher delivers these) -------------------------------------------------


async def add_effects(
    s: AsyncSession,
    game_id: int,
    guild_id: int,
    effects: Sequence[tuple[str, dict[str, Any]]],
    *,
    at: datetime | None = None,
) -> list[Outbox]:
    """Append ``(kind, payload)`` effects to the game's outbox, numbered after its last one,
    in the caller's transaction (the one that changes the state they come from)."""
    if not effects:
        return []
    last = (
        await s.execute(select(func.max(Outbox.seq)).where(Outbox.game_id == game_id))
    ).scalar_one()
    now = _now(at)
    rows = []
    for n, (kind, payload) in enumerate(effects, (last or 0) + 1):
        row = Outbox(
            game_id=game_id,
            guild_id=guild_id,
            seq=n,
            kind=kind,
            payload=payload,
            key=f"g{game_id}:{n}:{uuid.uuid4().hex[:16]}",
            status=EffectStatus.PENDING.value,
            attempts=0,
            parts_done=0,
            next_try_at=utcnow(),  # delivery runs on real time, whatever the game's clock
            created_at=now,
        )
        s.add(row)
        rows.append(row)
    await s.flush()
    return rows


async def pending_effects(s: AsyncSession, game_id: int, limit: int = 50) -> list[Outbox]:
    """The game's pending effects in order (the first is the only one that may be delivered
    before the others)."""
    stmt = (
        select(Outbox)
        .where(Outbox.game_id == game_id, Outbox.status == EffectStatus.PENDING.value)
        .order_by(Outbox.seq)
        .limit(limit)
        .execution_options(populate_existing=True)
    )
    return list((await s.scalars(stmt)).all())


async def claim_effects(
    s: AsyncSession, effect_ids: Sequence[int], owner: str, now: datetime, until: datetime
) -> set[int]:
    """Take these pending effects for delivery until ``until``, except those another process
    holds; the ids taken."""
    if not effect_ids:
        return set()
    result = await s.execute(
        update(Outbox)
        .where(
            Outbox.id.in_(list(effect_ids)),
            Outbox.status == EffectStatus.PENDING.value,
            or_(
                Outbox.claimed_until.is_(None),
                Outbox.claimed_until <= now,
                Outbox.claimed_by == owner,
            ),
        )
        .values(claimed_by=owner, claimed_until=until)
        .returning(Outbox.id)
        .execution_options(synchronize_session=False)
    )
    return set(result.scalars().all())


async def release_effects(s: AsyncSession, effect_ids: Iterable[int], owner: str) -> None:
    """Give back ``owner``'s claims on these effects (taken, but not to be delivered now)."""
    ids = list(effect_ids)
    if ids:
        await s.execute(
            update(Outbox)
            .where(Outbox.id.in_(ids), Outbox.claimed_by == owner)
            .values(claimed_by=None, claimed_until=None)
            .execution_options(synchronize_session=False)
        )


async def update_effect(s: AsyncSession, effect_id: int, **values: Any) -> None:
    """Record what a delivery attempt did (status, attempts, next try, error, Discord id)."""
    await update_effects(s, [effect_id], **values)


async def update_effects(s: AsyncSession, effect_ids: Sequence[int], **values: Any) -> None:
    """The same values on several effects in one statement (edits superseded together)."""
    await s.execute(
        update(Outbox)
        .where(Outbox.id.in_(effect_ids))
        .values(**values)
        .execution_options(synchronize_session=False)
    )


async def pending_effect_games(s: AsyncSession) -> list[tuple[int, int]]:
    """``(game_id, guild_id)`` of every game with an effect still to deliver."""
    stmt = (
        select(Outbox.game_id, Outbox.guild_id)
        .where(Outbox.status == EffectStatus.PENDING.value)
        .group_by(Outbox.game_id, Outbox.guild_id)
        .order_by(Outbox.game_id)
    )
    return [(g, guild) for g, guild in (await s.execute(stmt)).all()]


async def count_pending_effects(s: AsyncSession) -> int:
    """How many effects the outbox still has to deliver (every game, every process)."""
    stmt = (
        select(func.count()).select_from(Outbox).where(Outbox.status == EffectStatus.PENDING.value)
    )
    return int((await s.execute(stmt)).scalar_one())


async def release_claims(s: AsyncSession, game_ids: Sequence[int]) -> None:
    """Forget the claims on these games' pending effects (their owner restarted)."""
    if game_ids:
        await s.execute(
            update(Outbox)
            .where(Outbox.game_id.in_(list(game_ids)), Outbox.status == EffectStatus.PENDING.value)
            .values(claimed_by=None, claimed_until=None)
            .execution_options(synchronize_session=False)
        )


async def drop_pending_effects(s: AsyncSession, game_id: int, *, at: datetime | None = None) -> int:
    """The game's undelivered effects will never be delivered (the game was cancelled, its
    channel deleted, the bot removed from its guild); returns how many."""
    result = await s.execute(
        update(Outbox)
        .where(Outbox.game_id == game_id, Outbox.status == EffectStatus.PENDING.value)
        .values(status=EffectStatus.DROPPED.value, done_at=_now(at))
        .execution_options(synchronize_session=False)
    )
    return _rowcount(result)


async def effects_of(
    s: AsyncSession, game_id: int, statuses: Sequence[str] | None = None
) -> list[Outbox]:
    """The game's outbox rows in order (optionally only those in ``statuses``)."""
    stmt = select(Outbox).where(Outbox.game_id == game_id).order_by(Outbox.seq)
    if statuses is not None:
        stmt = stmt.where(Outbox.status.in_(list(statuses)))
    return list((await s.scalars(stmt.execution_options(populate_existing=True))).all())


# -- members' overwrites saved while a debate is closed or a member is silenced ---------------

#: Where a member's overwrite is kept: a closed debate's (``SavedOverwrite``) or a silenced
#: member's (``SilencedMember``), two records that never stand for each other.
Kept = type[SavedOverwrite] | type[SilencedMember]


async def save_overwrite(
    s: AsyncSession,
    game_id: int,
    channel_id: int,
    user_id: int,
    *,
    present: bool,
    allow: int,
    deny: int,
    at: datetime | None = None,
    table: Kept = SavedOverwrite,
) -> bool:
    """Remember a member's overwrite as it is before the bot changes it, unless one is already
    remembered (a retried close must not take its own deny for the original). True if saved."""
    existing = await s.scalars(
        select(table).where(
            table.game_id == game_id, table.channel_id == channel_id, table.user_id == user_id
        )
    )
    if existing.first() is not None:
        return False
    s.add(
        table(
            game_id=game_id,
            channel_id=channel_id,
            user_id=user_id,
            present=present,
            allow=allow,
            deny=deny,
            created_at=_now(at),
        )
    )
    await s.flush()
    return True


async def saved_overwrites(
    s: AsyncSession, game_id: int, channel_id: int | None = None, *, table: Kept = SavedOverwrite
) -> list[Any]:
    """The overwrites kept for the game (in one channel), oldest first."""
    stmt = select(table).where(table.game_id == game_id)
    if channel_id is not None:
        stmt = stmt.where(table.channel_id == channel_id)
    return list((await s.scalars(stmt.order_by(table.id))).all())


async def forget_overwrite(s: AsyncSession, saved_id: int, *, table: Kept = SavedOverwrite) -> None:
    await s.execute(delete(table).where(table.id == saved_id))
