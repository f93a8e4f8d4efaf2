"""The Resistance's persistent components: the DM vote buttons and Avalon's DM select menus
(the Lady of the Lake, the assassination). Their meaning is in their custom_id (``rs:...``), so
they work after a restart; the clicking user is ``interaction.user``, never a value of the
custom_id."""

from __future__ import annotations

import re
from typing import Any

import discord

from bot import metrics
from bot.i18n import Lang, t
from bot.names import clean
from bot.service import Actor
from cogs.interaction import id_of, respond, service_of
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
        return cls(id_of(match["game"]), id_of(match["proposal"]), match["choice"], item)

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
                discord.SelectOption(label=clean(name)[:100], value=str(pid))
                for name, pid in options[:25]
            ],
        )
        return cls(game_id, act, step, select)

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ChoiceMenu:
        assert isinstance(item, discord.ui.Select)
        return cls(id_of(match["game"]), match["act"], id_of(match["step"]), item)

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
