"""Decks of The Refutation Game: the TOML format, its validation, and the ``Deck`` value.

The format (every key required unless said otherwise)::

    [deck]
    id = "climate-default"            # non-empty, no spaces
    version = 1                       # positive int
    name.en = "..."
    name.fr = "..."

    [[families]]
    key = "not_happening"             # [a-z_]+, unique
    colour = "#d94f3d"                # #rrggbb
    name.en = "..."
    name.fr = "..."

    [[cards]]
    number = 1                        # unique positive int
    kind = "disinformation"           # "disinformation" | "refutation" | "technique"
    family = "not_happening"          # disinformation/refutation only
    title.en = "..."                  # <= 80 characters
    title.fr = "..."
    text.en = "..."                   # <= 1000 characters
    text.fr = "..."
    source = "https://..."            # http(s) URL, <= 512 characters
    locator = "SPM A.1.2"             # required when the source is a report (REPORT_SOURCES):
                                      # the paragraph, table or figure cited, <= 80 characters;
                                      # or locator.en, locator.fr when the words differ

    [[relevance]]
    disinformation = 1                # a disinformation card
    card = 26                         # a refutation card of the same family, or a technique card
    stars = 3                         # 1..3

``parse_deck`` raises ``DeckError`` on the first problem; its key is
``refutation.deck_error.<name>`` and its params name the card ``number`` and the ``field``
(see ``errors.DECK_ERRORS`` for every key and its params).

Hostile files: ``parse_deck_bytes`` refuses more than ``DECK_MAX_BYTES`` before decoding and
anything that is not UTF-8; a linear pre-scan refuses deep nesting and long dotted keys (TOML
parsers take quadratic time on ``a.a.a...`` keys) before the TOML parser sees the text; counts
of families, cards and relevance entries are capped; values echoed in errors are cut to
``ECHO_MAX`` characters and stripped of control characters, so every error is one short line.
The Discord-side limits of what a card renders to live in the bot (``bot/deck_limits.py``).
"""

from __future__ import annotations

import os
import re
import tomllib
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from importlib.resources import files
from pathlib import Path
from typing import Any, NamedTuple, TypeGuard
from urllib.parse import urlsplit

from .errors import DeckError, UnknownCard
from .model import FEED_SIZE

LANGUAGES: tuple[str, ...] = ("en", "fr")
TITLE_MAX = 80
TEXT_MAX = 1000
NAME_MAX = 100
"""Deck and family names: a family name is a select option's description (100 on Discord)."""
DECK_ID_MAX = 64
SOURCE_MAX = 512
"""A source is a link: Discord documents 512 for a link button's URL; longer embed URLs fail."""
CARD_NUMBER_MAX = 999_999
LOCATOR_MAX = 80
REPORT_SOURCES: tuple[str, ...] = (
    "https://www.ipcc.ch/report/",
    "https://wmo.int/publication-series/",
    "https://community.wmo.int/en/wmo-greenhouse-gas-bulletins",
)
"""Links to reports of many pages (the IPCC's, the WMO's): a card that cites one names the
paragraph, table or figure in its ``locator``, or the deck is refused."""
STARS_MIN = 1
STARS_MAX = 3

DECK_MAX_BYTES = 256 * 1024
"""Five times the default deck."""
NESTING_MAX = 32
DOTS_PER_LINE_MAX = 32
FAMILIES_MAX = 50
CARDS_MAX = 1000
RELEVANCE_MAX = 10_000
ECHO_MAX = 40

_FAMILY_KEY = re.compile(r"[a-z_]+")
_COLOUR = re.compile(r"#[0-9a-fA-F]{6}")
_DECK_ID = re.compile(r"\S+")
_TOML_POSITION = re.compile(r"\(at line (\d+), column (\d+)\)")

_SECTIONS = ("deck", "families", "cards", "relevance")
_DECK_FIELDS = ("id", "version", "name")
_FAMILY_FIELDS = ("key", "colour", "name")
_CARD_FIELDS = ("number", "kind", "family", "title", "text", "source", "claim", "locator")
_RELEVANCE_FIELDS = ("disinformation", "card", "stars")


class CardKind(StrEnum):
    DISINFORMATION = "disinformation"
    REFUTATION = "refutation"
    TECHNIQUE = "technique"


