"""The options schemas (bot/options.py), the one declaration of a game's options: defaults,
places, the config's and the commands' checks, the merge. On the poll's options and a schema of
the poll's kind with a choice, a yes-or-no and a count; the built-in games' schemas are tested
in tests/games/test_options.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.config import ConfigError
from bot.i18n import localized_params
from bot.options import Option, OptionError, OptionsSchema
from tests.bot.poll import PLUGIN, POLL_OPTIONS
from tests.bot.test_config_shards import settings_from

#: The poll's vote_hours (French: heures_vote), with a yes-or-no, a choice and a count, one of
#: them only in /settings poll.
SCHEMA = OptionsSchema(
    "poll",
    (
        *POLL_OPTIONS.options,
        Option("early_close", bool, False, "Close early"),
        Option("missing_vote", str, "reject", "A missing vote", choices=("reject", "accept")),
        Option("rounds", int, 1, "Rounds", min=1, max=9),
        Option("quiet", bool, False, "No reminders", new=False),
    ),
)


def test_each_place_lists_its_options_in_order() -> None:
    assert POLL_OPTIONS.defaults() == {"vote_hours": 24.0, "prod_hours": 0.0}
    new, settings = SCHEMA.names("new"), SCHEMA.names("settings")
    assert "quiet" not in new and "quiet" in settings
    assert [n for n in settings if n != "quiet"] == list(new)
    assert SCHEMA.names("config") == settings


def test_a_config_section_overrides_the_defaults() -> None:
    values = SCHEMA.parse_config({"vote_hours": 48, "missing_vote": "accept"})
    assert values["vote_hours"] == 48.0 and isinstance(values["vote_hours"], float)
    assert values["missing_vote"] == "accept" and values["early_close"] is False


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ({"vote_hour": 2}, "unknown key in [games.poll]: vote_hour"),
        ({"vote_hours": "2"}, "[games.poll] vote_hours must be a number"),
        ({"vote_hours": 0}, "vote_hours must be from 0.0005 to 336"),
        ({"early_close": 1}, "early_close must be true or false"),
        ({"missing_vote": "abstain"}, 'missing_vote must be "reject" or "accept"'),
        ({"rounds": 10}, "[games.poll] rounds must be from 1 to 9"),
        ({"rounds": 5.0}, "rounds must be an integer"),
        ({"rounds": True}, "rounds must be an integer"),
    ],
)
def test_a_bad_config_value_is_refused_with_its_key_named(data: dict[str, Any], words: str) -> None:
    with pytest.raises(OptionError) as caught:
        SCHEMA.parse_config(data)
    assert words in str(caught.value)


def test_what_a_command_was_given_is_checked() -> None:
    given = SCHEMA.given({"vote_hours": 3, "early_close": None, "quiet": True, "tag": "x"}, "new")
    assert given == {"vote_hours": 3.0}  # not given, not of /poll new: dropped
    with pytest.raises(OptionError) as caught:
        SCHEMA.given({"vote_hours": 400.0}, "new")
    assert caught.value.key == "common.error.out_of_range"
    # each parameter reads in English as str(), in the reader's language through the catalogue
    assert {k: str(v) for k, v in caught.value.params.items()} == {
        "option": "vote_hours",
        "low": "0.0005",
        "high": "336",
        "value": "400",
    }
    assert localized_params(caught.value.params, "fr") == {
        "option": "heures_vote",
        "low": "0,0005",
        "high": "336",
        "value": "400",
    }
    with pytest.raises(OptionError) as caught:
        SCHEMA.given({"missing_vote": "maybe"}, "settings")
    assert caught.value.key == "common.error.not_a_choice"
    assert {k: str(v) for k, v in caught.value.params.items()} == {
        "option": "missing_vote",
        "choices": "reject, accept",
    }
    assert localized_params(caught.value.params, "fr") == {
        "option": "missing_vote",  # no command of the poll names it
        "choices": "contre, pour",
    }
    with pytest.raises(OptionError) as caught:
        SCHEMA.given({"early_close": "yes"}, "new")
    assert caught.value.key == "common.error.bad_option"


def test_merge_given_over_guild_over_config() -> None:
    config = SCHEMA.defaults()
    guild = {"vote_hours": 48.0, "early_close": True, "retired_option": 1}
    given = {"vote_hours": 6, "early_close": None, "deck_sha256": "ab"}
    merged = SCHEMA.merge(config, guild, given)
    assert merged["vote_hours"] == 6.0 and isinstance(merged["vote_hours"], float)  # per game
    assert merged["deck_sha256"] == "ab"  # what a service adds is kept
    assert merged["early_close"] is True  # the guild's (None: not given)
    assert merged["missing_vote"] == "reject"  # the config's
    assert "retired_option" not in merged
    assert SCHEMA.merge(config, None, {}) == config
    with pytest.raises(OptionError, match="vote_hours must be from"):
        SCHEMA.merge(config, guild, {"vote_hours": 0})


def test_a_schema_refuses_a_bad_declaration() -> None:
    with pytest.raises(TypeError, match="its default"):
        Option("hours", float, "24", "Hours")
    with pytest.raises(TypeError, match="its default"):
        Option("hours", float, 400.0, "Hours", min=0.0, max=336.0)
    with pytest.raises(TypeError, match="both bounds"):
        Option("hours", float, 4.0, "Hours", min=0.0)
    with pytest.raises(TypeError, match="declared twice"):
        OptionsSchema("poll", (Option("a", bool, False, "A"), Option("a", bool, True, "A")))


def test_the_config_reads_the_game_through_its_schema(tmp_path: Path) -> None:
    plain = settings_from(tmp_path, "")
    assert plain.games == {}  # the game's defaults are then its schema's:
    assert PLUGIN.config_defaults(plain) == POLL_OPTIONS.defaults()
    settings = settings_from(tmp_path, "[games.poll]\nvote_hours = 2\n")
    assert PLUGIN.config_defaults(settings) == {"vote_hours": 2.0, "prod_hours": 0.0}


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ("[games.poker]\nante = 1\n", "unknown game in [games]: poker"),
        ("[games]\npoll = 1\n", "one table per game"),
        ("[games.poll]\nvote_hours = 0\n", "[games.poll] vote_hours must be from 0.0005 to 336"),
        ('[games.poll]\nvote_hours = "2"\n', "[games.poll] vote_hours must be a number"),
    ],
)
def test_a_bad_game_section_is_refused(tmp_path: Path, body: str, words: str) -> None:
    with pytest.raises(ConfigError) as caught:
        settings_from(tmp_path, body)
    assert words in str(caught.value)
