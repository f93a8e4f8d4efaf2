"""Games as plugins: one record per game, registered in one list.

A :class:`GamePlugin` says everything the application needs to know of a game: its kind (the
``games.kind`` value, the lobby buttons' ``lobby:<kind>:...``), the prefixes of its deadlines
(``rs`` routes ``rs_vote`` to The Resistance), how to build its service, the extension module of
its cog, its options, its persistent buttons, the view and file builders its effect records
name, its message catalogue, and the hooks through which the core shows what the game leaves
behind: its record (:class:`Archive`), its share of ``/stats`` (:class:`Stats`), its rules text,
its ``/settings <kind>`` command, its lines of ``/settings show``, its config section and its
command-line commands. The core never asks which game it runs: it calls these.

:class:`bot.app.GameBot` takes a list of them; building a :class:`Registry` registers its
games' families of events with bot.event_log and their catalogues with bot.i18n. Each game
defines its record in ``games/<kind>/plugin.py``; the list of the built-in games is
``games.builtin.BUILTIN``, the one line a new built-in game adds.
"""

from __future__ import annotations

import argparse
import importlib
import re
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from bot.event_log import EventFamily, register_family
from bot.i18n import add_locales
from bot.options import OptionsSchema
from rulebase import Event

if TYPE_CHECKING:
    import discord
    from sqlalchemy import Table
    from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

    from bot.config import Settings
    from bot.service import GameService, Services
    from db.models import Game, GuildSettings

ViewBuilder = Callable[..., "discord.ui.View"]
FileBuilder = Callable[..., Awaitable["discord.File"]]
#: (the sessions, the services by kind) -> the file builders of ``Attachment`` records, by kind
FileBuilders = Callable[
    ["async_sessionmaker[AsyncSession]", Mapping[str, "GameService"]], Mapping[str, FileBuilder]
]

#: A file made anew each time it is sent (a ``discord.File`` can be read only once).
FileMaker = Callable[[], "discord.File"]


@dataclass(frozen=True)
class Archive:
    """What a game's record holds (bot/archive.py, bot/records.py): built from the stored state
    and the public event log of an ended game, in the reader's language."""

    #: (game row, engine state, public events, language) -> the record as Markdown
    markdown: Callable[[Game, Any, Sequence[Event], str], str]
    #: (engine state, language) -> how the game ended, in one line (no Markdown)
    outcome: Callable[[Any, str], str]
    #: pictures attached before the record by ``/<kind> archive`` (session, game, state, lang)
    files: Callable[[AsyncSession, Game, Any, str], Awaitable[list[FileMaker]]] | None = None


class Figures(Protocol):
    """One player's figures in one game (bot/stats.py): games played and won, and the lines
    this game adds to ``/stats player`` and to its leaderboard."""

    @property
    def played(self) -> int: ...

    @property
    def won(self) -> int: ...

    @property
    def rate(self) -> float | None: ...

    def shown(self) -> bool:
        """Whether there is anything to show (a game played, or work credited in one)."""
        ...

    def lines(self, lang: str) -> list[str]:
        """This game's lines of the player's ``/stats player``."""
        ...

    def top_extra(self, lang: str) -> str:
        """The last column of this game's leaderboard line."""
        ...


@dataclass(frozen=True)
class Stats:
    """A game's share of ``/stats`` (bot/stats.py): the kinds of public events its figures are
    read from (of ended games only), and how they are counted."""

    events: tuple[str, ...]
    #: the public events of the server's ended games of this kind -> each player's figures
    tally: Callable[[Iterable[Event]], Mapping[int, Figures]]


@dataclass(frozen=True)
class ConfigSection:
    """A config section a game reads (``[decks]``): its name, and how it is read (a mapping of
    the file's keys -> the typed settings; ValueError naming the key when a value is wrong)."""

    name: str
    parse: Callable[[Mapping[str, Any]], Any]


#: ``python -m bot``'s commands a game adds: (its subparsers) -> None; each command's parser
#: sets ``run=(arguments, settings) -> exit status`` with ``set_defaults``
CliCommands = Callable[["argparse._SubParsersAction[argparse.ArgumentParser]"], None]


