"""What every game's engine class writes the same way, written once: a player id checked, a
seat dealt twice, the log of action records replayed through the engine's own ``verify_X`` and
``X`` methods, equality by the whole state; for a rules text, a table grouped by player count
and a span of counts said. Each game keeps its own words (its errors, its events, its
catalogue keys): these take them as arguments."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeGuard, TypeVar

from rulebase import Player, can

G = TypeVar("G")
E = TypeVar("E")
V = TypeVar("V")

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


def groups(values: Mapping[int, V]) -> list[tuple[int, int, V]]:
    """Consecutive player counts that share a value, for a rules text: ``{5: 2, 6: 2, 7: 3}``
    gives ``[(5, 6, 2), (7, 7, 3)]``."""
    out: list[tuple[int, int, V]] = []
    for count in sorted(values):
        if out and out[-1][2] == values[count] and out[-1][1] == count - 1:
            out[-1] = (out[-1][0], count, values[count])
        else:
            out.append((count, count, values[count]))
    return out


def span_text(low: int, high: int, say: Callable[[str], str]) -> str:
    """The player counts ``low`` to ``high`` in a rules text: one count is its number; two in a
    row, ``say("span_pair")`` (``5 ou 6``); more, ``say("span_range")`` (``7 à 9``)."""
    if low == high:
        return str(low)
    return say("span_pair" if high == low + 1 else "span_range")
