"""The games' registry (bot.plugins) and the plugins' catalogues (bot.i18n.add_locales)."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest

from bot import i18n
from bot.plugins import GamePlugin, Registry, load_plugin
from bot.service import GameService
from games.builtin import BUILTIN, builtin_plugins, builtin_registry

ROOT = Path(__file__).resolve().parents[2]


def plugin(kind: str = "poll", prefixes: tuple[str, ...] = ("pl",), **kw: Any) -> GamePlugin:
    return GamePlugin(kind=kind, deadline_prefixes=prefixes, service=GameService, cog="x", **kw)


def test_the_builtin_games_are_registered_once_each() -> None:
    plugins = builtin_plugins()
    registry = Registry(plugins)
    assert registry.kinds == ("resistance", "refutation")
    assert registry.kind_of_deadline("rs_vote") == "resistance"
    assert registry.kind_of_deadline("rs_avalon_lady") == "resistance"
    assert registry.kind_of_deadline("rf_choice") == "refutation"
    assert registry.kind_of_deadline("zz_vote") is None
    assert registry.kind_of_deadline("vote") is None
    for p in plugins:
        assert p.cog == f"games.{p.kind}.cog" and p.buttons and p.views and p.events is not None
        service = p.service  # a GameService subclass, called with the Services
        assert isinstance(service, type) and issubclass(service, GameService)
        assert service.kind == p.kind


def test_a_registry_refuses_what_two_games_would_share() -> None:
    with pytest.raises(ValueError, match="registered twice"):
        Registry([plugin(), plugin(prefixes=("pz",))])
    with pytest.raises(ValueError, match="already 'poll'"):
        Registry([plugin(), plugin("quiz")])
    with pytest.raises(ValueError, match="view 'pl_vote'"):
        Registry(
            [plugin(views={"pl_vote": print}), plugin("quiz", ("qz",), views={"pl_vote": print})]
        )
    with pytest.raises(ValueError, match="view 'lobby'"):
        Registry([plugin(views={"lobby": print})])
    assert Registry([*builtin_plugins(), plugin()]).kinds[-1] == "poll"


@pytest.mark.parametrize("kind", ["", "Poll", "po-ll", "a_b", "x" * 17, "1poll"])
def test_a_kind_is_lower_case_letters_and_digits(kind: str) -> None:
    with pytest.raises(ValueError, match="game kind"):
        plugin(kind)


@pytest.mark.parametrize("prefix", ["", "p_l", "PL", "toolongprefix"])
def test_a_deadline_prefix_has_no_underscore(prefix: str) -> None:
    with pytest.raises(ValueError, match="deadline prefix"):
        plugin(prefixes=(prefix,))
    with pytest.raises(ValueError, match="at least one"):
        plugin(prefixes=())


def test_a_games_options_are_its_own_and_give_its_defaults() -> None:
    from bot.config import Settings
    from bot.options import Option, OptionsSchema
    from games.refutation.options import REFUTATION_OPTIONS

    with pytest.raises(ValueError, match="options are 'refutation'"):
        plugin(options=REFUTATION_OPTIONS)
    schema = OptionsSchema(
        "poll", (Option("vote_hours", float, 24.0, "Hours", min=0.01, max=48.0),)
    )
    assert plugin(options=schema).config_defaults(Settings()) == {"vote_hours": 24.0}
    assert plugin().config_defaults(Settings()) == {}
    by_kind = {p.kind: p for p in builtin_plugins()}
    assert by_kind["resistance"].config_defaults(Settings())["vote_hours"] == 24.0
    assert by_kind["refutation"].options is REFUTATION_OPTIONS


def test_a_module_without_a_plugin_record_is_refused() -> None:
    with pytest.raises(TypeError, match="PLUGIN"):
        load_plugin("bot.i18n")
    assert [load_plugin(m).kind for m in BUILTIN] == ["resistance", "refutation"]


def test_no_module_outside_the_games_names_a_kind() -> None:
    """The application (bot/app.py, the lobby buttons, the scheduler, the database)
    knows the kinds only through the registry: no literal "resistance" or "refutation"."""
    for name in ("bot/app.py", "bot/scheduler.py", "cogs/lobby.py", "db/models.py"):
        tree = ast.parse((ROOT / name).read_text())
        literals = {
            node.value
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
        }
        named = [
            lit
            for lit in literals
            if "resistance" in lit or "refutation" in lit or re.match(r"r[sf](_|$)", lit)
        ]
        assert named == [], name


def test_the_cli_demos_are_the_plugins_demos(capsys: pytest.CaptureFixture[str]) -> None:
    from bot.cli import _parser

    shipped = [name for p in builtin_plugins() for name in p.demos]
    assert shipped == ["resistance", "avalon", "refutation"]
    assert _parser(builtin_registry()).parse_args(["demo"]).game == "resistance"
    assert _parser(builtin_registry()).parse_args(["demo", "--game", "avalon"]).game == "avalon"
    with pytest.raises(SystemExit):
        _parser(builtin_registry()).parse_args(["demo", "--game", "chess"])
    assert "invalid choice" in capsys.readouterr().err


# -- catalogues ------------------------------------------------------------------------------


def write(directory: Path, lang: str, name: str, text: str) -> None:
    (directory / lang).mkdir(parents=True, exist_ok=True)
    (directory / lang / name).write_text(text, encoding="utf-8")


@pytest.fixture
def clean_catalogue() -> Any:
    before = dict(i18n._PLUGIN_LOCALES)
    yield
    i18n._PLUGIN_LOCALES.clear()
    i18n._PLUGIN_LOCALES.update(before)
    i18n.catalogue.cache_clear()


def test_a_plugin_catalogue_is_loaded_under_its_kind(tmp_path: Path, clean_catalogue: Any) -> None:
    for lang, name in (("en", "Quiz"), ("fr", "Quiz")):
        write(
            tmp_path, lang, "quiz.toml", f'game_name = "{name}"\n[result]\nwon = "{lang} {{who}}"\n'
        )
        write(tmp_path, lang, "commands.toml", f'[quiz]\nname = "quiz{lang}"\n')
    i18n.add_locales("quiz", tmp_path)
    i18n.add_locales("quiz", tmp_path)  # the same directory again: nothing happens
    assert i18n.t("quiz.result.won", "fr", who="Chloé") == "fr Chloé"
    assert i18n.game_name("quiz", "en") == "Quiz"
    assert i18n.t("commands.quiz.name", "fr") == "quizfr"
    assert i18n.game_name("resistance", "fr") == "The Resistance"  # the built-ins are still there
    with pytest.raises(ValueError, match="already"):
        i18n.add_locales("quiz", tmp_path / "elsewhere")


def test_a_plugin_games_settings_command_is_named_as_its_own_commands(
    tmp_path: Path, clean_catalogue: Any
) -> None:
    """/settings quiz, made from the quiz's schema: in French it is named as /quiz, and each
    option as /quiz new names it, in the command and in a refusal, unless the quiz's own
    [settings.quiz] names it (an option only /settings quiz takes); English, or no French name:
    the key."""
    for lang in ("en", "fr"):
        write(tmp_path, lang, "quiz.toml", 'game_name = "Quiz"\n')
    write(
        tmp_path,
        "fr",
        "commands.toml",
        '[quiz]\nname = "devinette"\n[quiz.new]\n'
        'params.rounds = { name = "manches", description = "Nombre de manches" }\n'
        "[settings.quiz]\n"
        'params.hints = { name = "indices", description = "Indices par question" }\n',
    )
    i18n.add_locales("quiz", tmp_path)
    assert i18n.defaults_game("settings quiz") == "quiz"
    assert i18n.param_name("settings quiz", "rounds", "fr") == "manches"
    assert i18n.param_name("settings quiz", "rounds", "en") == "rounds"
    assert i18n.param_name("settings quiz", "seconds", "fr") == "seconds"  # named nowhere
    assert i18n.option_label("quiz", "rounds", "fr") == "manches"  # the listing's name
    # An option only /settings quiz takes, named by the quiz's [settings.quiz].
    assert i18n.param_name("settings quiz", "hints", "fr") == "indices"
    assert i18n.param_name("settings quiz", "hints", "en") == "hints"
    assert i18n.option_label("quiz", "hints", "fr") == "indices"
    keys = i18n.param_keys("settings quiz", "hints", "description")
    assert i18n.first_defined(keys, "fr") == "Indices par question"
    keys = i18n.param_keys("settings quiz", "rounds", "description")
    assert i18n.first_defined(keys, "fr") == "Nombre de manches"
    assert i18n.first_defined(i18n.command_keys("settings quiz"), "fr") == "devinette"
    assert i18n.first_defined(i18n.command_keys("settings quiz", "description"), "fr") is None
    assert i18n.defaults_description("quiz", "fr") == (
        "Options par défaut des nouvelles parties de Quiz"
    )
    assert i18n.defaults_description("quiz", "en") == "Default options for new games of Quiz"
    # The built-in games' defaults commands, and commands that set no game's defaults.
    assert i18n.defaults_game("settings resistance") == "resistance"
    assert i18n.defaults_game("settings refutation defaults") == "refutation"
    for command in ("settings timezone", "settings refutation deck", "quiz new", "settings"):
        assert i18n.defaults_game(command) is None, command
    assert i18n.param_name("settings resistance", "vote_hours", "fr") == "heures_vote"
    assert i18n.param_name("settings timezone", "zone", "fr") == "fuseau"


@pytest.mark.parametrize(
    ("kind", "name", "text", "error"),
    [
        ("other", "common.toml", '[lobby]\njoin_button = "Hijacked"\n', "defines"),
        ("other", "commands.toml", '[resistance]\nname = "hijacked"\n', "defines"),
        ("other", "commands.toml", '[settings.resistance]\nname = "hijacked"\n', "defines"),
        ("other", "commands.toml", '[settings]\nname = "hijacked"\n', "defines"),
        ("timezone", "commands.toml", '[settings.timezone]\nname = "x"\n', "redefines"),
        ("other", "resistance.toml", 'game_name = "Hijacked"\n', "defines"),
        ("quiz", "quiz.toml", '[x]\ny = "Hijacked"\n', "already"),
    ],
)
def test_a_plugin_cannot_change_another_games_messages(
    tmp_path: Path, clean_catalogue: Any, kind: str, name: str, text: str, error: str
) -> None:
    first = tmp_path / "first"
    for lang in ("en", "fr"):
        write(first, lang, "quiz.toml", '[x]\ny = "mine"\n')
    i18n.add_locales("quiz", first)
    second = tmp_path / "second"
    for lang in ("en", "fr"):
        write(second, lang, name, text)
    with pytest.raises(ValueError, match=error):
        i18n.add_locales(kind, second)
    # Nothing changed: the refused catalogue is not loaded.
    assert i18n.t("common.lobby.join_button", "en") == "Join"
    assert i18n.game_name("resistance", "en") == "The Resistance"
    assert i18n.t("quiz.x.y", "en") == "mine"
    assert i18n._PLUGIN_LOCALES.get(kind) in (None, first.resolve())


def test_a_plugin_catalogue_needs_both_languages(tmp_path: Path, clean_catalogue: Any) -> None:
    write(tmp_path, "en", "quiz.toml", 'game_name = "Quiz"\n')
    with pytest.raises(ValueError, match=r"\['fr'\]"):
        i18n.add_locales("quiz", tmp_path)
    with pytest.raises(i18n.MissingMessage):
        i18n.game_name("quiz")
