"""Every config value is checked at start: a bad one is refused in one line naming its section
and key, with exit status 2, before anything starts (no database is created). The checks of
the games' options are those of ``/settings`` and ``/<game> new`` (their schemas')."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cli import main, read_settings
from bot.config import ConfigError
from bot.plugins import Registry
from tests.bot.poll import poll_registry

REGISTRY = poll_registry()


def write(tmp_path: Path, body: str) -> Path:
    """A config with a token and a SQLite file of its own, and ``body``."""
    config = tmp_path / "config.toml"
    token = "" if "token" in body else 'token = "a-token"\n'
    if body.startswith("[discord]\n"):
        head, body = body + token, ""
    else:
        head = "[discord]\n" + token
    database = tmp_path / "data" / "bot.sqlite3"
    config.write_text(head + f'[database]\nurl = "sqlite+aiosqlite:///{database}"\n' + body)
    return config


# (the config's body, the start of the one line: the section and the key)
BAD = [
    ("[games.poll]\nvote_hours = 0\n", "[games.poll] vote_hours must be from 0.0005 to 336"),
    ('[logging]\nlevel = "VERBOSE"\n', "[logging] level must be"),
    ("[logging]\nlevel = 10\n", "[logging] level must be"),
    ('[metrics]\nport = 9000\nhost = ""\n', "[metrics] host must name an address"),
    ('[discord]\napi_base = "discord.com/api"\n', "[discord] api_base must be an http"),
    ('[discord]\ngateway_url = "https://gateway.discord.gg"\n', "[discord] gateway_url must be"),
    ("[discord]\ndev_guild_id = 0\n", "[discord] dev_guild_id must be"),
    ('[discord]\nsync_commands = "yes"\n', "[discord] sync_commands must be true or false"),
    ("[discord]\ntoken = 12\n", "[discord] token must be a string"),
    ("[moderation]\nremind_cooldown_minutes = nan\n", "[moderation] remind_cooldown_minutes"),
    ("[poll]\nvote_hours = 2\n", "unknown section: [poll]"),
    ("[logging]\nlevels = 1\nlevl = 2\n", "unknown keys in [logging]: levels, levl"),
]


def assert_refused_at_start(
    registry: Registry, tmp_path: Path, body: str, words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A config of ``body`` stops ``run`` and ``migrate`` with exit status 2 and one line that
    starts with ``words``, before anything starts."""
    config = write(tmp_path, body)
    for command in ("run", "migrate"):
        assert main(registry, ["--config", str(config), command]) == 2
        out, err = capsys.readouterr()
        assert out == ""
        lines = err.splitlines()
        assert len(lines) == 1, lines
        assert lines[0].startswith(f"config error: {words}"), lines[0]
    assert not (tmp_path / "data").exists()  # nothing started: no database, not even its folder


@pytest.mark.parametrize(("body", "words"), BAD)
def test_a_bad_value_is_refused_at_start_in_one_line_exit_2(
    tmp_path: Path, body: str, words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert_refused_at_start(REGISTRY, tmp_path, body, words, capsys)


def test_the_database_url_must_name_a_driver_the_bot_has(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    for url in ("postgresql://u:secret@db/x", "mysql+aiomysql://u:secret@db/x", "nonsense"):
        config.write_text(f'[database]\nurl = "{url}"\n')
        with pytest.raises(ConfigError) as caught:
            read_settings(REGISTRY, config, env={})
        line = str(caught.value)
        assert line.startswith("[database] url (or DATABASE_URL) must start with")
        assert "secret" not in line
    with pytest.raises(ConfigError, match=r"^\[database\] url"):
        read_settings(REGISTRY, None, env={"DATABASE_URL": "postgres://u:p@db/x"})


@pytest.mark.parametrize("how", ["folder", "not utf-8", "not toml", "missing"])
def test_a_config_file_that_cannot_be_read_is_one_line(
    tmp_path: Path, how: str, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "config.toml"
    if how == "folder":
        config.mkdir()
    elif how == "not utf-8":
        config.write_bytes(b'[discord]\ntoken = "\xff\xfe"\n')
    elif how == "not toml":
        config.write_text("[discord\ntoken = 1\n")
    assert main(REGISTRY, ["--config", str(config), "run"]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("config error: ") and str(config) in lines[0]
    words = {
        "folder": "is a folder",
        "not utf-8": "is not UTF-8 text",
        "not toml": "is not valid TOML",
        "missing": "config file not found",
    }[how]
    assert words in lines[0]
