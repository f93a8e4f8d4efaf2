"""The ``[decks]`` section of the config: where decks come from besides the default one, and
how uploads are checked (the Refutation Game's ``GamePlugin.config``)."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.config import ConfigError, Settings, read_section
from games.refutation.rules.deck import DECK_MAX_BYTES

SECTION = "decks"
#: The game whose ``[games.<kind>]`` names the deck of new games (``deck``).
KIND = "refutation"

NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}")
"""A deck's name: what moderators type and autocomplete offers."""
DEFAULT = "default"


@dataclass(frozen=True)
class DeckSettings:
    """Where decks come from besides the default one, and how uploads are checked."""

    decks_dir: str = ""
    """A folder of ``<name>.toml`` deck files (empty: none); names are listed, never paths."""
    max_kb: int = 256
    """The largest deck file (read, uploaded or checked), in KiB."""
    check_seconds: float = 5.0
    """How long the check of one deck may take (a separate process, killed after that)."""
    uploads_per_guild: int = 25


def read(data: Mapping[str, Any]) -> DeckSettings:
    """``[decks]`` of the config, checked: each key named in the refusal."""
    decks: DeckSettings = read_section(DeckSettings, data, SECTION)
    if not 1 <= decks.max_kb <= DECK_MAX_BYTES // 1024:
        raise ConfigError(f"[decks] max_kb must be from 1 to {DECK_MAX_BYTES // 1024}")
    if not 0 < decks.check_seconds <= 120:
        raise ConfigError("[decks] check_seconds must be more than 0 and at most 120")
    if not 0 <= decks.uploads_per_guild <= 1000:
        raise ConfigError("[decks] uploads_per_guild must be from 0 to 1000")
    if decks.decks_dir and not Path(decks.decks_dir).is_dir():
        raise ConfigError(f"[decks] decks_dir is not a folder: {decks.decks_dir}")
    return decks


def of(sections: Mapping[str, Any]) -> DeckSettings:
    """The ``[decks]`` settings among the config's sections (the defaults when absent)."""
    found = sections.get(SECTION)
    return found if isinstance(found, DeckSettings) else DeckSettings()


def deck_files(folder: str) -> list[str]:
    """The decks of a ``decks_dir``: its ``<name>.toml`` files with a valid name, sorted."""
    if not folder:
        return []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    names = [
        e.name[:-5]
        for e in entries
        if e.name.endswith(".toml") and NAME.fullmatch(e.name[:-5]) and e.name[:-5] != DEFAULT
    ]
    return sorted(names)


def check_config(settings: Settings) -> None:
    """The deck ``[games.refutation] deck`` names exists: the default deck, or a
    ``<name>.toml`` of ``[decks] decks_dir`` (a guild's upload is chosen by the guild, with
    ``/settings refutation deck``). Whether the file is a good deck is checked as it is first
    used, in a separate process (games/refutation/decks/registry.py)."""
    name = str(settings.games.get(KIND, {}).get("deck") or "").strip().lower()
    if not name or name == DEFAULT:
        return
    folder = of(settings.sections).decks_dir
    where = f'[games.{KIND}] deck = "{name}"'
    if not folder:
        raise ConfigError(
            f'{where}: no such deck ([{SECTION}] decks_dir is empty, so "{DEFAULT}" is the '
            f"only one): put {name}.toml in a folder named by [{SECTION}] decks_dir"
        )
    files = deck_files(folder)
    if name not in files:
        known = ", ".join(f'"{n}"' for n in [DEFAULT, *files])
        raise ConfigError(
            f"{where}: no {name}.toml in [{SECTION}] decks_dir ({folder}); the decks: {known}"
        )
