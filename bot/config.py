"""Typed settings read from ``config.toml`` and the environment.

Every key is documented in ``config.example.toml``. The token comes from ``DISCORD_TOKEN`` or the
file and is never logged: ``DiscordSettings.__repr__`` hides it.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from adapters.switch import BYPASSES, RETIRED
from bot.english import alternatives, unknown
from bot.options import OptionError, OptionsSchema

DEFAULT_API_BASE = "https://discord.com/api/v10"
DEFAULT_GATEWAY_URL = "wss://gateway.discord.gg/"
DEFAULT_DATABASE_URL = "sqlite+aiosqlite:///data/bot.sqlite3"

#: ``[logging] level``: the standard library's levels, by name.
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
#: ``[database] url``: the drivers the bot is built and tested with (SQLite; PostgreSQL with
#: the postgres extra), each an asyncio driver.
DATABASE_SCHEMES = ("sqlite+aiosqlite", "postgresql+asyncpg")


class ConfigError(Exception):
    """A config file that cannot be used; the message says which key and why, in one line
    (the command line prints it and exits with status 2, before anything starts)."""


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


#: The longest ``[shutdown] grace_seconds`` may be: under systemd's default stop timeout (90 s);
#: Docker's (10 s) and Kubernetes' (30 s) need theirs raised to match a value above them.
MAX_STOP_GRACE = 80.0


@dataclass(frozen=True)
class ShutdownSettings:
    #: on SIGTERM or SIGINT, how long the bot may take to answer the interactions it received,
    #: finish a deadline being resolved and deliver what the outbox holds before it closes
    #: (under Docker's 10 s default before its SIGKILL)
    grace_seconds: float = 8.0


@dataclass(frozen=True)
class InternalsSettings:
    #: the shortcuts around discord.py's, SQLAlchemy's and CPython's public paths the bot runs
    #: with (adapters/switch.py): ``true`` every one, ``false`` none, or a list of their names
    bypasses: frozenset[str] = frozenset(BYPASSES)


@dataclass(frozen=True)
class Settings:
    discord: DiscordSettings = DiscordSettings()
    database: DatabaseSettings = DatabaseSettings()
    moderation: ModerationSettings = ModerationSettings()
    metrics: MetricsSettings = MetricsSettings()
    shutdown: ShutdownSettings = ShutdownSettings()
    internals: InternalsSettings = InternalsSettings()
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


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def read_section(cls: type[Any], data: Mapping[str, Any], where: str) -> Any:
    """The typed settings ``cls`` (a frozen dataclass) of one config section: each key checked
    against the field's default's type; an unknown key is refused, naming the section."""
    known = {f.name: f for f in fields(cls)}
    strangers = set(data) - set(known)
    if strangers:
        raise ConfigError(unknown("key", strangers, f"[{where}]"))
    values: dict[str, Any] = {}
    for name, value in data.items():
        default = getattr(cls(), name)
        if name == "shard_ids" and value is not None:
            if not isinstance(value, list) or not all(_is_int(v) for v in value):
                raise ConfigError(f"[{where}] shard_ids must be a list of integers")
            value = tuple(value)
        elif name in ("shard_count", "dev_guild_id") and not _is_int(value):
            raise ConfigError(f"[{where}] {name} must be an integer")
        elif isinstance(default, bool):
            if not isinstance(value, bool):
                raise ConfigError(f"[{where}] {name} must be true or false")
        elif isinstance(default, int):
            if not _is_int(value):
                raise ConfigError(f"[{where}] {name} must be an integer")
        elif isinstance(default, float):
            if not (_is_int(value) or isinstance(value, float)):
                raise ConfigError(f"[{where}] {name} must be a number")
            value = float(value)
        elif isinstance(default, str):
            if not isinstance(value, str):
                raise ConfigError(f"[{where}] {name} must be a string (in quotes)")
        elif default is not None and not isinstance(value, type(default)):
            raise ConfigError(f"[{where}] {name} must be a {type(default).__name__}")
        values[name] = value
    return cls(**values)


def _check_discord(settings: DiscordSettings) -> DiscordSettings:
    """Refuse endpoints discord.py cannot use, and a guild id that is none."""
    if not settings.api_base.startswith(("http://", "https://")):
        raise ConfigError(
            "[discord] api_base must be an http:// or https:// URL (Discord's: \""
            + DEFAULT_API_BASE
            + '")'
        )
    if not settings.gateway_url.startswith(("ws://", "wss://")):
        raise ConfigError(
            "[discord] gateway_url must be a ws:// or wss:// URL (Discord's: \""
            + DEFAULT_GATEWAY_URL
            + '")'
        )
    if settings.dev_guild_id is not None and settings.dev_guild_id <= 0:
        raise ConfigError("[discord] dev_guild_id must be a server's id (a positive integer)")
    return _check_shards(settings)


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


def _logging(section: Any) -> tuple[str, bool]:
    """``[logging]``: the level (one of the standard library's, any case) and discord_debug."""
    if not isinstance(section, dict):
        raise ConfigError("[logging] must be a table")
    strangers = set(section) - {"level", "discord_debug"}
    if strangers:
        raise ConfigError(unknown("key", strangers, "[logging]"))
    level = section.get("level", "INFO")
    if not isinstance(level, str) or level.strip().upper() not in LOG_LEVELS:
        raise ConfigError(
            "[logging] level must be " + alternatives(f'"{name}"' for name in LOG_LEVELS)
        )
    flag = section.get("discord_debug", False)
    if not isinstance(flag, bool):
        raise ConfigError("[logging] discord_debug must be true or false")
    return level.strip().upper(), flag


def _check_moderation(settings: ModerationSettings) -> ModerationSettings:
    if isinstance(settings.max_open_games_per_member, bool):
        raise ConfigError("[moderation] max_open_games_per_member must be an integer")
    if not 0 <= settings.remind_cooldown_minutes <= 60 * 24 * 14:
        raise ConfigError("[moderation] remind_cooldown_minutes must be from 0 to 20160 (14 days)")
    if not 0 <= settings.max_open_games_per_member <= 1000:
        raise ConfigError("[moderation] max_open_games_per_member must be from 0 to 1000")
    return settings


def _check_database(settings: DatabaseSettings) -> DatabaseSettings:
    scheme = settings.url.split("://", 1)[0] if "://" in settings.url else ""
    if scheme not in DATABASE_SCHEMES:
        raise ConfigError(
            "[database] url (or DATABASE_URL) must start with "
            + alternatives(f"{name}://" for name in DATABASE_SCHEMES)
            + (f", not {scheme}://" if scheme else "")
            + ' (for example "'
            + DEFAULT_DATABASE_URL
            + '")'
        )
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
    if settings.port and not settings.host.strip():
        raise ConfigError('[metrics] host must name an address to listen on ("127.0.0.1")')
    return settings


def _check_shutdown(settings: ShutdownSettings) -> ShutdownSettings:
    if not 0 <= settings.grace_seconds <= MAX_STOP_GRACE:
        raise ConfigError(
            f"[shutdown] grace_seconds must be from 0 to {MAX_STOP_GRACE:.0f} (systemd stops "
            "a unit after 90 s by default; Docker after 10 s)"
        )
    return settings


def _internals(section: Any) -> InternalsSettings:
    """``[internals] bypasses``: true (every one), false (none) or a list of their names."""
    if not isinstance(section, dict):
        raise ConfigError("[internals] must be a table")
    strangers = set(section) - {"bypasses"}
    if strangers:
        raise ConfigError(unknown("key", strangers, "[internals]"))
    value = section.get("bypasses", True)
    if isinstance(value, bool):
        return InternalsSettings(frozenset(BYPASSES) if value else frozenset())
    names = alternatives(f'"{name}"' for name in BYPASSES)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"[internals] bypasses must be true, false or a list of {names}")
    named = set(value) - set(RETIRED)
    if named - set(BYPASSES):
        raise ConfigError(unknown("name", named - set(BYPASSES), "[internals] bypasses"))
    return InternalsSettings(frozenset(named))


