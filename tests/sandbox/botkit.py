"""A tiny discord.py bot used by the sandbox tests (commands, a DM view, a dynamic button)."""

from __future__ import annotations

import re
from typing import Any

import discord
from discord import app_commands

from sandbox.testing import FAST_CLIENT_OPTIONS

FR = {
    "resistance": "resistance",
    "The Resistance": "La Résistance",
    "propose": "proposer",
    "Propose a team": "Proposer une équipe",
    "player1": "joueur1",
    "player2": "joueur2",
    "First player": "Premier joueur",
    "Second player": "Second joueur",
    "secret": "secret",
    "A private answer": "Une réponse privée",
}


class FrenchTranslator(app_commands.Translator):
    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        if locale is discord.Locale.french:
            return FR.get(string.message)
        return None


_ = app_commands.locale_str


class VoteButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"rs:vote:(?P<game>\d+):(?P<choice>\w+)",
):
    def __init__(self, game: int, choice: str) -> None:
        super().__init__(
            discord.ui.Button(
                label=choice.capitalize(),
                custom_id=f"rs:vote:{game}:{choice}",
                style=discord.ButtonStyle.primary,
            )
        )
        self.game = game
        self.choice = choice

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> VoteButton:
        return cls(int(match["game"]), match["choice"])

    async def callback(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(
            f"{interaction.user.name} voted {self.choice} in game {self.game}", ephemeral=True
        )


def vote_view(game: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(VoteButton(game, "accept"))
    view.add_item(VoteButton(game, "reject"))
    return view


def make_tree(client: discord.Client, seen: list[discord.Interaction]) -> app_commands.CommandTree:
    tree = app_commands.CommandTree(client)
    group = app_commands.Group(name=_("resistance"), description=_("The Resistance"))

    @group.command(name=_("propose"), description=_("Propose a team"))
    @app_commands.describe(player1=_("First player"), player2=_("Second player"))
    @app_commands.rename(player1=_("player1"), player2=_("player2"))
    async def propose(
        interaction: discord.Interaction,
        player1: discord.Member,
        player2: discord.Member | None = None,
    ) -> None:
        seen.append(interaction)
        names = [player1.display_name] + ([player2.display_name] if player2 else [])
        await interaction.response.send_message("Team: " + ", ".join(names))

    @group.command(name=_("secret"), description=_("A private answer"))
    async def secret(interaction: discord.Interaction) -> None:
        seen.append(interaction)
        await interaction.response.send_message("only you can see this", ephemeral=True)

    tree.add_command(group)

    @tree.command(name="ping", description="Ping")
    async def ping(interaction: discord.Interaction) -> None:
        seen.append(interaction)
        await interaction.response.defer(thinking=True)
        await interaction.followup.send(
            f"pong from shard {interaction.guild and interaction.guild.shard_id}"
        )

    return tree


class SandboxBot(discord.Client):
    def __init__(self, *, sync: bool = True, **options: Any) -> None:
        super().__init__(intents=discord.Intents.default(), **{**FAST_CLIENT_OPTIONS, **options})
        self.seen: list[discord.Interaction] = []
        self.tree = make_tree(self, self.seen)
        self.sync = sync

    async def setup_hook(self) -> None:
        await self.tree.set_translator(FrenchTranslator())
        self.add_dynamic_items(VoteButton)
        if self.sync:
            await self.tree.sync()


class ShardedSandboxBot(discord.AutoShardedClient):
    def __init__(self, **options: Any) -> None:
        super().__init__(intents=discord.Intents.default(), **{**FAST_CLIENT_OPTIONS, **options})
        self.seen: list[discord.Interaction] = []
        self.tree = make_tree(self, self.seen)

    async def setup_hook(self) -> None:
        await self.tree.set_translator(FrenchTranslator())
        await self.tree.sync()
