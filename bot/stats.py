"""Players' statistics, per server, computed from the games and their event log only.

There is no second source of truth to keep in step: every figure is recomputed from the ended
games of the server (cancelled ones excluded) and their public events, which each game counts
in its own way (``GamePlugin.stats``: the kinds of events it reads and its tally; bot.plugins).
So the figures are the same after a restart, in any process, on SQLite and PostgreSQL. A player
substituted out of a game counts for what they did in it (each game says what), not for its
result: the substitute who finishes the seat does.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot import names
from bot.errors import UserError
from bot.event_log import decode_events
from bot.i18n import game_name, t
from bot.names import shown, sort_key
from db import repo
from db.models import Event as EventRow
from db.models import Game, GameStatus, Player
from rulebase import Event

if TYPE_CHECKING:
    from bot.plugins import Figures, GamePlugin

TOP = 15


@dataclass
class Record:
    """Games played and won: what every game's figures start from."""

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
    """One player's figures on a server, by game kind (``stats["resistance"]``)."""

    user_id: int
    name: str = ""
    games: dict[str, Figures] = field(default_factory=dict)

    def __getitem__(self, kind: str) -> Any:
        return self.games[kind]

    def __contains__(self, kind: object) -> bool:
        return kind in self.games

    def shown(self) -> bool:
        return any(figures.shown() for figures in self.games.values())


def counted(plugins: Iterable[GamePlugin]) -> list[GamePlugin]:
    """The games that have figures (a ``stats`` hook), in the registry's order."""
    return [p for p in plugins if p.stats is not None]


def tally(
    plugins: Iterable[GamePlugin], events: Mapping[str, Iterable[Event]]
) -> dict[int, PlayerStats]:
    """Every player's figures from the public events of ended games, by game kind."""
    out: dict[int, PlayerStats] = {}
    for plugin in counted(plugins):
        assert plugin.stats is not None
        for uid, figures in plugin.stats.tally(events.get(plugin.kind, ())).items():
            out.setdefault(int(uid), PlayerStats(int(uid))).games[plugin.kind] = figures
    return out


async def guild_stats(
    s: AsyncSession, guild_id: int, plugins: Iterable[GamePlugin]
) -> dict[int, PlayerStats]:
    """Every player's statistics on this server (ended games only), with their latest name."""
    games = counted(plugins)
    kinds = sorted({kind for p in games if p.stats is not None for kind in p.stats.events})
    stmt = (
        select(Game.kind, EventRow)
        .join(EventRow, EventRow.game_id == Game.id)
        .where(
            Game.guild_id == guild_id,
            Game.status == GameStatus.ENDED.value,
            Game.kind.in_([p.kind for p in games]),
            EventRow.kind.in_(kinds),
            EventRow.private_to.is_(None),
        )
        .order_by(EventRow.id)
    )
    by_kind: dict[str, list[Event]] = {}
    for kind, row in (await s.execute(stmt)).all():
        by_kind.setdefault(kind, []).extend(decode_events(kind, [row]))
    stats = tally(games, by_kind)
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


def leaderboard(stats: Mapping[int, PlayerStats], kind: str, min_games: int) -> list[PlayerStats]:
    """Players with at least ``min_games`` games of ``kind``: most wins first, then the best
    rate, then the most games, then by name."""
    eligible = [p for p in stats.values() if kind in p and p[kind].played >= max(1, min_games)]
    return sorted(
        eligible,
        key=lambda p: (
            -p[kind].won,
            -(p[kind].rate or 0.0),
            -p[kind].played,
            sort_key(p.user_id, p.name),  # alphabetical as bot/names.py sorts, then the id
        ),
    )


# -- what the commands show ------------------------------------------------------------------


def percent(rate: float | None, lang: str) -> str:
    return "—" if rate is None else t("stats.percent", lang, value=round(100 * rate))


def clean(name: str) -> str:
    """A name shown as typed: Markdown escaped, mentions defused, on one line, not too long."""
    return shown(names.clean(name)[:64] or "?")


def player_text(p: PlayerStats | None, name: str, lang: str) -> str:
    """``/stats player``: a title, then each game's lines (in the registry's order)."""
    if p is None or not p.shown():
        return t("stats.none", lang, name=clean(name))
    lines = [t("stats.player_title", lang, name=clean(name))]
    for figures in p.games.values():
        if figures.shown():
            lines += figures.lines(lang)
    return "\n".join(lines)


def top_text(stats: Mapping[int, PlayerStats], kind: str, min_games: int, lang: str) -> str:
    board = leaderboard(stats, kind, min_games)[:TOP]
    title = t("stats.top_title", lang, game=game_name(kind, lang), min=max(1, min_games))
    if not board:
        return "\n".join([title, t("stats.top_empty", lang)])
    lines = [title]
    for n, p in enumerate(board, 1):
        figures = p[kind]
        lines.append(
            t(
                "stats.top_line",
                lang,
                n=n,
                name=clean(p.name or str(p.user_id)),
                won=figures.won,
                played=figures.played,
                rate=percent(figures.rate, lang),
                extra=figures.top_extra(lang),
            )
        )
    return "\n".join(lines)


@dataclass(frozen=True)
class GameChoice:
    """The games ``/stats top`` counts, as a choice in the reader's language ("The Resistance
    or The Refutation Game"): their names from the registry, the last two joined by its "or"."""

    kinds: tuple[str, ...]

    def __str__(self) -> str:
        return self.localized("en")

    def localized(self, lang: str) -> str:
        names = [game_name(kind, lang) for kind in self.kinds]
        if len(names) <= 1:
            return "".join(names)
        return t("stats.either", lang, names=", ".join(names[:-1]), last=names[-1])


class StatsService:
    def __init__(self, app: Any) -> None:
        self.app = app

    @property
    def plugins(self) -> list[GamePlugin]:
        return counted(self.app.registry or ())

    async def player(self, lang: str, guild_id: int, user_id: int, name: str) -> str:
        async with self.app.sessions() as s:
            stats = await guild_stats(s, guild_id, self.plugins)
        return player_text(stats.get(user_id), name, lang)

    async def top(self, guild_id: int, kind: str, min_games: int) -> str:
        kinds = tuple(p.kind for p in self.plugins)
        if kind not in kinds:
            raise UserError("stats.bad_game", choices=GameChoice(kinds))
        async with self.app.sessions() as s:
            stats = await guild_stats(s, guild_id, self.plugins)
            lang = (await repo.get_guild_settings(s, guild_id)).language
        return top_text(stats, kind, min_games, lang)
