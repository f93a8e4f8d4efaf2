"""The built-in games' records (games/builtin.py, bot.plugins): each registered once, with its
options, its defaults and its demos, loaded from the modules the list names."""

from __future__ import annotations

import pytest

from bot.plugins import Registry, load_plugin
from bot.service import GameService
from games.builtin import BUILTIN, builtin_plugins, builtin_registry


def test_the_builtin_games_are_registered_once_each() -> None:
    plugins = builtin_plugins()
    registry = Registry(plugins)
    assert registry.kinds == ("resistance", "refutation", "werewolf")
    assert registry.kind_of_deadline("rs_vote") == "resistance"
    assert registry.kind_of_deadline("rs_avalon_lady") == "resistance"
    assert registry.kind_of_deadline("rf_choice") == "refutation"
    assert registry.kind_of_deadline("ww_night") == "werewolf"
    assert registry.kind_of_deadline("zz_vote") is None
    assert registry.kind_of_deadline("vote") is None
    for p in plugins:
        assert p.cog == f"games.{p.kind}.cog" and p.buttons and p.views and p.events is not None
        service = p.service  # a GameService subclass, called with the Services
        assert isinstance(service, type) and issubclass(service, GameService)
        assert service.kind == p.kind


def test_the_builtin_games_options_give_their_defaults() -> None:
    from bot.config import Settings
    from games.refutation.options import REFUTATION_OPTIONS

    by_kind = {p.kind: p for p in builtin_plugins()}
    assert by_kind["resistance"].config_defaults(Settings())["vote_hours"] == 24.0
    assert by_kind["refutation"].options is REFUTATION_OPTIONS


def test_each_builtin_module_holds_its_plugin_record() -> None:
    assert [load_plugin(m).kind for m in BUILTIN] == ["resistance", "refutation", "werewolf"]


def test_the_cli_demos_are_the_plugins_demos(capsys: pytest.CaptureFixture[str]) -> None:
    from bot.cli import _parser

    shipped = [name for p in builtin_plugins() for name in p.demos]
    assert shipped == ["resistance", "avalon", "refutation", "werewolf"]
    assert _parser(builtin_registry()).parse_args(["demo"]).game == "resistance"
    assert _parser(builtin_registry()).parse_args(["demo", "--game", "avalon"]).game == "avalon"
    with pytest.raises(SystemExit):
        _parser(builtin_registry()).parse_args(["demo", "--game", "chess"])
    assert "invalid choice" in capsys.readouterr().err
