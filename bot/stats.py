"""Players' statistics, per server, computed from the games and their event log only.

There is no second source of truth to keep in step: every figure is recomputed from the ended
games of the server (cancelled ones excluded) and their public events — ``game_over`` (who
played which side and role, who won), ``mission_result`` (who went on which mission, and how
it went) and, for The Refutation Game, its ``game_over`` (the seats at the end, the result, and
who played each refuting card). So the figures are the same after a restart, in any process, on
SQLite and PostgreSQL. A player substituted out of a game counts for what they did in it
(missions, refutations), not for its result: the substitute who finishes the seat does.

Roles are read from the event, not from a list in the code: a variant's roles (Avalon's
``characters``) count as soon as its games end.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import discord
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.archive import role_name
from bot.errors import UserError
from bot.event_log import decode_events
from bot.i18n import game_name, t
from bot.names import sort_key
from db import repo
from db.models import Event as EventRow
from db.models import Game, GameStatus, Player
from games.common import Event
from games.refutation.rules import Result
from games.refutation.rules import events as rf
from games.resistance.rules import events as rs

KINDS = ("game_over", "mission_result")

# A side's name in the event's ``roles`` → the ``winner`` value that means that side won.
WINNER_OF_SIDE = {"resistance": "resistance", "spy": "spies"}


@dataclass
class Record:
    played: int = 0
    won: int = 0

    def add(self, won: bool) -> None:
        self.played += 1
        self.won += int(won)

    @property
    def rate(self) -> float | None:
        return self.won / self.played if self.played else None


@dataclass
class PlayerStats:
    user_id: int
    name: str = ""
    resistance: Record = field(default_factory=Record)
    sides: dict[str, Record] = field(default_factory=lambda: defaultdict(Record))
    roles: dict[str, Record] = field(default_factory=lambda: defaultdict(Record))
    missions: int = 0
    missions_succeeded: int = 0
    missions_failed: int = 0
    refutation: Record = field(default_factory=Record)
    refutations_credited: int = 0

    @property
    def spy_rate(self) -> float | None:
        return self.sides["spy"].rate if "spy" in self.sides else None

    @property
    def games(self) -> int:
        return self.resistance.played + self.refutation.played

    @property
    def wins(self) -> int:
        return self.resistance.won + self.refutation.won


def tally(events: Iterable[Event]) -> dict[int, PlayerStats]:
    """The statistics from the public events of ended games."""
    out: dict[int, PlayerStats] = {}

    def of(uid: int | str) -> PlayerStats:
        key = int(uid)
        if key not in out:
            out[key] = PlayerStats(key)
        return out[key]

    for event in events:
        match event:
            case rs.GameOver(winner=winner, roles=roles, characters=characters):
                for seat, side in roles.items():  # keyed by the player's id as a string
                    won = WINNER_OF_SIDE.get(side) == winner
                    stats = of(seat)
                    stats.resistance.add(won)
                    stats.sides[side].add(won)
                    stats.roles[(characters or {}).get(seat, side)].add(won)
            case rs.MissionResult(team=team, success=success):
                for member in team:
                    stats = of(member)
                    stats.missions += 1
                    if success:
                        stats.missions_succeeded += 1
                    else:
                        stats.missions_failed += 1
            case rf.GameOver(result=result, credits=credits, refutations=refutations):
                # As a mission in The Resistance: a refutation counts for whoever played its
                # card (``refutations`` keeps them; ``credits`` moves with a substituted
                # seat), the game's result for the seats at the end.
                for player in credits:
                    of(player).refutation.add(result is Result.WON)
                for done in refutations:
                    of(done.player).refutations_credited += 1
    return out


async def guild_stats(s: AsyncSession, guild_id: int) -> dict[int, PlayerStats]:
    """Every player's statistics on this server (ended games only), with their latest name."""
    stmt = (
        select(Game.kind, EventRow)
        .join(EventRow, EventRow.game_id == Game.id)
        .where(
            Game.guild_id == guild_id,
            Game.status == GameStatus.ENDED.value,
            EventRow.kind.in_(KINDS),
            EventRow.private_to.is_(None),
        )
        .order_by(EventRow.id)
    )
    rows = (await s.execute(stmt)).all()
    stats = tally(e for kind, row in rows for e in decode_events(kind, [row]))
    if stats:
        names = (
            select(Player.user_id, Player.display_name)
            .join(Game, Game.id == Player.game_id)
            .where(Game.guild_id == guild_id, Player.user_id.in_(list(stats)))
            .order_by(Player.game_id, Player.id)
        )
        for uid, name in (await s.execute(names)).all():
            stats[uid].name = name  # the latest game's name wins
    return stats


