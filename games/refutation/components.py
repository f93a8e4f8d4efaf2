"""The Refutation Game's persistent components: the public vote buttons, and the secret
choice's DM menu as earlier versions sent it (it is now the core's, bot/choice.py). Their
meaning is in their custom_id (``rf:...``), so they work after a restart; the clicking user is
``interaction.user``, never a value of the custom_id."""

from __future__ import annotations

import re
from typing import Any

import discord

from bot.i18n import Lang
from cogs.choice import choice_view as secret_choice_view
from cogs.interaction import id_of, respond, service_of
from games.refutation.render import ABSTAIN, m
from games.refutation.service import CHOICE, RefutationService


class ChoiceSelect(
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=r"rf:choice:(?P<game>\d+):(?P<n>\d+)",
):
    """The secret choice in a DM as versions before the core's secret choice sent it: a game
    running across the upgrade keeps it. Its meaning is in the custom_id."""

    def __init__(self, game_id: int, n: int, select: discord.ui.Select[Any]) -> None:
        super().__init__(select)
        self.game_id, self.n = game_id, n

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ChoiceSelect:
        assert isinstance(item, discord.ui.Select)
        return cls(id_of(match["game"]), id_of(match["n"]), item)

    async def callback(self, interaction: discord.Interaction) -> None:
        rf = service_of(interaction.client, RefutationService)
        await respond(interaction, rf.choose, self.game_id, self.n, self.item.values[0])


def choice_view(game_id: int, n: int, options: list[list[str]], lang: Lang) -> discord.ui.View:
    """The secret choice menu of a DM (``options``: (label, value, description) each), as the
    core's secret choice builds it (``choice:rf_choice:…``, cogs/choice.py): the view of an
    outbox row written before it, and what the deck check measures."""
    return secret_choice_view(CHOICE, game_id, n, options, m("refute.placeholder", lang), False)


class VoteButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"rf:vote:(?P<game>\d+):(?P<n>\d+):(?P<choice>\d+|abstain|ref)",
):
    """A public vote button: a revealed card, Abstain, or Reference page."""

    def __init__(self, game_id: int, n: int, choice: str, button: discord.ui.Button[Any]) -> None:
        super().__init__(button)
        self.game_id, self.n, self.choice = game_id, n, choice

    @classmethod
    def build(
        cls, game_id: int, n: int, choice: str, label: str = "", lang: Lang = "en"
    ) -> VoteButton:
        """The button of the public vote message (a card's ``label``, Abstain, Reference page)."""
        if choice == ABSTAIN:
            label, style = m("reveal.abstain", lang), discord.ButtonStyle.secondary
        elif choice == "ref":
            label, style = m("reveal.reference", lang), discord.ButtonStyle.success
        else:
            style = discord.ButtonStyle.primary
        button: discord.ui.Button[Any] = discord.ui.Button(
            label=label or choice, style=style, custom_id=f"rf:vote:{game_id}:{n}:{choice}"
        )
        return cls(game_id, n, choice, button)

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> VoteButton:
        # A click: the clicked button, wrapped as it is.
        assert isinstance(item, discord.ui.Button)
        return cls(id_of(match["game"]), id_of(match["n"]), match["choice"], item)

    async def callback(self, interaction: discord.Interaction) -> None:
        rf = service_of(interaction.client, RefutationService)
        if self.choice == "ref":
            await respond(interaction, rf.consult, self.game_id, self.n)
        else:
            await respond(interaction, rf.vote, self.game_id, self.n, self.choice)


def vote_view(
    game_id: int, n: int, cards: list[list[Any]], reference: bool, lang: Lang
) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for card, label in cards:
        view.add_item(VoteButton.build(game_id, n, str(card), label, lang))
    view.add_item(VoteButton.build(game_id, n, ABSTAIN, lang=lang))
    if reference:
        view.add_item(VoteButton.build(game_id, n, "ref", lang=lang))
    return view
