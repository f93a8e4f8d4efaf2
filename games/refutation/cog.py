"""``/refutation``, the DM choice menus and the public vote buttons. Thin: parse, call the
service, answer privately."""

from __future__ import annotations

import re
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot import limits
from bot.i18n import Lang, lang_of
from cogs.interaction import respond, service_of
from cogs.lobby import Forum, LobbyCommands, ModerationCommands, new_command
from cogs.records import RecordCommands
from games.refutation.options import REFUTATION_OPTIONS
from games.refutation.render import ABSTAIN, m
from games.refutation.service import RefutationService


class ChoiceSelect(
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=r"rf:choice:(?P<game>\d+):(?P<n>\d+)",
):
    """The secret choice in a DM; its meaning is in the custom_id, so it survives a restart."""

    def __init__(
        self,
        game_id: int,
        n: int,
        options: list[discord.SelectOption] | None = None,
        lang: Lang = "en",
    ) -> None:
        super().__init__(
            discord.ui.Select(
                custom_id=f"rf:choice:{game_id}:{n}",
                placeholder=m("refute.placeholder", lang),
                options=options or [],
                min_values=1,
                max_values=1,
            )
        )
        self.game_id, self.n = game_id, n

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ChoiceSelect:
        return cls(int(match["game"]), int(match["n"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        rf = service_of(interaction.client, RefutationService)
        await respond(interaction, rf.choose, self.game_id, self.n, self.item.values[0])


def choice_view(game_id: int, n: int, options: list[list[str]], lang: Lang) -> discord.ui.View:
    """The secret choice menu of a DM; ``options``: (label, value, description) each."""
    view = discord.ui.View(timeout=None)
    select_options = [
        discord.SelectOption(label=label, value=value, description=description or None)
        for label, value, description in options
    ]
    view.add_item(ChoiceSelect(game_id, n, select_options, lang))
    return view


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
        # A click: the clicked button as discord.py rebuilt it from the message (no label).
        assert isinstance(item, discord.ui.Button)
        return cls(int(match["game"]), int(match["n"]), match["choice"], item)

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


def matching(current: str, pairs: list[tuple[str, Any]]) -> list[app_commands.Choice[Any]]:
    needle = current.strip().casefold()
    return [
        app_commands.Choice(name=limits.cut(name, limits.CHOICE_NAME), value=value)
        for name, value in pairs
        if needle in name.casefold() or needle == str(value)
    ][: limits.AUTOCOMPLETE_CHOICES]


async def feed_cards(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[int]]:
    """The current feed, for ``/refutation watch card``."""
    pairs = await service_of(interaction.client, RefutationService).feed_choices(
        interaction.channel_id or 0, lang_of(interaction.locale)
    )
    return matching(current, pairs)


async def hand_cards(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[str]]:
    """The player's eligible cards and Pass, for ``/refutation choose card``."""
    pairs = await service_of(interaction.client, RefutationService).choice_choices(
        interaction.channel_id or 0, interaction.user.id, lang_of(interaction.locale)
    )
    return matching(current, pairs)


async def revealed_cards(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[str]]:
    """The cards still in the vote and Abstain, for ``/refutation vote card``."""
    pairs = await service_of(interaction.client, RefutationService).vote_choices(
        interaction.channel_id or 0, lang_of(interaction.locale)
    )
    return matching(current, pairs)


@app_commands.guild_only()
class RefutationCog(
    LobbyCommands,
    ModerationCommands,
    RecordCommands,
    commands.GroupCog,
    group_name="refutation",
    group_description="Play The Refutation Game (play-by-post)",
):
    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot
        self.service: RefutationService = service_of(bot, RefutationService)
        super().__init__()

    @new_command("Open a game of The Refutation Game here", REFUTATION_OPTIONS)
    async def new(
        self,
        interaction: discord.Interaction,
        tag: str | None = None,
        forum: Forum | None = None,
        **given: Any,
    ) -> None:
        await self.open_new(interaction, self.service.new, tag, given, forum)

    @app_commands.command(
        name="watch", description="Watch: place a card of the feed in front of you (your turn)"
    )
    @app_commands.describe(
        card="A card of the feed",
        refresh="First put the whole feed under the deck and reveal new cards",
        return_current="First put the card in front of you under the deck",
    )
    @app_commands.autocomplete(card=feed_cards)
    async def watch(
        self,
        interaction: discord.Interaction,
        card: app_commands.Range[int, 1, 1_000_000],
        refresh: bool = False,
        return_current: bool = False,
    ) -> None:
        await self.in_game(
            interaction, self.service.watch, card, refresh=refresh, return_current=return_current
        )

    @app_commands.command(
        name="refute", description="Refute the disinformation in front of a player (your turn)"
    )
    @app_commands.describe(target="The player whose disinformation card is targeted")
    async def refute(self, interaction: discord.Interaction, target: discord.User) -> None:
        await self.in_game(interaction, self.service.refute, target.id)

    @app_commands.command(
        name="choose", description="Your secret card for the refutation, privately (as by DM)"
    )
    @app_commands.describe(card="A card number of your hand, or pass")
    @app_commands.autocomplete(card=hand_cards)
    async def choose(self, interaction: discord.Interaction, card: str) -> None:
        await self.in_game(interaction, self.service.choose, None, card)

    @app_commands.command(name="vote", description="Vote for a revealed card, or abstain")
    @app_commands.describe(card="A revealed card number, or abstain")
    @app_commands.autocomplete(card=revealed_cards)
    async def vote(self, interaction: discord.Interaction, card: str) -> None:
        await self.in_game(interaction, self.service.vote, None, card)

    @app_commands.command(name="hand", description="Your hand, privately")
    async def hand(self, interaction: discord.Interaction) -> None:
        await self.in_game(interaction, self.service.hand)

    @app_commands.command(name="card", description="A card's reference page, privately")
    @app_commands.describe(number="The card's number")
    async def card(
        self, interaction: discord.Interaction, number: app_commands.Range[int, 1, 1_000_000]
    ) -> None:
        where = interaction.channel_id or 0, interaction.guild_id or 0
        await respond(interaction, self.service.card, *where, number)

    @app_commands.command(
        name="status", description="Feed, cards in play, refuted pile, turn, phase and deadline"
    )
    async def status(self, interaction: discord.Interaction) -> None:
        await self.in_game(interaction, self.service.status)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(RefutationCog(bot))
