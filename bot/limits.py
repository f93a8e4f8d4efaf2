"""Discord's documented limits, in one place: the runtime cuts and splits by them, and the deck
check (``games.refutation.deck_check.check_deck``) measures every page a card renders to against
them.

Sources (Discord's developer documentation, checked against the libraries that encode it):
- Embed limits (Message resource, "Embed Limits"): title 256, description 4,096, up to 25
  fields, field name 256, field value 1,024, footer text 2,048, author name 256; the title,
  description, field names and values, footer text and author name of ALL the embeds of one
  message add up to at most 6,000 characters.
- Create Message: content up to 2,000 characters, up to 10 embeds.
- Components: a button's label 80 and custom_id 100; a string select's options 1 to 25, each
  option's label, value and description 100, placeholder 150; 5 action rows of 5 buttons.
- Autocomplete: up to 25 choices, each name 1 to 100 characters.
- Application commands: a command's or option's name 1 to 32 characters, its description 1 to
  100, an option choice's name 1 to 100, each localization the same (the synced payload is
  checked by tests/e2e/test_command_limits.py).
- URLs in embeds: scheme http or https (Discord answers 50035 URL_TYPE_INVALID_SCHEME); a link
  button's URL at most 512 characters (the deck's sources keep to that).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import discord

MESSAGE_CONTENT = 2000
EMBEDS_PER_MESSAGE = 10
EMBED_TOTAL = 6000
EMBED_TITLE = 256
EMBED_DESCRIPTION = 4096
EMBED_FIELDS = 25
EMBED_FIELD_NAME = 256
EMBED_FIELD_VALUE = 1024
EMBED_FOOTER = 2048
EMBED_AUTHOR = 256
BUTTON_LABEL = 80
CUSTOM_ID = 100
SELECT_OPTIONS = 25
SELECT_OPTION_LABEL = 100
SELECT_OPTION_VALUE = 100
SELECT_OPTION_DESCRIPTION = 100
SELECT_PLACEHOLDER = 150
ACTION_ROWS = 5
BUTTONS_PER_ROW = 5
AUTOCOMPLETE_CHOICES = 25
CHOICE_NAME = 100
COMMAND_NAME = 32
COMMAND_DESCRIPTION = 100
URL_MAX = 512
URL_SCHEMES = ("http", "https")


@dataclass(frozen=True)
class Breach:
    """One limit broken: ``part`` (a catalogue key suffix of ``decks.part``), its size, the
    limit, and whether it is a count (of fields, options...) rather than characters."""

    part: str
    size: int
    limit: int
    count: bool = False


def cut(text: str, limit: int) -> str:
    """``text`` within ``limit`` characters, with an ellipsis when it was longer."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def embed_breaches(embed: discord.Embed) -> list[Breach]:
    """Every limit one embed breaks, alone (its total included)."""
    out: list[Breach] = []

    def check(part: str, text: str | None, limit: int) -> None:
        if text is not None and len(text) > limit:
            out.append(Breach(part, len(text), limit))

    check("title", embed.title, EMBED_TITLE)
    check("description", embed.description, EMBED_DESCRIPTION)
    if len(embed.fields) > EMBED_FIELDS:
        out.append(Breach("fields", len(embed.fields), EMBED_FIELDS, count=True))
    for f in embed.fields:
        check("field_name", f.name, EMBED_FIELD_NAME)
        check("field_value", f.value, EMBED_FIELD_VALUE)
    check("footer", embed.footer.text, EMBED_FOOTER)
    check("author", embed.author.name, EMBED_AUTHOR)
    for url in (embed.url, embed.author.url):
        if url is not None and not url_ok(url):
            out.append(Breach("url", len(url), URL_MAX))
    if len(embed) > EMBED_TOTAL:
        out.append(Breach("embed_total", len(embed), EMBED_TOTAL))
    return out


