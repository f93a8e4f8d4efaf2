"""Commands every game shares for what is over or written down: ``archive`` and ``rules``.

Mixed into each game's GroupCog (which sets ``service``), like the lobby commands."""

from __future__ import annotations

import discord
from discord import app_commands

from bot import records
from bot.i18n import lang_of
from bot.service import Actor, GameService, Reply
from cogs.interaction import answer, respond
from cogs.lobby import CommandMixin

#: The largest integer Discord carries in an option (2^53 - 1): game numbers stay far below.
MAX_ID = 2**53 - 1


class RecordCommands(CommandMixin):
    service: GameService

    @app_commands.command(name="archive", description="The record of an ended game of this server")
    @app_commands.describe(game="The game: type its number or its date")
    async def archive(
        self, interaction: discord.Interaction, game: app_commands.Range[int, 1, MAX_ID]
    ) -> None:
        await respond(interaction, self.archive_reply, interaction.guild_id or 0, game)

    async def archive_reply(self, actor: Actor, guild_id: int, game: int) -> Reply:
        reply: Reply = await records.archive_reply(self.service, actor, guild_id, game)
        return reply

    @archive.autocomplete("game")
    async def archive_game(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[int]]:
        choices = await records.archive_choices(
            self.service, interaction.guild_id or 0, current, lang_of(interaction.locale)
        )
        return [app_commands.Choice(name=name, value=value) for name, value in choices]

    @app_commands.command(name="rules", description="The rules, privately, in your language")
    async def rules(self, interaction: discord.Interaction) -> None:
        await answer(
            interaction,
            lambda: records.rules_text(
                self.service, lang_of(interaction.locale), interaction.channel_id or 0
            ),
        )
