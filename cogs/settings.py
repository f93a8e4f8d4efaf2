"""``/settings``: the guild's language, moderator role, time zone and each game's settings."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Concatenate, ParamSpec

import discord
from discord import app_commands
from discord.ext import commands

from bot import daily, limits
from bot.guild_settings import GuildSettingsService
from bot.i18n import defaults_description
from bot.options import OptionsSchema
from bot.service import Actor
from cogs.game_options import with_options
from cogs.interaction import answer
from cogs.lobby import REASON, Reason, game_bot

P = ParamSpec("P")


@app_commands.guild_only()
@app_commands.default_permissions(manage_guild=True)
class SettingsCog(
    commands.GroupCog, group_name="settings", group_description="Server settings for the games"
):
    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot
        self.service = GuildSettingsService(game_bot(bot).app)
        super().__init__()
        # Each registered game gets /settings <kind>: its own (GamePlugin.settings_command),
        # else one made from its options schema.
        group = self.app_command
        assert group is not None
        for plugin in game_bot(bot).registry:
            if plugin.settings_command is not None:
                group.add_command(plugin.settings_command(self))
            elif plugin.schema.at("settings"):
                group.add_command(self.defaults_command(plugin.kind, plugin.schema))

    def defaults_command(
        self, kind: str, schema: OptionsSchema, name: str | None = None
    ) -> app_commands.Command[Any, ..., None]:
        """``/settings <kind>`` (or ``name``, in a game's own group: ``/settings <kind>
        defaults``): the game's options as the server's defaults."""

        @app_commands.describe(reason=REASON)
        async def callback(
            interaction: discord.Interaction, reason: Reason = None, **given: Any
        ) -> None:
            await self.set_defaults(interaction, kind, given, reason)

        return app_commands.Command(
            name=name or kind,
            description=limits.cut(defaults_description(kind, "en"), limits.COMMAND_DESCRIPTION),
            callback=with_options(schema, "settings")(callback),
        )

    async def in_guild(
        self,
        interaction: discord.Interaction,
        call: Callable[Concatenate[Actor, int, P], Awaitable[str]],
        /,
        *args: P.args,
        **kwargs: P.kwargs,
    ) -> None:
        """Answer with ``call(actor, guild_id, *args, **kwargs)``: every setting is the
        guild's."""
        await answer(
            interaction,
            lambda: call(Actor.of(interaction), interaction.guild_id or 0, *args, **kwargs),
        )

    async def changed(
        self,
        interaction: discord.Interaction,
        reason: str | None,
        what: tuple[str, object],
        call: Callable[Concatenate[Actor, int, P], Awaitable[str]],
        /,
        *args: P.args,
        **kwargs: P.kwargs,
    ) -> None:
        """:meth:`in_guild` for a change, then its entry in the moderators' log
        (bot/modlog.py): ``what`` = (the setting, its new value)."""

        async def change(actor: Actor, guild_id: int, /, *a: P.args, **kw: P.kwargs) -> str:
            done = await call(actor, guild_id, *a, **kw)
            setting, value = what
            await game_bot(self.bot).mod_log.record(
                actor, guild_id, None, "settings", reason, setting=setting, value=value
            )
            return done

        await self.in_guild(interaction, change, *args, **kwargs)

    @app_commands.command(name="show", description="Show this server's settings")
    async def show(self, interaction: discord.Interaction) -> None:
        await self.in_guild(interaction, self.service.show)

    @app_commands.command(name="language", description="Language of the public game messages")
    @app_commands.describe(language="French or English", reason=REASON)
    @app_commands.choices(
        language=[
            app_commands.Choice(name="English", value="en"),
            app_commands.Choice(name="Français", value="fr"),
        ]
    )
    async def language(
        self, interaction: discord.Interaction, language: str, reason: Reason = None
    ) -> None:
        what = ("language", language)
        await self.changed(interaction, reason, what, self.service.set_language, language)

    @app_commands.command(
        name="timezone", description="Time zone of the daily deadline time (deadline_time)"
    )
    @app_commands.describe(
        zone="An IANA time zone, such as Europe/Paris (default UTC)", reason=REASON
    )
    async def timezone(
        self, interaction: discord.Interaction, zone: str, reason: Reason = None
    ) -> None:
        what = ("timezone", zone)
        await self.changed(interaction, reason, what, self.service.set_timezone, zone)

    @timezone.autocomplete("zone")
    async def timezone_zone(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return [app_commands.Choice(name=z, value=z) for z in daily.matching_zones(current)]

    @app_commands.command(
        name="moderator_role", description="The role whose members moderate games"
    )
    @app_commands.describe(role="Leave empty to clear", reason=REASON)
    async def moderator_role(
        self,
        interaction: discord.Interaction,
        role: discord.Role | None = None,
        reason: Reason = None,
    ) -> None:
        await self.role_setting(interaction, "moderator_role", role, reason)

    @app_commands.command(
        name="lobby_role", description="The role mentioned once when a lobby opens"
    )
    @app_commands.describe(role="Leave empty to mention no role", reason=REASON)
    async def lobby_role(
        self,
        interaction: discord.Interaction,
        role: discord.Role | None = None,
        reason: Reason = None,
    ) -> None:
        await self.role_setting(interaction, "lobby_role", role, reason)

    async def role_setting(
        self,
        interaction: discord.Interaction,
        setting: str,
        role: discord.Role | None,
        reason: str | None,
    ) -> None:
        """``/settings moderator_role`` or ``lobby_role``: the role, or none."""
        call = getattr(self.service, f"set_{setting}")
        what = (setting, role.name if role else "—")
        name = discord.utils.escape_markdown(role.name) if role else ""
        await self.changed(interaction, reason, what, call, role.id if role else None, name)

    @app_commands.command(
        name="mod_log", description="The channel where every moderator action is written"
    )
    @app_commands.describe(channel="Leave empty to write the actions nowhere", reason=REASON)
    async def mod_log(
        self,
        interaction: discord.Interaction,
        channel: discord.TextChannel | None = None,
        reason: Reason = None,
    ) -> None:
        what = ("mod_log", f"#{channel.name}" if channel else "—")
        channel_id = channel.id if channel else None
        await self.changed(interaction, reason, what, self.service.set_mod_log, channel_id)

    @app_commands.command(
        name="members_host",
        description="Any member may open a game (and moderates the games they opened)",
    )
    @app_commands.describe(enabled="Yes: any member may open a game", reason=REASON)
    async def members_host(
        self, interaction: discord.Interaction, enabled: bool, reason: Reason = None
    ) -> None:
        what = ("members_host", enabled)
        await self.changed(interaction, reason, what, self.service.set_members_host, enabled)

    async def set_defaults(
        self,
        interaction: discord.Interaction,
        kind: str,
        given: dict[str, Any],
        reason: str | None = None,
    ) -> None:
        values = ", ".join(f"{k} = {v}" for k, v in given.items() if v is not None)
        what = (kind, values or "—")
        await self.changed(interaction, reason, what, self.service.set_defaults, kind, given)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(SettingsCog(bot))
