"""The game's catalogue (``werewolf_catalogue``) for a test process that has not built the
registry of the built-in games (which loads it), unloaded after the test (the databases'
fixtures come from the root conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bot import i18n
from games.werewolf import LOCALES


@pytest.fixture
def werewolf_catalogue() -> Iterator[None]:
    """The catalogue with Werewolf's messages (bot.i18n.add_locales), as it was afterwards."""
    if "werewolf" in i18n._PLUGIN_LOCALES:  # registered with the built-in games already
        yield
        return
    i18n.add_locales("werewolf", LOCALES)
    try:
        yield
    finally:
        # bot.i18n has no public way to unload a plugin's catalogue: the tests' own undo
        del i18n._PLUGIN_LOCALES["werewolf"]
        i18n.catalogue.cache_clear()
