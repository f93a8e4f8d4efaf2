"""The Refutation Game's share of ``/stats`` (bot/stats.py): games played and won, refutations
credited — from the ``game_over`` event (the seats at the end, the result, and who played each
refuting card)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from bot.i18n import t
from bot.plugins import Stats
from bot.stats import Record
from games.refutation.rules import Result
from games.refutation.rules import events as rf
from rulebase import Event


@dataclass
class RefutationFigures(Record):
    """One player's games of The Refutation Game and the refutations credited to them."""

    credited: int = 0

    def shown(self) -> bool:
        return bool(self.played or self.credited)

    def lines(self, lang: str) -> list[str]:
        return [
            t(
                "refutation.stats.line",
                lang,
                played=self.played,
                won=self.won,
                credited=self.credited,
            )
        ]

    def top_extra(self, lang: str) -> str:
        return t("refutation.stats.top_extra", lang, credited=self.credited)


def tally(events: Iterable[Event]) -> dict[int, RefutationFigures]:
    """Each player's figures from the public events of ended Refutation Games."""
    out: dict[int, RefutationFigures] = {}

    def of(uid: int) -> RefutationFigures:
        return out.setdefault(int(uid), RefutationFigures())

    for event in events:
        match event:
            case rf.GameOver(result=result, credits=credits, refutations=refutations):
                # As a mission in The Resistance: a refutation counts for whoever played its
                # card (``refutations`` keeps them; ``credits`` moves with a substituted seat),
                # the game's result for the seats at the end.
                for player in credits:
                    of(player).add(result is Result.WON)
                for done in refutations:
                    of(done.player).credited += 1
    return out


STATS = Stats(events=("game_over",), tally=tally)
