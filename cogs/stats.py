"""``/stats``: players' statistics on this server. Thin: the figures come from bot/stats.py."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.i18n import lang_of
from bot.service import Actor
from bot.stats import StatsService
from cogs.interaction import answer, respond_publicly
from cogs.lobby import game_bot

GAMES = [
    app_commands.Choice(name="The Resistance", value="resistance"),
    app_commands.Choice(name="The Refutation Game", value="refutation"),
]


@app_commands.guild_only()
class StatsCog(commands.GroupCog, group_name="stats", group_description="Players' statistics"):
    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot
        self.service = StatsService(game_bot(bot).app)
        super().__init__()

    @app_commands.command(name="player", description="A player's statistics, privately")
    @app_commands.describe(user="The player (you if left empty)")
    async def player(
        self, interaction: discord.Interaction, user: discord.User | None = None
    ) -> None:
        who = user or interaction.user
        await answer(
            interaction,
            lambda: self.service.player(
                lang_of(interaction.locale), interaction.guild_id or 0, who.id, who.display_name
            ),
        )

    @app_commands.command(name="top", description="The leaderboard of this server, publicly")
    @app_commands.describe(
        game="Which game (The Resistance if left empty)",
        min_games="Only players with at least this many finished games (default 1)",
    )
    @app_commands.choices(game=GAMES)
    async def top(
        self,
        interaction: discord.Interaction,
        game: str = "resistance",
        min_games: app_commands.Range[int, 1, 1000] = 1,
    ) -> None:

        async def top(actor: Actor) -> str:
            return await self.service.top(interaction.guild_id or 0, game, min_games)

        await respond_publicly(interaction, top)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(StatsCog(bot))
