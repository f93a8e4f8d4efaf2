"""Config keys of the lifecycle and moderation hardening: read, defaults, bad values refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.config import ConfigError
from tests.bot.test_config_shards import settings_from


def test_defaults(tmp_path: Path) -> None:
    settings = settings_from(tmp_path, "")
    assert settings.database.busy_wait_seconds == 600.0
    assert settings.discord_debug is False


def test_keys_are_read(tmp_path: Path) -> None:
    settings = settings_from(
        tmp_path,
        '[database]\nbusy_wait_seconds = 30\n[logging]\nlevel = "debug"\ndiscord_debug = true\n',
    )
    assert settings.database.busy_wait_seconds == 30.0
    assert settings.log_level == "DEBUG" and settings.discord_debug is True


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ("[database]\nbusy_wait_seconds = -1\n", "from 0 to 840"),
        ("[database]\nbusy_wait_seconds = 841\n", "from 0 to 840"),
        ('[database]\nbusy_wait_seconds = "10"\n', "must be a float"),
        ('[logging]\ndiscord_debug = "yes"\n', "true or false"),
        ("[logging]\ndiscord_debug = 1\n", "true or false"),
        ("[logging]\ndebug_discord = true\n", "unknown key(s) in [logging]: debug_discord"),
    ],
)
def test_bad_values_are_refused_with_the_key_named(tmp_path: Path, body: str, words: str) -> None:
    with pytest.raises(ConfigError) as caught:
        settings_from(tmp_path, body)
    assert words in str(caught.value)
