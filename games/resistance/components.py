"""The Resistance's persistent components: the DM vote buttons, the leader's menu (a select of
the players and a Propose button) and Avalon's DM select menus as earlier versions sent them
(the Lady of the Lake and the assassination are now the core's secret choices, bot/choice.py).
Their meaning is in their custom_id (``rs:...``), so they work after a restart; the clicking
user is ``interaction.user``, never a value of the custom_id."""

from __future__ import annotations

import re
from typing import Any

import discord

from bot import metrics
from bot.effects import View
from bot.i18n import Lang, t
from bot.names import clean
from bot.service import Actor, Reply
from cogs.choice import choice_view as secret_choice_view
from cogs.interaction import id_of, respond, respond_in_place, service_of
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


def label_of(name: str, pid: int) -> str:
    """A player's name as a select option's label: plain text on one line, at most 100
    characters (Discord's limit), never empty."""
    return clean(name)[:100].strip() or str(pid)


class TeamMenu(
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=r"rs:team:(?P<game>\d+):(?P<proposal>\d+):(?P<attempt>\d+)",
):
    """The leader's select of the players: exactly the mission's size to pick. A select's
    values reach only its own interaction: the service keeps the pick for :class:`ProposeButton`
    and the message is updated to show it."""

    def __init__(
        self, game_id: int, proposal: int, attempt: int, select: discord.ui.Select[Any]
    ) -> None:
        super().__init__(select)
        self.game_id, self.proposal, self.attempt = game_id, proposal, attempt

    @classmethod
    def build(
        cls,
        game_id: int,
        proposal: int,
        attempt: int,
        size: int,
        options: list[tuple[str, int]],
        chosen: set[int],
        placeholder: str,
    ) -> TeamMenu:
        shown = options[:25]
        size = max(1, min(size, len(shown)))
        select: discord.ui.Select[Any] = discord.ui.Select(
            custom_id=f"rs:team:{game_id}:{proposal}:{attempt}",
            placeholder=placeholder[:150],
            min_values=size,
            max_values=size,
            options=[
                discord.SelectOption(
                    label=label_of(name, pid), value=str(pid), default=pid in chosen
                )
                for name, pid in shown
            ],
            row=0,
        )
        return cls(game_id, proposal, attempt, select)

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> TeamMenu:
        assert isinstance(item, discord.ui.Select)
        return cls(id_of(match["game"]), id_of(match["proposal"]), id_of(match["attempt"]), item)

    async def callback(self, interaction: discord.Interaction) -> None:
        async def choose(actor: Actor) -> Reply:
            rs = service_of(interaction.client, ResistanceService)
            team = [id_of(v) if v.isdigit() else 0 for v in self.item.values]
            step = (self.game_id, self.proposal, self.attempt)
            text, menu = await rs.choose_team(actor, *step, team)
            return Reply(text, view=built(menu))

        await respond_in_place(interaction, choose)


class ProposeButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"rs:propose:(?P<game>\d+):(?P<proposal>\d+):(?P<attempt>\d+)",
):
    """The leader's Propose button: proposes the team chosen in the menu above it."""

    def __init__(
        self, game_id: int, proposal: int, attempt: int, button: discord.ui.Button[Any]
    ) -> None:
        super().__init__(button)
        self.game_id, self.proposal, self.attempt = game_id, proposal, attempt

    @classmethod
    def build(cls, game_id: int, proposal: int, attempt: int, label: str) -> ProposeButton:
        button: discord.ui.Button[Any] = discord.ui.Button(
            label=label[:80],
            style=discord.ButtonStyle.primary,
            custom_id=f"rs:propose:{game_id}:{proposal}:{attempt}",
            row=1,
        )
        return cls(game_id, proposal, attempt, button)

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ProposeButton:
        assert isinstance(item, discord.ui.Button)
        return cls(id_of(match["game"]), id_of(match["proposal"]), id_of(match["attempt"]), item)

    async def callback(self, interaction: discord.Interaction) -> None:
        rs = service_of(interaction.client, ResistanceService)
        await respond(interaction, rs.propose_chosen, self.game_id, self.proposal, self.attempt)


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
    """The leader's menu: ``options`` are (name, player id) pairs, ``chosen`` shown picked."""
    view = discord.ui.View(timeout=None)
    pairs = [(str(name), int(pid)) for name, pid in options]
    picked = {int(pid) for pid in chosen}
    view.add_item(TeamMenu.build(game_id, proposal, attempt, size, pairs, picked, placeholder))
    view.add_item(ProposeButton.build(game_id, proposal, attempt, label))
    return view


def built(menu: View) -> discord.ui.View:
    """The view of a leader's menu record (as the dispatcher builds it for a DM)."""
    return team_view(*menu.args)


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
