"""The Refutation Game's deck in the config: a deck that is not in ``[decks] decks_dir`` is
refused at start, with the decks that are there."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cli import read_settings
from bot.config import ConfigError
from games.builtin import builtin_registry

REGISTRY = builtin_registry()


def test_a_deck_that_is_not_in_decks_dir_is_refused_with_the_decks_there(tmp_path: Path) -> None:
    decks = tmp_path / "decks"
    decks.mkdir()
    (decks / "club.toml").write_text("")
    (decks / "notes.txt").write_text("")
    config = tmp_path / "config.toml"
    config.write_text(f'[games.refutation]\ndeck = "nosuchdeck"\n[decks]\ndecks_dir = "{decks}"\n')
    with pytest.raises(ConfigError) as caught:
        read_settings(REGISTRY, config, env={})
    line = str(caught.value)
    assert line.startswith('[games.refutation] deck = "nosuchdeck": no nosuchdeck.toml in [decks]')
    assert '"default", "club"' in line and "notes" not in line
