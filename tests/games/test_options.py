"""The built-in games' options schemas (bot/options.py): their defaults, places and checks, the
config's games sections, docs/operations.md's table and config.example.toml."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.config import ConfigError
from bot.options import OptionError, OptionsSchema
from games.builtin import builtin_plugins, builtin_registry
from games.refutation.options import REFUTATION_OPTIONS
from games.resistance.options import RESISTANCE_OPTIONS
from games.werewolf.options import WEREWOLF_OPTIONS
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
        "prod_hours": 0.0,
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
        "prod_hours": 0.0,
    }
    assert builtin_registry().schemas() == {
        "resistance": RESISTANCE_OPTIONS,
        "refutation": REFUTATION_OPTIONS,
        "werewolf": WEREWOLF_OPTIONS,
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
        "prod_hours",
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


def test_the_config_reads_each_game_through_its_schema(tmp_path: Path) -> None:
    plain = settings_from(tmp_path, "", REGISTRY)
    assert plain.games == {}  # each game's defaults are then its schema's:
    assert {p.kind: p.config_defaults(plain) for p in builtin_plugins()} == {
        "resistance": RESISTANCE_OPTIONS.defaults(),
        "refutation": REFUTATION_OPTIONS.defaults(),
        "werewolf": WEREWOLF_OPTIONS.defaults(),
    }
    decks = tmp_path / "decks"
    decks.mkdir()
    (decks / "club.toml").write_text("")  # the config checks that the deck exists, not its text
    body = (
        '[games.resistance]\nvote_hours = 2\n[games.refutation]\ntarget = 7\ndeck = "club"\n'
        f'[decks]\ndecks_dir = "{decks}"\n'
    )
    settings = settings_from(tmp_path, body, REGISTRY)
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
        settings_from(tmp_path, body, REGISTRY)
    assert words in str(caught.value)


def test_the_operations_table_is_the_schemas() -> None:
    """docs/operations.md's options table is what ``python -m bot options-table`` prints."""
    from bot.options import TABLE_END, TABLE_START, options_table

    text = (Path(__file__).parents[2] / "docs" / "operations.md").read_text()
    assert text.count(TABLE_START) == 1 and text.count(TABLE_END) == 1
    copy = text.split(TABLE_START)[1].split(TABLE_END)[0].strip()
    assert copy == options_table(REGISTRY.schemas()), (
        "docs/operations.md is stale: paste `python -m bot options-table`"
    )
    for schema in builtin_registry().schemas().values():
        for option in schema.options:
            assert f"| `{option.name}` |" in copy


def test_the_cli_prints_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    from bot.cli import main
    from bot.options import TABLE_START, options_table

    assert main(REGISTRY, ["options-table"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(TABLE_START) and options_table(REGISTRY.schemas()) in out


def test_the_example_config_gives_the_schemas_defaults() -> None:
    """config.example.toml writes every game option with its default, as the schema has it."""
    from bot.cli import read_settings

    example = read_settings(REGISTRY, Path(__file__).parents[2] / "config.example.toml", env={})
    assert example.games == {k: s.defaults() for k, s in builtin_registry().schemas().items()}
