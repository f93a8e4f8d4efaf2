"""The French/English message catalogue.

Every user-facing string lives in a catalogue file: the core's in ``bot/locales/<lang>/*.toml``,
each game's in ``games/<kind>/locales/<lang>/``. A file ``resistance.toml`` with a table
``[error]`` and a key ``not_leader`` gives the message key ``resistance.error.not_leader``.
Messages use ``str.format`` placeholders with names: ``"{leader} proposes {team}"``.

A word that depends on a number takes a plural form of ICU's MessageFormat:
``"{count, plural, one {# player} other {# players}}"``. The number's CLDR plural category in the
message's language (CLDR's rules: English ``one`` for 1; French ``one`` for 0 and 1 and 1.5,
``many`` for millions; tests compare them with Babel's CLDR data) picks the branch, an exact
``=N`` branch first, ``other`` when the category has no branch of its own (and for a value that
is not a number); ``#`` in a branch is the number. A branch may hold placeholders and plural
forms of its own. Never "(s)".

A game plugin may bring its own catalogue directory (:func:`add_locales`): its files are loaded
with the built-in ones, each under the plugin's kind only (``<kind>.toml`` or
``<kind>.<part>.toml``, and a ``commands.toml`` of its own ``[<kind>]`` commands, of its
``[settings.<kind>]`` and of its options' ``[choices]``), and a key already defined elsewhere is
refused: a plugin cannot change another game's messages.
"""

from __future__ import annotations

import re
import string
import tomllib
import unicodedata
from collections.abc import Mapping
from functools import cache, lru_cache
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

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
    # Its own messages, its commands, its /settings <kind> (for the options only it takes), and
    # the names of its options' choices (a choice another catalogue names is refused below).
    own = (f"{kind}.", f"commands.{kind}.", f"commands.settings.{kind}.", "commands.choices.")
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


def game_name(kind: str, lang: str = DEFAULT_LANG, options: Mapping[str, Any] | None = None) -> str:
    """The name of the game ``kind`` (its catalogue's ``<kind>.game_name``); for a game whose
    ``options`` choose a variant with a name of its own (``<kind>.<variant>.game_name``: an
    Avalon game of The Resistance is "Avalon"), the variant's."""
    variant = (options or {}).get("variant")
    if isinstance(variant, str) and f"{kind}.{variant}.game_name" in catalogue(lang_of(lang)):
        return t(f"{kind}.{variant}.game_name", lang)
    return t(f"{kind}.game_name", lang)


def lang_of(locale: object) -> Lang:
    """The catalogue language for a Discord locale (``discord.Locale`` or its string value)."""
    value = str(getattr(locale, "value", locale) or "")
    return "fr" if value.lower().startswith("fr") else "en"


def t(key: str, lang: str = DEFAULT_LANG, /, **params: object) -> str:
    """The message ``key`` in ``lang``, its placeholders filled from ``params``."""
    lang = lang_of(lang)
    messages = catalogue(lang)
    try:
        template = messages[key]
    except KeyError:
        raise MissingMessage(key) from None
    if not params:
        return template.replace("{{", "{").replace("}}", "}")
    if PLURAL_MARK in template:
        template = plural(template, lang, params)
    if lang == "fr":
        template = elide(template, params)
    return template.format(**params)


# -- French elision -----------------------------------------------------------------------------

#: "de" or "que" just before a placeholder (bold or not): "la partie de {game}".
ELIDABLE = re.compile(r"\b([Dd]e|[Qq]ue) (\**)\{(\w+)\}")


def starts_with_vowel(text: str) -> bool:
    """Whether ``text`` (past its Markdown) starts with a vowel, accented or not: "Avalon",
    "Émile", "Yves"; never a digit, a mention or an "h" (elided or not as the name wants)."""
    stripped = text.lstrip("*_~\\ ")
    if not stripped:
        return False
    base = unicodedata.normalize("NFD", stripped[0])[0].lower()
    return base in "aeiouy" or stripped[0] in "œæŒÆ"


def elide(template: str, params: Mapping[str, object]) -> str:
    """French elision before a name: "de {game}" is written "d’{game}" when the game's name
    starts with a vowel (la partie d’Avalon, la place d’Émile), "que {x}" "qu’{x}"."""
    if "de " not in template and "que " not in template and "De " not in template:
        return template

    def write(match: re.Match[str]) -> str:
        word, bold, name = match.groups()
        value = params.get(name)
        if not isinstance(value, str) or not starts_with_vowel(value):
            return match.group()
        return f"{word[:-1]}’{bold}{{{name}}}"

    return ELIDABLE.sub(write, template)


# -- plural forms -------------------------------------------------------------------------------

PLURAL_MARK = ", plural,"
#: CLDR's plural categories (a branch is one of them or an exact ``=N``)
CATEGORIES = ("zero", "one", "two", "few", "many", "other")


class PluralSyntaxError(ValueError):
    """A plural form the parser cannot read (a catalogue mistake, found by the tests)."""


#: one plural form: (its number's name, its branches by selector) and where it ends
Form = tuple[str, dict[str, str]]


