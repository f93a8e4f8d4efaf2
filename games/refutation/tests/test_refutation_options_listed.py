"""The Refutation Game's deck is an option its listings leave out (``Option.listed``): its record
names the deck in a line of its own, so the options' line, the rules' and /settings show's
listings do not repeat the deck's name."""

from __future__ import annotations

import pytest

from bot import archive
from games.refutation.options import REFUTATION_OPTIONS
from tests.rows import a_game


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_deck_is_not_among_the_listed_options(lang: str) -> None:
    options = {"vote_hours": 24.0, "deck": "club"}
    listing = archive.options_listing("refutation", REFUTATION_OPTIONS, options, lang)
    assert "club" not in listing and "deck" not in listing
    assert "24" in listing
    game = a_game("refutation")
    game.options = options
    line = next(r for r in archive.header(game, lang, "—", REFUTATION_OPTIONS) if "Options" in r)
    assert "club" not in line and "24" in line
