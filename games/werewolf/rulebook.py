"""``/werewolf rules``: the rules of Werewolf, condensed, in the reader's language.

The numbers come from the engine (games/werewolf/rules/tables.py: the players, the wolf table)
and from the options (their defaults and names); the two ties are asked of the engine itself,
by a rehearsal of a night and of a day on a fixed deal (the engine is pure). The catalogue's
texts hold only words around placeholders, so the rules a table reads are the ones the bot
enforces. In a game running here, the wolves and the roles are that game's.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from bot.i18n import option_label, t
from games.werewolf.options import WEREWOLF_OPTIONS, rule_options
from games.werewolf.rules import SPECIAL_ROLES, Options, Player, Role, Werewolf, tables
from rulebase.engine import groups, span_text

#: The roles of the rules text, in order; those with an option name it (the captain is one).
ROLES: tuple[str, ...] = (
    Role.WEREWOLF.value,
    Role.VILLAGER.value,
    *(role.value for role in SPECIAL_ROLES),
    "captain",
)


def span(low: int, high: int, lang: str) -> str:
    """``18``, ``6 à 11`` (English: ``6–11``)."""
    return span_text(low, high, lambda key: t(f"werewolf.rules.{key}", lang, low=low, high=high))


def wolf_table(lang: str) -> str:
    """``2 (6–11 players), 3 (12–17), 4 (18)``: the unit said once."""
    entries = [
        t(
            "werewolf.rules.table_entry",
            lang,
            value=wolves,
            players=(
                t("werewolf.rules.players", lang, span=span(low, high, lang), count=high)
                if i == 0
                else span(low, high, lang)
            ),
        )
        for i, (low, high, wolves) in enumerate(groups(tables.WOLF_COUNT))
    ]
    return t("werewolf.rules.table", lang, what=", ".join(entries))


def rehearsal(options: Options) -> Werewolf:
    """A game of the fewest players, the first seats the wolves, at its first night."""
    count = tables.MIN_PLAYERS
    wolves = tables.WOLF_COUNT[count]
    players = [Player(seat, f"seat {seat}") for seat in range(1, count + 1)]
    roles = {p.id: Role.WEREWOLF if p.id <= wolves else Role.VILLAGER for p in players}
    return Werewolf(players, roles, options)


@cache
def wolves_tie_kills() -> bool:
    """Whether the engine kills anyone when the wolves' picks tie at their deadline."""
    game = rehearsal(Options(seer=False, witch=False, early_close=False))
    victims = [p.id for p in game.players if p.id not in game.wolves]
    for wolf, victim in zip(game.wolves, victims, strict=False):
        game.pick(wolf, victim)
    game.close_wolves()
    return game.victim is not None


@cache
def day_tie_eliminates() -> bool:
    """Whether the engine eliminates anyone when the day's vote ties at its deadline."""
    game = rehearsal(Options(seer=False, witch=False, early_close=False))
    game.close_wolves()
    game.resolve()
    first, second = game.alive[-2:]
    game.vote(first, second)
    game.vote(second, first)
    game.resolve()
    return len(game.alive) < tables.MIN_PLAYERS


def wolves_here(lang: str, options: Mapping[str, Any]) -> str:
    """The wolves of the game running here when its options fix them, else the table."""
    wolves = rule_options(options).wolves if options else None
    if wolves is None:
        return wolf_table(lang)
    return t("werewolf.rules.table_here", lang, value=wolves)


def role_lines(lang: str, options: Mapping[str, Any]) -> str:
    """One line per role: every role, each option named; in a game here, the roles it plays."""
    lines = []
    for role in ROLES:
        optional = role not in (Role.WEREWOLF.value, Role.VILLAGER.value)
        if options and optional and not getattr(rule_options(options), role):
            continue
        extra = ""
        if optional and not options:
            label = option_label("werewolf", role, lang)
            extra = t("werewolf.rules.role_option", lang, option=label)
        name = t(f"werewolf.role.{role}.name", lang)
        what = t(f"werewolf.role.{role}.text", lang)
        lines.append(t("werewolf.rules.role_line", lang, name=name, extra=extra, what=what))
    return "\n".join(lines)


def hours(name: str) -> float | int:
    """An option's default hours as the texts write them (24, not 24.0)."""
    value = float(WEREWOLF_OPTIONS.defaults()[name])
    return int(value) if value.is_integer() else value


def facts(lang: str, options: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The placeholders of the rules texts, section by section."""
    given = options or {}
    wolves_tie = "wolves_tie_first" if wolves_tie_kills() else "wolves_tie_none"
    day_tie = "day_tie_first" if day_tie_eliminates() else "day_tie_none"
    return {
        "setup": {
            "min": tables.MIN_PLAYERS,
            "max": tables.MAX_PLAYERS,
            "table": wolves_here(lang, given),
        },
        "roles": {"what": role_lines(lang, given)},
        "night": {
            "value": hours("night_hours"),
            "outcome": t(f"werewolf.rules.{wolves_tie}", lang),
        },
        "dawn": {},
        "day": {"value": hours("day_hours"), "outcome": t(f"werewolf.rules.{day_tie}", lang)},
        "end": {},
    }


def rules(lang: str, options: Mapping[str, Any]) -> list[str]:
    """The sections of ``/werewolf rules`` (the game's own roles and wolves when one runs
    here: its stored ``options``)."""
    return [
        t(f"werewolf.rules.{section}", lang, **params)
        for section, params in facts(lang, options).items()
    ]