def category(value: object, lang: str) -> str:
    """The CLDR plural category of ``value`` in ``lang``: ``other`` for anything not a number.

    English: ``one`` for 1 (``i = 1 and v = 0``); French: ``one`` when the integer part is 0 or
    1 (``i = 0,1``: 0, 1, 1.5), ``many`` for a whole number of millions, ``other`` otherwise.
    Two rules written here rather than Babel's whole locale data loaded at the first plural (6 MB
    and most of a second for these two lines); tests/bot/test_i18n.py checks them against
    Babel's CLDR rules."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "other"
    size = abs(value)
    whole = int(size)
    integral = size == whole
    if lang_of(lang) == "fr":
        if whole in (0, 1):
            return "one"
        return "many" if integral and whole % 1_000_000 == 0 else "other"
    return "one" if integral and whole == 1 else "other"


def _closing(text: str, start: int) -> int:
    """The index of the brace that closes the one opened just before ``start``."""
    depth = 1
    for i in range(start, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return i
    raise PluralSyntaxError(f"unbalanced braces in {text!r}")


def _form(text: str, start: int) -> tuple[Form, int] | None:
    """The plural form opening at ``text[start]`` (a ``{``) and the index after it, or None when
    the brace opens a plain placeholder."""
    head = text.find(PLURAL_MARK, start)
    name = text[start + 1 : head] if head != -1 else ""
    if not name.isidentifier():
        return None
    branches: dict[str, str] = {}
    i = head + len(PLURAL_MARK)
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            raise PluralSyntaxError(f"unclosed plural form in {text!r}")
        if text[i] == "}":
            break
        opening = text.find("{", i)
        selector = text[i:opening].strip() if opening != -1 else ""
        exact = selector.startswith("=") and selector[1:].isdigit()
        if selector not in CATEGORIES and not exact:
            raise PluralSyntaxError(f"bad plural selector {selector!r} in {text!r}")
        end = _closing(text, opening + 1)
        branches[selector] = text[opening + 1 : end]
        i = end + 1
    if "other" not in branches:
        raise PluralSyntaxError(f"plural form of {name!r} without an 'other' branch in {text!r}")
    return (name, branches), i + 1


@lru_cache(maxsize=1024)
def _parts(template: str) -> tuple[str | Form, ...]:
    """``template`` as plain text and plural forms, in order (each template parsed once)."""
    parts: list[str | Form] = []
    done = i = 0
    while (i := template.find("{", i)) != -1:
        if template.startswith("{{", i):
            i += 2
            continue
        found = _form(template, i)
        if found is None:
            i += 1
            continue
        parts.append(template[done:i])
        parts.append(found[0])
        done = i = found[1]
    parts.append(template[done:])
    return tuple(parts)


def _branch(text: str, name: str) -> str:
    """A branch with ``#`` as the number's placeholder."""
    return text.replace("#", "{" + name + "}")


def plural(template: str, lang: str, params: Mapping[str, object]) -> str:
    """``template`` with each plural form replaced by its branch for ``params`` (placeholders
    left for ``str.format``)."""
    out: list[str] = []
    for part in _parts(template):
        if isinstance(part, str):
            out.append(part)
            continue
        name, branches = part
        if name not in params:
            raise KeyError(name)
        value = params[name]
        exact = f"={value}" if isinstance(value, int) and not isinstance(value, bool) else ""
        selector = next(
            (s for s in (exact, category(value, lang)) if s in branches), "other"
        )  # an exact match, the category, else other (a branch may be empty)
        chosen = branches[selector]
        branch = _branch(chosen, name)
        out.append(plural(branch, lang, params) if PLURAL_MARK in branch else branch)
    return "".join(out)


def every_branch(template: str) -> str:
    """``template`` with each plural form replaced by its number's placeholder and all its
    branches, one a line (to list every placeholder a message may use, to check the typography
    of every branch)."""
    out: list[str] = []
    for part in _parts(template):
        if isinstance(part, str):
            out.append(part)
        else:
            name, branches = part
            out.append("{" + name + "}")
            out += ("\n" + every_branch(_branch(b, name)) for b in branches.values())
    return "".join(out)


def plural_forms(template: str) -> list[Form]:
    """The plural forms of a message (nested ones too): a malformed one raises
    ``PluralSyntaxError``."""
    forms = [part for part in _parts(template) if not isinstance(part, str)]
    for _, branches in list(forms):
        for branch in branches.values():
            forms += plural_forms(branch)
    return forms


def placeholders(template: str) -> set[str]:
    """The names of the placeholders in one message (in every branch of its plural forms), to
    check both languages agree."""
    if PLURAL_MARK in template:
        template = every_branch(template)
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def localizations(key: str) -> dict[str, str]:
    """The French text of ``key`` for Discord's ``name_localizations`` / descriptions."""
    return {"fr": t(key, "fr")}


# -- options, choices and numbers as the reader's language writes them -------------------------


def param_key(command: str, param: str, part: str = "name") -> str:
    """The catalogue key of a command parameter's localized name (or ``description``), by the
    command's qualified name (``settings refutation defaults``) and the parameter's name."""
    return f"commands.{command.replace(' ', '.')}.params.{param}.{part}"


def defaults_game(command: str) -> str | None:
    """The game whose server defaults the command sets (``settings poll``, ``settings
    refutation defaults``: a game is a kind whose catalogue has a ``game_name``), else None."""
    words = command.split()
    if words[:1] != ["settings"] or len(words) < 2 or words[2:] not in ([], ["defaults"]):
        return None
    return words[1] if f"{words[1]}.game_name" in catalogue(DEFAULT_LANG) else None


def param_keys(command: str, param: str, part: str = "name") -> tuple[str, ...]:
    """The catalogue keys that may localize a command parameter, the first one defined wins:
    its own (``param_key``), then, for a game's defaults command (``defaults_game``), the same
    option's in ``/<kind> new``. The ``/settings <kind>`` made from a plugin's schema so names
    each option as ``/<kind> new`` does, unless the plugin's ``[settings.<kind>]`` names it
    (an option that only ``/settings <kind>`` takes). Last, the core's name of a parameter
    that many commands share (``[shared]``: a moderator action's ``reason``)."""
    own = param_key(command, param, part)
    shared = f"commands.shared.params.{param}.{part}"
    kind = defaults_game(command)
    return (own, shared) if kind is None else (own, param_key(f"{kind} new", param, part), shared)


def command_keys(command: str, part: str = "name") -> tuple[str, ...]:
    """The catalogue keys that may localize a command's (or group's) ``name`` or
    ``description``, the first one defined wins: its own, then, for a game's defaults command,
    the name of the game's own command (``/settings sondage`` as ``/sondage``)."""
    own = f"commands.{command.replace(' ', '.')}.{part}"
    kind = defaults_game(command)
    return (own, f"commands.{kind}.name") if kind is not None and part == "name" else (own,)


def first_defined(keys: tuple[str, ...], lang: str, /, **params: object) -> str | None:
    """The message (``t``, with ``params``) of the first of ``keys`` that the catalogue of
    ``lang`` defines, else None."""
    messages = catalogue(lang_of(lang))
    key = next((key for key in keys if key in messages), None)
    return None if key is None else t(key, lang, **params)


def param_name(command: str, param: str, lang: str) -> str:
    """A parameter's name as a reader of ``lang`` sees it in the command (French: the
    catalogue's, ``param_keys``; English, or none there: its own)."""
    return first_defined(param_keys(command, param), lang) or param


def defaults_description(kind: str, lang: str) -> str:
    """The description of ``/settings <kind>`` for a game whose catalogue writes none."""
    return t("settings.defaults_command", lang, game=game_name(kind, lang))


def option_label(kind: str, name: str, lang: str) -> str:
    """The option ``name`` of the game ``kind`` as the reader's language calls it: the localized
    name of the command parameter that sets it (``/<kind> new``, else ``/settings <kind>``,
    else a ``/settings <name>`` command of its own, as the time zone), the same words the
    reader types; the key itself in English, or for a game whose catalogue names none."""
    commands = (f"{kind} new", f"settings {kind}", f"settings {kind} defaults")
    keys = (*(param_key(command, name) for command in commands), f"commands.settings.{name}.name")
    return first_defined(keys, lang) or name


def choice_label(value: object, lang: str) -> str:
    """A choice's value as the reader's language names it (``commands.choices.<value>``, the
    name Discord shows for that choice), or the value itself."""
    return catalogue(lang_of(lang)).get(f"commands.choices.{value}", str(value))


def number_text(value: float) -> str:
    """A number as people write it: 336, 0.0005, 1000000."""
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.6f}".rstrip("0")


