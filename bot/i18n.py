"""The French/English message catalogue.

Every user-facing string lives in ``bot/locales/<lang>/*.toml``. A file ``resistance.toml`` with a
table ``[error]`` and a key ``not_leader`` gives the message key ``resistance.error.not_leader``.
Messages use ``str.format`` placeholders with names: ``"{leader} proposes {team}"``.
"""

from __future__ import annotations

import string
import tomllib
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any, Literal

Lang = Literal["en", "fr"]
LANGS: tuple[Lang, ...] = ("en", "fr")
DEFAULT_LANG: Lang = "en"
LOCALES_DIR = Path(__file__).parent / "locales"


class MissingMessage(KeyError):
    """A message key that no catalogue file defines."""


def _flatten(prefix: str, table: Mapping[str, Any], out: dict[str, str]) -> None:
    for key, value in table.items():
        full = f"{prefix}.{key}"
        if isinstance(value, Mapping):
            _flatten(full, value, out)
        else:
            out[full] = str(value)


@cache
def catalogue(lang: Lang) -> dict[str, str]:
    """All messages of one language, by full key."""
    out: dict[str, str] = {}
    for path in sorted((LOCALES_DIR / lang).glob("*.toml")):
        with path.open("rb") as fh:
            _flatten(path.stem, tomllib.load(fh), out)
    return out


def lang_of(locale: object) -> Lang:
    """The catalogue language for a Discord locale (``discord.Locale`` or its string value)."""
    value = str(getattr(locale, "value", locale) or "")
    return "fr" if value.lower().startswith("fr") else "en"


def t(key: str, lang: str = DEFAULT_LANG, /, **params: object) -> str:
    """The message ``key`` in ``lang``, its placeholders filled from ``params``."""
    messages = catalogue(lang_of(lang))
    try:
        template = messages[key]
    except KeyError:
        raise MissingMessage(key) from None
    return template.format(**params) if params else template.replace("{{", "{").replace("}}", "}")


def placeholders(template: str) -> set[str]:
    """The names of the placeholders in one message, to check both languages agree."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def localizations(key: str) -> dict[str, str]:
    """The French text of ``key`` for Discord's ``name_localizations`` / descriptions."""
    return {"fr": t(key, "fr")}
