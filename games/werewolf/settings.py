"""Werewolf's part of ``/settings``: ``/settings werewolf defaults`` (the server's default
options) and ``den`` (the text channel where a game in a forum post opens its wolves' den: a
forum post can hold no private thread), and its line of ``/settings show``."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.errors import UserError
from bot.i18n import t
from bot.notices import PermissionNames
from bot.service import Actor, Services
from cogs.lobby import REASON, Reason
from db import repo
from db.models import GuildSettings
from games.werewolf.options import DEN_CHANNEL, WEREWOLF_OPTIONS

KIND = "werewolf"
#: What the bot needs in the den's channel (the den's own effects: bot/effects.py).
DEN_NEEDS = ("view_channel", "create_private_threads", "send_messages_in_threads")


def den_of(settings: GuildSettings) -> int | None:
    """The server's den channel for its forum games (None: the wolves confer by DM)."""
    return int(settings.defaults_for(KIND).get(DEN_CHANNEL) or 0) or None


async def set_den(app: Services, actor: Actor, guild_id: int, channel: Any | None) -> str:
    """Name (or, with none, clear) the text channel of a forum game's den; refused, naming
    what is missing, where the bot could not open a private thread."""
    if not actor.manages_guild:
        raise UserError("settings.error.manage_guild")
    if channel is not None:
        if not isinstance(channel, discord.TextChannel):
            raise UserError("werewolf.settings.den_not_text")
        perms = channel.permissions_for(channel.guild.me)
        missing = tuple(name for name in DEN_NEEDS if not getattr(perms, name))
        if missing:
            raise UserError("werewolf.settings.den_missing", permissions=PermissionNames(missing))
    async with app.sessions.begin() as s:
        settings = await repo.get_guild_settings(s, guild_id)
        kept = {k: v for k, v in settings.defaults_for(KIND).items() if k != DEN_CHANNEL}
        settings.set_defaults_for(KIND, {**kept, DEN_CHANNEL: channel.id} if channel else kept)
        await repo.save_guild_settings(s, settings)
    if channel is None:
        return t("werewolf.settings.den_cleared", actor.lang)
    return t("werewolf.settings.den_set", actor.lang, channel=f"<#{channel.id}>")


def settings_lines(settings: GuildSettings, lang: str) -> list[str]:
    """``/settings show``: the den channel of the server's forum games."""
    den = den_of(settings)
    where = f"<#{den}>" if den else t("werewolf.settings.den_none", lang)
    return [t("werewolf.settings.den_show", lang, channel=where)]


def settings_group(cog: Any) -> app_commands.Group:
    """``/settings werewolf``: ``defaults`` and ``den``. ``cog`` is the settings cog (its
    ``set_defaults`` and ``changed`` answer as every setting does)."""
    group = app_commands.Group(name=KIND, description="Werewolf: default options and the den")

    group.add_command(cog.defaults_command(KIND, WEREWOLF_OPTIONS, "defaults"))

    @group.command(
        name="den", description="The text channel where a game in a forum post opens its den"
    )
    @app_commands.describe(channel="Leave empty to clear", reason=REASON)
    async def den(
        interaction: discord.Interaction,
        channel: discord.TextChannel | None = None,
        reason: Reason = None,
    ) -> None:
        async def change(actor: Actor, guild_id: int) -> str:
            return await set_den(cog.bot.app, actor, guild_id, channel)

        what = (DEN_CHANNEL, f"#{channel.name}" if channel else "—")
        await cog.changed(interaction, reason, what, change)

    return group
