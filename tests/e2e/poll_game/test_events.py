"""The poll's events read back through the event log (bot.event_log) once its plugin is
registered: the family comes from its record, not from a list in the bot."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from bot.event_log import decode_events, family_of, register_family
from bot.plugins import Registry
from games.builtin import builtin_plugins
from games.resistance.rules import ResistanceEvent
from tests.e2e.poll_game.plugin import PLUGIN
from tests.e2e.poll_game.rules import PollClosed, PollEvent, PollOpened, PollVoted


@dataclass
class Row:
    kind: str
    payload: dict[str, Any] = field(default_factory=dict)
    private_to: int | None = None


def stored(event: PollEvent) -> Row:
    return Row(event.kind, event.payload(), event.private_to)


def test_a_registered_poll_reads_its_event_log_back() -> None:
    Registry([*builtin_plugins(), PLUGIN])
    assert family_of("poll") is PollEvent
    events = [
        PollOpened(players=(1, 2)),
        PollVoted(choice="first", private_to=1),
        PollClosed(first=(1,), second=(2,)),
    ]
    rows = [stored(events[0]), Row("reminder", {"by": 7}), stored(events[1]), stored(events[2])]
    # the moderator's reminder is not the poll's: left out; the others read back equal
    assert decode_events("poll", rows) == events
    # the built-ins still read theirs, from their own records
    assert family_of("resistance") is ResistanceEvent


def test_a_poll_row_that_does_not_decode_is_refused_clearly() -> None:
    Registry([*builtin_plugins(), PLUGIN])
    with pytest.raises(ValueError, match="unknown event kind 'poll_bogus'"):
        PollEvent.decode("poll_bogus", {})
    with pytest.raises(ValueError, match="missing key 'choice'"):
        decode_events("poll", [Row("poll_voted", {}, 1)])
    with pytest.raises(ValueError, match="unknown keys"):
        decode_events("poll", [Row("poll_opened", {"players": [1], "extra": 1})])
    # a game kind no plugin declared a family for reads as no events
    assert decode_events("nogame", [stored(PollOpened(players=(1,)))]) == []


def test_a_second_family_for_the_poll_is_refused() -> None:
    Registry([*builtin_plugins(), PLUGIN])
    register_family("poll", PollEvent)  # the same again: harmless
    with pytest.raises(ValueError, match="already reads its events as PollEvent"):
        register_family("poll", ResistanceEvent)
    assert family_of("poll") is PollEvent