@dataclass(frozen=True)
class Family:
    key: str
    colour: str
    """``#rrggbb``, lower case."""
    names: dict[str, str]
    """Language -> name."""

    def name(self, lang: str) -> str:
        return _localized(self.names, lang)


@dataclass(frozen=True)
class Card:
    number: int
    kind: CardKind
    family: str | None
    """Family key; None for a technique card."""
    titles: dict[str, str]
    texts: dict[str, str]
    source: str
    claim: str | None = None
    """Disinformation only, optional: where the claim circulates (a record of the myth); the
    ``source`` is then the science that answers it."""
    locators: dict[str, str] | None = None
    """Language -> the paragraph, table or figure cited, when the ``source`` is a report."""

    def title(self, lang: str) -> str:
        return _localized(self.titles, lang)

    def text(self, lang: str) -> str:
        return _localized(self.texts, lang)

    def locator(self, lang: str) -> str | None:
        """The paragraph, table or figure cited ("SPM A.1.2"), or None."""
        return None if self.locators is None else _localized(self.locators, lang)


class Reference(NamedTuple):
    """One line of a reference page: a card number and its relevance in stars."""

    card: int
    stars: int


@dataclass(frozen=True)
class Deck:
    id: str
    version: int
    names: dict[str, str]
    families: dict[str, Family]
    """Family key -> family, in file order."""
    cards: dict[int, Card]
    """Card number -> card, in number order."""
    relevance: dict[int, dict[int, int]]
    """Disinformation number -> refutation or technique number -> stars (1..3)."""
    _refutes: dict[int, list[Reference]] = field(
        init=False, repr=False, compare=False, default_factory=dict
    )
    """Refutation or technique number -> the disinformation it answers (the reverse index)."""

    def __post_init__(self) -> None:
        for disinformation, page in self.relevance.items():
            for card, n in page.items():
                self._refutes.setdefault(card, []).append(Reference(disinformation, n))

    def name(self, lang: str) -> str:
        return _localized(self.names, lang)

    def card(self, number: int) -> Card:
        """The card ``number``; ``UnknownCard`` if the deck has none."""
        try:
            return self.cards[number]
        except KeyError:
            raise UnknownCard(card=number) from None

    def has_card(self, number: int) -> bool:
        return number in self.cards

    def title(self, number: int, lang: str) -> str:
        return self.card(number).title(lang)

    def text(self, number: int, lang: str) -> str:
        return self.card(number).text(lang)

    def _of_kind(self, kind: CardKind) -> list[Card]:
        return [card for card in self.cards.values() if card.kind is kind]

    def disinformation(self) -> list[Card]:
        """The disinformation cards, by number."""
        return self._of_kind(CardKind.DISINFORMATION)

    def refutations(self) -> list[Card]:
        """The refutation cards, by number."""
        return self._of_kind(CardKind.REFUTATION)

    def techniques(self) -> list[Card]:
        """The rhetorical-technique cards, by number."""
        return self._of_kind(CardKind.TECHNIQUE)

    def stars(self, disinformation: int, card: int) -> int:
        """The relevance of ``card`` against ``disinformation``; 0 when it is not listed."""
        return self.relevance.get(disinformation, {}).get(card, 0)

    def reference_page(self, number: int) -> list[Reference]:
        """The reference page of a card, best first (most stars, then lowest number).

        For a disinformation card: the refutation and technique cards that refute it. For a
        refutation or technique card: the disinformation cards it refutes."""
        card = self.card(number)
        if card.kind is CardKind.DISINFORMATION:
            entries = [Reference(c, s) for c, s in self.relevance.get(number, {}).items()]
        else:
            entries = list(self._refutes.get(number, []))
        return sorted(entries, key=lambda r: (-r.stars, r.card))


def _localized(texts: Mapping[str, str], lang: str) -> str:
    return texts.get(lang) or texts.get("en") or next(iter(texts.values()), "")


# --------------------------------------------------------------------------------------------
# Parsing


