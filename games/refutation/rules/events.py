"""The Refutation Game's events: one frozen dataclass per kind (``kind`` is the stored name).

Cards are numbers (the deck gives their families and texts). Field names and order are the
stored payload's keys (see ``rulebase.Event``): rows written before these classes existed
read back unchanged. Mappings keyed by card number or player id are stored with string keys
and read back as ints.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from rulebase import Event, Record

from .model import Result


@dataclass(frozen=True)
class RefutationEvent(Event):
    """Any event of The Refutation Game; ``decode`` knows every kind below."""

    KINDS: ClassVar[dict[str, type[Event]]] = {}


@dataclass(frozen=True)
class Refuted(Record):
    """One successful refutation (the game's ``successes``)."""

    disinformation: int
    card: int
    player: int
    by_reference: bool


@dataclass(frozen=True)
class GameStarted(RefutationEvent):
    kind = "game_started"
    deck_id: str
    players: tuple[int, ...]
    active: int
    feed: tuple[int, ...]
    draw_count: int
    target: int
    techniques: bool


@dataclass(frozen=True)
class HandDealt(RefutationEvent):
    """Private to ``player``: their hand (at the start, or on taking a seat)."""

    kind = "hand_dealt"
    player: int
    hand: tuple[int, ...]


@dataclass(frozen=True)
class CardReturned(RefutationEvent):
    """The active player put the card in front of them back under the deck."""

    kind = "card_returned"
    player: int
    card: int


@dataclass(frozen=True)
class FeedRefreshed(RefutationEvent):
    kind = "feed_refreshed"
    feed: tuple[int, ...]
    draw_count: int


@dataclass(frozen=True)
class CardWatched(RefutationEvent):
    """``card`` left the feed for the front of ``player``; ``drawn`` replaced it (None: the
    deck was empty)."""

    kind = "card_watched"
    player: int
    card: int
    feed: tuple[int, ...]
    drawn: int | None
    draw_count: int


@dataclass(frozen=True)
class RefutationStarted(RefutationEvent):
    kind = "refutation_started"
    refutation: int
    player: int
    target_player: int
    card: int
    family: str


@dataclass(frozen=True)
class CardChosen(RefutationEvent):
    """Private: the card a player will reveal (None: passes)."""

    kind = "card_chosen"
    player: int
    card: int | None


@dataclass(frozen=True)
class CardsRevealed(RefutationEvent):
    """``cards``: revealed card -> the player who played it."""

    kind = "cards_revealed"
    refutation: int
    disinformation: int
    cards: Mapping[int, int]


@dataclass(frozen=True)
class VoteRecorded(RefutationEvent):
    """Private: a vote for a revealed card (None: abstains)."""

    kind = "vote_recorded"
    player: int
    card: int | None


@dataclass(frozen=True)
class ReferenceConsulted(RefutationEvent):
    """``relevant``: revealed card -> its stars on the reference page; ``elected`` wins at
    once, else ``restricted_to`` (a tie) are the cards still in the vote."""

    kind = "reference_consulted"
    player: int
    disinformation: int
    relevant: Mapping[int, int]
    elected: int | None
    restricted_to: tuple[int, ...]


@dataclass(frozen=True)
class RefutationSucceeded(RefutationEvent):
    """``votes``: candidate card -> votes cast for it."""

    kind = "refutation_succeeded"
    disinformation: int
    card: int
    player: int
    by_reference: bool
    target_player: int
    votes: Mapping[int, int]


@dataclass(frozen=True)
class RefutationFailed(RefutationEvent):
    """``reason``: ``no_cards`` (nothing revealed) or ``no_majority``."""

    kind = "refutation_failed"
    disinformation: int
    target_player: int
    votes: Mapping[int, int]
    reason: str


@dataclass(frozen=True)
class TurnSkipped(RefutationEvent):
    """``player`` did not take turn ``turn``: it passes to the next player with no card played
    (at the turn's deadline, or by a moderator: ``by_moderator``). A ``TurnPassed`` follows."""

    kind = "turn_skipped"
    player: int
    turn: int
    by_moderator: bool


@dataclass(frozen=True)
class TurnPassed(RefutationEvent):
    kind = "turn_passed"
    active: int
    turn: int


@dataclass(frozen=True)
class GameOver(RefutationEvent):
    """``credits``: player -> the cards they refuted with; ``refutations``: every success."""

    kind = "game_over"
    result: Result
    by_moderator: bool
    refuted: tuple[int, ...]
    credits: Mapping[int, tuple[int, ...]]
    refutations: tuple[Refuted, ...]


@dataclass(frozen=True)
class PlayerSubstituted(RefutationEvent):
    """``new`` (named ``name``) takes ``old``'s seat. ``old_name``: the leaver's name, which the
    service adds before it stores the event."""

    kind = "player_substituted"
    OPTIONAL = frozenset({"old_name"})
    old: int
    new: int
    name: str
    old_name: str | None = None
