"""Prods, the inactivity ladder: a silent player is prodded by DM, then the moderator told.

A game's option ``prod_hours`` (0: off): a player who has not posted in the game's place for
that long while the game runs gets one DM prod; after a second silent period as long, the
game's moderator (who opened it) is told by DM that the player could be replaced, naming
``/<game> substitute`` and the replacement list. A post starts the ladder again. Nothing is sent
between 22:00 and 08:00 of the server's zone (``/settings timezone``): it waits for the morning.

Durable like any deadline: one ``<prefix>_prod`` deadline per running game, armed at the start
and after each run, its payload what was sent (who was prodded, who reported, when); its DMs
are outbox rows of the transaction that resolves it (:func:`due`).
"""

from __future__ import annotations

from datetime import datetime, time, timedelta
from typing import TYPE_CHECKING, Any

from sqlalchemy.ext.asyncio import AsyncSession

from bot import daily, posts
from bot.effects import DebateLock, DirectMessage
from bot.i18n import first_defined, game_name, number, t
from bot.names import shown
from db import repo
from db.models import Deadline, Game, Player

if TYPE_CHECKING:
    from bot.service.seats import Seats

#: The end of a prod's deadline kind: ``pl_prod``.
PROD_SUFFIX = "_prod"

#: Quiet hours, in the server's zone: no prod from the first hour to the second.
QUIET_FROM, QUIET_UNTIL = 22, 8

#: Who was sent what, by user id: (prodded, told).
Marks = tuple[dict[int, datetime], dict[int, datetime]]


def kind_of(seats: Seats) -> str:
    """The deadline kind of the game's prods (its first prefix: ``pl_prod``)."""
    return seats.offer_kind.removesuffix("_offer") + PROD_SUFFIX


def hours_of(game: Game) -> float:
    return float(game.options.get("prod_hours", 0) or 0)


def after_quiet(when: datetime, zone: str) -> datetime:
    """``when``, or 08:00 of the server's zone after it when it falls in the quiet hours."""
    where = daily.zone(zone)
    local = when.astimezone(where)
    if QUIET_UNTIL <= local.hour < QUIET_FROM:
        return when
    day = local.date() + timedelta(days=1 if local.hour >= QUIET_FROM else 0)
    return datetime.combine(day, time(QUIET_UNTIL), tzinfo=where).astimezone(when.tzinfo)


def marks(deadlines: list[Deadline]) -> Marks:
    """Who the game's open prod deadline says was prodded, and who was reported."""
    payload: dict[str, Any] = next(
        (d.payload or {} for d in deadlines if d.kind.endswith(PROD_SUFFIX)), {}
    )

    def sent(part: str) -> dict[int, datetime]:
        return {int(k): datetime.fromisoformat(v) for k, v in payload.get(part, {}).items()}

    return sent("prodded"), sent("told")


async def zone_of(s: AsyncSession, game: Game) -> str:
    return (await repo.get_guild_settings(s, game.guild_id)).timezone or daily.DEFAULT_ZONE


async def arm(
    seats: Seats,
    s: AsyncSession,
    game: Game,
    at: datetime | None = None,
    payload: dict[str, Any] | None = None,
) -> None:
    """Arm the game's next prod run (at ``at``, else one silent period from now), out of the
    quiet hours, in the caller's transaction. Nothing when prods are off."""
    hours = hours_of(game)
    scheduler = seats.app.scheduler
    if hours <= 0 or scheduler is None or game.status != "running":
        return
    due = after_quiet(at or seats.app.clock() + timedelta(hours=hours), await zone_of(s, game))
    await scheduler.add(
        s,
        game_id=game.id,
        guild_id=game.guild_id,
        kind=kind_of(seats),
        due_at=due,
        payload=payload or {},
    )


