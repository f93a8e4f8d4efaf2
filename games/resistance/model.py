"""Value types of The Resistance: roles, phases, votes, options, players and events."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from games.common import Player as Player


class Role(StrEnum):
    RESISTANCE = "resistance"
    SPY = "spy"


class Phase(StrEnum):
    DEBATE = "debate"
    """The leader must propose a team."""
    VOTE = "vote"
    """A team is proposed; team votes and mission choices are being collected."""
    OVER = "over"


class Winner(StrEnum):
    RESISTANCE = "resistance"
    SPIES = "spies"


class EndReason(StrEnum):
    """Why the game ended (``Resistance.win_reason``)."""

    THREE_SUCCESSES = "three_successes"
    THREE_FAILURES = "three_failures"
    FIVE_REJECTIONS = "five_rejections"
    CANCELLED = "cancelled"


class TeamVote(StrEnum):
    ACCEPT = "accept"
    REJECT = "reject"


class MissionChoice(StrEnum):
    SUPPORT = "support"
    SABOTAGE = "sabotage"


class MissingVote(StrEnum):
    """How a player who did not vote is counted."""

    REJECT = "reject"
    ACCEPT = "accept"


@dataclass(frozen=True)
class Options:
    """The rule-relevant options of one game (timings and locks live in the service)."""

    missing_vote: MissingVote = MissingVote.REJECT

    def to_dict(self) -> dict[str, Any]:
        return {"missing_vote": self.missing_vote.value}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Options:
        """Unknown keys are ignored; missing keys take their default."""
        return cls(missing_vote=MissingVote(d.get("missing_vote", MissingVote.REJECT.value)))


@dataclass(frozen=True)
class Event:
    """Something that happened. ``data`` is JSON-compatible.

    ``private_to`` is None when the event may be shown publicly, else the id of the only player
    who may see it."""

    kind: str
    data: dict[str, Any] = field(default_factory=dict)
    private_to: int | None = None

    @property
    def is_private(self) -> bool:
        return self.private_to is not None

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "data": _json_copy(self.data), "private_to": self.private_to}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Event:
        private_to = d.get("private_to")
        return cls(
            kind=str(d["kind"]),
            data=_json_copy(dict(d.get("data", {}))),
            private_to=None if private_to is None else int(private_to),
        )


def _json_copy(value: Any) -> Any:
    """A deep copy of JSON-like data (dicts, lists, scalars)."""
    if isinstance(value, dict):
        return {k: _json_copy(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_copy(v) for v in value]
    return value
