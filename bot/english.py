"""Plain English for the operator: config errors, the command line, log lines.

What players and moderators read goes through the catalogue (bot/i18n.py) and its plural
forms; what the operator reads is English, and never writes "(s)" either: a count picks the
singular or the plural here.
"""

from __future__ import annotations

from collections.abc import Iterable


def word(count: int, one: str, many: str | None = None) -> str:
    """``one`` for a count of 1, else ``many`` (``one`` + "s" when not given)."""
    return one if count == 1 else (many if many is not None else one + "s")


def counted(count: int, one: str, many: str | None = None) -> str:
    """The count and its word: ``1 guild``, ``3 guilds``, ``0 deadlines``."""
    return f"{count} {word(count, one, many)}"


def unknown(what: str, names: Iterable[str], where: str = "") -> str:
    """``unknown key in [logging]: x``, ``unknown keys in [logging]: x, y`` (sorted)."""
    listed = sorted(names)
    place = f" in {where}" if where else ""
    return f"unknown {word(len(listed), what)}{place}: {', '.join(listed)}"


def alternatives(values: Iterable[str]) -> str:
    """``a``, ``a or b``, ``a, b or c``."""
    items = list(values)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " or " + items[-1]
