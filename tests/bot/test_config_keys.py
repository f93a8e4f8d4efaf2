"""Config keys of the lifecycle and moderation hardening: read, defaults, bad values refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.config import ConfigError
from tests.bot.test_config_shards import settings_from


def test_defaults(tmp_path: Path) -> None:
    settings = settings_from(tmp_path, "")
    assert settings.database.busy_wait_seconds == 600.0
    assert settings.database.vote_lanes == 1
    assert settings.discord_debug is False
    assert settings.shutdown.grace_seconds == 8.0


def test_keys_are_read(tmp_path: Path) -> None:
    settings = settings_from(
        tmp_path,
        "[database]\nbusy_wait_seconds = 30\nvote_lanes = 2\n"
        '[logging]\nlevel = "debug"\ndiscord_debug = true\n',
    )
    assert settings.database.busy_wait_seconds == 30.0
    assert settings.database.vote_lanes == 2
    assert settings.log_level == "DEBUG" and settings.discord_debug is True


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ("[database]\nbusy_wait_seconds = -1\n", "from 0 to 840"),
        ("[database]\nbusy_wait_seconds = 841\n", "from 0 to 840"),
        ('[database]\nbusy_wait_seconds = "10"\n', "busy_wait_seconds must be a number"),
        ("[database]\nvote_lanes = 0\n", "from 1 to 16"),
        ("[database]\nvote_lanes = 17\n", "from 1 to 16"),
        ("[database]\nvote_lanes = true\n", "vote_lanes must be an integer"),
        ('[logging]\ndiscord_debug = "yes"\n', "true or false"),
        ("[logging]\ndiscord_debug = 1\n", "true or false"),
        ("[logging]\ndebug_discord = true\n", "unknown key in [logging]: debug_discord"),
        ("[moderation]\nremind_cooldown_minutes = -1\n", "from 0 to 20160"),
        ("[moderation]\nremind_cooldown_minutes = 20161\n", "from 0 to 20160"),
        ("[moderation]\nmax_open_games_per_member = -1\n", "from 0 to 1000"),
        ("[moderation]\nmax_open_games_per_member = 1001\n", "from 0 to 1000"),
        ("[moderation]\nmax_open_games_per_member = true\n", "must be an integer"),
        ("[moderation]\nmax_open_games_per_member = 2.5\n", "must be an integer"),
        ("[moderation]\nremind_cooldown = 5\n", "unknown key in [moderation]: remind_cooldown"),
        ("[shutdown]\ngrace_seconds = -1\n", "from 0 to 80"),
        ("[shutdown]\ngrace_seconds = 81\n", "from 0 to 80"),
        ('[shutdown]\ngrace_seconds = "8"\n', "grace_seconds must be a number"),
        ("[shutdown]\ngrace = 8\n", "unknown key in [shutdown]: grace"),
        ('[internals]\nbypasses = "no"\n', "bypasses must be true, false or a list of"),
        ("[internals]\nbypasses = [1]\n", "bypasses must be true, false or a list of"),
        ('[internals]\nbypasses = ["uvloop"]\n', "unknown name in [internals] bypasses: uvloop"),
        ("[internals]\nbypass = false\n", "unknown key in [internals]: bypass"),
        ("internals = false\n", "[internals] must be a table"),
    ],
)
def test_bad_values_are_refused_with_the_key_named(tmp_path: Path, body: str, words: str) -> None:
    with pytest.raises(ConfigError) as caught:
        settings_from(tmp_path, body)
    assert words in str(caught.value)


def test_moderation_keys(tmp_path: Path) -> None:
    settings = settings_from(tmp_path, "")
    assert settings.moderation.remind_cooldown_minutes == 60.0
    assert settings.moderation.max_open_games_per_member == 3
    body = "[moderation]\nremind_cooldown_minutes = 5\nmax_open_games_per_member = 0\n"
    settings = settings_from(tmp_path, body)
    assert settings.moderation.remind_cooldown_minutes == 5.0
    assert settings.moderation.max_open_games_per_member == 0
