"""Value types of The Refutation Game: phases, options, players and events."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from games.common import Player as Player

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


@dataclass(frozen=True)
class Event:
    """Something that happened.

    ``private_to`` is None when the event may be shown publicly, else the id of the only player
    who may see it. Some ``data`` values are mappings keyed by card number or player id (ints);
    ``to_dict`` turns those keys into strings (JSON) and ``from_dict`` turns decimal-string keys
    back into ints, so ``Event.from_dict(json.loads(json.dumps(e.to_dict()))) == e``."""

    kind: str
    data: dict[str, Any] = field(default_factory=dict)
    private_to: int | None = None

    @property
    def is_private(self) -> bool:
        return self.private_to is not None

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "data": _to_json(self.data), "private_to": self.private_to}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Event:
        private_to = d.get("private_to")
        data = _from_json(dict(d.get("data", {})))
        assert isinstance(data, dict)
        return cls(
            kind=str(d["kind"]),
            data=data,
            private_to=None if private_to is None else int(private_to),
        )


def _to_json(value: Any) -> Any:
    """A deep copy of JSON-like data whose mapping keys are strings."""
    if isinstance(value, Mapping):
        return {str(k): _to_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_to_json(v) for v in value]
    return value


def _key(k: Any) -> Any:
    if isinstance(k, str) and k.isdecimal():
        return int(k)
    return k


def _from_json(value: Any) -> Any:
    """The inverse of ``_to_json``: decimal-string keys become ints again."""
    if isinstance(value, Mapping):
        return {_key(k): _from_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_from_json(v) for v in value]
    return value