def parse_deck_bytes(data: bytes) -> Deck:
    """The deck in the bytes of a file: at most ``DECK_MAX_BYTES``, UTF-8 (a BOM is allowed),
    then ``parse_deck``. Raises ``DeckError`` naming the first problem."""
    if len(data) > DECK_MAX_BYTES:
        raise DeckError("too_large", size=len(data), max=DECK_MAX_BYTES)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DeckError("not_utf8", offset=exc.start) from None
    return parse_deck(text.removeprefix("\ufeff"))


def parse_deck(text: str) -> Deck:
    """The deck described by TOML ``text``. Raises ``DeckError`` naming the first problem."""
    if len(text) > DECK_MAX_BYTES:
        raise DeckError("too_large", size=len(text.encode("utf-8")), max=DECK_MAX_BYTES)
    _prescan(text)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        position = _TOML_POSITION.search(message)
        line, column = (int(position[1]), int(position[2])) if position else (0, 0)
        detail = _echo(_TOML_POSITION.sub("", message).strip(), 200)
        raise DeckError("syntax", line=line, column=column, detail=detail) from None
    except ValueError:  # an integer of more than 4,300 digits (Python's conversion limit)
        raise DeckError("too_many_digits") from None
    except RecursionError:  # the pre-scan refuses deep nesting first; kept as a safety net
        raise DeckError("too_deep", line=0, max=NESTING_MAX) from None
    for section in data:
        if section not in _SECTIONS:
            raise DeckError("unknown_section", section=_echo(section), field=_echo(section))

    deck_table = data.get("deck")
    if deck_table is None:
        raise DeckError("missing_deck", field="deck")
    if not isinstance(deck_table, dict):
        raise DeckError("bad_section", section="deck", field="deck")
    deck_id, version, names = _parse_deck_table(deck_table)

    families = _parse_families(_array_of_tables(data, "families"))
    cards = _parse_cards(_array_of_tables(data, "cards"), families)
    relevance = _parse_relevance(_array_of_tables(data, "relevance"), cards)

    disinformation = [c for c in cards.values() if c.kind is CardKind.DISINFORMATION]
    for card in disinformation:
        listed = relevance.get(card.number, {})
        if not any(cards[n].kind is CardKind.REFUTATION for n in listed):
            raise DeckError("no_refutation", number=card.number, field="relevance")
    if len(disinformation) < FEED_SIZE:
        raise DeckError(
            "too_few_disinformation", field="cards", count=len(disinformation), needed=FEED_SIZE
        )
    return Deck(
        id=deck_id,
        version=version,
        names=names,
        families=families,
        cards=dict(sorted(cards.items())),
        relevance={d: relevance[d] for d in sorted(relevance)},
    )


def load_deck(path: str | os.PathLike[str]) -> Deck:
    """The deck in the UTF-8 file at ``path`` (see ``parse_deck_bytes``). For trusted files
    (the default deck, tests): the bot reads every other file through
    ``games.refutation.decks.registry``."""
    return parse_deck_bytes(Path(path).read_bytes())


