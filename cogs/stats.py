"""``/stats``: players' statistics on this server. Thin: the figures come from bot/stats.py."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from adapters.discord_commands import change_parameter
from bot.i18n import game_name, lang_of
from bot.service import Actor
from bot.stats import StatsService, counted
from cogs.interaction import answer, respond_publicly
from cogs.lobby import game_bot


@app_commands.guild_only()
class StatsCog(commands.GroupCog, group_name="stats", group_description="Players' statistics"):
    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot
        self.service = StatsService(game_bot(bot).app)
        super().__init__()
        # /stats top game: a choice per game that has figures (GamePlugin.stats), in the
        # registry's order, named as the game is (its catalogue's game_name). The parameter
        # is replaced on this cog's copy of the command, not on the class's.
        kinds = [p.kind for p in counted(game_bot(bot).registry)]
        games: list[app_commands.Choice[str | int | float]] = [
            app_commands.Choice(
                name=app_commands.locale_str(game_name(kind, "en"), key=f"{kind}.game_name"),
                value=kind,
            )
            for kind in kinds
        ]
        change_parameter(self.top, "game", choices=games)
        if kinds:
            first = kinds[0]
            described = app_commands.locale_str(
                f"Which game ({game_name(first, 'en')} if left empty)", game=game_name(first, "fr")
            )
            change_parameter(self.top, "game", description=described)

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
        game="Which game (the first one if left empty)",  # named in __init__
        min_games="Only players with at least this many finished games (default 1)",
    )
    @app_commands.choices(game=[app_commands.Choice(name="game", value="game")])
    async def top(
        self,
        interaction: discord.Interaction,
        game: str | None = None,
        min_games: app_commands.Range[int, 1, 1000] = 1,
    ) -> None:
        kind = game or next((p.kind for p in self.service.plugins), "")

        async def top(actor: Actor) -> str:
            return await self.service.top(interaction.guild_id or 0, kind, min_games)

        await respond_publicly(interaction, top)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(StatsCog(bot))
