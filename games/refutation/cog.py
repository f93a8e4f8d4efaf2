"""``/refutation``. Thin: parse, call the service, answer privately (the DM choice menus and the
public vote buttons are in games/refutation/components.py)."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot import limits
from bot.i18n import lang_of
from cogs.game import GameCog, new_game_command
from cogs.interaction import respond, service_of
from cogs.lobby import REASON, Reason
from games.refutation.options import REFUTATION_OPTIONS
from games.refutation.service import RefutationService


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
    GameCog, group_name="refutation", group_description="Play The Refutation Game (play-by-post)"
):
    service_class = RefutationService
    service: RefutationService
    new = new_game_command("Open a game of The Refutation Game here", REFUTATION_OPTIONS)

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
        name="skip",
        description="Pass the active player's turn to the next player, no card played (moderators)",
    )
    @app_commands.describe(reason=REASON)
    async def skip(self, interaction: discord.Interaction, reason: Reason = None) -> None:
        await self.in_game(interaction, self.logged(interaction, "skip", self.service.skip, reason))

    @app_commands.command(
        name="status", description="Feed, cards in play, refuted pile, turn, phase and deadline"
    )
    async def status(self, interaction: discord.Interaction) -> None:
        await self.in_game(interaction, self.service.moderation.overview)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(RefutationCog(bot))
