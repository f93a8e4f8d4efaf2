"""French names and descriptions for the slash commands, from the catalogue.

Keys come from where the string sits, so commands need no extra markup:
``commands.<qualified name, dots>.name`` / ``.description``, and
``commands.<command>.params.<param>.name`` / ``.description``, ``commands.choices.<value>``.
The ``/settings <kind>`` made from a plugin game's schema takes its keys from the plugin's
``[settings.<kind>]`` where it writes them (an option only that command takes), else it is
named as the game's command, its options as ``/<kind> new`` names them (bot.i18n.command_keys,
param_keys), and described from ``settings.defaults_command``.
"""

from __future__ import annotations

from discord import Locale, app_commands
from discord.app_commands import TranslationContextLocation as Where

from bot.i18n import (
    command_keys,
    defaults_description,
    defaults_game,
    first_defined,
    param_keys,
)
from bot.limits import COMMAND_DESCRIPTION, cut


def message_keys(
    string: app_commands.locale_str, context: app_commands.TranslationContextTypes
) -> tuple[str, ...]:
    """The catalogue keys that may translate one string of the command tree, the first one
    the catalogue defines wins."""
    # discord.py pairs each location with one kind of data (a command or group, a parameter, a
    # choice); the isinstance checks let the type checker see that pairing.
    data = context.data
    location = context.location
    named = (app_commands.Command, app_commands.Group, app_commands.ContextMenu)
    if isinstance(data, named):
        if location in (Where.command_name, Where.group_name):
            return command_keys(data.qualified_name, "name")
        if location in (Where.command_description, Where.group_description):
            return command_keys(data.qualified_name, "description")
    if isinstance(data, app_commands.Parameter) and location in (
        Where.parameter_name,
        Where.parameter_description,
    ):
        part = "name" if location is Where.parameter_name else "description"
        return param_keys(data.command.qualified_name, data.name, part)
    if isinstance(data, app_commands.Choice) and location is Where.choice_name:
        # a choice made from the registry names its own key (a game's name: /stats top game)
        own = string.extras.get("key")
        return (f"commands.choices.{data.value}", *([str(own)] if own else []))
    return (str(string.extras.get("key", string.message)),)


def translation(
    string: app_commands.locale_str, context: app_commands.TranslationContextTypes, lang: str
) -> str | None:
    """One string of the command tree in ``lang``, or None when the catalogue has none."""
    # a string's extras fill its placeholders (a text made from the registry: /stats top game)
    params = {name: value for name, value in string.extras.items() if name != "key"}
    text = first_defined(message_keys(string, context), lang, **params)
    data = context.data
    command_description = context.location is Where.command_description
    if text is None and command_description and isinstance(data, app_commands.Command):
        kind = defaults_game(data.qualified_name)
        if kind is not None:
            text = cut(defaults_description(kind, lang), COMMAND_DESCRIPTION)
    return text


class CatalogueTranslator(app_commands.Translator):
    async def translate(
        self,
        string: app_commands.locale_str,
        locale: Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        if locale is not Locale.french:
            return None
        return translation(string, context, "fr")
