"""Typed settings read from ``config.toml`` and the environment.

Every key is documented in ``config.example.toml``. The token comes from ``DISCORD_TOKEN`` or the
file and is never logged: ``DiscordSettings.__repr__`` hides it.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from bot.i18n import noun
from bot.options import OptionError, OptionsSchema

DEFAULT_API_BASE = "https://discord.com/api/v10"
DEFAULT_GATEWAY_URL = "wss://gateway.discord.gg/"
DEFAULT_DATABASE_URL = "sqlite+aiosqlite:///data/bot.sqlite3"


class ConfigError(Exception):
    """A config file that cannot be used; the message says which key and why."""


@dataclass(frozen=True)
class DiscordSettings:
    token: str = field(default="", repr=False)
    api_base: str = DEFAULT_API_BASE
    gateway_url: str = DEFAULT_GATEWAY_URL
    shard_count: int | None = None
    shard_ids: tuple[int, ...] | None = None
    sync_commands: bool = True
    dev_guild_id: int | None = None


@dataclass(frozen=True)
class DatabaseSettings:
    url: str = DEFAULT_DATABASE_URL
    #: how long a click waits for a database kept busy by another process (SQLite's write
    #: lock), retrying; under Discord's 15 minutes of a deferred interaction
    busy_wait_seconds: float = 600.0
    #: PostgreSQL: vote batches of different games written at once (each on a connection of its
    #: own); SQLite writes one at a time whatever this says
    vote_lanes: int = 1


@dataclass(frozen=True)
class ModerationSettings:
    #: minutes between two /<game> remind of one game (0: no cooldown)
    remind_cooldown_minutes: float = 60.0
    #: lobby/running games one member may have opened in a guild (0: no limit)
    max_open_games_per_member: int = 3


@dataclass(frozen=True)
class MetricsSettings:
    #: the Prometheus endpoint's port (/metrics and /healthz); 0: no endpoint
    port: int = 0
    host: str = "127.0.0.1"


@dataclass(frozen=True)
class Settings:
    discord: DiscordSettings = DiscordSettings()
    database: DatabaseSettings = DatabaseSettings()
    moderation: ModerationSettings = ModerationSettings()
    metrics: MetricsSettings = MetricsSettings()
    #: the defaults for new games of each game the config names, by kind: ``[games.<kind>]``
    #: read by the game's options schema over the schema's own defaults (a game it does not
    #: name has the schema's: ``GamePlugin.config_defaults``)
    games: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: the config sections the games read, by name, as each game's reader typed them
    #: (``GamePlugin.config``: the Refutation Game's ``[decks]``); a section the file does not
    #: write is read from an empty table (its defaults)
    sections: dict[str, Any] = field(default_factory=dict)
    log_level: str = "INFO"
    #: let discord.py (and the SQLite driver) log at DEBUG: they dump request and event
    #: payloads there (DMs, choices, interaction tokens), so only for debugging the library
    discord_debug: bool = False
    source: Path | None = None


def read_section(cls: type[Any], data: Mapping[str, Any], where: str) -> Any:
    """The typed settings ``cls`` (a frozen dataclass) of one config section: each key checked
    against the field's default's type; an unknown key is refused, naming the section."""
    known = {f.name: f for f in fields(cls)}
    unknown = set(data) - set(known)
    if unknown:
        raise ConfigError(
            f"unknown {noun(len(unknown), 'key')} in [{where}]: {', '.join(sorted(unknown))}"
        )
    values: dict[str, Any] = {}
    for name, value in data.items():
        default = getattr(cls(), name)
        if name == "shard_ids" and value is not None:
            if not isinstance(value, list) or not all(isinstance(v, int) for v in value):
                raise ConfigError(f"[{where}] shard_ids must be a list of integers")
            value = tuple(value)
        elif name in ("shard_count", "dev_guild_id") and not (
            isinstance(value, int) and not isinstance(value, bool)
        ):
            raise ConfigError(f"[{where}] {name} must be an integer")
        elif isinstance(default, bool) and not isinstance(value, bool):
            raise ConfigError(f"[{where}] {name} must be true or false")
        elif isinstance(default, float) and isinstance(value, int | float):
            value = float(value)
        elif default is not None and not isinstance(value, type(default)):
            raise ConfigError(f"[{where}] {name} must be a {type(default).__name__}")
        values[name] = value
    return cls(**values)


def _check_shards(settings: DiscordSettings) -> DiscordSettings:
    """Refuse a shard layout that no process could run (discord.py would fail at start)."""
    count, ids = settings.shard_count, settings.shard_ids
    if count is not None and count < 1:
        raise ConfigError("[discord] shard_count must be at least 1")
    if ids is not None:
        if count is None:
            raise ConfigError("[discord] shard_ids needs shard_count (the total number of shards)")
        if not ids:
            raise ConfigError("[discord] shard_ids must name at least one shard")
        if len(set(ids)) != len(ids) or not all(0 <= i < count for i in ids):
            raise ConfigError(
                f"[discord] shard_ids must be distinct shard numbers from 0 to {count - 1}"
            )
    return settings


def _logging_flag(section: dict[str, Any]) -> bool:
    unknown = set(section) - {"level", "discord_debug"}
    if unknown:
        raise ConfigError(
            f"unknown {noun(len(unknown), 'key')} in [logging]: {', '.join(sorted(unknown))}"
        )
    flag = section.get("discord_debug", False)
    if not isinstance(flag, bool):
        raise ConfigError("[logging] discord_debug must be true or false")
    return flag


def _check_moderation(settings: ModerationSettings) -> ModerationSettings:
    if isinstance(settings.max_open_games_per_member, bool):
        raise ConfigError("[moderation] max_open_games_per_member must be an integer")
    if not 0 <= settings.remind_cooldown_minutes <= 60 * 24 * 14:
        raise ConfigError("[moderation] remind_cooldown_minutes must be from 0 to 20160 (14 days)")
    if not 0 <= settings.max_open_games_per_member <= 1000:
        raise ConfigError("[moderation] max_open_games_per_member must be from 0 to 1000")
    return settings


def _check_database(settings: DatabaseSettings) -> DatabaseSettings:
    if not 0 <= settings.busy_wait_seconds <= 840:
        raise ConfigError(
            "[database] busy_wait_seconds must be from 0 to 840 (a deferred interaction's "
            "token lasts 15 minutes)"
        )
    if isinstance(settings.vote_lanes, bool) or not 1 <= settings.vote_lanes <= 16:
        raise ConfigError("[database] vote_lanes must be an integer from 1 to 16")
    return settings


def _check_metrics(settings: MetricsSettings) -> MetricsSettings:
    if isinstance(settings.port, bool) or not 0 <= settings.port <= 65535:
        raise ConfigError("[metrics] port must be from 1 to 65535 (0 or absent: no endpoint)")
    return settings


def _games(data: dict[str, Any], schemas: Mapping[str, OptionsSchema]) -> dict[str, dict[str, Any]]:
    """Every game's defaults: its ``[games.<kind>]`` section read by its options schema."""
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise ConfigError("[games] holds one table per game: [games.<game>]")
    if not data:
        return {}
    unknown = sorted(set(data) - set(schemas))
    if unknown:
        raise ConfigError(f"unknown {noun(len(unknown), 'game')} in [games]: {', '.join(unknown)}")
    try:
        return {kind: schemas[kind].parse_config(section) for kind, section in data.items()}
    except OptionError as exc:
        raise ConfigError(str(exc)) from None


