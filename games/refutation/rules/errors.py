"""Domain errors of The Refutation Game.

Each error carries a full message-catalogue key (``refutation.error.*`` for the rules,
``refutation.deck_error.*`` for deck files) and its parameters (``str.format`` placeholders).
"""

from __future__ import annotations

from rulebase import GameError as GameError
from rulebase import KeyedError as _KeyedError

ERROR_PREFIX = "refutation.error."
DECK_ERROR_PREFIX = "refutation.deck_error."


class DeckError(GameError):
    """A deck file that breaks the format. ``key`` is ``refutation.deck_error.<name>``.

    Errors about a card name its ``number`` and ``field``; errors about a family name the
    ``family`` and ``field``; errors about a relevance entry name its ``index`` (1-based, in file
    order), the disinformation ``number``, the ``card`` and the ``field``."""

    def __init__(self, name: str, **params: str | int) -> None:
        super().__init__(DECK_ERROR_PREFIX + name, params)


class BadPlayerCount(_KeyedError):
    """Params: ``count``, ``min``, ``max``."""

    KEY = ERROR_PREFIX + "bad_player_count"


class DuplicatePlayer(_KeyedError):
    """Params: ``player`` (id), ``name``."""

    KEY = ERROR_PREFIX + "duplicate_player"


class BadTarget(_KeyedError):
    """The goal must be 5, 7 or 9. Params: ``target``."""

    KEY = ERROR_PREFIX + "bad_target"


class NotEnoughDisinformation(_KeyedError):
    """The deck has fewer disinformation cards than the goal. Params: ``needed``, ``available``."""

    KEY = ERROR_PREFIX + "not_enough_disinformation"


class NotEnoughRefutations(_KeyedError):
    """Too few refutation cards to deal 4 to each player. Params: ``needed``, ``available``."""

    KEY = ERROR_PREFIX + "not_enough_refutations"


class NotEnoughTechniques(_KeyedError):
    """Too few technique cards for the variant. Params: ``needed``, ``available``."""

    KEY = ERROR_PREFIX + "not_enough_techniques"


class TargetUnreachable(_KeyedError):
    """The goal exceeds the cards dealt: each card in hand refutes one disinformation at most.
    Params: ``target``, ``players``, ``dealt`` (cards in all hands), ``largest`` (the largest
    goal this table can reach)."""

    KEY = ERROR_PREFIX + "target_unreachable"


class WrongDeck(_KeyedError):
    """A saved game loaded with another deck. Params: ``expected``, ``actual``."""

    KEY = ERROR_PREFIX + "wrong_deck"


class GameIsOver(_KeyedError):
    KEY = ERROR_PREFIX + "game_over"


class NotAPlayer(_KeyedError):
    """Params: ``player`` (id)."""

    KEY = ERROR_PREFIX + "not_a_player"


class AlreadyPlaying(_KeyedError):
    """The substitute already plays in this game. Params: ``player`` (id), ``name``."""

    KEY = ERROR_PREFIX + "already_playing"


class NotYourTurn(_KeyedError):
    """Params: ``player`` (id), ``active`` (id of the active player)."""

    KEY = ERROR_PREFIX + "not_your_turn"


class RefutationInProgress(_KeyedError):
    """A turn action while a refutation is under way."""

    KEY = ERROR_PREFIX + "refutation_in_progress"


class NoTurnOpen(_KeyedError):
    """Skipping a turn while none is open (a refutation is under way)."""

    KEY = ERROR_PREFIX + "no_turn_open"


class NoChoiceOpen(_KeyedError):
    """Choosing or revealing while no choice is being collected."""

    KEY = ERROR_PREFIX + "no_choice_open"


class NoVoteOpen(_KeyedError):
    """Voting, consulting or closing while no vote is open."""

    KEY = ERROR_PREFIX + "no_vote_open"


class AlreadyHasCard(_KeyedError):
    """Watching while a card is in front without returning it. Params: ``player``, ``card``."""

    KEY = ERROR_PREFIX + "already_has_card"


class NothingToReturn(_KeyedError):
    """``return_current`` without a card in front. Params: ``player``."""

    KEY = ERROR_PREFIX + "nothing_to_return"


class CardRequired(_KeyedError):
    """Watching needs a feed card (unless only refreshing)."""

    KEY = ERROR_PREFIX + "card_required"


class CardNotInFeed(_KeyedError):
    """Params: ``card``."""

    KEY = ERROR_PREFIX + "card_not_in_feed"


class FeedEmpty(_KeyedError):
    KEY = ERROR_PREFIX + "feed_empty"


class AlreadyRefreshed(_KeyedError):
    """The feed can be refreshed once per turn."""

    KEY = ERROR_PREFIX + "already_refreshed"


class NothingToRefresh(_KeyedError):
    """Feed and deck are both empty."""

    KEY = ERROR_PREFIX + "nothing_to_refresh"


class MustPlace(_KeyedError):
    """After a refresh the active player must watch a card of the new feed."""

    KEY = ERROR_PREFIX + "must_place"


