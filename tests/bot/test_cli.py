"""The command line as a user meets it: help, and a clear exit without a token."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli import read_settings
from bot.config import ConfigError
from games.builtin import builtin_registry

REGISTRY = builtin_registry()

ROOT = Path(__file__).resolve().parents[2]


def _run(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    full_env = {k: v for k, v in os.environ.items() if k != "DISCORD_TOKEN"}
    full_env["PYTHONPATH"] = str(ROOT)
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_help_lists_the_commands(tmp_path: Path) -> None:
    result = _run("--help", cwd=tmp_path)
    assert result.returncode == 0
    for command in ("run", "migrate", "demo"):
        assert command in result.stdout


def test_run_without_token_exits_2_with_one_clear_line(tmp_path: Path) -> None:
    result = _run("run", cwd=tmp_path)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "DISCORD_TOKEN" in lines[0] and "config.toml" in lines[0]


def test_token_is_never_in_the_settings_repr(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[discord]\ntoken = "super-secret-token"\n')
    settings = read_settings(REGISTRY, config, env={})
    assert settings.discord.token == "super-secret-token"
    assert "super-secret-token" not in repr(settings)


def test_environment_wins_over_the_file(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(
        '[discord]\ntoken = "from-file"\n[database]\nurl = "sqlite+aiosqlite:///x.db"\n'
    )
    settings = read_settings(
        REGISTRY,
        config,
        env={"DISCORD_TOKEN": "from-env", "DATABASE_URL": "sqlite+aiosqlite:///y.db"},
    )
    assert settings.discord.token == "from-env"
    assert settings.database.url == "sqlite+aiosqlite:///y.db"


def test_example_config_is_valid_and_documents_every_key() -> None:
    settings = read_settings(REGISTRY, ROOT / "config.example.toml", env={})
    assert settings.database.url == "sqlite+aiosqlite:///data/bot.sqlite3"
    text = (ROOT / "config.example.toml").read_text()
    from dataclasses import fields

    from games.builtin import builtin_registry

    names = [
        f.name
        for section in (settings.discord, settings.database, settings.shutdown)
        for f in fields(section)
    ]
    names += [
        name for schema in builtin_registry().schemas().values() for name in schema.names("config")
    ]
    for name in names:
        assert name in text, f"{name} is not documented in config.example.toml"


@pytest.mark.parametrize(
    "body",
    [
        '[discord]\nshard_count = "two"\n',
        "[nonsense]\nx = 1\n",
        "[games.resistance]\nvote_hour = 2\n",
    ],
)
def test_bad_config_is_refused_with_the_key_named(tmp_path: Path, body: str) -> None:
    config = tmp_path / "config.toml"
    config.write_text(body)
    with pytest.raises(ConfigError):
        read_settings(REGISTRY, config, env={})


def test_config_goes_before_or_after_the_command(tmp_path: Path) -> None:
    config = tmp_path / "other.toml"
    config.write_text('[discord]\ntoken = ""\n')
    for args in (("--config", str(config), "run"), ("run", "--config", str(config))):
        result = _run(*args, cwd=tmp_path)
        assert result.returncode == 2, result.stderr
        assert "DISCORD_TOKEN" in result.stderr
    result = _run("run", "--config", str(tmp_path / "missing.toml"), cwd=tmp_path)
    assert result.returncode == 2 and "not found" in result.stderr
