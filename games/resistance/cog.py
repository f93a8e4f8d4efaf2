"""``/resistance`` and the DM vote buttons. Thin: parse, call the service, answer privately."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.service import Actor, Reply
from cogs.game import GameCog, new_game_command
from games.resistance import records
from games.resistance.components import CHOICES, built
from games.resistance.options import RESISTANCE_OPTIONS
from games.resistance.service import ResistanceService


@app_commands.guild_only()
class ResistanceCog(
    GameCog, group_name="resistance", group_description="Play The Resistance (play-by-post)"
):
    service_class = ResistanceService
    service: ResistanceService
    new = new_game_command("Open a game of The Resistance in this channel", RESISTANCE_OPTIONS)

    @app_commands.command(
        name="propose",
        description="Propose the mission team (active leader); without players, a menu of them",
    )
    @app_commands.describe(
        player1="A team member",
        player2="A team member",
        player3="A team member",
        player4="A team member",
        player5="A team member",
    )
    async def propose(
        self,
        interaction: discord.Interaction,
        player1: discord.User | None = None,
        player2: discord.User | None = None,
        player3: discord.User | None = None,
        player4: discord.User | None = None,
        player5: discord.User | None = None,
    ) -> None:
        """With players: propose them. Without: the leader's menu, privately (a select of the
        players, then Propose), as in the leader's DM."""
        team = [p.id for p in (player1, player2, player3, player4, player5) if p is not None]
        if team:
            await self.in_game(interaction, self.service.propose, team)
            return

        async def menu(actor: Actor, game_id: int) -> Reply:
            text, view = await self.service.open_team_menu(actor, game_id)
            return Reply(text, view=built(view))

        await self.in_game(interaction, menu)

    @app_commands.command(
        name="status", description="Missions, rejections, leader, deadline, who has not voted"
    )
    async def status(self, interaction: discord.Interaction) -> None:
        await self.in_game(interaction, self.service.moderation.overview)

    @app_commands.command(name="history", description="Every proposal, vote and mission so far")
    async def history(self, interaction: discord.Interaction) -> None:
        async def history(actor: Actor, game_id: int) -> Reply:
            return await records.history(self.service, actor, game_id)

        await self.in_game(interaction, history)

    @app_commands.command(name="role", description="A private reminder of your role")
    async def role(self, interaction: discord.Interaction) -> None:
        await self.in_game(interaction, self.service.role)

    @app_commands.command(name="vote", description="Vote on the proposed team, privately")
    @app_commands.describe(choice="Accept or reject the team")
    @app_commands.choices(
        choice=[
            app_commands.Choice(name="accept", value="accept"),
            app_commands.Choice(name="reject", value="reject"),
        ]
    )
    async def vote(self, interaction: discord.Interaction, choice: str) -> None:
        await self.in_game(interaction, self.service.vote, None, CHOICES[choice])

    @app_commands.command(
        name="mission", description="Support or sabotage the mission, privately (team members)"
    )
    @app_commands.describe(choice="Support or sabotage")
    @app_commands.choices(
        choice=[
            app_commands.Choice(name="support", value="support"),
            app_commands.Choice(name="sabotage", value="sabotage"),
        ]
    )
    async def mission(self, interaction: discord.Interaction, choice: str) -> None:
        await self.in_game(interaction, self.service.vote, None, CHOICES[choice])

    @app_commands.command(
        name="lady", description="Examine a player with the Lady of the Lake, privately (holder)"
    )
    @app_commands.describe(player="A player who has never held the Lady of the Lake")
    async def lady(self, interaction: discord.Interaction, player: discord.User) -> None:
        await self.in_game(interaction, self.service.avalon.lady.choose, None, str(player.id))

    @app_commands.command(
        name="assassinate",
        description="Name the player you believe is Merlin, privately (Assassin)",
    )
    @app_commands.describe(player="The player you believe is Merlin")
    async def assassinate(self, interaction: discord.Interaction, player: discord.User) -> None:
        await self.in_game(interaction, self.service.avalon.kill.choose, None, str(player.id))


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(ResistanceCog(bot))
