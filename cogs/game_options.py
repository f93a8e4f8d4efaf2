"""A game's options as slash-command parameters, made from its options schema (bot/options.py).

discord.py reads a command's parameters from its callback's signature (``inspect.signature``,
which honours ``__signature__``) and their descriptions and choices from attributes that
``app_commands.describe`` and ``app_commands.choices`` set on the callback. ``with_options``
sets all three from the schema, so ``/<game> new`` and ``/settings <game>`` declare exactly the
schema's options — names, types, ``Range`` bounds, choices and descriptions — and the callback
receives them as keyword arguments (``None``: not given).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from discord import app_commands

from bot.options import Option, OptionsSchema, Place


def annotation(option: Option) -> Any:
    """The parameter's type as discord.py reads it: ``Range[float, 0, 336] | None``…"""
    if option.min is not None and option.max is not None:
        low, high = option.type(option.min), option.type(option.max)
        return app_commands.Range[option.type, low, high] | None
    return option.type | None


def choices(option: Option) -> list[app_commands.Choice[Any]]:
    return [app_commands.Choice(name=str(value), value=value) for value in option.choices]


def with_options(schema: OptionsSchema, place: Place) -> Callable[[Callable[..., Any]], Any]:
    """Give a command callback ``async def cb(self, interaction, <own params>, **given)`` the
    schema's options of ``place`` as parameters, before its own (all optional, default None);
    apply it below ``app_commands.command`` and the other decorators. (What it returns is typed
    ``Any``: the type checker cannot follow a ``**given`` callback into ``app_commands.command``.)
    """

    def decorate(func: Callable[..., Any]) -> Any:
        signature = inspect.signature(func)
        own = [p for p in signature.parameters.values() if p.kind is not p.VAR_KEYWORD]
        positional = [p for p in own if p.default is p.empty]
        rest = [p for p in own if p.default is not p.empty]
        options = [
            inspect.Parameter(
                o.name,
                inspect.Parameter.POSITIONAL_OR_KEYWORD,
                default=None,
                annotation=annotation(o),
            )
            for o in schema.at(place)
        ]
        func.__signature__ = signature.replace(  # type: ignore[attr-defined]
            parameters=[*positional, *options, *rest]
        )
        # the decorators above it (app_commands.describe of the command's own) add theirs
        func = app_commands.describe(**{o.name: o.description for o in schema.at(place)})(func)
        return app_commands.choices(**{o.name: choices(o) for o in schema.at(place) if o.choices})(
            func
        )

    return decorate
