"""The options schemas: the one declaration of each game's options (bot/options.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.config import ConfigError
from bot.i18n import localized_params
from bot.options import Option, OptionError, OptionsSchema
from games.builtin import builtin_plugins, builtin_registry
from games.refutation.options import REFUTATION_OPTIONS
from games.resistance.options import RESISTANCE_OPTIONS
from tests.bot.test_config_shards import settings_from

REGISTRY = builtin_registry()


def test_the_defaults_are_those_of_the_games() -> None:
    assert RESISTANCE_OPTIONS.defaults() == {
        "vote_hours": 24.0,
        "early_close": False,
        "lock_during_vote": True,
        "missing_vote": "reject",
        "reminder_hours": 2.0,
        "leader_hours": 0.0,
        "moderators_see_roles": False,
        "deadline_time": "",
        "min_hours": 12.0,
        "replace_after": 0,
        "team_table": "forum",
        "variant": "classic",
        "percival": False,
        "morgana": False,
        "mordred": False,
        "oberon": False,
        "lady_of_the_lake": False,
    }
    assert REFUTATION_OPTIONS.defaults() == {
        "target": 5,
        "techniques": False,
        "choice_hours": 24.0,
        "vote_hours": 24.0,
        "turn_hours": 48.0,
        "reminder_hours": 2.0,
        "deck": "",
        "deadline_time": "",
        "min_hours": 12.0,
        "replace_after": 0,
    }
    assert builtin_registry().schemas() == {
        "resistance": RESISTANCE_OPTIONS,
        "refutation": REFUTATION_OPTIONS,
    }


def test_each_place_lists_its_options_in_order() -> None:
    new = RESISTANCE_OPTIONS.names("new")
    settings = RESISTANCE_OPTIONS.names("settings")
    assert "moderators_see_roles" not in new and "moderators_see_roles" in settings
    assert [n for n in settings if n != "moderators_see_roles"] == list(new)
    assert REFUTATION_OPTIONS.names("new") == (
        "target",
        "techniques",
        "choice_hours",
        "vote_hours",
        "turn_hours",
        "reminder_hours",
        "deadline_time",
        "min_hours",
        "replace_after",
    )
    assert "deck" in REFUTATION_OPTIONS.names("config")
    assert "deck" not in REFUTATION_OPTIONS.names("settings")


def test_a_config_section_overrides_the_defaults() -> None:
    values = RESISTANCE_OPTIONS.parse_config({"vote_hours": 48, "variant": "avalon"})
    assert values["vote_hours"] == 48.0 and isinstance(values["vote_hours"], float)
    assert values["variant"] == "avalon" and values["missing_vote"] == "reject"


@pytest.mark.parametrize(
    ("schema", "data", "words"),
    [
        (RESISTANCE_OPTIONS, {"vote_hour": 2}, "unknown key in [games.resistance]: vote_hour"),
        (RESISTANCE_OPTIONS, {"vote_hours": "2"}, "[games.resistance] vote_hours must be a number"),
        (RESISTANCE_OPTIONS, {"vote_hours": 0}, "vote_hours must be from 0.0005 to 336"),
        (RESISTANCE_OPTIONS, {"leader_hours": 337}, "leader_hours must be from 0 to 336"),
        (RESISTANCE_OPTIONS, {"early_close": 1}, "early_close must be true or false"),
        (RESISTANCE_OPTIONS, {"variant": "x"}, 'variant must be "classic" or "avalon"'),
        (RESISTANCE_OPTIONS, {"missing_vote": "abstain"}, 'must be "reject" or "accept"'),
        (REFUTATION_OPTIONS, {"target": 6}, "[games.refutation] target must be 5, 7 or 9"),
        (REFUTATION_OPTIONS, {"target": 5.0}, "target must be an integer"),
        (REFUTATION_OPTIONS, {"target": True}, "target must be an integer"),
        (REFUTATION_OPTIONS, {"deck": "../x.toml"}, "deck is a deck name"),
    ],
)
def test_a_bad_config_value_is_refused_with_its_key_named(
    schema: OptionsSchema, data: dict[str, Any], words: str
) -> None:
    with pytest.raises(OptionError) as caught:
        schema.parse_config(data)
    assert words in str(caught.value)


def test_what_a_command_was_given_is_checked() -> None:
    given = RESISTANCE_OPTIONS.given(
        {"vote_hours": 3, "early_close": None, "moderators_see_roles": True, "tag": "x"}, "new"
    )
    assert given == {"vote_hours": 3.0}  # not given, not of /resistance new: dropped
    with pytest.raises(OptionError) as caught:
        RESISTANCE_OPTIONS.given({"vote_hours": 400.0}, "new")
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
        RESISTANCE_OPTIONS.given({"missing_vote": "maybe"}, "settings")
    assert caught.value.key == "common.error.not_a_choice"
    assert {k: str(v) for k, v in caught.value.params.items()} == {
        "option": "missing_vote",
        "choices": "reject, accept",
    }
    assert localized_params(caught.value.params, "fr") == {
        "option": "vote_absent",
        "choices": "contre, pour",
    }
    assert localized_params(caught.value.params, "en") == {
        "option": "missing_vote",
        "choices": "reject, accept",
    }
    with pytest.raises(OptionError) as caught:
        REFUTATION_OPTIONS.given({"techniques": "yes"}, "new")
    assert caught.value.key == "common.error.bad_option"


def test_merge_given_over_guild_over_config() -> None:
    config = RESISTANCE_OPTIONS.defaults()
    guild = {"vote_hours": 48.0, "early_close": True, "retired_option": 1}
    given = {"vote_hours": 6, "early_close": None, "deck_sha256": "ab"}
    merged = RESISTANCE_OPTIONS.merge(config, guild, given)
    assert merged["vote_hours"] == 6.0 and isinstance(merged["vote_hours"], float)  # per game
    assert merged["deck_sha256"] == "ab"  # what a service adds is kept
    assert merged["early_close"] is True  # the guild's (None: not given)
    assert merged["lock_during_vote"] is True  # the config's
    assert "retired_option" not in merged
    assert RESISTANCE_OPTIONS.merge(config, None, {}) == config
    with pytest.raises(OptionError, match="vote_hours must be from"):
        RESISTANCE_OPTIONS.merge(config, guild, {"vote_hours": 0})


def test_a_schema_refuses_a_bad_declaration() -> None:
    with pytest.raises(TypeError, match="its default"):
        Option("hours", float, "24", "Hours")
    with pytest.raises(TypeError, match="its default"):
        Option("hours", float, 400.0, "Hours", min=0.0, max=336.0)
    with pytest.raises(TypeError, match="both bounds"):
        Option("hours", float, 4.0, "Hours", min=0.0)
    with pytest.raises(TypeError, match="declared twice"):
        OptionsSchema("poll", (Option("a", bool, False, "A"), Option("a", bool, True, "A")))


def test_the_config_reads_each_game_through_its_schema(tmp_path: Path) -> None:
    plain = settings_from(tmp_path, "")
    assert plain.games == {}  # each game's defaults are then its schema's:
    assert {p.kind: p.config_defaults(plain) for p in builtin_plugins()} == {
        "resistance": RESISTANCE_OPTIONS.defaults(),
        "refutation": REFUTATION_OPTIONS.defaults(),
    }
    decks = tmp_path / "decks"
    decks.mkdir()
    (decks / "club.toml").write_text("")  # the config checks that the deck exists, not its text
    body = (
        '[games.resistance]\nvote_hours = 2\n[games.refutation]\ntarget = 7\ndeck = "club"\n'
        f'[decks]\ndecks_dir = "{decks}"\n'
    )
    settings = settings_from(tmp_path, body)
    games = {p.kind: p.config_defaults(settings) for p in builtin_plugins()}
    assert games["resistance"]["vote_hours"] == 2.0
    assert games["refutation"]["target"] == 7 and games["refutation"]["deck"] == "club"
    assert games["refutation"]["vote_hours"] == 24.0


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ("[games.poker]\nante = 1\n", "unknown game in [games]: poker"),
        ("[games]\nresistance = 1\n", "one table per game"),
        ("[games.refutation]\ntarget = 4\n", "[games.refutation] target must be 5, 7 or 9"),
        ('[games.refutation]\ndeck = "a/b"\n', "[games.refutation] deck is a deck name"),
        ('[games.resistance]\nvariant = "x"\n', '[games.resistance] variant must be "classic"'),
    ],
)
def test_a_bad_game_section_is_refused(tmp_path: Path, body: str, words: str) -> None:
    with pytest.raises(ConfigError) as caught:
        settings_from(tmp_path, body)
    assert words in str(caught.value)


def test_the_readme_table_is_the_schemas() -> None:
    """The README's options table is what ``python -m bot options-table`` prints."""
    from bot.options import README_END, README_START, readme_table

    text = (Path(__file__).parents[2] / "README.md").read_text()
    assert text.count(README_START) == 1 and text.count(README_END) == 1
    copy = text.split(README_START)[1].split(README_END)[0].strip()
    assert copy == readme_table(REGISTRY.schemas()), (
        "README is stale: paste `python -m bot options-table`"
    )
    for schema in builtin_registry().schemas().values():
        for option in schema.options:
            assert f"| `{option.name}` |" in copy


def test_the_cli_prints_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    from bot.cli import main
    from bot.options import README_START, readme_table

    assert main(REGISTRY, ["options-table"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(README_START) and readme_table(REGISTRY.schemas()) in out


def test_the_example_config_gives_the_schemas_defaults() -> None:
    """config.example.toml writes every game option with its default, as the schema has it."""
    from bot.cli import read_settings

    example = read_settings(REGISTRY, Path(__file__).parents[2] / "config.example.toml", env={})
    assert example.games == {k: s.defaults() for k, s in builtin_registry().schemas().items()}
