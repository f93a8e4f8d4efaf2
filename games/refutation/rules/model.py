"""Value types of The Refutation Game: phases, options, players and events."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from rulebase import Player as Player

MIN_PLAYERS = 2
MAX_PLAYERS = 6
FEED_SIZE = 3
HAND_REFUTATIONS = 4
HAND_TECHNIQUES = 1
TARGETS: tuple[int, ...] = (5, 7, 9)


class Phase(StrEnum):
    TURN = "turn"
    """The active player must watch (Veille) or start a refutation."""
    CHOICE = "choice"
    """A refutation is under way: secret choices of cards are being collected."""
    VOTE = "vote"
    """The chosen cards are revealed; players deliberate and vote."""
    OVER = "over"


class Result(StrEnum):
    WON = "won"
    LOST = "lost"
    ENDED = "ended"
    """Ended by a moderator."""


@dataclass(frozen=True)
class Options:
    """The rule-relevant options of one game (deadlines live in the service)."""

    target: int = 5
    """Refuted disinformation cards the table needs to win: 5, 7 or 9."""
    techniques: bool = False
    """The rhetorical-technique variant: one technique card more in each hand."""

    def to_dict(self) -> dict[str, Any]:
        return {"target": self.target, "techniques": self.techniques}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Options:
        """Unknown keys are ignored; missing keys take their default."""
        return cls(target=int(d.get("target", 5)), techniques=bool(d.get("techniques", False)))