def _echo(value: object, limit: int = ECHO_MAX) -> str:
    """A value from the file, safe to show in a one-line error: control and format characters
    become ``?``, and it is cut to ``limit`` characters."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**limit:
        return "…"
    text = value if isinstance(value, str) else repr(value)
    text = text[: limit * 4]
    cleaned = "".join("?" if unicodedata.category(ch)[0] == "C" else ch for ch in text)
    return cleaned if len(cleaned) <= limit else cleaned[: limit - 1] + "…"


# The pre-scan's lexical states: in each, the tokens that matter. Outside strings and comments:
# string and comment openers, newlines, dots and brackets. Inside: what ends the state (and, in
# basic strings, escapes, so that \" does not end them).
_SCAN_NORMAL = re.compile(r"\"\"\"|'''|[\"'#\n.\[\]{}]")
_SCAN_IN = {
    '"': re.compile(r'\\.|["\n]', re.S),
    "'": re.compile(r"['\n]"),
    '"""': re.compile(r'\\.|"""', re.S),
    "'''": re.compile(r"'''"),
    "#": re.compile(r"\n"),
}


def _prescan(text: str) -> None:
    """Refuse, in linear time and before the TOML parser, nesting deeper than ``NESTING_MAX``
    and lines with more than ``DOTS_PER_LINE_MAX`` dots outside strings and comments (a dotted
    key of thousands of parts takes the parser minutes)."""
    pos, dots, depth = 0, 0, 0
    state: str | None = None
    while True:
        found = (_SCAN_NORMAL if state is None else _SCAN_IN[state]).search(text, pos)
        if found is None:
            return
        token, pos = found.group(), found.end()
        if state is not None:
            if token.startswith("\\"):
                continue  # an escape inside a basic string
            state = None  # the closing quote(s), or the newline that ends a comment
            if token == "\n":
                dots = 0
        elif token == "\n":
            dots = 0
        elif token == ".":
            dots += 1
            if dots > DOTS_PER_LINE_MAX:
                line = text.count("\n", 0, pos) + 1
                raise DeckError("key_too_long", line=line, max=DOTS_PER_LINE_MAX)
        elif token in "[{":
            depth += 1
            if depth > NESTING_MAX:
                raise DeckError("too_deep", line=text.count("\n", 0, pos) + 1, max=NESTING_MAX)
        elif token in "]}":
            depth = max(0, depth - 1)
        else:
            state = token


def default_deck_path() -> Path:
    """The path of the default deck shipped with the bot."""
    return Path(str(files("games.refutation") / "decks" / "default.toml"))


_SECTION_MAX = {"families": FAMILIES_MAX, "cards": CARDS_MAX, "relevance": RELEVANCE_MAX}


def _array_of_tables(data: Mapping[str, Any], section: str) -> list[dict[str, Any]]:
    value = data.get(section, [])
    if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
        raise DeckError("bad_section", section=section, field=section)
    if len(value) > _SECTION_MAX[section]:
        raise DeckError("too_many", field=section, count=len(value), max=_SECTION_MAX[section])
    return value


def _check_length(texts: Mapping[str, str], limit: int, error: Callable[..., DeckError]) -> None:
    for lang, text in texts.items():
        if len(text) > limit:
            raise error(lang=lang, length=len(text), max=limit)


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


_LanguageError = Callable[[str, str, str], DeckError]


def _texts(value: object, field: str, error: _LanguageError) -> dict[str, str]:
    """Language -> text of a localized field (``name``, ``title``, ``text``).

    ``error(name, field, lang)`` builds the ``DeckError`` to raise."""
    if not isinstance(value, dict):
        raise error("missing", f"{field}.{LANGUAGES[0]}", LANGUAGES[0])
    for lang in LANGUAGES:
        if lang not in value:
            raise error("missing", f"{field}.{lang}", lang)
    out: dict[str, str] = {}
    for lang, text in value.items():
        if not isinstance(text, str) or not text.strip():
            raise error("bad", _echo(f"{field}.{lang}"), _echo(lang))
        out[str(lang)] = text.strip()
    return out


def _parse_deck_table(table: dict[str, Any]) -> tuple[str, int, dict[str, str]]:
    for name in table:
        if name not in _DECK_FIELDS:
            raise DeckError("deck_unknown_field", field=_echo(name))
    deck_id = table.get("id")
    if (
        not isinstance(deck_id, str)
        or not _DECK_ID.fullmatch(deck_id)
        or len(deck_id) > DECK_ID_MAX
    ):
        raise DeckError("deck_field", field="id")
    version = table.get("version")
    if not _is_int(version) or version < 1:
        raise DeckError("deck_field", field="version")

    def error(problem: str, field: str, lang: str) -> DeckError:
        return DeckError("deck_language", field=field, lang=lang)

    names = _texts(table.get("name"), "name", error)

    def too_long(lang: str, length: int, max: int) -> DeckError:
        return DeckError("deck_too_long", field=f"name.{lang}", lang=lang, length=length, max=max)

    _check_length(names, NAME_MAX, too_long)
    return deck_id, version, names


def _parse_families(tables: list[dict[str, Any]]) -> dict[str, Family]:
    if not tables:
        raise DeckError("no_families", field="families")
    families: dict[str, Family] = {}
    for index, table in enumerate(tables, start=1):
        key = table.get("key")
        if not isinstance(key, str) or not _FAMILY_KEY.fullmatch(key) or len(key) > ECHO_MAX:
            raise DeckError("family_key", index=index, field="key")
        if key in families:
            raise DeckError("duplicate_family", family=key, field="key")
        for name in table:
            if name not in _FAMILY_FIELDS:
                raise DeckError("family_unknown_field", family=key, field=_echo(name))
        colour = table.get("colour")
        if not isinstance(colour, str) or not _COLOUR.fullmatch(colour):
            raise DeckError("bad_colour", family=key, field="colour", value=_echo(colour or ""))

        def error(problem: str, field: str, lang: str, key: str = key) -> DeckError:
            return DeckError("family_language", family=key, field=field, lang=lang)

        names = _texts(table.get("name"), "name", error)

        def too_long(lang: str, length: int, max: int, key: str = key) -> DeckError:
            return DeckError(
                "family_too_long",
                family=key,
                field=f"name.{lang}",
                lang=lang,
                length=length,
                max=max,
            )

        _check_length(names, NAME_MAX, too_long)
        families[key] = Family(key=key, colour=colour.lower(), names=names)
    return families


def _parse_cards(tables: list[dict[str, Any]], families: Mapping[str, Family]) -> dict[int, Card]:
    cards: dict[int, Card] = {}
    for index, table in enumerate(tables, start=1):
        number = table.get("number")
        if not _is_int(number) or not 1 <= number <= CARD_NUMBER_MAX:
            raise DeckError("card_number", index=index, field="number", max=CARD_NUMBER_MAX)
        if number in cards:
            raise DeckError("duplicate_number", number=number, field="number")
        cards[number] = _parse_card(number, table, families)
    return cards


def _parse_card(number: int, table: dict[str, Any], families: Mapping[str, Family]) -> Card:
    for name in table:
        if name not in _CARD_FIELDS:
            raise DeckError("card_unknown_field", number=number, field=_echo(name))
    kind_value = table.get("kind")
    if not isinstance(kind_value, str) or kind_value not in tuple(CardKind):
        raise DeckError("unknown_kind", number=number, field="kind", value=_echo(kind_value or ""))
    kind = CardKind(kind_value)
    family = _card_family(number, kind, table.get("family"), families)
    titles, texts = _card_texts(number, table)
    source = table.get("source")
    if source is None:
        raise DeckError("missing_source", number=number, field="source")
    source = _link(number, "source", source)
    claim = table.get("claim")
    if claim is not None and kind is not CardKind.DISINFORMATION:
        raise DeckError("claim_not_disinformation", number=number, field="claim")
    return Card(
        number=number,
        kind=kind,
        family=family,
        titles=titles,
        texts=texts,
        source=source,
        claim=None if claim is None else _link(number, "claim", claim),
        locators=_locator(number, source, table.get("locator")),
    )


def _card_family(
    number: int, kind: CardKind, family: object, families: Mapping[str, Family]
) -> str | None:
    """A card's family key: none for a technique card, one of the deck's for the others."""
    if kind is CardKind.TECHNIQUE:
        if family is not None:
            raise DeckError("family_on_technique", number=number, field="family")
        return None
    if family is None:
        raise DeckError("missing_family", number=number, field="family")
    if not isinstance(family, str) or family not in families:
        raise DeckError("unknown_family", number=number, field="family", value=_echo(family))
    return family


def _card_texts(number: int, table: Mapping[str, Any]) -> tuple[dict[str, str], dict[str, str]]:
    """A card's titles and texts by language, each within its limit."""

    def error(problem: str, field: str, lang: str) -> DeckError:
        if problem == "missing":
            return DeckError("missing_language", number=number, field=field, lang=lang)
        return DeckError("bad_text", number=number, field=field, lang=lang)

    titles = _texts(table.get("title"), "title", error)
    texts = _texts(table.get("text"), "text", error)
    for lang, title in titles.items():
        if len(title) > TITLE_MAX:
            raise DeckError(
                "title_too_long",
                number=number,
                field=f"title.{lang}",
                lang=lang,
                length=len(title),
                max=TITLE_MAX,
            )
    for lang, body in texts.items():
        if len(body) > TEXT_MAX:
            raise DeckError(
                "text_too_long",
                number=number,
                field=f"text.{lang}",
                lang=lang,
                length=len(body),
                max=TEXT_MAX,
            )
    return titles, texts


