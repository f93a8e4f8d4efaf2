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

ROOT = Path(__file__).resolve().parents[2]


def plugin(kind: str = "poll", prefixes: tuple[str, ...] = ("pl",), **kw: Any) -> GamePlugin:
    return GamePlugin(kind=kind, deadline_prefixes=prefixes, service=GameService, cog="x", **kw)


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
    assert Registry([plugin("quiz", ("qz",)), plugin()]).kinds[-1] == "poll"


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

    with pytest.raises(ValueError, match="options are 'quiz'"):
        plugin(options=OptionsSchema("quiz", ()))
    schema = OptionsSchema(
        "poll", (Option("vote_hours", float, 24.0, "Hours", min=0.01, max=48.0),)
    )
    assert plugin(options=schema).config_defaults(Settings()) == {"vote_hours": 24.0}
    assert plugin().config_defaults(Settings()) == {}


def test_a_module_without_a_plugin_record_is_refused() -> None:
    with pytest.raises(TypeError, match="PLUGIN"):
        load_plugin("bot.i18n")
    assert load_plugin("tests.e2e.poll_game.plugin").kind == "poll"


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
    assert i18n.game_name("poll", "fr") == "Sondage"  # the games registered before are still there
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
    # Another game's defaults commands, and commands that set no game's defaults.
    assert i18n.defaults_game("settings poll") == "poll"
    assert i18n.defaults_game("settings poll defaults") == "poll"
    for command in ("settings timezone", "settings poll deck", "quiz new", "settings"):
        assert i18n.defaults_game(command) is None, command
    assert i18n.param_name("settings poll", "vote_hours", "fr") == "heures_vote"
    assert i18n.param_name("settings timezone", "zone", "fr") == "fuseau"


@pytest.mark.parametrize(
    ("kind", "name", "text", "error"),
    [
        ("other", "common.toml", '[lobby]\njoin_button = "Hijacked"\n', "defines"),
        ("other", "commands.toml", '[poll]\nname = "hijacked"\n', "defines"),
        ("other", "commands.toml", '[settings.poll]\nname = "hijacked"\n', "defines"),
        ("other", "commands.toml", '[settings]\nname = "hijacked"\n', "defines"),
        ("timezone", "commands.toml", '[settings.timezone]\nname = "x"\n', "redefines"),
        ("other", "poll.toml", 'game_name = "Hijacked"\n', "defines"),
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
    assert i18n.game_name("poll", "en") == "Poll"
    assert i18n.t("quiz.x.y", "en") == "mine"
    assert i18n._PLUGIN_LOCALES.get(kind) in (None, first.resolve())


def test_a_plugin_catalogue_needs_both_languages(tmp_path: Path, clean_catalogue: Any) -> None:
    write(tmp_path, "en", "quiz.toml", 'game_name = "Quiz"\n')
    with pytest.raises(ValueError, match=r"\['fr'\]"):
        i18n.add_locales("quiz", tmp_path)
    with pytest.raises(i18n.MissingMessage):
        i18n.game_name("quiz")
