"""``/resistance rules``: the rules of the forum adaptation, condensed, in the reader's language.

Every number comes from the engine's tables (games/resistance/rules/tables.py): players, spies,
team sizes, the two-sabotage mission, the missions and rejections that end a game. Two rules the
tables do not hold are asked of the engine itself, by a rehearsal of one mission on a fixed deal
(the engine is pure): what a team member who sends no choice counts as, and how many times the
same team may be proposed for one mission. The catalogue's texts hold only words around
placeholders, so the rules a leader reads are the ones the bot enforces. The team sizes are
those of the table in force when a game runs here (its ``team_table``; Avalon's own), else both
tables.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from functools import cache
from typing import Any

from bot.i18n import t
from games.resistance.render import table_name
from games.resistance.rules import (
    MissionChoice,
    MissionResult,
    Player,
    Resistance,
    Role,
    TeamVote,
    tables,
)
from games.resistance.rules.tables import TeamTable
from rulebase.engine import groups, span_text


def span(low: int, high: int, lang: str) -> str:
    """``5``, ``5 ou 6``, ``7 à 9`` (English: ``5``, ``5–6``, ``7–9``)."""
    return span_text(low, high, lambda key: t(f"resistance.rules.{key}", lang, low=low, high=high))


def players(low: int, high: int, lang: str) -> str:
    return t("resistance.rules.players", lang, span=span(low, high, lang), count=high)


def by_players(values: Mapping[int, Any], shown: Callable[[Any], str], lang: str) -> str:
    """``5–6 players: 2 · 7–9 players: 3 · 10 players: 4``."""
    return " · ".join(
        t("resistance.rules.table_entry", lang, players=players(low, high, lang), value=shown(v))
        for low, high, v in groups(values)
    )


def spies(lang: str) -> str:
    """``2 (5–6 players), 3 (7–9), 4 (10)``: the unit said once."""
    return ", ".join(
        t(
            "resistance.rules.spies_entry",
            lang,
            value=value,
            players=players(low, high, lang) if i == 0 else span(low, high, lang),
        )
        for i, (low, high, value) in enumerate(groups(tables.SPY_COUNT))
    )


def sizes(team: Iterable[int]) -> str:
    return "-".join(str(n) for n in team)


def two_fails() -> tuple[int, int]:
    """The mission that needs two sabotages, and from how many players."""
    for mission in range(1, tables.MISSIONS + 1):
        for count in range(tables.MIN_PLAYERS, tables.MAX_PLAYERS + 1):
            if tables.sabotages_needed(count, mission) == 2:
                return mission, count
    raise AssertionError("no mission needs two sabotages")  # every table has one


def rehearsal() -> Resistance:
    """A classic game of the fewest players at its first debate: the first seats are the spies,
    the leader list is the seats' order."""
    count = tables.MIN_PLAYERS
    players = [Player(seat, f"seat {seat}") for seat in range(1, count + 1)]
    roles = {
        p.id: Role.SPY if p.id <= tables.SPY_COUNT[count] else Role.RESISTANCE for p in players
    }
    return Resistance(players, roles, [p.id for p in players])


def all_vote(game: Resistance, vote: TeamVote) -> list[Any]:
    """Every player votes ``vote`` on the proposed team, then the deadline."""
    for player in game.players:
        game.vote(player.id, vote)
    return game.resolve()


@cache
def silent_choice() -> MissionChoice:
    """What the engine records for a team member who sends no choice: a team led by the spies,
    accepted, where nobody chooses."""
    game = rehearsal()
    seats = sorted(p.id for p in game.players)  # the spies first (rehearsal)
    game.propose(game.leader, seats[: game.team_size])
    (result,) = [e for e in all_vote(game, TeamVote.ACCEPT) if isinstance(e, MissionResult)]
    return MissionChoice.SABOTAGE if result.sabotages else MissionChoice.SUPPORT


@cache
def same_team_proposals() -> int:
    """How many times in a row the engine lets each next leader propose the same team for one
    mission, every proposal rejected."""
    game = rehearsal()
    team = [p.id for p in game.players][: game.team_size]
    proposals = 0
    while not game.is_over and game.mission == 1 and game.can_propose(game.leader, team):
        game.propose(game.leader, team)
        proposals += 1
        all_vote(game, TeamVote.REJECT)
    return proposals


def table_here(options: Mapping[str, Any]) -> TeamTable | None:
    """The table of team sizes of the game running here (its stored options: a game stored
    before ``team_table`` plays the forum's), or None when no game runs here."""
    if not options:
        return None
    return TeamTable(options.get("team_table") or TeamTable.FORUM.value)


def teams(lang: str, options: Mapping[str, Any]) -> str:
    """The team sizes: of the table in force here, else of both tables, each named."""
    table = table_here(options)
    if table is not None:
        avalon = options.get("variant") == "avalon"
        return t(
            "resistance.rules.teams_here",
            lang,
            missions=tables.MISSIONS,
            table=table_name(table, avalon, lang),
            teams=by_players(tables.TEAM_SIZES[table], sizes, lang),
        )
    return t(
        "resistance.rules.teams_both",
        lang,
        missions=tables.MISSIONS,
        forum=by_players(tables.TEAM_SIZES[TeamTable.FORUM], sizes, lang),
        box=by_players(tables.TEAM_SIZES[TeamTable.BOX], sizes, lang),
    )


def facts(lang: str, options: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The placeholders of the rules texts, from the engine's tables (the team sizes: of the
    game whose stored ``options`` are given, else both tables)."""
    mission, count = two_fails()
    return {
        "min": tables.MIN_PLAYERS,
        "max": tables.MAX_PLAYERS,
        "spies": spies(lang),
        "teams": teams(lang, options or {}),
        "missions": tables.MISSIONS,
        "two_fail_mission": mission,
        "two_fail_players": count,
        "wins": tables.MISSIONS_TO_WIN,
        "rejections": tables.MAX_REJECTIONS,
        "silent_choice": t(f"resistance.choice.{silent_choice().value}", lang),
        "same_team": same_team_proposals(),
    }


SECTIONS = ("setup", "round", "end")


def rules(lang: str, options: Mapping[str, Any]) -> list[str]:
    """The sections of ``/resistance rules``; Avalon's too when the game here plays it."""
    found = facts(lang, options)
    parts = [t(f"resistance.rules.{section}", lang, **found) for section in SECTIONS]
    if options.get("variant") == "avalon":
        parts.append(t("resistance.rules.avalon", lang, **found))
    return parts