#: A kind: lower-case letters and digits (it goes into custom ids ``lobby:<kind>:...``, the
#: catalogue's keys ``<kind>.*`` and the ``games.kind`` column, 16 characters).
KIND = re.compile(r"[a-z][a-z0-9]{0,15}")
#: A deadline prefix: the part of a deadline's kind before its first ``_`` (``rs_vote``).
PREFIX = re.compile(r"[a-z][a-z0-9]{0,7}")


@dataclass(frozen=True)
class GamePlugin:
    """What the application knows of one game."""

    #: the game's kind: ``games.kind``, its buttons' ``lobby:<kind>:...``, its catalogue keys
    kind: str
    #: the prefixes of its deadlines' kinds (``("rs",)``: ``rs_vote`` is one of this game's)
    deadline_prefixes: tuple[str, ...]
    #: builds the game's service from the application's shared parts
    service: Callable[[Services], GameService]
    #: the extension module of its cog (``/<kind> ...`` commands), loaded by the bot
    cog: str
    #: its options (bot.options): defaults, the parameters of its commands, their bounds
    options: OptionsSchema | None = None
    #: the config's defaults of its options (``[games.<kind>]``); None: the schema's defaults
    defaults: Callable[[Settings], Mapping[str, Any]] | None = None
    #: persistent components (``discord.ui.DynamicItem`` classes), registered at start-up so
    #: a button sent before a restart still works after it
    buttons: tuple[type[Any], ...] = ()
    #: builders of the views its effect records name (``View("rs_vote", ...)``), by name
    views: Mapping[str, ViewBuilder] = field(default_factory=dict)
    #: builders of the files its effect records attach (``Attachment("rs_matrix", ...)``)
    files: FileBuilders | None = None
    #: a catalogue directory (``<dir>/<lang>/<kind>[.<part>].toml``), loaded with the built-in
    #: one; None when its messages live in ``bot/locales``
    locales: Path | None = None
    #: ``python -m bot demo --game NAME``: the demos it ships, name -> "module:function"
    demos: Mapping[str, str] = field(default_factory=dict)
    #: its family of events (the base class of its events, ``rulebase.Event``): how the
    #: event log's rows of its games read back (bot.event_log); None: its log is not read
    events: EventFamily | None = None
    #: its record: Markdown, one-line outcome, pictures (None: the record holds the header only)
    archive: Archive | None = None
    #: its share of /stats (None: it has no figures)
    stats: Stats | None = None
    #: its rules text: (reader's language, options of the game in this channel, {} if none)
    #: -> the sections of ``/<kind> rules`` (None: only the options are shown)
    rules: Callable[[str, Mapping[str, Any]], list[str]] | None = None
    #: its ``/settings <kind>`` (given the settings cog); None: made from its options schema
    settings_command: Callable[[Any], Any] | None = None
    #: its lines of ``/settings show`` besides its defaults: (guild settings row, language)
    settings_lines: Callable[[GuildSettings, str], list[str]] | None = None
    #: a config section of its own (``[decks]``)
    config: ConfigSection | None = None
    #: what it checks of the settings read, beyond each value and its options together (the
    #: schema's checks): a reference to something that must exist (the deck ``[games.<kind>]``
    #: names, in ``[decks] decks_dir``). Raises ``bot.config.ConfigError`` naming the section
    #: and the key; called at start, before anything else.
    config_check: Callable[[Settings], None] | None = None
    #: commands of its own for ``python -m bot`` (``deck check``)
    cli: CliCommands | None = None
    #: tables of its own (the Refutation Game's decks), defined in its package on the store's
    #: metadata (``db.models.Base``): the one Alembic tree (migrations/) migrates them
    tables: tuple[Table, ...] = ()

    def __post_init__(self) -> None:
        if not KIND.fullmatch(self.kind):
            raise ValueError(f"game kind {self.kind!r}: lower-case letters and digits, at most 16")
        if not self.deadline_prefixes:
            raise ValueError(f"game {self.kind!r}: at least one deadline prefix")
        for prefix in self.deadline_prefixes:
            if not PREFIX.fullmatch(prefix):
                raise ValueError(f"game {self.kind!r}: bad deadline prefix {prefix!r}")
        if self.options is not None and self.options.kind != self.kind:
            raise ValueError(f"game {self.kind!r}: its options are {self.options.kind!r}'s")

    def config_defaults(self, settings: Settings) -> dict[str, Any]:
        """The defaults of its options for a new game, before the guild's and the command's:
        its ``[games.<kind>]`` of the config, read by its schema, else the schema's."""
        if self.defaults is not None:
            return dict(self.defaults(settings))
        if self.kind in settings.games:
            return dict(settings.games[self.kind])
        return self.options.defaults() if self.options is not None else {}

    @property
    def schema(self) -> OptionsSchema:
        """Its options (none: an empty schema)."""
        return self.options if self.options is not None else OptionsSchema(self.kind, ())


