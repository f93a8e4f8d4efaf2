"""``/games`` (French ``/parties``): the games of this server, or the caller's own and what
waits on them (``mine``, or in a DM with the bot). Thin: the answer is bot/listing.py's."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.listing import Listing
from bot.service import Actor
from cogs.interaction import respond
from cogs.lobby import game_bot


class ListingCog(commands.Cog):
    def __init__(self, bot: commands.Bot) -> None:
        running = game_bot(bot)
        self.listing = Listing(
            running.app,
            running.services,
            lambda guild_id: guild.name if (guild := bot.get_guild(guild_id)) else None,
            running.is_reminder,
        )

    @app_commands.command(
        name="games",
        description="This server's games, or yours and what waits on you, privately",
    )
    @app_commands.allowed_contexts(guilds=True, dms=True, private_channels=False)
    @app_commands.describe(
        mine="Your games in every server, and what waits on you",
        page="Which page of the list (default 1)",
    )
    async def games(
        self,
        interaction: discord.Interaction,
        mine: bool = False,
        page: app_commands.Range[int, 1, 100] = 1,
    ) -> None:
        async def games(actor: Actor) -> str:
            return await self.listing.games(actor, interaction.guild_id, mine, page)

        await respond(interaction, games)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(ListingCog(bot))
