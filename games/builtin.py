"""The built-in games: the one list a new game adds a line to (its package's ``plugin``).

The composition root (``bot/__main__.py``; the tests and benchmarks too) builds the bot's
registry from this list; nothing below it names a game.
"""

from __future__ import annotations

from bot.plugins import GamePlugin, Registry, load_plugin

#: The built-in games, by the module that defines each one's ``PLUGIN``.
BUILTIN = (
    "games.resistance.plugin",
    "games.refutation.plugin",
    "games.werewolf.plugin",
)


def builtin_plugins() -> tuple[GamePlugin, ...]:
    """The built-in games' records."""
    return tuple(load_plugin(module) for module in BUILTIN)


def builtin_registry() -> Registry:
    """The built-in games, checked together and registered (events, catalogues)."""
    return Registry(builtin_plugins())
