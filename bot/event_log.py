"""The event log's rows as typed events: each game's family of events, and the decoding.

A game declares its family in its plugin record (``GamePlugin.events``: the family base, e.g.
``ResistanceEvent``, whose ``decode`` and ``knows`` read its kinds); building a
:class:`bot.plugins.Registry` registers the families of its games here (the composition root
builds one for the built-in games before anything reads the log).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

from rulebase import Event

#: A game's family of events: the base class of its events (``ResistanceEvent``), whose
#: ``decode(kind, payload, private_to)`` reads a stored row and ``knows(kind)`` says whether
#: a row's kind is one of the family's.
EventFamily = type[Event]

#: The registered families, by game kind (filled by bot.plugins.Registry).
_FAMILIES: dict[str, EventFamily] = {}


class Row(Protocol):
    """A stored event (``db.models.Event``)."""

    kind: str
    payload: dict[str, Any]
    private_to: int | None


def register_family(game_kind: str, family: EventFamily) -> None:
    """Read the rows of games of ``game_kind`` with ``family`` from now on. Registering the
    same family again is harmless; another family for a kind that has one is refused."""
    known = _FAMILIES.get(game_kind)
    if known is not None and known is not family:
        raise ValueError(
            f"game kind {game_kind!r} already reads its events as {known.__name__}, "
            f"not {family.__name__}"
        )
    _FAMILIES[game_kind] = family


def family_of(game_kind: str) -> EventFamily | None:
    """The family of events of games of ``game_kind``, or None if no plugin declared one."""
    return _FAMILIES.get(game_kind)


def decode_events(game_kind: str, rows: Iterable[Row]) -> list[Event]:
    """The typed events of stored rows of a game of ``game_kind`` (rows of other kinds, such
    as a moderator's reminder, are not the game's and are left out; so are the rows of a game
    whose plugin declares no family of events). A row of one of the family's kinds that does
    not decode raises ValueError."""
    family = family_of(game_kind)
    if family is None:
        return []
    return [
        family.decode(row.kind, row.payload, row.private_to)
        for row in rows
        if family.knows(row.kind)
    ]
