"""``/werewolf`` (``/loups-garous``): thin, parse, call the service, answer privately.

The lobby, moderation, ``archive`` and ``rules`` commands are the shared ones (cogs/game.py);
the night's and the day's commands are the fallbacks of the menus (bot/choice.py), answered as
a click on them is. A command typed in the wolves' den is the game's: the den is a thread of
the game's channel."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.choice import SecretChoice
from bot.errors import UserError
from bot.service import Actor
from cogs.game import GameCog, new_game_command
from cogs.interaction import respond
from games.werewolf.options import WEREWOLF_OPTIONS
from games.werewolf.service import WerewolfService


@app_commands.guild_only()
class WerewolfCog(GameCog, group_name="werewolf", group_description="Play Werewolf (play-by-post)"):
    service_class = WerewolfService
    service: WerewolfService
    new = new_game_command("Open a game of Werewolf in this channel", WEREWOLF_OPTIONS)

    async def answer(
        self, interaction: discord.Interaction, act: SecretChoice | None, value: str
    ) -> None:
        """The command fallback of a menu, for the game of this channel or of its den (``act``
        None: the one a single player answers now, ``WerewolfService.player_act``)."""
        channel = interaction.channel
        place = getattr(channel, "parent_id", None) if isinstance(channel, discord.Thread) else None

        async def choose(actor: Actor) -> str:
            try:
                game_id = await self.game_here(interaction)
            except UserError:  # no game here: the den's, if this is a thread of its channel
                if place is None:
                    raise
                game_id = await self.service.actions.game_id_in(place)
            choice = act or await self.service.player_act(game_id)
            return await choice.choose(actor, game_id, None, value)

        await respond(interaction, choose)

    @app_commands.command(name="kill", description="Pick tonight's victim (werewolves)")
    @app_commands.describe(player="The victim")
    async def kill(self, interaction: discord.Interaction, player: discord.User) -> None:
        await self.answer(interaction, self.service.kill, str(player.id))

    @app_commands.command(
        name="choose",
        description="The seer's look by night; the dead hunter's shot or the next captain",
    )
    @app_commands.describe(player="The player whose role you learn, who dies with you, or leads")
    async def choose(self, interaction: discord.Interaction, player: discord.User) -> None:
        await self.answer(interaction, None, str(player.id))

    @app_commands.command(name="brew", description="Your potions tonight (witch)")
    @app_commands.describe(
        heal="Save the werewolves' victim with the life potion",
        poison="The player you kill with the death potion",
    )
    async def brew(
        self,
        interaction: discord.Interaction,
        heal: bool = False,
        poison: discord.User | None = None,
    ) -> None:
        parts = (["heal"] if heal else []) + ([f"p{poison.id}"] if poison else [])
        await self.answer(interaction, self.service.brew, "+".join(parts) or "skip")

    @app_commands.command(name="link", description="Make two players lovers (Cupid, first night)")
    @app_commands.describe(first="The first lover", second="The second lover")
    async def link(
        self, interaction: discord.Interaction, first: discord.User, second: discord.User
    ) -> None:
        await self.answer(interaction, self.service.link, f"{first.id},{second.id}")

    @app_commands.command(name="vote", description="Vote for a player, or for no elimination")
    @app_commands.describe(player="The player to eliminate (empty: no elimination)")
    async def vote(
        self, interaction: discord.Interaction, player: discord.User | None = None
    ) -> None:
        await self.answer(interaction, self.service.vote, str(player.id) if player else "none")

    @app_commands.command(name="votes", description="The day's vote count")
    async def votes(self, interaction: discord.Interaction) -> None:
        await self.in_game(interaction, self.service.votes)

    @app_commands.command(
        name="status", description="The phase, the living and the dead, the deadline"
    )
    async def status(self, interaction: discord.Interaction) -> None:
        await self.in_game(interaction, self.service.moderation.overview)

    @app_commands.command(name="history", description="Every death and every day's count so far")
    async def history(self, interaction: discord.Interaction) -> None:
        await self.in_game(interaction, self.service.history)

    @app_commands.command(name="role", description="A private reminder of your role")
    async def role(self, interaction: discord.Interaction) -> None:
        await self.in_game(interaction, self.service.role)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(WerewolfCog(bot))
