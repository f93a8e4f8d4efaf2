"""``/resistance`` and the DM vote buttons. Thin: parse, call the service, answer privately."""

from __future__ import annotations

import re
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot import metrics
from bot.i18n import Lang, t
from bot.service import Actor, Reply
from cogs.interaction import respond, service_of
from cogs.lobby import Forum, LobbyCommands, ModerationCommands, new_command
from cogs.records import RecordCommands
from games.resistance import records
from games.resistance.options import RESISTANCE_OPTIONS
from games.resistance.rules import MissionChoice, TeamVote
from games.resistance.service import ResistanceService

CHOICES: dict[str, TeamVote | MissionChoice] = {
    "accept": TeamVote.ACCEPT,
    "reject": TeamVote.REJECT,
    "support": MissionChoice.SUPPORT,
    "sabotage": MissionChoice.SABOTAGE,
}


class VoteButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"rs:vote:(?P<game>\d+):(?P<proposal>\d+):(?P<choice>accept|reject|support|sabotage)",
):
    """A DM button; its meaning is in the custom_id, so it works after a restart."""

    STYLES = {
        "accept": discord.ButtonStyle.success,
        "reject": discord.ButtonStyle.danger,
        "support": discord.ButtonStyle.primary,
        "sabotage": discord.ButtonStyle.secondary,
    }

    def __init__(
        self, game_id: int, proposal: int, choice: str, button: discord.ui.Button[Any]
    ) -> None:
        super().__init__(button)
        self.game_id, self.proposal, self.choice = game_id, proposal, choice

    @classmethod
    def build(cls, game_id: int, proposal: int, choice: str, lang: Lang) -> VoteButton:
        """The button of a vote DM, labelled in the player's language."""
        button: discord.ui.Button[Any] = discord.ui.Button(
            label=t(f"resistance.button.{choice}", lang),
            style=cls.STYLES[choice],
            custom_id=f"rs:vote:{game_id}:{proposal}:{choice}",
            row=0 if choice in ("accept", "reject") else 1,
        )
        return cls(game_id, proposal, choice, button)

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> VoteButton:
        # A click: discord.py already rebuilt the clicked button from the message; it is wrapped
        # as it is (no new button, no label to translate).
        assert isinstance(item, discord.ui.Button)
        return cls(int(match["game"]), int(match["proposal"]), match["choice"], item)

    async def callback(self, interaction: discord.Interaction) -> None:
        rs = service_of(interaction.client, ResistanceService)
        if await respond(interaction, rs.vote, self.game_id, self.proposal, CHOICES[self.choice]):
            metrics.child(metrics.CONFIRM_SECONDS, "resistance").observe(
                metrics.since_click(interaction)
            )


class ChoiceMenu(
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=r"rs:(?P<act>lady|kill):(?P<game>\d+):(?P<step>\d+)",
):
    """Avalon's DM select menu: the Lady's holder examines a player, or the Assassin names
    Merlin. Its meaning is in the custom_id, so it works after a restart."""

    def __init__(self, game_id: int, act: str, step: int, select: discord.ui.Select[Any]) -> None:
        super().__init__(select)
        self.game_id, self.act, self.step = game_id, act, step

    @classmethod
    def build(
        cls, game_id: int, act: str, step: int, options: list[tuple[str, int]], placeholder: str
    ) -> ChoiceMenu:
        select: discord.ui.Select[Any] = discord.ui.Select(
            custom_id=f"rs:{act}:{game_id}:{step}",
            placeholder=placeholder[:150],
            min_values=1,
            max_values=1,
            options=[
                discord.SelectOption(label=name[:100], value=str(pid)) for name, pid in options[:25]
            ],
        )
        return cls(game_id, act, step, select)

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ChoiceMenu:
        assert isinstance(item, discord.ui.Select)
        return cls(int(match["game"]), match["act"], int(match["step"]), item)

    async def callback(self, interaction: discord.Interaction) -> None:
        async def choose(actor: Actor) -> str:
            rs = service_of(interaction.client, ResistanceService)
            pick = rs.lady if self.act == "lady" else rs.assassinate
            return await pick(actor, self.game_id, self.step, int(self.item.values[0]))

        await respond(interaction, choose)


def choice_view(
    game_id: int, act: str, step: int, options: list[list[Any]], placeholder: str, lang: Lang
) -> discord.ui.View:
    """The Lady's or the Assassin's menu of names: ``options`` are (name, player id) pairs."""
    view = discord.ui.View(timeout=None)
    pairs = [(str(name), int(pid)) for name, pid in options]
    view.add_item(ChoiceMenu.build(game_id, act, step, pairs, placeholder))
    return view


def vote_view(game_id: int, proposal: int, on_team: bool, lang: Lang) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    choices = ["accept", "reject"] + (["support", "sabotage"] if on_team else [])
    for choice in choices:
        view.add_item(VoteButton.build(game_id, proposal, choice, lang))
    return view


@app_commands.guild_only()
class ResistanceCog(
    LobbyCommands,
    ModerationCommands,
    RecordCommands,
    commands.GroupCog,
    group_name="resistance",
    group_description="Play The Resistance (play-by-post)",
):
    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot
        self.service: ResistanceService = service_of(bot, ResistanceService)
        super().__init__()

    @new_command("Open a game of The Resistance in this channel", RESISTANCE_OPTIONS)
    async def new(
        self,
        interaction: discord.Interaction,
        tag: str | None = None,
        forum: Forum | None = None,
        **given: Any,
    ) -> None:
        await self.open_new(interaction, self.service.new_game, tag, given, forum)

    @app_commands.command(name="propose", description="Propose the mission team (active leader)")
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
        player1: discord.User,
        player2: discord.User,
        player3: discord.User | None = None,
        player4: discord.User | None = None,
        player5: discord.User | None = None,
    ) -> None:
        team = [p.id for p in (player1, player2, player3, player4, player5) if p is not None]

        await self.in_game(interaction, self.service.propose, team)

    @app_commands.command(
        name="status", description="Missions, rejections, leader, deadline, who has not voted"
    )
    async def status(self, interaction: discord.Interaction) -> None:
        await self.in_game(interaction, self.service.status)

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
        await self.in_game(interaction, self.service.lady, None, player.id)

    @app_commands.command(
        name="assassinate",
        description="Name the player you believe is Merlin, privately (Assassin)",
    )
    @app_commands.describe(player="The player you believe is Merlin")
    async def assassinate(self, interaction: discord.Interaction, player: discord.User) -> None:
        await self.in_game(interaction, self.service.assassinate, None, player.id)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(ResistanceCog(bot))
