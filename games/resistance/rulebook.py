"""``/resistance rules``: the rules of the forum adaptation, condensed, in the reader's language.

Every number comes from the engine's tables (games/resistance/rules/tables.py): players, spies,
team sizes, the two-sabotage mission, the missions and rejections that end a game. The
catalogue's texts hold only words around placeholders, so the rules a leader reads are the ones
the bot enforces.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from bot.i18n import t
from games.resistance.rules import tables


def groups(values: Mapping[int, Any]) -> list[tuple[int, int, Any]]:
    """Consecutive player counts that share a value: ``[(5, 6, 2), (7, 9, 3), (10, 10, 4)]``."""
    out: list[tuple[int, int, Any]] = []
    for count in sorted(values):
        if out and out[-1][2] == values[count] and out[-1][1] == count - 1:
            out[-1] = (out[-1][0], count, values[count])
        else:
            out.append((count, count, values[count]))
    return out


def players(low: int, high: int, lang: str) -> str:
    if low == high:
        return t("resistance.rules.players_one", lang, count=low)
    return t("resistance.rules.players_range", lang, low=low, high=high)


def by_players(values: Mapping[int, Any], shown: Callable[[Any], str], lang: str) -> str:
    """``5–6 players: 2 · 7–9 players: 3 · 10 players: 4``."""
    return " · ".join(
        t("resistance.rules.table_entry", lang, players=players(low, high, lang), value=shown(v))
        for low, high, v in groups(values)
    )


def sizes(team: Iterable[int]) -> str:
    return "-".join(str(n) for n in team)


def two_fails() -> tuple[int, int]:
    """The mission that needs two sabotages, and from how many players."""
    for mission in range(1, tables.MISSIONS + 1):
        for count in range(tables.MIN_PLAYERS, tables.MAX_PLAYERS + 1):
            if tables.sabotages_needed(count, mission) == 2:
                return mission, count
    raise AssertionError("no mission needs two sabotages")  # the forum table has one


def facts(lang: str) -> dict[str, Any]:
    """The placeholders of the rules texts, from the engine's tables."""
    mission, count = two_fails()
    return {
        "min": tables.MIN_PLAYERS,
        "max": tables.MAX_PLAYERS,
        "spies": by_players(tables.SPY_COUNT, str, lang),
        "teams": by_players(tables.MISSION_SIZES, sizes, lang),
        "missions": tables.MISSIONS,
        "two_fail_mission": mission,
        "two_fail_players": count,
        "wins": tables.MISSIONS_TO_WIN,
        "rejections": tables.MAX_REJECTIONS,
    }


SECTIONS = ("setup", "round", "end")


def rules(lang: str, options: Mapping[str, Any]) -> list[str]:
    """The sections of ``/resistance rules``; Avalon's too when the game here plays it."""
    found = facts(lang)
    parts = [t(f"resistance.rules.{section}", lang, **found) for section in SECTIONS]
    if options.get("variant") == "avalon":
        parts.append(t("resistance.rules.avalon", lang, **found))
    return parts
