"""The Refutation Game: a cooperative card game about climate misinformation (pure rules)."""

from .deck import (
    Card,
    CardKind,
    Deck,
    Family,
    Reference,
    default_deck_path,
    load_deck,
    parse_deck,
)
from .errors import DECK_ERROR_KEYS, DECK_ERRORS, ERROR_KEYS, DeckError, GameError
from .events import RefutationEvent
from .game import Refutation, replay
from .model import Options, Phase, Player, Result

__all__ = [
    "DECK_ERRORS",
    "DECK_ERROR_KEYS",
    "ERROR_KEYS",
    "Card",
    "CardKind",
    "Deck",
    "DeckError",
    "Family",
    "GameError",
    "Options",
    "Phase",
    "Player",
    "Reference",
    "Refutation",
    "RefutationEvent",
    "Result",
    "default_deck_path",
    "load_deck",
    "parse_deck",
    "replay",
]
