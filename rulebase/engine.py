"""What every game's engine class writes the same way, written once: a player id checked, a
seat dealt twice, the log of action records replayed through the engine's own ``verify_X`` and
``X`` methods, equality by the whole state. Each game keeps its own words (its errors, its
events): these take them as arguments."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeGuard, TypeVar

from rulebase import Player, can

G = TypeVar("G")
E = TypeVar("E")

Bound = tuple[str, tuple[Any, ...]]
"""An action record read: the name of the engine's method and its arguments."""


def is_id(value: object) -> TypeGuard[int]:
    """A player id as the engines take it: an int, a bool never."""
    return isinstance(value, int) and not isinstance(value, bool)


def param(value: object) -> str | int:
    """``value`` as an error's parameter: an id as it is, anything else as its text."""
    return value if is_id(value) else str(value)


def seated_twice(players: Iterable[Player]) -> Player | None:
    """The first player whose id has come before (a seat given twice), else None."""
    seen: set[int] = set()
    for player in players:
        if player.id in seen:
            return player
        seen.add(player.id)
    return None


@dataclass(frozen=True)
class ActionRecords(Generic[G, E]):
    """An engine's replayable log (``{"action": name, ...}`` records, its ``actions``):
    ``bind`` reads a record into the method it names and that method's arguments, raising the
    engine's own error for an unknown or malformed one; the rest is each action's
    ``verify_<name>`` and ``<name>``."""

    bind: Callable[[Mapping[str, Any]], Bound]

    def verify(self, game: G, action: Mapping[str, Any]) -> None:
        """Raise the GameError that applying ``action`` would raise; nothing if allowed."""
        name, args = self.bind(action)
        verify: Callable[..., None] = getattr(game, "verify_" + name)
        verify(*args)

    def can(self, game: G, action: Mapping[str, Any]) -> bool:
        return can(self.verify, game, action)

    def apply(self, game: G, action: Mapping[str, Any]) -> list[E]:
        """Apply one action record: the events its method returns."""
        name, args = self.bind(action)
        events: list[E] = getattr(game, name)(*args)
        return events


class ComparedByState(ABC):
    """Equality by value: two games of one class are equal when their whole states
    (:meth:`compared`) are, so they are unhashable."""

    @abstractmethod
    def compared(self) -> object:
        """The whole state, as plain values."""

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ComparedByState) or type(other) is not type(self):
            return NotImplemented
        return bool(self.compared() == other.compared())

    # Python's way to say "compared by value, so unhashable"; typeshed types __hash__ as a method.
    __hash__ = None  # type: ignore[assignment]
