"""The ``[decks]`` section of the config: where decks come from besides the default one, and
how uploads are checked (the Refutation Game's ``GamePlugin.config``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.config import ConfigError, read_section
from games.refutation.rules.deck import DECK_MAX_BYTES

SECTION = "decks"


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