def _link(number: int, field: str, value: object) -> str:
    """A card's ``source`` or ``claim``: a link Discord accepts, at most ``SOURCE_MAX``."""
    if isinstance(value, str) and len(value) > SOURCE_MAX:
        raise DeckError(
            "source_too_long", number=number, field=field, length=len(value), max=SOURCE_MAX
        )
    if not _is_url(value):
        raise DeckError("bad_source", number=number, field=field, value=_echo(value))
    assert isinstance(value, str)
    return value


def is_report(source: str) -> bool:
    """Whether ``source`` links a report of many pages (``REPORT_SOURCES``)."""
    return source.startswith(REPORT_SOURCES)


def _locator(number: int, source: str, value: object) -> dict[str, str] | None:
    """The paragraph, table or figure of a report a card cites, by language: required when its
    source is a report; one text for every language ("SPM A.1.2") or one per language."""
    if value is None:
        if is_report(source):
            raise DeckError("missing_locator", number=number, field="locator")
        return None
    if isinstance(value, dict):

        def error(problem: str, field: str, lang: str) -> DeckError:
            if problem == "missing":
                return DeckError("missing_language", number=number, field=field, lang=lang)
            return DeckError("bad_text", number=number, field=field, lang=lang)

        texts = _texts(value, "locator", error)
    elif isinstance(value, str) and value.strip():
        texts = dict.fromkeys(LANGUAGES, value.strip())
    else:
        raise DeckError("bad_locator", number=number, field="locator", max=LOCATOR_MAX)
    if any(len(text) > LOCATOR_MAX for text in texts.values()):
        raise DeckError("bad_locator", number=number, field="locator", max=LOCATOR_MAX)
    return texts


