"""What the core writes in every game's Markdown record (bot/archive.py): escaped names, a role
the catalogue does not know, the options in the reader's language. On the poll; each game's own
record is tested with the game (games/<kind>/tests/test_records.py)."""

from __future__ import annotations

import pytest

from bot import archive
from bot.options import Option, OptionsSchema
from tests.rows import a_game

#: The poll's vote_hours (named heures_vote by the French /poll new), a yes-or-no and a choice
#: that no command of the poll names.
SCHEMA = OptionsSchema(
    "poll",
    (
        Option("vote_hours", float, 24.0, "Hours", min=0.0005, max=336.0),
        Option("early_close", bool, False, "Close early"),
        Option("missing_vote", str, "reject", "A missing vote", choices=("reject", "accept")),
    ),
)


def test_names_are_escaped_for_markdown() -> None:
    assert archive.md("a|b*c_d\nx") == "a\\|b\\*c\\_d x"
    assert archive.md("Œdipe") == "Œdipe"


def test_a_role_the_catalogue_does_not_know_shows_as_stored() -> None:
    assert archive.role_name("poll", "loyal_servant", "en") == "Loyal servant"
    assert archive.role_name("poll", "spy", "fr") == "Spy"


@pytest.mark.parametrize(
    ("lang", "line"),
    [
        ("en", "`early_close` = True, `missing_vote` = reject, `vote_hours` = 24.0"),
        # French: the names and values a French player reads in her commands, in their order
        ("fr", "`early_close` = oui, `heures_vote` = 24, `missing_vote` = contre"),
    ],
)
def test_the_records_options_read_in_the_readers_language(lang: str, line: str) -> None:
    game = a_game("poll")
    game.options = {"vote_hours": 24.0, "missing_vote": "reject", "early_close": True}
    header = archive.header(game, lang, "—", SCHEMA)
    options = next(row for row in header if "Options" in row)
    assert options.endswith(line), options
