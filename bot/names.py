"""Names as the bot writes them: in the order a reader of the guild's language expects, and
escaped so that a display name is only ever text.

Order: the Unicode Collation Algorithm with the DUCET (``pyuca``), then the user id. Letters
count first; accents, then case, only to break ties (alice, Bruno, Çedric, Émile, Ève, Œdipe,
zoé: Œ sorts as OE). CLDR's collation tailorings for French and English are empty (only
Canadian French reverses accents), so the DUCET is the order of both languages; ``lang`` is kept
in the signatures so that a tailored language would change this module only.

Escaping: ``discord.utils.escape_markdown``. A member named ``**x** ← leader`` shows as those
characters, not as a second bold leader; ``[Free Nitro](https://evil.example)`` is not a masked
link. Every message the bot sends disables mentions (except the one ping a message names on
purpose, ``allowed_mentions``), but Discord still draws ``<@123…>`` as a mention badge: mention-
like text (``<@…>``, ``<#…>``, ``<t:…>``, ``@everyone``) is escaped so that it reads as typed.

Cleaning (:func:`clean`, applied where a name enters the bot and again where it is shown, in
messages, menus, pictures and records): bidirectional controls (U+202A–U+202E, U+2066–U+2069
and the marks U+200E, U+200F, U+061C) are removed, so a right-to-left override in a name cannot
reverse the rest of the line; a zero-width joiner is kept only inside an emoji sequence
(👩‍💻), where it joins; the name is put on one line.
"""

from __future__ import annotations

import re
import unicodedata
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


#: what rewrites the line around a name: embeddings, overrides and isolates, and the marks
BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
ZWJ = "\u200d"
#: what joins or modifies inside an emoji sequence (a variation selector, a skin tone)
EMOJI_MODIFIERS = re.compile("[\ufe0f\U0001f3fb-\U0001f3ff]")
#: Discord's markup that draws a badge or a date: <@123>, <@!1>, <@&1>, <#1>, <t:1:F>, <:a:1>,
#: </cmd:1>, and the two mass mentions
MARKUP = re.compile(r"<(?=[@#:/]|t:|a:)|@(?=everyone|here)")


def is_emoji(char: str) -> bool:
    """A pictograph an emoji sequence is made of (a symbol, not a letter or a digit)."""
    return unicodedata.category(char) == "So" or 0x1F000 <= ord(char) <= 0x1FAFF


def clean(name: str) -> str:
    """A display name without what rewrites the line around it (the module's docstring), on
    one line. Idempotent: a name already clean is returned unchanged."""
    name = BIDI.sub("", " ".join(name.split()))
    if ZWJ not in name:
        return name
    out: list[str] = []
    for i, char in enumerate(name):
        if char == ZWJ:
            before = EMOJI_MODIFIERS.sub("", "".join(out))[-1:]
            after = name[i + 1 : i + 2]
            if not (before and after and is_emoji(before) and is_emoji(after)):
                continue  # a joiner outside an emoji sequence only hides characters
        out.append(char)
    return "".join(out)


def escape_markup(text: str) -> str:
    """Mention-like markup escaped so that Discord shows it as typed (``\\<@123>``)."""
    return MARKUP.sub(lambda m: "\\" + m.group(0), text)


def shown(name: str) -> str:
    """One name as the bot writes it in a message: cleaned, its mention-like markup and its
    Markdown escaped."""
    return escape_markup(discord.utils.escape_markdown(clean(name)))


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
