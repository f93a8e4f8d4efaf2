"""Each game's options, declared once.

An ``OptionsSchema`` lists a game's options in order; each ``Option`` says its name, type,
default, English description, bounds or choices, and where it appears: a parameter of
``/<kind> new``, of ``/settings <kind>`` (the guild's defaults), a key of ``[games.<kind>]`` in
the config. From it come the config defaults (``parse_config``), the slash-command parameters
(``cogs/game_options.py``), the merge of config, guild and per-game values (``merge``) and the
operations guide's options table (``markdown_table``; ``python -m bot options-table``).

Pure: the standard library and the catalogue (bot.i18n, itself standard library only), so the
config can read it before anything else is imported.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from bot.english import alternatives, unknown
from bot.i18n import choice_label, game_name, number, number_text, option_label

Place = Literal["new", "settings", "config"]
PLACES: tuple[Place, ...] = ("new", "settings", "config")
OptionType = type[bool] | type[int] | type[float] | type[str]

TYPE_WORDS: dict[type[Any], str] = {
    bool: "true or false",
    int: "an integer",
    float: "a number",
    str: "a string",
}


@dataclass(frozen=True)
class Problem:
    """What is wrong with a value, or with a combination of values, said twice: in English for
    the config's line (a value's problem follows the option's name, ``must be …``; a
    combination's names its options, ``morgana = true needs percival = true``) and as a
    catalogue message for a command's answer (``key`` and its ``params``; a value's problem
    without a key of its own "cannot take that value")."""

    text: str
    key: str = "common.error.bad_option"
    params: Mapping[str, Any] = field(default_factory=dict)


#: A check of one value beyond its type, bounds and choices: what is wrong, or None.
ValueCheck = Callable[[Any], str | Problem | None]
#: A check of a game's options together (the config's defaults, a guild's, a new game's).
CombinationCheck = Callable[[Mapping[str, Any]], Problem | None]


class OptionError(ValueError):
    """A value an option cannot take. The message names the option and says why (for the
    config); ``key`` and ``params`` are its catalogue message (for a command's answer)."""

    def __init__(self, message: str, key: str = "common.error.bad_option", **params: Any):
        super().__init__(message)
        self.key = key
        self.params = params


def _shown(value: Any) -> str:
    """A value as a TOML file (and the options table) writes it: true, 24.0, "reject"."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return str(value)


# The parameters of an ``OptionError``'s message: each one's ``str()`` is its English text (the
# config's message, a log); ``localized(lang)`` is how the catalogue writes it for a reader.


@dataclass(frozen=True)
class OptionName:
    """An option as the reader calls it: its localized parameter name (``heures_vote``)."""

    kind: str
    name: str

    def __str__(self) -> str:
        return self.name

    def localized(self, lang: str) -> str:
        return option_label(self.kind, self.name, lang)


@dataclass(frozen=True)
class ChoiceList:
    """An option's choices as the reader sees them in the command (``contre, pour``)."""

    values: tuple[Any, ...]

    def __str__(self) -> str:
        return ", ".join(str(c) for c in self.values)

    def localized(self, lang: str) -> str:
        return ", ".join(choice_label(c, lang) for c in self.values)


@dataclass(frozen=True)
class Number:
    """A bound or a value, as the reader's language writes numbers (``0,0005`` in French)."""

    value: float

    def __str__(self) -> str:
        return number_text(self.value)

    def localized(self, lang: str) -> str:
        return number(self.value, lang)


@dataclass(frozen=True)
class Option:
    """One option of a game.

    ``check`` is an extra test of a value (a deck name's spelling, a time of day…): it returns
    what is wrong (English text, or a :class:`Problem` with its catalogue message), or
    ``None``. ``normal``: the value as it is kept once it fits (``9:05`` kept as ``09:05``).
    ``new``/``settings``/``config``: whether the option is a parameter of ``/<kind> new``, of
    ``/settings <kind>``, a key of ``[games.<kind>]``. ``listed``: whether its value shows in
    the listings of a game's options (its record, ``/<kind> rules``, ``/settings show``); a
    game that shows it in lines of its own says no (the Refutation Game's deck).
    """

    name: str
    type: OptionType
    default: Any
    description: str
    min: float | None = None
    max: float | None = None
    choices: tuple[Any, ...] = ()
    new: bool = True
    settings: bool = True
    config: bool = True
    listed: bool = True
    check: ValueCheck | None = field(default=None, compare=False)
    normal: Callable[[Any], Any] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        problem = self.problem(self.default)
        if problem is not None:
            raise TypeError(f"option {self.name}: its default {self.default!r} {problem}")
        if (self.min is None) != (self.max is None):
            raise TypeError(f"option {self.name}: give both bounds or neither")
        if self.min is not None and self.type not in (int, float):
            raise TypeError(f"option {self.name}: only a number has bounds")

    def appears(self, place: Place) -> bool:
        return bool(getattr(self, place))

    def coerce(self, value: Any) -> Any:
        """``value`` as the option's type (an integer given for a number becomes a float)."""
        if self.type is float and isinstance(value, int) and not isinstance(value, bool):
            return float(value)
        return value

    def kept(self, value: Any) -> Any:
        """A value that fits, as the option keeps it: of its type, in its normal form."""
        value = self.coerce(value)
        return self.normal(value) if self.normal is not None else value

    def found(self, value: Any) -> Problem | None:
        """What is wrong with ``value`` for this option, or ``None`` when it fits."""
        value = self.coerce(value)
        if isinstance(value, bool) is not (self.type is bool) or not isinstance(value, self.type):
            return Problem(f"must be {TYPE_WORDS[self.type]}")
        if self.choices and value not in self.choices:
            return Problem("must be " + alternatives(_shown(c) for c in self.choices))
        if (
            isinstance(value, int | float)
            and self.min is not None
            and self.max is not None
            and not self.min <= value <= self.max
        ):
            return Problem(f"must be from {number_text(self.min)} to {number_text(self.max)}")
        if self.check is not None:
            found = self.check(value)
            return Problem(found) if isinstance(found, str) else found
        return None

    def problem(self, value: Any) -> str | None:
        """What is wrong with ``value`` for this option, in English, or ``None``."""
        found = self.found(value)
        return found.text if found is not None else None

    def validate(self, value: Any, kind: str = "") -> Any:
        """``value`` coerced to the option's type, or ``OptionError`` saying why not (its
        parameters written in the reader's language: ``kind`` is the game, for the option's
        name)."""
        problem = self.found(value)
        if problem is None:
            return self.kept(value)
        message, value = f"{self.name} {problem.text}", self.coerce(value)
        option = OptionName(kind, self.name)
        if self.choices and value not in self.choices:
            raise OptionError(
                message,
                "common.error.not_a_choice",
                option=option,
                choices=ChoiceList(self.choices),
            )
        if self.min is not None and self.max is not None and isinstance(value, int | float):
            if isinstance(value, bool):
                raise OptionError(message, option=option)
            raise OptionError(
                message,
                "common.error.out_of_range",
                option=option,
                low=Number(self.min),
                high=Number(self.max),
                value=Number(value),
            )
        raise OptionError(message, problem.key, **{"option": option, **problem.params})

    def limits_text(self) -> str:
        """The bounds or choices, for the options table: ``0.0005–336``, ``5, 7, 9``."""
        if self.choices:
            return ", ".join(_shown(c) for c in self.choices)
        if self.min is not None and self.max is not None:
            return f"{number_text(self.min)}–{number_text(self.max)}"
        return ""


@dataclass(frozen=True)
class OptionsSchema:
    """The options of one game, in the order its commands list them.

    ``combination``: the game's check of its options together (Avalon's Morgana needs
    Percival), the one the config, ``/settings <kind>`` and ``/<kind> new`` all call
    (:meth:`verify`); its :class:`Problem` names its catalogue message."""

    kind: str
    options: tuple[Option, ...]
    combination: CombinationCheck | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        names = [o.name for o in self.options]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise TypeError(f"{self.kind}: options declared twice: {', '.join(twice)}")

    def __getitem__(self, name: str) -> Option:
        for option in self.options:
            if option.name == name:
                return option
        raise KeyError(name)

    def __contains__(self, name: object) -> bool:
        return any(o.name == name for o in self.options)

    def get(self, name: str, default: Option | None = None) -> Option | None:
        """The option ``name``, or ``default`` when the game has none of that name."""
        return next((o for o in self.options if o.name == name), default)

    def at(self, place: Place) -> tuple[Option, ...]:
        """The options of ``/<kind> new``, of ``/settings <kind>`` or of the config, in order."""
        return tuple(o for o in self.options if o.appears(place))

    def names(self, place: Place) -> tuple[str, ...]:
        return tuple(o.name for o in self.at(place))

    def defaults(self) -> dict[str, Any]:
        """The built-in defaults (a config without ``[games.<kind>]``)."""
        return {o.name: o.default for o in self.at("config")}

    def parse_config(self, data: Mapping[str, Any]) -> dict[str, Any]:
        """The config defaults: ``[games.<kind>]`` over the built-in ones. A key the game does
        not have, or a value its option cannot take, raises ``OptionError`` naming the section
        and the key."""
        where = f"[games.{self.kind}]"
        known = set(self.names("config"))
        strangers = set(data) - known
        if strangers:
            raise OptionError(unknown("key", strangers, where))
        values = self.defaults()
        for name, value in data.items():
            problem = self[name].problem(value)
            if problem is not None:
                raise OptionError(f"{where} {name} {problem}")
            values[name] = self[name].kept(value)
        found = self.combination(values) if self.combination is not None else None
        if found is not None:
            raise OptionError(f"{where} {found.text}", found.key, **found.params)
        return values

    def verify(self, options: Mapping[str, Any]) -> None:
        """Refuse options the game cannot play with together (its ``combination`` check):
        ``OptionError`` with the problem's catalogue message. Called on the options merged
        (config, guild, command) by ``/settings <kind>`` and ``/<kind> new``, as
        :meth:`parse_config` calls it on the config's."""
        found = self.combination(options) if self.combination is not None else None
        if found is not None:
            raise OptionError(found.text, found.key, **found.params)

    def given(self, values: Mapping[str, Any], place: Place) -> dict[str, Any]:
        """What a command was given (``None``: not given), checked; the other keys dropped.
        Raises ``OptionError`` for a value its option cannot take (a modified client)."""
        names = set(self.names(place))
        return {
            name: self[name].validate(value, self.kind)
            for name, value in values.items()
            if value is not None and name in names
        }

    def merge(
        self,
        config: Mapping[str, Any],
        guild: Mapping[str, Any] | None,
        given: Mapping[str, Any],
    ) -> dict[str, Any]:
        """The options of a new game: what was given for it (``None``: not given) over the
        guild's defaults over the config's. A guild's key the game no longer has is skipped; a
        given option is checked (``OptionError``), any other given key kept as it is (what the
        service adds: a deck's hash…)."""
        options = dict(config)
        options.update({k: v for k, v in (guild or {}).items() if k in options and v is not None})
        options.update(
            {
                k: self[k].validate(v, self.kind) if k in self else v
                for k, v in given.items()
                if v is not None
            }
        )
        return options

    def markdown_rows(self, game: str) -> list[str]:
        rows = []
        for o in self.options:
            where = ", ".join(place for place in PLACES if o.appears(place))
            cells = [
                game,
                f"`{o.name}`",
                TYPE_WORDS[o.type],
                f"`{_shown(o.default)}`",
                o.limits_text(),
                where,
                o.description,
            ]
            rows.append("| " + " | ".join(cells) + " |")
        return rows


def markdown_table(schemas: Iterable[tuple[str, OptionsSchema]]) -> str:
    """docs/operations.md's table of every game's options (``(game name, schema)`` pairs)."""
    lines = [
        "| game | option | type | default | bounds or choices | in | what |",
        "|---|---|---|---|---|---|---|",
    ]
    for game, schema in schemas:
        lines += schema.markdown_rows(game)
    return "\n".join(lines)


TABLE_START = "<!-- options table: generated by `python -m bot options-table` -->"
TABLE_END = "<!-- end of the options table -->"


def options_table(schemas: Mapping[str, OptionsSchema]) -> str:
    """docs/operations.md's options table of these games (names from the English catalogue)."""
    return markdown_table((game_name(kind), schema) for kind, schema in schemas.items())


# -- what every game's options share ----------------------------------------------------------

#: A time of day as an option writes it: ``21:00``, ``9:05`` (kept as ``09:05``).
TIME_OF_DAY = re.compile(r"^([01]?\d|2[0-3]):([0-5]\d)$")


def time_of_day(value: str) -> tuple[int, int] | None:
    """``"21:00"`` -> (21, 0); None for what is not a time of day (``9pm``, ``24:00``)."""
    match = TIME_OF_DAY.match(value.strip())
    return None if match is None else (int(match.group(1)), int(match.group(2)))


def _time_problem(value: Any) -> Problem | None:
    if not value or time_of_day(str(value)) is not None:
        return None
    return Problem(
        'must be a time of day, HH:MM from 00:00 to 23:59 (for example "21:00"), or "" for none',
        "daily.bad_time",
        {"value": str(value)[:20]},
    )


def _time_kept(value: Any) -> Any:
    at = time_of_day(str(value)) if value else None
    return "" if at is None else f"{at[0]:02d}:{at[1]:02d}"


#: The daily-deadline options every game offers.
DAILY_OPTIONS = (
    Option(
        "deadline_time",
        str,
        "",
        "Close votes and choices at this time of day, HH:MM, server time zone "
        "(empty: after the hours)",
        check=_time_problem,
        normal=_time_kept,
    ),
    Option(
        "min_hours",
        float,
        12.0,
        "With deadline_time: the least time a step stays open (default 12)",
        min=0.0,
        max=336.0,
    ),
)

#: The replacement list's option every game offers (``/<game> standby``, bot/service/seats.py).
STANDBY_OPTIONS = (
    Option(
        "replace_after",
        int,
        0,
        "Offer a seat to the replacement list after this many missed deadlines in a row (0 = off)",
        min=0,
        max=10,
    ),
)

#: The bounds of a step's hours, and of hours where 0 means "off".
HOURS, HOURS_OR_OFF = (0.0005, 336.0), (0.0, 336.0)

#: The prods' option every game offers (bot/prods.py).
PROD_OPTIONS = (
    Option(
        "prod_hours",
        float,
        0.0,
        "DM a player silent this many hours, then tell the moderator (0 = off)",
        min=HOURS_OR_OFF[0],
        max=HOURS_OR_OFF[1],
    ),
)