class Registry:
    """The games of one bot, checked together: no kind, deadline prefix, button, view or file
    builder name given twice."""

    def __init__(self, plugins: Iterable[GamePlugin]) -> None:
        self.plugins: tuple[GamePlugin, ...] = tuple(plugins)
        self.by_kind: dict[str, GamePlugin] = {}
        self.by_prefix: dict[str, GamePlugin] = {}
        views: set[str] = {"lobby"}
        for plugin in self.plugins:
            if plugin.kind in self.by_kind:
                raise ValueError(f"game kind {plugin.kind!r} registered twice")
            self.by_kind[plugin.kind] = plugin
            for prefix in plugin.deadline_prefixes:
                if prefix in self.by_prefix:
                    raise ValueError(
                        f"deadline prefix {prefix!r} of {plugin.kind!r} is already "
                        f"{self.by_prefix[prefix].kind!r}'s"
                    )
                self.by_prefix[prefix] = plugin
            for name in plugin.views:
                if name in views:
                    raise ValueError(f"view {name!r} of {plugin.kind!r} is registered twice")
                views.add(name)
        for plugin in self.plugins:
            if plugin.events is not None:
                register_family(plugin.kind, plugin.events)
            if plugin.locales is not None:
                add_locales(plugin.kind, plugin.locales)

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(self.by_kind)

    def kind_of_deadline(self, deadline_kind: str) -> str | None:
        """The game kind whose deadline this is (``rs_vote`` -> ``resistance``), or None."""
        plugin = self.by_prefix.get(deadline_kind.split("_", 1)[0])
        return plugin.kind if plugin is not None else None

    def __iter__(self) -> Any:
        return iter(self.plugins)

    def __contains__(self, kind: object) -> bool:
        return kind in self.by_kind

    def __getitem__(self, kind: str) -> GamePlugin:
        return self.by_kind[kind]

    def schemas(self) -> dict[str, OptionsSchema]:
        """Every game's options schema, by kind (the config's ``[games.<kind>]``)."""
        return {plugin.kind: plugin.schema for plugin in self.plugins}

    def sections(self) -> dict[str, ConfigSection]:
        """The config sections the games read, by name."""
        return {p.config.name: p.config for p in self.plugins if p.config is not None}

    def config_checks(self) -> list[Callable[[Settings], None]]:
        """The games' checks of the settings read (``GamePlugin.config_check``)."""
        return [p.config_check for p in self.plugins if p.config_check is not None]

    def demos(self) -> dict[str, str]:
        """The demos these games ship (``GamePlugin.demos``): name -> "module:function"."""
        return {name: target for p in self.plugins for name, target in p.demos.items()}


def load_plugin(module: str) -> GamePlugin:
    """The ``PLUGIN`` record a module defines."""
    plugin = getattr(importlib.import_module(module), "PLUGIN", None)
    if not isinstance(plugin, GamePlugin):
        raise TypeError(f"{module} defines no PLUGIN = GamePlugin(...)")
    return plugin
