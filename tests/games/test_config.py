"""The config of the built-in games (bot/cli.py over their schemas): config.example.toml is
valid and documents every key, and each game's section is checked at start like the core's
(tests/bot/test_config_checked.py)."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

import pytest

from bot.cli import read_settings
from games.builtin import builtin_registry
from tests.bot.test_config_checked import assert_refused_at_start

REGISTRY = builtin_registry()

ROOT = Path(__file__).resolve().parents[2]


def test_example_config_is_valid_and_documents_every_key() -> None:
    settings = read_settings(REGISTRY, ROOT / "config.example.toml", env={})
    assert settings.database.url == "sqlite+aiosqlite:///data/bot.sqlite3"
    text = (ROOT / "config.example.toml").read_text()
    names = [
        f.name
        for section in (settings.discord, settings.database, settings.shutdown)
        for f in fields(section)
    ]
    names += [name for schema in REGISTRY.schemas().values() for name in schema.names("config")]
    for name in names:
        assert name in text, f"{name} is not documented in config.example.toml"


# (the config's body, the start of the one line: the section and the key)
BAD = [
    ('[games.resistance]\ndeadline_time = "9pm"\n', "[games.resistance] deadline_time must be"),
    ('[games.refutation]\ndeadline_time = "25:00"\n', "[games.refutation] deadline_time must be"),
    ('[games.resistance]\ndeadline_time = "21h"\n', "[games.resistance] deadline_time must be"),
    (
        '[games.resistance]\nvariant = "avalon"\nmorgana = true\n',
        "[games.resistance] morgana = true needs percival = true",
    ),
    # a default of the config is that of the Avalon games opened with it, whatever its variant
    ("[games.resistance]\nmorgana = true\n", "[games.resistance] morgana = true needs percival"),
    ('[games.refutation]\ndeck = "nosuchdeck"\n', '[games.refutation] deck = "nosuchdeck"'),
    # the Refutation Game's decks (its section of the config)
    ("[decks]\nmax_kb = true\n", "[decks] max_kb must be an integer"),
    ("[decks]\ncheck_seconds = false\n", "[decks] check_seconds must be a number"),
]


@pytest.mark.parametrize(("body", "words"), BAD)
def test_a_bad_game_value_is_refused_at_start_in_one_line_exit_2(
    tmp_path: Path, body: str, words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert_refused_at_start(REGISTRY, tmp_path, body, words, capsys)


def test_good_values_are_read_as_they_are_kept(tmp_path: Path) -> None:
    decks = tmp_path / "decks"
    decks.mkdir()
    (decks / "club.toml").write_text("")  # its existence is checked at start, its text at use
    config = tmp_path / "config.toml"
    config.write_text(
        '[logging]\nlevel = "warning"\n'
        '[games.resistance]\ndeadline_time = "9:05"\npercival = true\nmorgana = true\n'
        '[games.refutation]\ndeck = "club"\n'
        f'[decks]\ndecks_dir = "{decks}"\n'
    )
    settings = read_settings(REGISTRY, config, env={})
    assert settings.log_level == "WARNING"
    assert settings.games["resistance"]["deadline_time"] == "09:05"
    assert settings.games["resistance"]["morgana"] is True
    assert settings.games["refutation"]["deck"] == "club"
    for name in ("default", ""):
        config.write_text(f'[games.refutation]\ndeck = "{name}"\n')
        assert read_settings(REGISTRY, config, env={}).games["refutation"]["deck"] == name
