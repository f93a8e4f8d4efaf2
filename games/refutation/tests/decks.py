"""Decks the game's tests derive from another deck's text (the default deck's, or one made
from it), shared by the CLI's tests and the end-to-end uploads."""

from __future__ import annotations


def hands_too_long(text: str) -> str:
    """The deck of the issue of hands too long to send: titles of 80 and texts of 1,000
    characters, long sources. Every card passes the format, but a hand does not fit in one
    message (the issue's 0 of 3 hands delivered)."""
    lines = []
    for line in text.splitlines():
        key = line.split("=", 1)[0].strip()
        if key in ("title.en", "title.fr"):
            line = f'{key} = "{"T" * 80}"'
        elif key in ("text.en", "text.fr"):
            line = f'{key} = "{"x" * 1000}"'
        elif key == "source":
            line = f'source = "https://example.org/{"s" * 480}"'
        lines.append(line)
    return "\n".join(lines)
