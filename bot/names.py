"""Names as the bot writes them: in the order a reader of the guild's language expects, and
escaped so that a display name is only ever text.

Order: the Unicode Collation Algorithm with the DUCET (``pyuca``), then the user id. Letters
count first; accents, then case, only to break ties (alice, Bruno, Çedric, Émile, Ève, Œdipe,
zoé: Œ sorts as OE). CLDR's collation tailorings for French and English are empty (only
Canadian French reverses accents), so the DUCET is the order of both languages; ``lang`` is kept
in the signatures so that a tailored language would change this module only.

Escaping: ``discord.utils.escape_markdown``. A member named ``**x** ← leader`` shows as those
characters, not as a second bold leader; ``[Free Nitro](https://evil.example)`` is not a masked
link. Mentions need no escaping: every message the bot sends disables them, except the one ping
a message names on purpose (``allowed_mentions``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cache
from typing import TypeVar

import discord
from pyuca import Collator

T = TypeVar("T")
Person = tuple[int, str]
"""(user id, display name)."""


@cache
def _collator() -> Collator:
    return Collator()  # loads the DUCET once (a quarter of a second)


def load_collation() -> None:
    """Load the collation table now (``on_ready``, before ``gc.freeze``): loaded by the first
    sorted list instead, its hundred thousand objects would stay in the cyclic GC's oldest
    generation, every full collection walking them (30-60 ms stalls under load)."""
    _collator()


def collation_key(text: str, lang: str = "en") -> tuple[int, ...]:
    """The Unicode Collation Algorithm's key of ``text`` for ``lang`` (any word the bot lists
    in alphabetical order)."""
    return tuple(_collator().sort_key(text))


def sort_key(user_id: int, name: str, lang: str = "en") -> tuple[tuple[int, ...], int]:
    """The collation key of a name for ``lang``, then the user id (the last tie-break)."""
    return (collation_key(name, lang), user_id)


def shown(name: str) -> str:
    """One name as the bot writes it in a message: Markdown escaped."""
    return discord.utils.escape_markdown(name)


def ordered(items: Iterable[T], lang: str, person: Callable[[T], Person]) -> list[T]:
    """``items`` in the order of their names (``person(item)`` = (user id, display name))."""
    return sorted(items, key=lambda item: sort_key(*person(item), lang))


def names(people: Iterable[Person], lang: str, *, bold: bool = False) -> list[str]:
    """The names of ``people`` in the reader's order, escaped (and in bold if asked): every list
    of names the bot shows goes through here."""
    out = [shown(name) for _, name in ordered(people, lang, lambda p: p)]
    return [f"**{n}**" for n in out] if bold else out


def listing(people: Iterable[Person], lang: str, *, bold: bool = False, empty: str = "—") -> str:
    """``names`` joined with commas; ``empty`` when there is nobody."""
    return ", ".join(names(people, lang, bold=bold)) or empty
