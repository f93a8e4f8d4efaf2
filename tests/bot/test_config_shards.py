"""``[discord] shard_count`` / ``shard_ids``: what one process of a sharded deployment runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.app import owns_guild
from bot.cli import read_settings
from bot.config import ConfigError, Settings
from bot.plugins import Registry
from tests.bot.poll import poll_registry

REGISTRY = poll_registry()


def settings_from(tmp_path: Path, body: str, registry: Registry = REGISTRY) -> Settings:
    """The settings of a config file of ``body``, with the games of ``registry`` (the poll)."""
    config = tmp_path / "config.toml"
    config.write_text(body)
    return read_settings(registry, config, env={})


def test_a_shard_range_is_read(tmp_path: Path) -> None:
    settings = settings_from(tmp_path, "[discord]\nshard_count = 4\nshard_ids = [2, 3]\n")
    assert settings.discord.shard_count == 4
    assert settings.discord.shard_ids == (2, 3)


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ("shard_ids = [0]\n", "needs shard_count"),
        ("shard_count = 0\n", "at least 1"),
        ("shard_count = 2\nshard_ids = []\n", "at least one shard"),
        ("shard_count = 2\nshard_ids = [2]\n", "from 0 to 1"),
        ("shard_count = 2\nshard_ids = [1, 1]\n", "distinct"),
        ("shard_count = 2\nshard_ids = [-1]\n", "from 0 to 1"),
    ],
)
def test_impossible_shard_layouts_are_refused(tmp_path: Path, body: str, words: str) -> None:
    with pytest.raises(ConfigError, match=words):
        settings_from(tmp_path, "[discord]\n" + body)


def test_each_guild_has_exactly_one_owner() -> None:
    layout = [(0, 1), (2,), (3,)]  # three processes, four shards
    for guild_id in (0, 1 << 22, 2 << 22, 3 << 22, 123456789012345678, 987654321098765432):
        owners = [ids for ids in layout if owns_guild(guild_id, 4, ids)]
        assert len(owners) == 1, (guild_id, owners)
    assert owns_guild(5 << 22, None, None)  # one process owns everything
