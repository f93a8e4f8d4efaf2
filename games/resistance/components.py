"""The Resistance's persistent components: the DM vote buttons, and the leader's menu (a select
of the players and a Propose button) and Avalon's DM select menus as earlier versions sent them
(the leader's menu is now the core's pick, the Lady of the Lake and the assassination its secret
choices, bot/choice.py; ``built`` builds the leader's menu for ``/resistance propose``).
Their meaning is in their custom_id (``rs:...``), so they work after a restart; the clicking
user is ``interaction.user``, never a value of the custom_id."""

from __future__ import annotations

import re
from typing import Any

import discord

from bot import metrics
from bot.choice import CONFIRM
from bot.i18n import Lang, t
from bot.service import Actor
from cogs.choice import built as built
from cogs.choice import choice_view as secret_choice_view
from cogs.choice import picked
from cogs.interaction import id_of, respond, service_of
from games.resistance.rules import MissionChoice, TeamVote
from games.resistance.service import TEAM, ResistanceService, debate_number

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
        # A click: the clicked button, wrapped as it is (no label to translate).
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
    """Avalon's DM select menu as versions before the core's secret choice sent it (the Lady's
    holder examines a player, the Assassin names Merlin): a game running across the upgrade
    keeps it, so its clicks go to the same secret choices as the new menus'
    (``choice:rs_lady:…``, ``choice:rs_kill:…``, bot/choice.py)."""

    def __init__(self, game_id: int, act: str, step: int, select: discord.ui.Select[Any]) -> None:
        super().__init__(select)
        self.game_id, self.act, self.step = game_id, act, step

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ChoiceMenu:
        assert isinstance(item, discord.ui.Select)
        return cls(id_of(match["game"]), match["act"], id_of(match["step"]), item)

    async def callback(self, interaction: discord.Interaction) -> None:
        async def choose(actor: Actor) -> str:
            avalon = service_of(interaction.client, ResistanceService).avalon
            choice = avalon.lady if self.act == "lady" else avalon.kill
            return await choice.choose(actor, self.game_id, self.step, self.item.values[0])

        await respond(interaction, choose)


class TeamMenu(
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=r"rs:team:(?P<game>\d+):(?P<proposal>\d+):(?P<attempt>\d+)",
):
    """The leader's select as versions before the core's pick sent it: a DM already sent keeps
    it, so its picks go to the same pick as the new menus' (``choice:rs_team:…``,
    bot/choice.py), its message then showing the new menu."""

    def __init__(self, game_id: int, step: int, select: discord.ui.Select[Any]) -> None:
        super().__init__(select)
        self.game_id, self.step = game_id, step

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> TeamMenu:
        assert isinstance(item, discord.ui.Select)
        return cls(id_of(match["game"]), step_in(match), item)

    async def callback(self, interaction: discord.Interaction) -> None:
        menu = service_of(interaction.client, ResistanceService).leader_menu.pick
        await picked(interaction, menu, self.game_id, self.step, self.item.values)


class ProposeButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"rs:propose:(?P<game>\d+):(?P<proposal>\d+):(?P<attempt>\d+)",
):
    """The leader's Propose button as earlier versions sent it: the new menus' confirm."""

    def __init__(self, game_id: int, step: int, button: discord.ui.Button[Any]) -> None:
        super().__init__(button)
        self.game_id, self.step = game_id, step

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ProposeButton:
        assert isinstance(item, discord.ui.Button)
        return cls(id_of(match["game"]), step_in(match), item)

    async def callback(self, interaction: discord.Interaction) -> None:
        menu = service_of(interaction.client, ResistanceService).leader_menu.pick
        await respond(interaction, menu.confirm, self.game_id, self.step, CONFIRM)


def step_in(match: re.Match[str]) -> int:
    """The step of the core's pick an old menu's custom_id names (its proposal, its attempt)."""
    return debate_number(id_of(match["proposal"]), id_of(match["attempt"]))


def team_view(
    game_id: int,
    proposal: int,
    attempt: int,
    size: int,
    options: list[list[Any]],
    chosen: list[int],
    placeholder: str,
    label: str,
) -> discord.ui.View:
    """The leader's menu of an outbox row written before the core's pick (``options``: (name,
    player id) pairs): built as the core builds it now (``choice:rs_team:…``, cogs/choice.py)."""
    pairs = [[str(name), str(pid)] for name, pid in options]
    step = debate_number(proposal, attempt)
    picked_ = [str(pid) for pid in chosen]
    return secret_choice_view(TEAM, game_id, step, pairs, placeholder, False, size, picked_, label)


def choice_view(
    game_id: int, act: str, step: int, options: list[list[Any]], placeholder: str, lang: Lang
) -> discord.ui.View:
    """The Lady's or the Assassin's menu of names (``options``: (name, player id) pairs) of an
    outbox row written before the core's secret choice: built as the core builds it now
    (``choice:rs_<act>:…``, cogs/choice.py)."""
    pairs = [[str(name), str(pid)] for name, pid in options]
    return secret_choice_view(f"rs_{act}", game_id, step, pairs, placeholder, False)


def vote_view(game_id: int, proposal: int, on_team: bool, lang: Lang) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    choices = ["accept", "reject"] + (["support", "sabotage"] if on_team else [])
    for choice in choices:
        view.add_item(VoteButton.build(game_id, proposal, choice, lang))
    return view
