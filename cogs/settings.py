"""``/settings``: the guild's language, moderator role and default game options."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Concatenate, ParamSpec

import aiohttp
import discord
from discord import app_commands
from discord.ext import commands

from bot import daily, limits
from bot.errors import UserError
from bot.guild_settings import GuildSettingsService
from bot.i18n import defaults_description, lang_of
from bot.options import REFUTATION_OPTIONS, RESISTANCE_OPTIONS, OptionsSchema
from bot.service import Actor
from cogs.game_options import with_options
from cogs.interaction import answer
from cogs.lobby import game_bot

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
        # A registered game without a command of its own here gets /settings <kind>, made
        # from its options schema (the built-in games' are written below).
        group = self.app_command
        assert group is not None
        for plugin in game_bot(bot).registry:
            if plugin.schema.at("settings") and group.get_command(plugin.kind) is None:
                group.add_command(self.defaults_command(plugin.kind, plugin.schema))

    def defaults_command(
        self, kind: str, schema: OptionsSchema
    ) -> app_commands.Command[Any, ..., None]:
        """``/settings <kind>``: the game's options as the server's defaults."""

        async def callback(interaction: discord.Interaction, **given: Any) -> None:
            await self.set_defaults(interaction, kind, given)

        return app_commands.Command(
            name=kind,
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

    @app_commands.command(name="show", description="Show this server's settings")
    async def show(self, interaction: discord.Interaction) -> None:
        await self.in_guild(interaction, self.service.show)

    @app_commands.command(name="language", description="Language of the public game messages")
    @app_commands.describe(language="French or English")
    @app_commands.choices(
        language=[
            app_commands.Choice(name="English", value="en"),
            app_commands.Choice(name="Français", value="fr"),
        ]
    )
    async def language(self, interaction: discord.Interaction, language: str) -> None:
        await self.in_guild(interaction, self.service.set_language, language)

    @app_commands.command(
        name="timezone", description="Time zone of the daily deadline time (deadline_time)"
    )
    @app_commands.describe(zone="An IANA time zone, such as Europe/Paris (default UTC)")
    async def timezone(self, interaction: discord.Interaction, zone: str) -> None:
        await self.in_guild(interaction, self.service.set_timezone, zone)

    @timezone.autocomplete("zone")
    async def timezone_zone(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return [app_commands.Choice(name=z, value=z) for z in daily.matching_zones(current)]

    @app_commands.command(
        name="moderator_role", description="The role whose members moderate games"
    )
    @app_commands.describe(role="Leave empty to clear")
    async def moderator_role(
        self, interaction: discord.Interaction, role: discord.Role | None = None
    ) -> None:
        await self.in_guild(
            interaction,
            self.service.set_moderator_role,
            role.id if role else None,
            role.name if role else "",
        )

    @app_commands.command(
        name="members_host",
        description="Any member may open a game (and moderates the games they opened)",
    )
    @app_commands.describe(enabled="Yes: any member may open a game")
    async def members_host(self, interaction: discord.Interaction, enabled: bool) -> None:
        await self.in_guild(interaction, self.service.set_members_host, enabled)

    @app_commands.command(
        name="resistance", description="Default options for new games of The Resistance"
    )
    @with_options(RESISTANCE_OPTIONS, "settings")
    async def resistance(self, interaction: discord.Interaction, **given: Any) -> None:
        await self.set_defaults(interaction, "resistance", given)

    async def set_defaults(
        self, interaction: discord.Interaction, kind: str, given: dict[str, Any]
    ) -> None:
        await self.in_guild(interaction, self.service.set_defaults, kind, given)

    refutation = app_commands.Group(
        name="refutation", description="The Refutation Game: default options and decks"
    )

    @refutation.command(
        name="defaults", description="Default options for new games of The Refutation Game"
    )
    @with_options(REFUTATION_OPTIONS, "settings")
    async def refutation_defaults(self, interaction: discord.Interaction, **given: Any) -> None:
        await self.set_defaults(interaction, "refutation", given)

    async def deck_names(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        pairs = await self.service.deck_choices(
            interaction.guild_id or 0, current, lang_of(interaction.locale)
        )
        return [app_commands.Choice(name=label, value=name) for label, name in pairs]

    @refutation.command(name="deck", description="The deck of new games, by name")
    @app_commands.describe(name="default, a deck of the bot's folder, or one uploaded here")
    @app_commands.autocomplete(name=deck_names)
    async def refutation_deck(
        self, interaction: discord.Interaction, name: app_commands.Range[str, 1, 100]
    ) -> None:
        await self.in_guild(interaction, self.service.set_deck, name)

    @refutation.command(
        name="deck_upload", description="Upload a deck file (TOML); it is checked, then stored"
    )
    @app_commands.describe(file="The deck file; its name without .toml becomes the deck's name")
    async def refutation_deck_upload(
        self, interaction: discord.Interaction, file: discord.Attachment
    ) -> None:
        async def read(limit: int) -> bytes:
            return await read_attachment(file.url, limit)

        await self.in_guild(interaction, self.service.upload_deck, file.filename, file.size, read)


async def read_attachment(url: str, limit: int) -> bytes:
    """At most ``limit`` bytes of an attachment (streamed: never more is read)."""
    timeout = aiohttp.ClientTimeout(total=30)
    try:
        async with aiohttp.ClientSession(timeout=timeout) as session, session.get(url) as resp:
            if resp.status != 200:
                raise UserError("decks.error.download")
            data = b""
            while len(data) < limit:
                chunk = await resp.content.read(limit - len(data))
                if not chunk:
                    break
                data += chunk
            return data
    except (aiohttp.ClientError, TimeoutError):
        raise UserError("decks.error.download") from None


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(SettingsCog(bot))