async def due(seats: Seats, s: AsyncSession, game: Game, deadline: Deadline) -> list[Any]:
    """The game's prod deadline fell due: prod who has been silent a period, tell the
    moderator of whom was prodded a period ago and stayed silent, arm the next run."""
    now = seats.app.clock()
    if after_quiet(now, await zone_of(s, game)) != now:
        await arm(seats, s, game, now, dict(deadline.payload or {}))
        return []
    period = timedelta(hours=hours_of(game))
    closed, reopened = await debate_state(s, game)
    if closed:  # a vote: the players cannot post, nobody is silent
        await arm(seats, s, game, now + period, dict(deadline.payload or {}))
        return []
    prodded, told = marks([deadline])
    players = await repo.players(s, game.id)
    last = await last_posts(seats, s, game, players)
    if reopened is not None:  # a silence counts from the debate's reopening
        last = {uid: max(at, reopened) for uid, at in last.items()}
    effects: list[Any] = []
    soonest = [now + period]
    for player in players:
        uid = player.user_id
        if uid in prodded and last[uid] > prodded[uid]:  # posted since: the ladder again
            prodded.pop(uid)
            told.pop(uid, None)
        if uid not in prodded:
            if now - last[uid] < period:
                soonest.append(last[uid] + period)
                continue
            prodded[uid] = now
            effects.append(prod(seats, game, player))
        elif uid not in told:
            if now - prodded[uid] < period:
                soonest.append(prodded[uid] + period)
                continue
            told[uid] = now
            effects.append(await report(seats, s, game, player))
    payload = {
        part: {str(k): v.isoformat() for k, v in sent.items()}
        for part, sent in (("prodded", prodded), ("told", told))
    }
    await arm(seats, s, game, min(soonest), payload)
    return effects


async def debate_state(s: AsyncSession, game: Game) -> tuple[bool, datetime | None]:
    """Whether the game's debate is closed now (``DebateLock``: during a vote the players
    cannot post), and when it last reopened (None: never closed)."""
    locks = [r for r in await repo.effects_of(s, game.id) if r.kind == DebateLock.KIND]
    if not locks:
        return False, None
    last = locks[-1]
    closed = bool((last.payload or {}).get("locked"))
    return closed, None if closed else last.created_at


async def last_posts(
    seats: Seats, s: AsyncSession, game: Game, players: list[Player]
) -> dict[int, datetime]:
    """Each player's last post (written or still counted in memory), else when their
    silence began: the game's start, or their seat's."""
    written = {a.user_id: a.last_at for a in await repo.activity_of(s, [game.id])}
    tracker = seats.app.activity
    recent = tracker.last_posts(game.place_id) if tracker is not None else {}
    begun = game.started_at or game.created_at
    return {
        p.user_id: max(
            d for d in (begun, p.joined_at, written.get(p.user_id), recent.get(p.user_id)) if d
        )
        for p in players
    }


def prod(seats: Seats, game: Game, player: Player) -> DirectMessage:
    lang = player.locale
    text = t(
        "prods.prod",
        lang,
        game=game_name(game.kind, lang, game.options),
        hours=number(hours_of(game), lang),
        where=posts.link(game),
    )
    return DirectMessage(player.user_id, text)


async def report(seats: Seats, s: AsyncSession, game: Game, player: Player) -> DirectMessage:
    """The moderator's DM: the player could be replaced (``substitute``, the list)."""
    lang = game.lang
    group = first_defined((f"commands.{game.kind}.name",), lang) or game.kind
    command = first_defined((f"commands.{game.kind}.substitute.name",), lang) or "substitute"
    standby = await seats.standby_line(s, game, lang) or t("prods.nobody_on_list", lang)
    text = t(
        "prods.report",
        lang,
        name=shown(player.display_name),
        game=game_name(game.kind, lang, game.options),
        where=posts.link(game),
        hours=number(2 * hours_of(game), lang),
        command=f"/{group} {command}",
        standby=standby,
    )
    return DirectMessage(game.created_by, text)