#: how each language writes a number: (decimal mark, thousands separator)
NUMBER_MARKS: dict[Lang, tuple[str, str]] = {"en": (".", ""), "fr": (",", "\u202f")}


def number(value: float, lang: str) -> str:
    """A number as the reader's language writes it: ``0.0005``, ``1000000`` in English (as
    typed), ``0,0005``, ``1 000 000`` (U+202F, as CLDR's French) in French."""
    text = number_text(value)
    point, thousands = NUMBER_MARKS[lang_of(lang)]
    whole, _, fraction = text.partition(".")
    sign = "-" if whole.startswith("-") else ""
    digits = whole.lstrip("-")
    if thousands and len(digits) > 3:  # CLDR's French groups from four digits: 1 000
        groups: list[str] = []
        while digits:
            groups.insert(0, digits[-3:])
            digits = digits[:-3]
        digits = thousands.join(groups)
    return sign + digits + (point + fraction if fraction else "")


@runtime_checkable
class Localized(Protocol):
    """A message parameter whose text depends on the reader's language (an option's name, a
    list of choices, a number): ``localized(lang)`` writes it; ``str()`` is its English text."""

    def localized(self, lang: str) -> str: ...


def localized_params(params: Mapping[str, object], lang: str) -> dict[str, object]:
    """``params`` with each ``Localized`` value written in ``lang``."""
    return {k: v.localized(lang) if isinstance(v, Localized) else v for k, v in params.items()}