def _sections(data: Mapping[str, Any], readers: Mapping[str, SectionReader]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, reader in readers.items():
        if not isinstance(data[name], dict):
            raise ConfigError(f"[{name}] must be a table")
        out[name] = reader(data[name])
    return out


#: A game's config section reader (``GamePlugin.config``): the file's table -> its settings.
SectionReader = Callable[[Mapping[str, Any]], Any]


def load_settings(
    path: Path | None = None,
    env: dict[str, str] | None = None,
    *,
    games: Mapping[str, OptionsSchema] | None = None,
    sections: Mapping[str, SectionReader] | None = None,
) -> Settings:
    """Settings from ``path`` (``config.toml`` when it exists), then the environment.

    ``games``: the options schema of each game the bot runs (``[games.<kind>]``); ``sections``:
    the readers of the sections games add (``[decks]``). ``DISCORD_TOKEN`` and
    ``DATABASE_URL`` in the environment win over the file.
    """
    env = dict(os.environ) if env is None else env
    data: dict[str, Any] = {}
    source: Path | None = None
    if path is None and Path("config.toml").exists():
        path = Path("config.toml")
    if path is not None:
        try:
            with path.open("rb") as fh:
                data = tomllib.load(fh)
        except FileNotFoundError:
            raise ConfigError(f"config file not found: {path}") from None
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: {exc}") from None
        source = path
    games_data = data.pop("games", {})
    logging_section = data.pop("logging", {})
    discord_data = data.pop("discord", {})
    database_data = data.pop("database", {})
    moderation_data = data.pop("moderation", {})
    metrics_data = data.pop("metrics", {})
    extra = {name: data.pop(name, {}) for name in (sections or {})}
    if data:
        raise ConfigError(f"unknown {noun(len(data), 'section')}: {', '.join(sorted(data))}")
    if env.get("DISCORD_TOKEN"):
        discord_data["token"] = env["DISCORD_TOKEN"]
    if env.get("DATABASE_URL"):
        database_data["url"] = env["DATABASE_URL"]
    return Settings(
        discord=_check_shards(read_section(DiscordSettings, discord_data, "discord")),
        database=_check_database(read_section(DatabaseSettings, database_data, "database")),
        moderation=_check_moderation(
            read_section(ModerationSettings, moderation_data, "moderation")
        ),
        metrics=_check_metrics(read_section(MetricsSettings, metrics_data, "metrics")),
        games=_games(games_data, games or {}),
        sections=_sections(extra, sections or {}),
        log_level=str(logging_section.get("level", "INFO")).upper(),
        discord_debug=_logging_flag(logging_section),
        source=source,
    )
