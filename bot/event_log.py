"""The event log's rows as typed events: each game's family of events, and the decoding."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

from games.common import Event
from games.refutation import RefutationEvent
from games.resistance import ResistanceEvent

#: Each game's family of events (the kinds its log may hold), by game kind.
EVENT_FAMILIES: dict[str, type[Event]] = {
    "resistance": ResistanceEvent,
    "refutation": RefutationEvent,
}


class Row(Protocol):
    """A stored event (``db.models.Event``)."""

    kind: str
    payload: dict[str, Any]
    private_to: int | None


def decode_events(game_kind: str, rows: Iterable[Row]) -> list[Event]:
    """The typed events of stored rows of a game of ``game_kind`` (rows of other kinds, such
    as a moderator's reminder, are not the game's and are left out; so are the rows of a game
    whose family is not listed here: the readers of this module know only these games)."""
    family = EVENT_FAMILIES.get(game_kind)
    if family is None:
        return []
    return [
        family.decode(row.kind, row.payload, row.private_to)
        for row in rows
        if family.knows(row.kind)
    ]
