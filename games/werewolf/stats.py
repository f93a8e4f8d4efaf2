"""Werewolf's share of ``/stats`` (bot/stats.py): games played and won by side and by role, and
the win rate as a werewolf — from the ``game_over`` events of ended games (a mixed couple of
lovers wins or loses as the couple: the event's ``winners`` say who won)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from bot.i18n import t
from bot.plugins import Stats
from bot.stats import Record, percent
from games.werewolf.rules import Role
from games.werewolf.rules.events import GameOver
from rulebase import Event


@dataclass
class WerewolfFigures(Record):
    """One player's games of Werewolf: by side and by role."""

    sides: dict[str, Record] = field(default_factory=lambda: defaultdict(Record))
    roles: dict[str, Record] = field(default_factory=lambda: defaultdict(Record))

    def shown(self) -> bool:
        return bool(self.played)

    def lines(self, lang: str) -> list[str]:
        rate = percent(self.rate, lang)
        out = [t("werewolf.stats.line", lang, played=self.played, won=self.won, rate=rate)]
        sides = listed(self.sides, "werewolf.side.{}", lang)
        out.append(t("werewolf.stats.sides", lang, sides=sides))
        out.append(
            t("werewolf.stats.roles", lang, what=listed(self.roles, "werewolf.role.{}.name", lang))
        )
        return out

    def top_extra(self, lang: str) -> str:
        wolves = self.sides.get("wolves")
        return t(
            "werewolf.stats.top_extra", lang, rate=percent(wolves.rate if wolves else None, lang)
        )


def listed(records: Mapping[str, Record], key: str, lang: str) -> str:
    """``the village 1/2 · the werewolves 0/1``: won/played for each side or role."""
    return " · ".join(
        t("werewolf.stats.record", lang, side=t(key.format(name), lang), won=r.won, played=r.played)
        for name, r in sorted(records.items())
    )


def tally(events: Iterable[Event]) -> dict[int, WerewolfFigures]:
    """Each player's figures from the public events of ended games of Werewolf."""
    out: dict[int, WerewolfFigures] = {}
    for event in events:
        if not isinstance(event, GameOver):
            continue
        winners = {int(uid) for uid in event.winners}
        for uid, role in event.roles.items():
            figures = out.setdefault(int(uid), WerewolfFigures())
            role = Role(role)
            won = int(uid) in winners
            figures.add(won)
            figures.sides[role.side.value].add(won)
            figures.roles[role.value].add(won)
    return out


STATS = Stats(events=("game_over",), tally=tally)
