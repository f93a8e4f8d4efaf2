"""French names and descriptions for the slash commands, from the catalogue.

Keys come from where the string sits, so commands need no extra markup:
``commands.<qualified name, dots>.name`` / ``.description``, and
``commands.<command>.params.<param>.name`` / ``.description``, ``commands.choices.<value>``.
"""

from __future__ import annotations

from discord import Locale, app_commands
from discord.app_commands import TranslationContextLocation as Where

from bot.i18n import MissingMessage, param_key, t


def message_key(
    string: app_commands.locale_str, context: app_commands.TranslationContextTypes
) -> str:
    """The catalogue key of one translatable string of the command tree."""
    # discord.py pairs each location with one kind of data (a command or group, a parameter, a
    # choice); the isinstance checks let the type checker see that pairing.
    data = context.data
    location = context.location
    named = (app_commands.Command, app_commands.Group, app_commands.ContextMenu)
    if isinstance(data, named):
        if location in (Where.command_name, Where.group_name):
            return f"commands.{data.qualified_name.replace(' ', '.')}.name"
        if location in (Where.command_description, Where.group_description):
            return f"commands.{data.qualified_name.replace(' ', '.')}.description"
    if isinstance(data, app_commands.Parameter) and location in (
        Where.parameter_name,
        Where.parameter_description,
    ):
        part = "name" if location is Where.parameter_name else "description"
        return param_key(data.command.qualified_name, data.name, part)
    if isinstance(data, app_commands.Choice) and location is Where.choice_name:
        return f"commands.choices.{data.value}"
    return str(string.extras.get("key", string.message))


class CatalogueTranslator(app_commands.Translator):
    async def translate(
        self,
        string: app_commands.locale_str,
        locale: Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        if locale is not Locale.french:
            return None
        try:
            return t(message_key(string, context), "fr")
        except MissingMessage:
            return None
