"""A game's record as Markdown: what moderators keep once a game is over.

Pure functions of the stored state and the public event log (plus the game's row): the end of
the game attaches the record, and ``/<kind> archive`` rebuilds the same record later, in the
reader's language. Roles appear only once the game is over (the records of running games are
never built). Each game writes its own body (``GamePlugin.archive``, bot.plugins) with the
pieces here: the header, names escaped for Markdown, substitutions, name lists.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from bot.i18n import MissingMessage, choice_label, game_name, lang_of, number, option_label, t
from bot.names import clean, collation_key, sort_key
from bot.options import Option, OptionsSchema
from db.models import Game
from rulebase import Event, Substitution

if TYPE_CHECKING:
    from bot.plugins import Archive

Events = Sequence[Event]

_MD_SPECIAL = re.compile(r"([\\`*_\[\]|<>~#])")


def md(text: object) -> str:
    """Text shown as typed in Markdown: its special characters escaped, on one line."""
    flat = clean(str(text))  # on one line, no bidirectional control (bot/names.py)
    return _MD_SPECIAL.sub(r"\\\1", flat)


def when(at: datetime | None) -> str:
    return at.strftime("%Y-%m-%d %H:%M UTC") if at is not None else "—"


def role_name(kind: str, role: str, lang: str) -> str:
    """A role's name from the catalogue (``<kind>.archive.role.<role>``); a role the catalogue
    does not know yet (a new variant) shows as stored."""
    try:
        return t(f"{kind}.archive.role.{role}", lang)
    except MissingMessage:
        return role.replace("_", " ").capitalize()


def header(game: Game, lang: str, outcome: str, schema: OptionsSchema | None = None) -> list[str]:
    """The record's title, dates, outcome and options (named as the reader's command names
    them, by the game's ``schema``)."""
    title = game_name(game.kind, lang, game.options)
    lines = [
        f"# {t('archive.title', lang, game=title, number=game.id)}",
        "",
        f"- {t('archive.started', lang, at=when(game.started_at))}",
        f"- {t('archive.ended', lang, at=when(game.ended_at))}",
        f"- {t('archive.outcome', lang, outcome=outcome)}",
    ]
    schema = schema or OptionsSchema(game.kind, ())
    pairs = option_pairs(game.kind, schema, dict(game.options), lang)
    options = ", ".join(f"`{k}` = {md(v)}" for k, v in pairs)
    lines.append(f"- {t('archive.options', lang, options=options or '—')}")
    return lines


def option_value(option: Option | None, value: Any, lang: str) -> str:
    """One option's value as the reader's language writes it: "—" when unset (none, empty), a
    choice by the name Discord shows for it (French ``contre``), a yes or no, a number (French
    ``0,5``; English as stored, ``24.0``), any other text as it is."""
    if value is None or value == "":
        return "—"
    if isinstance(value, bool):
        return t(f"common.value.{str(value).lower()}", lang)
    if option is not None and value in option.choices:
        return choice_label(value, lang)
    if isinstance(value, int | float) and lang_of(lang) != "en":
        return number(value, lang)
    return str(value)


def option_pairs(
    kind: str, schema: OptionsSchema, options: dict[str, Any], lang: str
) -> list[tuple[str, str]]:
    """A game's options as (name, value) in the reader's language, each named as the reader
    sees it in the command (bot.i18n.option_label: French ``heures_vote``; English, or a game
    whose catalogue names none: the key), in the alphabetical order of those names (bot/names.py's
    collation); not the options its schema does not list (``Option.listed``: the Refutation
    Game's deck, which its record names in a line of its own)."""
    pairs = [
        (option_label(kind, k, lang), option_value(option, v, lang))
        for k, v in options.items()
        if (option := schema.get(k)) is None or option.listed
    ]
    return sorted(pairs, key=lambda pair: collation_key(pair[0]))


def options_listing(kind: str, schema: OptionsSchema, options: dict[str, Any], lang: str) -> str:
    """A game's options as "`name` = value" (``option_pairs``)."""
    return ", ".join(
        f"`{label}` = {value}" for label, value in option_pairs(kind, schema, options, lang)
    )


def options_text(kind: str, schema: OptionsSchema, options: dict[str, Any], lang: str) -> str:
    return t("rules.options", lang, options=options_listing(kind, schema, options, lang) or "—")


def names_of(state: Any, events: Events) -> dict[int, str]:
    """Everyone who sat at the table, substituted players included."""
    names = {p.id: p.name for p in state.players}
    for e in events:
        if isinstance(e, Substitution):
            names.setdefault(e.old, e.old_name or str(e.old))
            names.setdefault(e.new, e.name)
    return names


def substituted(e: Substitution, names: Mapping[int, str], lang: str) -> str:
    return t("archive.substituted", lang, new=md(e.name), old=md(names.get(e.old, "?")))


def listing(ids: Sequence[Any], names: Mapping[int, str]) -> str:
    """Players' names in alphabetical order (bot/names.py), each escaped for Markdown."""
    shown = sorted((int(i) for i in ids), key=lambda i: sort_key(i, names.get(i, str(i))))
    return ", ".join(md(names.get(i, str(i))) for i in shown) or "—"


def markdown(archive: Archive | None, game: Game, state: Any, events: Events, lang: str) -> str:
    """The record of an ended game, by its game's ``archive`` hook (a game without one: its
    header only)."""
    if archive is None:
        return "\n".join(header(game, lang, t("archive.ended_short", lang))) + "\n"
    return archive.markdown(game, state, events, lang)


def filename(game: Game, lang: str) -> str:
    return t("archive.filename", lang, kind=game.kind, number=game.id)