def leaderboard(stats: Mapping[int, PlayerStats], game: str, min_games: int) -> list[PlayerStats]:
    """Players with at least ``min_games`` games of ``game``: most wins first, then the best
    rate, then the most games, then by name."""

    def record(p: PlayerStats) -> Record:
        return p.resistance if game == "resistance" else p.refutation

    eligible = [p for p in stats.values() if record(p).played >= max(1, min_games)]
    return sorted(
        eligible,
        key=lambda p: (
            -record(p).won,
            -(record(p).rate or 0.0),
            -record(p).played,
            sort_key(p.user_id, p.name),  # alphabetical as bot/names.py sorts, then the id
        ),
    )


# -- what the commands show ------------------------------------------------------------------


def percent(rate: float | None, lang: str) -> str:
    return "—" if rate is None else t("stats.percent", lang, value=round(100 * rate))


def clean(name: str) -> str:
    """A name shown as typed: Markdown escaped, mentions defused, on one line, not too long."""
    flat = " ".join(name.split())[:64] or "?"
    return discord.utils.escape_mentions(discord.utils.escape_markdown(flat))


def by_role(records: Mapping[str, Record], lang: str) -> str:
    """``Spy 1/2 · Resistance 0/1``: won/played for each side or role, by key."""
    return " · ".join(
        t(
            "stats.side",
            lang,
            side=role_name("resistance", role, lang),
            played=rec.played,
            won=rec.won,
        )
        for role, rec in sorted(records.items())
    )


def player_text(p: PlayerStats | None, name: str, lang: str) -> str:
    if p is None or not (p.games or p.missions or p.refutations_credited):
        return t("stats.none", lang, name=clean(name))
    lines = [t("stats.player_title", lang, name=clean(name))]
    r = p.resistance
    if r.played or p.missions:  # substituted out of every game: their missions still count
        lines.append(
            t("stats.resistance", lang, played=r.played, won=r.won, rate=percent(r.rate, lang))
        )
        if r.played:
            sides = by_role(p.sides, lang)
            lines.append(t("stats.sides", lang, sides=sides, spy_rate=percent(p.spy_rate, lang)))
            lines.append(t("stats.roles", lang, roles=by_role(p.roles, lang)))
        lines.append(
            t(
                "stats.missions",
                lang,
                joined=p.missions,
                succeeded=p.missions_succeeded,
                failed=p.missions_failed,
            )
        )
    f = p.refutation
    if f.played or p.refutations_credited:
        lines.append(
            t(
                "stats.refutation",
                lang,
                played=f.played,
                won=f.won,
                credited=p.refutations_credited,
            )
        )
    return "\n".join(lines)


def top_text(stats: Mapping[int, PlayerStats], game: str, min_games: int, lang: str) -> str:
    board = leaderboard(stats, game, min_games)[:TOP]
    title = t("stats.top_title", lang, game=game_name(game, lang), min=max(1, min_games))
    if not board:
        return "\n".join([title, t("stats.top_empty", lang)])
    lines = [title]
    for n, p in enumerate(board, 1):
        if game == "resistance":
            extra = t("stats.top_spy", lang, rate=percent(p.spy_rate, lang))
            rec = p.resistance
        else:
            extra = t("stats.top_credited", lang, credited=p.refutations_credited)
            rec = p.refutation
        lines.append(
            t(
                "stats.top_line",
                lang,
                n=n,
                name=clean(p.name or str(p.user_id)),
                won=rec.won,
                played=rec.played,
                rate=percent(rec.rate, lang),
                extra=extra,
            )
        )
    return "\n".join(lines)


TOP = 15


class StatsService:
    def __init__(self, app: Any) -> None:
        self.app = app

    async def player(self, lang: str, guild_id: int, user_id: int, name: str) -> str:
        async with self.app.sessions() as s:
            stats = await guild_stats(s, guild_id)
        return player_text(stats.get(user_id), name, lang)

    async def top(self, guild_id: int, game: str, min_games: int) -> str:
        if game not in ("resistance", "refutation"):
            raise UserError("stats.bad_game")
        async with self.app.sessions() as s:
            stats = await guild_stats(s, guild_id)
            lang = (await repo.get_guild_settings(s, guild_id)).language
        return top_text(stats, game, min_games, lang)