class NothingToRefute(_KeyedError):
    """The target player has no disinformation in front. Params: ``target`` (id)."""

    KEY = ERROR_PREFIX + "nothing_to_refute"


class UnknownCard(_KeyedError):
    """A number that is not a card of the deck. Params: ``card``."""

    KEY = ERROR_PREFIX + "unknown_card"


class NotInHand(_KeyedError):
    """Params: ``card``."""

    KEY = ERROR_PREFIX + "not_in_hand"


class NotEligible(_KeyedError):
    """A card of another family (or a technique without the variant). Params: ``card``,
    ``family`` (key of the target's family)."""

    KEY = ERROR_PREFIX + "not_eligible"


class NotRevealed(_KeyedError):
    """A vote for a card that was not revealed. Params: ``card``."""

    KEY = ERROR_PREFIX + "not_revealed"


class NotInRunoff(_KeyedError):
    """After a tie on the reference page, only the tied cards can be voted. Params: ``card``."""

    KEY = ERROR_PREFIX + "not_in_runoff"


class ReferenceAlreadyConsulted(_KeyedError):
    KEY = ERROR_PREFIX + "reference_already_consulted"


class InvalidAction(_KeyedError):
    """An action record that is unknown or malformed (replay). Params: ``action``."""

    KEY = ERROR_PREFIX + "invalid_action"


#: Every rules error class, for catalogue checks.
ERROR_CLASSES: tuple[type[_KeyedError], ...] = (
    BadPlayerCount,
    DuplicatePlayer,
    BadTarget,
    NotEnoughDisinformation,
    NotEnoughRefutations,
    NotEnoughTechniques,
    TargetUnreachable,
    WrongDeck,
    GameIsOver,
    NotAPlayer,
    AlreadyPlaying,
    NotYourTurn,
    RefutationInProgress,
    NoTurnOpen,
    NoChoiceOpen,
    NoVoteOpen,
    AlreadyHasCard,
    NothingToReturn,
    CardRequired,
    CardNotInFeed,
    FeedEmpty,
    AlreadyRefreshed,
    NothingToRefresh,
    MustPlace,
    NothingToRefute,
    UnknownCard,
    NotInHand,
    NotEligible,
    NotRevealed,
    NotInRunoff,
    ReferenceAlreadyConsulted,
    InvalidAction,
)

#: Every rules error key.
ERROR_KEYS: tuple[str, ...] = tuple(cls.KEY for cls in ERROR_CLASSES)

#: Every deck error key, with the parameters it carries (documentation and catalogue checks).
DECK_ERRORS: dict[str, tuple[str, ...]] = {
    "too_large": ("size", "max"),
    "not_utf8": ("offset",),
    "too_deep": ("line", "max"),
    "key_too_long": ("line", "max"),
    "too_many_digits": (),
    "too_many": ("field", "count", "max"),
    "syntax": ("line", "column", "detail"),
    "missing_deck": ("field",),
    "unknown_section": ("section", "field"),
    "bad_section": ("section", "field"),
    "deck_field": ("field",),
    "deck_language": ("field", "lang"),
    "deck_unknown_field": ("field",),
    "deck_too_long": ("field", "lang", "length", "max"),
    "family_key": ("index", "field"),
    "duplicate_family": ("family", "field"),
    "bad_colour": ("family", "field", "value"),
    "family_language": ("family", "field", "lang"),
    "family_unknown_field": ("family", "field"),
    "family_too_long": ("family", "field", "lang", "length", "max"),
    "no_families": ("field",),
    "card_number": ("index", "field", "max"),
    "duplicate_number": ("number", "field"),
    "unknown_kind": ("number", "field", "value"),
    "missing_family": ("number", "field"),
    "unknown_family": ("number", "field", "value"),
    "family_on_technique": ("number", "field"),
    "missing_language": ("number", "field", "lang"),
    "bad_text": ("number", "field", "lang"),
    "title_too_long": ("number", "field", "lang", "length", "max"),
    "text_too_long": ("number", "field", "lang", "length", "max"),
    "missing_source": ("number", "field"),
    "bad_source": ("number", "field", "value"),
    "source_too_long": ("number", "field", "length", "max"),
    "card_unknown_field": ("number", "field"),
    "claim_not_disinformation": ("number", "field"),
    "missing_locator": ("number", "field"),
    "bad_locator": ("number", "field", "max"),
    "relevance_field": ("index", "field"),
    "relevance_unknown_field": ("index", "field"),
    "relevance_missing_card": ("index", "number", "field"),
    "relevance_not_disinformation": ("index", "number", "field"),
    "relevance_to_disinformation": ("index", "number", "card", "field"),
    "relevance_wrong_family": ("index", "number", "card", "field", "family", "expected"),
    "bad_stars": ("index", "number", "card", "field", "stars"),
    "duplicate_relevance": ("index", "number", "card", "field"),
    "no_refutation": ("number", "field"),
    "too_few_disinformation": ("field", "count", "needed"),
}

#: Every deck error key, in full.
DECK_ERROR_KEYS: tuple[str, ...] = tuple(DECK_ERROR_PREFIX + name for name in DECK_ERRORS)