def _games(data: dict[str, Any], schemas: Mapping[str, OptionsSchema]) -> dict[str, dict[str, Any]]:
    """Every game's defaults: its ``[games.<kind>]`` section read by its options schema."""
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise ConfigError("[games] holds one table per game: [games.<game>]")
    if not data:
        return {}
    strangers = set(data) - set(schemas)
    if strangers:
        raise ConfigError(unknown("game", strangers, "[games]"))
    try:
        return {kind: schemas[kind].parse_config(section) for kind, section in data.items()}
    except OptionError as exc:
        raise ConfigError(str(exc)) from None


def _sections(data: Mapping[str, Any], readers: Mapping[str, SectionReader]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, reader in readers.items():
        if not isinstance(data[name], dict):
            raise ConfigError(f"[{name}] must be a table")
        try:
            out[name] = reader(data[name])
        except ConfigError:
            raise
        except ValueError as exc:  # a reader's refusal that does not say its section
            raise ConfigError(f"[{name}] {exc}") from None
    return out


#: A game's config section reader (``GamePlugin.config``): the file's table -> its settings.
SectionReader = Callable[[Mapping[str, Any]], Any]
#: A check of the settings read (``GamePlugin.config_check``: a deck the config names exists):
#: raises ConfigError naming the section and the key.
SettingsCheck = Callable[[Settings], None]


def _read_file(path: Path) -> dict[str, Any]:
    """The config file's tables; what keeps it from being read, in one line."""
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        raise ConfigError(
            f"config file not found: {path} (copy config.example.toml, or give --config)"
        ) from None
    except IsADirectoryError:
        raise ConfigError(
            f"the config file {path} is a folder: give the path of a .toml file"
        ) from None
    except PermissionError:
        raise ConfigError(
            f"cannot read the config file {path}: permission denied (let the bot's user read it)"
        ) from None
    except OSError as exc:
        raise ConfigError(f"cannot read the config file {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"the config file {path} is not UTF-8 text: save it as UTF-8") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path} is not valid TOML: {exc}") from None


#: The sections read as typed settings: their name, their class and the check of their values.
_TABLES: tuple[tuple[str, type[Any], Callable[[Any], Any]], ...] = (
    ("discord", DiscordSettings, _check_discord),
    ("database", DatabaseSettings, _check_database),
    ("moderation", ModerationSettings, _check_moderation),
    ("metrics", MetricsSettings, _check_metrics),
    ("shutdown", ShutdownSettings, _check_shutdown),
)


def _tables(tables: dict[str, Any], env: Mapping[str, str]) -> dict[str, Any]:
    """The sections of :data:`_TABLES`, typed and checked (the environment's token and database
    URL over the file's)."""
    for name, table in tables.items():
        if not isinstance(table, dict):
            raise ConfigError(f"[{name}] must be a table")
    if env.get("DISCORD_TOKEN"):
        tables["discord"]["token"] = env["DISCORD_TOKEN"]
    if env.get("DATABASE_URL"):
        tables["database"]["url"] = env["DATABASE_URL"]
    return {name: check(read_section(cls, tables[name], name)) for name, cls, check in _TABLES}


def load_settings(
    path: Path | None = None,
    env: dict[str, str] | None = None,
    *,
    games: Mapping[str, OptionsSchema] | None = None,
    sections: Mapping[str, SectionReader] | None = None,
    checks: Sequence[SettingsCheck] = (),
) -> Settings:
    """Settings from ``path`` (``config.toml`` when it exists), then the environment.

    ``games``: the options schema of each game the bot runs (``[games.<kind>]``, each value and
    the game's options together); ``sections``: the readers of the sections games add
    (``[decks]``); ``checks``: what the games check of the settings read (a deck the config
    names exists). ``DISCORD_TOKEN`` and ``DATABASE_URL`` in the environment win over the file.
    Every value is checked here: a ConfigError names the section and the key.
    """
    env = dict(os.environ) if env is None else env
    if path is None and Path("config.toml").exists():
        path = Path("config.toml")
    data = _read_file(path) if path is not None else {}
    games_data = data.pop("games", {})
    logging_section = data.pop("logging", {})
    internals = data.pop("internals", {})
    tables = {name: data.pop(name, {}) for name, _, _ in _TABLES}
    extra = {name: data.pop(name, {}) for name in (sections or {})}
    loose = [name for name, value in data.items() if not isinstance(value, dict)]
    if loose:
        raise ConfigError(unknown("key", loose, "the file (outside any [section])"))
    if data:
        raise ConfigError(unknown("section", (f"[{name}]" for name in data)))
    log_level, discord_debug = _logging(logging_section)
    settings = Settings(
        **_tables(tables, env),
        internals=_internals(internals),
        games=_games(games_data, games or {}),
        sections=_sections(extra, sections or {}),
        log_level=log_level,
        discord_debug=discord_debug,
        source=path,
    )
    for check in checks:
        check(settings)
    return settings
