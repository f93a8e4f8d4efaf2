"""What a closed poll leaves behind, through the same hooks as the built-in games
(bot.plugins: ``Archive`` and ``Stats``): its record as Markdown and each player's figures."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from bot.archive import Events, header, listing, md
from bot.i18n import t
from bot.plugins import Archive, Stats
from bot.stats import Record
from db.models import Game
from rulebase import Event
from tests.e2e.poll_game.rules import CHOICES, PollClosed


def outcome(state: Any, lang: str) -> str:
    """``Yes 2 · No 1`` (the moderator's words for the answers live in the game's options)."""
    if not state.closed:
        return t("poll.archive.cancelled", lang)
    result = state.result()
    return " · ".join(
        t("poll.archive.count", lang, choice=t(f"poll.choice.{c}", lang), count=result.count(c))
        for c in CHOICES
    )


def markdown(game: Game, state: Any, events: Events, lang: str) -> str:
    """The question, then who chose what."""
    from tests.e2e.poll_game.plugin import POLL_OPTIONS

    names = {p.id: p.name for p in state.players}
    lines = header(game, lang, outcome(state, lang), POLL_OPTIONS)
    lines += ["", f"## {md(game.options.get('question', ''))}", ""]
    for e in events:
        if isinstance(e, PollClosed):
            for choice, ids in (("first", e.first), ("second", e.second)):
                answer = game.options.get(choice) or t(f"poll.choice.{choice}", lang)
                lines.append(f"- {md(answer)}: {listing(ids, names)}")
    return "\n".join(lines) + "\n"


@dataclass
class PollFigures(Record):
    """Polls answered, and how many times the player sided with the majority (``won``)."""

    def shown(self) -> bool:
        return bool(self.played)

    def lines(self, lang: str) -> list[str]:
        return [t("poll.stats.line", lang, played=self.played, won=self.won)]

    def top_extra(self, lang: str) -> str:
        return t("poll.stats.top_extra", lang)


def tally(events: Iterable[Event]) -> dict[int, PollFigures]:
    out: dict[int, PollFigures] = {}
    for event in events:
        if isinstance(event, PollClosed):
            most = max(len(event.first), len(event.second))
            tie = len(event.first) == len(event.second)
            for side in (event.first, event.second):
                for uid in side:
                    out.setdefault(uid, PollFigures()).add(not tie and len(side) == most)
    return out


ARCHIVE = Archive(markdown=markdown, outcome=outcome)
STATS = Stats(events=("poll_closed",), tally=tally)