def _is_url(value: object) -> bool:
    """An http(s) link Discord accepts in an embed: the scheme (Discord answers
    ``URL_TYPE_INVALID_SCHEME`` otherwise), a host name with a dot (Discord refuses a bare
    ``http://host``), printable ASCII without spaces or ``<>"`` (a link in a message ends
    there)."""
    if not isinstance(value, str) or not value.isascii() or not value.isprintable():
        return False
    if any(ch.isspace() or ch in '<>"' for ch in value):
        return False
    try:
        parts = urlsplit(value)
        host = parts.hostname or ""
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and "." in host.strip(".")


def _parse_relevance(
    tables: list[dict[str, Any]], cards: Mapping[int, Card]
) -> dict[int, dict[int, int]]:
    relevance: dict[int, dict[int, int]] = {}
    for index, table in enumerate(tables, start=1):
        for name in table:
            if name not in _RELEVANCE_FIELDS:
                raise DeckError("relevance_unknown_field", index=index, field=_echo(name))
        for name in _RELEVANCE_FIELDS:
            value = table.get(name)
            if not _is_int(value) or not -CARD_NUMBER_MAX <= value <= CARD_NUMBER_MAX:
                raise DeckError("relevance_field", index=index, field=name)
        number: int = table["disinformation"]
        card: int = table["card"]
        stars: int = table["stars"]
        if number not in cards:
            raise DeckError(
                "relevance_missing_card", index=index, number=number, field="disinformation"
            )
        disinformation = cards[number]
        if disinformation.kind is not CardKind.DISINFORMATION:
            raise DeckError(
                "relevance_not_disinformation", index=index, number=number, field="disinformation"
            )
        if card not in cards:
            raise DeckError("relevance_missing_card", index=index, number=card, field="card")
        refutation = cards[card]
        if refutation.kind is CardKind.DISINFORMATION:
            raise DeckError(
                "relevance_to_disinformation", index=index, number=number, card=card, field="card"
            )
        if refutation.kind is CardKind.REFUTATION and refutation.family != disinformation.family:
            raise DeckError(
                "relevance_wrong_family",
                index=index,
                number=number,
                card=card,
                field="card",
                family=str(refutation.family),
                expected=str(disinformation.family),
            )
        if not STARS_MIN <= stars <= STARS_MAX:
            raise DeckError(
                "bad_stars", index=index, number=number, card=card, field="stars", stars=stars
            )
        page = relevance.setdefault(number, {})
        if card in page:
            raise DeckError(
                "duplicate_relevance", index=index, number=number, card=card, field="card"
            )
        page[card] = stars
    return relevance
