"""The Resistance's share of ``/stats`` (bot/stats.py): games played and won by side and by role,
the spy win rate, and missions joined — from the ``game_over`` and ``mission_result`` events.

Roles are read from the event, not from a list in the code: a variant's roles (Avalon's
``characters``) count as soon as its games end.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from bot.archive import role_name
from bot.i18n import t
from bot.plugins import Stats
from bot.stats import Record, percent
from games.resistance.rules import events as rs
from rulebase import Event

KIND = "resistance"

# A side's name in the event's ``roles`` → the ``winner`` value that means that side won.
WINNER_OF_SIDE = {"resistance": "resistance", "spy": "spies"}


@dataclass
class ResistanceFigures(Record):
    """One player's games of The Resistance: by side and by role, and the missions joined."""

    sides: dict[str, Record] = field(default_factory=lambda: defaultdict(Record))
    roles: dict[str, Record] = field(default_factory=lambda: defaultdict(Record))
    missions: int = 0
    missions_succeeded: int = 0
    missions_failed: int = 0

    @property
    def spy_rate(self) -> float | None:
        return self.sides["spy"].rate if "spy" in self.sides else None

    def shown(self) -> bool:
        # substituted out of every game: their missions still count
        return bool(self.played or self.missions)

    def lines(self, lang: str) -> list[str]:
        out = [
            t(
                "resistance.stats.line",
                lang,
                played=self.played,
                won=self.won,
                rate=percent(self.rate, lang),
            )
        ]
        if self.played:
            sides = by_role(self.sides, lang)
            out.append(
                t(
                    "resistance.stats.sides",
                    lang,
                    sides=sides,
                    spy_rate=percent(self.spy_rate, lang),
                )
            )
            out.append(t("resistance.stats.roles", lang, roles=by_role(self.roles, lang)))
        out.append(
            t(
                "resistance.stats.missions",
                lang,
                joined=self.missions,
                succeeded=self.missions_succeeded,
                failed=self.missions_failed,
            )
        )
        return out

    def top_extra(self, lang: str) -> str:
        return t("resistance.stats.top_extra", lang, rate=percent(self.spy_rate, lang))


def by_role(records: Mapping[str, Record], lang: str) -> str:
    """``Spy 1/2 · Resistance 0/1``: won/played for each side or role, by key."""
    return " · ".join(
        t(
            "resistance.stats.side",
            lang,
            side=role_name(KIND, role, lang),
            played=rec.played,
            won=rec.won,
        )
        for role, rec in sorted(records.items())
    )


def tally(events: Iterable[Event]) -> dict[int, ResistanceFigures]:
    """Each player's figures from the public events of ended games of The Resistance."""
    out: dict[int, ResistanceFigures] = {}

    def of(uid: int | str) -> ResistanceFigures:
        return out.setdefault(int(uid), ResistanceFigures())

    for event in events:
        match event:
            case rs.GameOver(winner=winner, roles=roles, characters=characters):
                for seat, side in roles.items():  # keyed by the player's id as a string
                    won = WINNER_OF_SIDE.get(side) == winner
                    figures = of(seat)
                    figures.add(won)
                    figures.sides[side].add(won)
                    figures.roles[(characters or {}).get(seat, side)].add(won)
            case rs.MissionResult(team=team, success=success):
                for member in team:
                    figures = of(member)
                    figures.missions += 1
                    if success:
                        figures.missions_succeeded += 1
                    else:
                        figures.missions_failed += 1
    return out


STATS = Stats(events=("game_over", "mission_result"), tally=tally)
