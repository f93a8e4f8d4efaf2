"""Each player's posts in their game's channel or forum post, for the moderators' ``activity``.

Counted from the message events the bot receives anyway (the author and the time only: no
content, no privileged intent). A message costs an append to a list in memory and no database
write of its own: :meth:`Activity.flush` writes what came since the last one in one
transaction, every ``FLUSH_SECONDS`` and when the bot stops (``GameBot.drain``), so a crash
loses at most the posts of the last batch, never a vote. A post counts in all, on its day (a
date of the server's zone) and in its round: the step open when it was posted (the newest open
deadline that is not a reminder, an offer or a prod).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

import discord
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot import daily
from bot.archive import md
from bot.clock import Clock
from bot.errors import UserError
from bot.i18n import game_name, t
from bot.names import ordered, shown
from bot.prods import PROD_SUFFIX, marks
from db import repo
from db.models import Activity as Row
from db.models import Deadline, Game, Player

if TYPE_CHECKING:
    from bot.service import Actor, GameService

log = logging.getLogger(__name__)

#: Seconds between two writes of the posts counted (at most this much is lost in a crash).
FLUSH_SECONDS = 30.0

#: Posts kept in memory while the database cannot take them (older ones are dropped).
MAX_PENDING = 200_000

#: The deadline kinds that open no round: a seat's offer, a prod (and the games' reminders).
NOT_A_STEP = ("_offer", PROD_SUFFIX)

#: A post: where (channel, thread or forum post), who, when.
Seen = tuple[int, int, datetime]


@dataclass(frozen=True)
class Step:
    """The round a post counts in: the open step's deadline, and when it opened."""

    key: str
    opened: datetime


def current_step(deadlines: Iterable[Deadline], reminder: Callable[[str], bool]) -> Step | None:
    """The round open now: the newest open deadline that is a step of the game."""
    steps = [d for d in deadlines if not d.kind.endswith(NOT_A_STEP) and not reminder(d.kind)]
    if not steps:
        return None
    newest = max(steps, key=lambda d: (d.created_at, d.id))
    return Step(str(newest.id), newest.created_at)


def day_of(at: datetime, zone: str) -> str:
    """The date of ``at`` in the server's zone."""
    return at.astimezone(daily.zone(zone)).date().isoformat()


def when(at: datetime) -> str:
    """A time as Discord shows it to each reader (relative: "2 hours ago")."""
    return f"<t:{int(at.timestamp())}:R>"


def played_at(game: Game, at: datetime) -> bool:
    """Whether the game was under way at ``at`` (a post flushed after its end still counts)."""
    started = game.started_at
    return started is not None and started <= at and (game.ended_at is None or at <= game.ended_at)


def count(row: Row, at: datetime, day: str, step: Step | None) -> None:
    """One more post of the row's player, at ``at``."""
    row.posts += 1
    if row.day != day:
        row.day, row.day_posts = day, 0
    row.day_posts += 1
    if step is not None and at >= step.opened:
        if row.round_key != step.key:
            row.round_key, row.round_posts = step.key, 0
        row.round_posts += 1
    elif step is None:
        row.round_posts += 1
    row.last_at = max(row.last_at, at)