def message_breaches(
    content: str | None, embeds: Sequence[discord.Embed] = (), view: discord.ui.View | None = None
) -> list[Breach]:
    """Every limit one message breaks: its content, each embed, their sum, its components."""
    out: list[Breach] = []
    if content is not None and len(content) > MESSAGE_CONTENT:
        out.append(Breach("content", len(content), MESSAGE_CONTENT))
    if len(embeds) > EMBEDS_PER_MESSAGE:
        out.append(Breach("embeds", len(embeds), EMBEDS_PER_MESSAGE, count=True))
    for embed in embeds:
        out += embed_breaches(embed)
    total = sum(len(e) for e in embeds)
    if len(embeds) > 1 and total > EMBED_TOTAL:
        out.append(Breach("message_total", total, EMBED_TOTAL))
    if view is not None:
        out += components_breaches(view.to_components())
    return out


def components_breaches(rows: Iterable[dict[str, Any]]) -> list[Breach]:
    """Every limit the components of one message break (action rows of buttons or a select)."""
    out: list[Breach] = []
    rows = list(rows)
    if len(rows) > ACTION_ROWS:
        out.append(Breach("rows", len(rows), ACTION_ROWS, count=True))
    for row in rows:
        items = row.get("components", [])
        buttons = [c for c in items if c.get("type") == 2]
        if len(buttons) > BUTTONS_PER_ROW:
            out.append(Breach("buttons", len(buttons), BUTTONS_PER_ROW, count=True))
        for item in items:
            if len(item.get("custom_id") or "") > CUSTOM_ID:
                out.append(Breach("custom_id", len(item["custom_id"]), CUSTOM_ID))
            if item.get("type") == 2 and len(item.get("label") or "") > BUTTON_LABEL:
                out.append(Breach("button_label", len(item["label"]), BUTTON_LABEL))
            if item.get("type") == 3:
                out += select_breaches(item)
    return out


def select_breaches(select: dict[str, Any]) -> list[Breach]:
    out: list[Breach] = []
    options = select.get("options", [])
    if not 1 <= len(options) <= SELECT_OPTIONS:
        out.append(Breach("options", len(options), SELECT_OPTIONS, count=True))
    if len(select.get("placeholder") or "") > SELECT_PLACEHOLDER:
        out.append(Breach("placeholder", len(select["placeholder"]), SELECT_PLACEHOLDER))
    for option in options:
        for key, part, limit in (
            ("label", "option_label", SELECT_OPTION_LABEL),
            ("value", "option_value", SELECT_OPTION_VALUE),
            ("description", "option_description", SELECT_OPTION_DESCRIPTION),
        ):
            if len(option.get(key) or "") > limit:
                out.append(Breach(part, len(option[key]), limit))
    return out


def url_ok(url: str) -> bool:
    """An embed URL Discord takes: http(s), at most ``URL_MAX`` characters."""
    scheme = url.split(":", 1)[0].lower()
    return len(url) <= URL_MAX and scheme in URL_SCHEMES


def embed_chunks(embeds: Sequence[discord.Embed]) -> list[list[discord.Embed]]:
    """``embeds`` in order, split into messages of at most 10 embeds and 6,000 characters."""
    chunks: list[list[discord.Embed]] = []
    size = 0
    for embed in embeds:
        if not chunks or len(chunks[-1]) >= EMBEDS_PER_MESSAGE or size + len(embed) > EMBED_TOTAL:
            chunks.append([])
            size = 0
        chunks[-1].append(embed)
        size += len(embed)
    return chunks


def field_values(lines: Sequence[str], limit: int = EMBED_FIELD_VALUE) -> list[str]:
    """``lines`` joined into field values of at most ``limit`` characters, split between lines
    (a line longer than the limit is cut)."""
    values: list[str] = []
    for line in lines:
        line = cut(line, limit)
        if values and len(values[-1]) + 1 + len(line) <= limit:
            values[-1] += "\n" + line
        else:
            values.append(line)
    return values
