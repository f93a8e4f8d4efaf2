"""The bypasses, by name, and which of them an owner (a bot, an engine) runs with.

A bypass is a shortcut around a library's public path, kept because the bench measured it
(docs/performance.md, "The bypasses"). ``[internals] bypasses`` (bot/config.py) turns them all
off (``false``), or keeps the ones it lists; with none, the bot runs on discord.py's and
SQLAlchemy's own public paths. The owner is the object a bypass reaches from where it runs: the
discord.py client (an interaction's ``client``), or the engine (``AsyncEngine.sync_engine``).
"""

from __future__ import annotations

import weakref
from typing import Any

#: a text answer's callback over connections of the bot's own (adapters/discord_callback.py)
OWN_CALLBACKS = "own_callbacks"
#: the vote batch straight through the driver (db/direct.py)
DIRECT_VOTES = "direct_votes"

#: Every bypass, in the order the docs and the bench list them.
BYPASSES = (OWN_CALLBACKS, DIRECT_VOTES)
#: Bypasses removed once measured: a configuration that still names one is read without it.
RETIRED = ("ready_once_loaded", "quiet_collections")

_off: weakref.WeakKeyDictionary[Any, frozenset[str]] = weakref.WeakKeyDictionary()


def keep_only(owner: Any, kept: frozenset[str]) -> None:
    """``owner`` runs with the bypasses ``kept`` and none of the others."""
    _off[owner] = frozenset(BYPASSES) - kept


def runs(owner: Any, bypass: str) -> bool:
    """Whether ``owner`` runs with ``bypass`` (every one, unless :func:`keep_only` said not)."""
    return bypass not in _off.get(owner, ())