class Activity:
    """The posts counted since the last write, and the writes."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        clock: Clock,
        *,
        reminder: Callable[[str], bool],
        every: float = FLUSH_SECONDS,
    ) -> None:
        self.sessions = sessions
        self.clock = clock
        self.reminder = reminder
        self.every = every
        self.pending: list[Seen] = []
        self._lock = asyncio.Lock()
        self._task: asyncio.Task[None] | None = None

    def seen(self, message: discord.Message) -> None:
        """A message event: kept if a member posted it in a server (bots, webhooks and
        system messages are not posts), at the application's time (its clock's, as the
        deadlines')."""
        if message.guild is None or message.author.bot or message.webhook_id is not None:
            return
        if message.is_system():
            return
        self.pending.append((message.channel.id, message.author.id, self.clock()))

    def last_posts(self, place: int) -> dict[int, datetime]:
        """The last post of each author at ``place`` among those not written yet."""
        found: dict[int, datetime] = {}
        for where, author, at in self.pending:
            if where == place and (author not in found or at > found[author]):
                found[author] = at
        return found

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._every())

    async def _every(self) -> None:
        while True:
            await asyncio.sleep(self.every)
            await self.flush()

    async def stop(self) -> None:
        """The timer stopped, and what was counted written."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        await self.flush()

    async def flush(self) -> None:
        """Write the posts counted since the last write, in one transaction. One that fails
        keeps them for the next write (up to ``MAX_PENDING``)."""
        async with self._lock:
            batch, self.pending = self.pending, []
            if not batch:
                return
            try:
                async with self.sessions.begin() as s:
                    await self._write(s, batch)
            except Exception as exc:
                log.warning("the posts counted could not be written, kept: %s", exc)
                self.pending[:0] = batch[-MAX_PENDING:]

    async def _write(self, s: AsyncSession, batch: list[Seen]) -> None:
        since = min(at for _, _, at in batch)
        found = await repo.games_played_at(s, {p for p, _, _ in batch}, since)
        if not found:
            return
        games: dict[int, list[Game]] = {}
        for played in found:
            games.setdefault(played.place_id, []).append(played)
        ids = [g.id for g in found]
        players = {(p.game_id, p.user_id) for p in await repo.players_of_games(s, ids)}
        rows = {(a.game_id, a.user_id): a for a in await repo.activity_of(s, ids)}
        zones = await repo.zones_of(s, {g.guild_id for g in found})
        deadlines: dict[int, list[Deadline]] = {}
        for d in await repo.open_deadlines_of(s, ids):
            deadlines.setdefault(d.game_id, []).append(d)
        steps = {i: current_step(deadlines.get(i, []), self.reminder) for i in ids}
        for place, author, at in batch:
            game = next((g for g in games.get(place, ()) if played_at(g, at)), None)
            if game is None or (game.id, author) not in players:
                continue
            row = rows.get((game.id, author))
            if row is None:
                row = rows[game.id, author] = Row(
                    game_id=game.id, user_id=author, posts=0, day="", day_posts=0,
                    round_key="", round_posts=0, last_at=at,
                )  # fmt: skip
                s.add(row)
            count(row, at, day_of(at, zones.get(game.guild_id, daily.DEFAULT_ZONE)), steps[game.id])

    async def report(self, service: GameService, actor: Actor, game_id: int) -> str:
        """``/<game> activity`` (moderators, privately): each player's posts today and in this
        round, their last post, the deadlines they let pass, the prods they were sent."""
        await self.flush()
        await service.actions.settled(game_id)
        async with service.app.sessions() as s:
            game = await repo.get_game(s, game_id)
            if game is None:
                raise UserError("common.error.no_game")
            await service.moderators.require_moderator(s, actor, game, game.guild_id)
            if game.status == "lobby":
                raise UserError("common.error.not_started")
            players = await repo.players(s, game.id)
            rows = {a.user_id: a for a in await repo.activity_of(s, [game.id])}
            zone = (await repo.get_guild_settings(s, game.guild_id)).timezone
            deadlines = await repo.open_deadlines(s, game.id)
        unheard = service.unheard(game)
        return self.lines(game, players, rows, zone, deadlines, actor.lang, service.now(), unheard)

    def lines(
        self,
        game: Game,
        players: list[Player],
        rows: dict[int, Row],
        zone: str,
        deadlines: list[Deadline],
        lang: str,
        now: datetime,
        unheard: frozenset[int] = frozenset(),
    ) -> str:
        """One line a player; ``unheard``: who may not post there though Discord lets them
        (the game's :meth:`~bot.service.GameService.unheard`), their posts of this round
        marked."""
        step = current_step(deadlines, self.reminder)
        today = day_of(now, zone)
        prodded, told = marks(deadlines)
        out = [t("activity.title", lang, game=game_name(game.kind, lang, game.options))]
        for p in ordered(players, lang, lambda p: (p.user_id, p.display_name)):
            row = rows.get(p.user_id)
            last = when(row.last_at) if row else t("activity.never", lang)
            spoke = row.round_posts if row and step and row.round_key == step.key else 0
            line = t(
                "activity.line",
                lang,
                name=shown(p.display_name),
                today=row.day_posts if row and row.day == today else 0,
                round=spoke,
                total=row.posts if row else 0,
                last=last,
                missed=p.missed_total,
            )
            if p.user_id in unheard and spoke:
                line += t("activity.unheard", lang, count=spoke)
            if p.user_id in told:
                line += t("activity.told", lang, at=when(told[p.user_id]))
            elif p.user_id in prodded:
                line += t("activity.prodded", lang, at=when(prodded[p.user_id]))
            out.append(line)
        return "\n".join(out)


async def totals(s: AsyncSession, game: Game, lang: str) -> str:
    """The record's part (bot/records.py): everyone who sat at the table, their posts in all
    and the deadlines they let pass; nothing for a game nobody posted in or missed."""
    players = await repo.players(s, game.id, active_only=False)
    posts = {a.user_id: a.posts for a in await repo.activity_of(s, [game.id])}
    if not posts and not any(p.missed_total for p in players):
        return ""
    lines = ["", f"## {t('activity.record_title', lang)}", ""]
    for p in ordered(players, lang, lambda p: (p.user_id, p.display_name)):
        line = t(
            "activity.record_line",
            lang,
            name=md(p.display_name),
            posts=posts.get(p.user_id, 0),
            missed=p.missed_total,
        )
        lines.append(f"- {line}")
    return "\n".join(lines) + "\n"
