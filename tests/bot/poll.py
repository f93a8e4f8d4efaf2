"""The game the core's tests run on: the test-only poll (tests/e2e/poll_game), registered.

The core's tests import no real game (the contract in pyproject.toml); tests/bot/conftest.py
registers this one for all of them, and a test that needs a game's registry takes it here. A
game's tests (games/<kind>/tests) never import this module: that would import the poll into
the game ("games do not import each other").
"""

from __future__ import annotations

from bot.plugins import Registry
from tests.e2e.poll_game.plugin import PLUGIN, POLL_OPTIONS

__all__ = ["PLUGIN", "POLL_OPTIONS", "poll_registry"]


def poll_registry() -> Registry:
    """The poll alone, checked and registered (its events and catalogue)."""
    return Registry([PLUGIN])
