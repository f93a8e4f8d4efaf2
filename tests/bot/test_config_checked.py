"""Every config value is checked at start: a bad one is refused in one line naming its section
and key, with exit status 2, before anything starts (no database is created). The checks of
the games' options are those of ``/settings`` and ``/<game> new`` (their schemas')."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cli import main, read_settings
from bot.config import ConfigError
from bot.options import OptionError
from games.builtin import builtin_registry
from games.resistance.options import RESISTANCE_OPTIONS

REGISTRY = builtin_registry()


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
    ('[logging]\nlevel = "VERBOSE"\n', "[logging] level must be"),
    ("[logging]\nlevel = 10\n", "[logging] level must be"),
    ("[decks]\nmax_kb = true\n", "[decks] max_kb must be an integer"),
    ("[decks]\ncheck_seconds = false\n", "[decks] check_seconds must be a number"),
    ('[metrics]\nport = 9000\nhost = ""\n', "[metrics] host must name an address"),
    ('[discord]\napi_base = "discord.com/api"\n', "[discord] api_base must be an http"),
    ('[discord]\ngateway_url = "https://gateway.discord.gg"\n', "[discord] gateway_url must be"),
    ("[discord]\ndev_guild_id = 0\n", "[discord] dev_guild_id must be"),
    ('[discord]\nsync_commands = "yes"\n', "[discord] sync_commands must be true or false"),
    ("[discord]\ntoken = 12\n", "[discord] token must be a string"),
    ("[moderation]\nremind_cooldown_minutes = nan\n", "[moderation] remind_cooldown_minutes"),
    ("[resistance]\nvote_hours = 2\n", "unknown section: [resistance]"),
    ("[logging]\nlevels = 1\nlevl = 2\n", "unknown keys in [logging]: levels, levl"),
]


@pytest.mark.parametrize(("body", "words"), BAD)
def test_a_bad_value_is_refused_at_start_in_one_line_exit_2(
    tmp_path: Path, body: str, words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write(tmp_path, body)
    for command in ("run", "migrate"):
        assert main(REGISTRY, ["--config", str(config), command]) == 2
        out, err = capsys.readouterr()
        assert out == ""
        lines = err.splitlines()
        assert len(lines) == 1, lines
        assert lines[0].startswith(f"config error: {words}"), lines[0]
    assert not (tmp_path / "data").exists()  # nothing started: no database, not even its folder


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


def test_a_deck_that_is_not_in_decks_dir_is_refused_with_the_decks_there(tmp_path: Path) -> None:
    decks = tmp_path / "decks"
    decks.mkdir()
    (decks / "club.toml").write_text("")
    (decks / "notes.txt").write_text("")
    config = tmp_path / "config.toml"
    config.write_text(f'[games.refutation]\ndeck = "nosuchdeck"\n[decks]\ndecks_dir = "{decks}"\n')
    with pytest.raises(ConfigError) as caught:
        read_settings(REGISTRY, config, env={})
    line = str(caught.value)
    assert line.startswith('[games.refutation] deck = "nosuchdeck": no nosuchdeck.toml in [decks]')
    assert '"default", "club"' in line and "notes" not in line


def test_the_config_and_the_commands_share_one_check() -> None:
    """The refusal the config prints is the schema's, and so is the message a command answers
    (``OptionsSchema.verify`` and ``Option.validate``, called by /settings and /<game> new)."""
    with pytest.raises(OptionError) as config:
        RESISTANCE_OPTIONS.parse_config({"morgana": True})
    merged = {**RESISTANCE_OPTIONS.defaults(), "variant": "avalon", "morgana": True}
    with pytest.raises(OptionError) as command:
        RESISTANCE_OPTIONS.verify(merged)
    assert str(config.value) == "[games.resistance] " + str(command.value)
    assert command.value.key == "resistance.error.morgana_needs_percival"
    RESISTANCE_OPTIONS.verify({**merged, "percival": True})
    with pytest.raises(OptionError) as typed:
        RESISTANCE_OPTIONS.given({"deadline_time": "9pm"}, "new")
    assert typed.value.key == "daily.bad_time" and typed.value.params["value"] == "9pm"


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
