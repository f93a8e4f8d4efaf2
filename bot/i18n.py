"""The French/English message catalogue.

Every user-facing string lives in ``bot/locales/<lang>/*.toml``. A file ``resistance.toml`` with a
table ``[error]`` and a key ``not_leader`` gives the message key ``resistance.error.not_leader``.
Messages use ``str.format`` placeholders with names: ``"{leader} proposes {team}"``.

A game plugin may bring its own catalogue directory (:func:`add_locales`): its files are loaded
with the built-in ones, each under the plugin's kind only (``<kind>.toml`` or
``<kind>.<part>.toml``, and a ``commands.toml`` of its own ``[<kind>]`` commands), and a key
already defined elsewhere is refused: a plugin cannot change another game's messages.
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

#: the plugins' catalogue directories, by kind (add_locales)
_PLUGIN_LOCALES: dict[str, Path] = {}


class MissingMessage(KeyError):
    """A message key that no catalogue file defines."""


def _flatten(prefix: str, table: Mapping[str, Any], out: dict[str, str]) -> None:
    for key, value in table.items():
        full = f"{prefix}.{key}"
        if isinstance(value, Mapping):
            _flatten(full, value, out)
        else:
            out[full] = str(value)


def _load(path: Path, out: dict[str, str]) -> None:
    with path.open("rb") as fh:
        _flatten(path.stem, tomllib.load(fh), out)


def _plugin_messages(kind: str, directory: Path, lang: Lang) -> dict[str, str]:
    """A plugin's messages of one language, each checked to be under its own kind."""
    out: dict[str, str] = {}
    for path in sorted((directory / lang).glob("*.toml")):
        _load(path, out)
    own = (f"{kind}.", f"commands.{kind}.")
    foreign = sorted(key for key in out if not key.startswith(own))
    if foreign:
        raise ValueError(f"the catalogue of {kind!r} ({directory}) defines {foreign[:3]}")
    return out


@cache
def catalogue(lang: Lang) -> dict[str, str]:
    """All messages of one language, by full key: the built-in ones and the plugins'."""
    out: dict[str, str] = {}
    for path in sorted((LOCALES_DIR / lang).glob("*.toml")):
        _load(path, out)
    for kind, directory in _PLUGIN_LOCALES.items():
        messages = _plugin_messages(kind, directory, lang)
        taken = sorted(set(messages) & set(out))
        if taken:
            raise ValueError(f"the catalogue of {kind!r} redefines {taken[:3]}")
        out.update(messages)
    return out


def add_locales(kind: str, directory: Path) -> None:
    """Load the catalogue directory of the game ``kind`` (``<dir>/<lang>/*.toml``) with the
    built-in one. Refused (ValueError) if a language is missing, a file is not under the
    kind, or a key is already defined; registering the same directory again does nothing."""
    directory = directory.resolve()
    if _PLUGIN_LOCALES.get(kind) == directory:
        return
    if kind in _PLUGIN_LOCALES:
        raise ValueError(f"the catalogue of {kind!r} is already {_PLUGIN_LOCALES[kind]}")
    missing = [lang for lang in LANGS if not any((directory / lang).glob("*.toml"))]
    if missing:
        raise ValueError(f"the catalogue of {kind!r} ({directory}) has no {missing} files")
    _PLUGIN_LOCALES[kind] = directory
    catalogue.cache_clear()
    try:
        for lang in LANGS:
            catalogue(lang)
    except Exception:
        del _PLUGIN_LOCALES[kind]
        catalogue.cache_clear()
        raise


def game_name(kind: str, lang: str = DEFAULT_LANG) -> str:
    """The name of the game ``kind`` (its catalogue's ``<kind>.game_name``)."""
    return t(f"{kind}.game_name", lang)


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
