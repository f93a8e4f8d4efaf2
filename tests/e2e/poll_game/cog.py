"""``/poll`` and the poll's DM buttons. Thin: parse, call the service, answer privately.

The lobby and moderation commands (join, leave, add, remove, start, cancel, extend, resolve,
remind, resync, substitute) are the shared ones of ``cogs.lobby``; only ``new`` and ``status``
are the poll's own.
"""

from __future__ import annotations

import re
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.i18n import Lang
from cogs.game import GameCog
from cogs.interaction import id_of, respond, service_of
from cogs.lobby import (
    FORUM_DESCRIPTION,
    TAG_DESCRIPTION,
    Forum,
    forum_tags,
)
from tests.e2e.poll_game.service import PollService


class VoteButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"pl:vote:(?P<game>\d+):(?P<choice>first|second)",
):
    """A DM button; its meaning is in the custom_id, so it works after a restart."""

    def __init__(self, game_id: int, choice: str, label: str = "") -> None:
        style = discord.ButtonStyle.primary if choice == "first" else discord.ButtonStyle.secondary
        super().__init__(
            discord.ui.Button(
                label=label[:80] or choice, style=style, custom_id=f"pl:vote:{game_id}:{choice}"
            )
        )
        self.game_id, self.choice = game_id, choice

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> VoteButton:
        return cls(id_of(match["game"]), match["choice"])

    async def callback(self, interaction: discord.Interaction) -> None:
        await respond(
            interaction, service_of(interaction.client, PollService).vote, self.game_id, self.choice
        )


def vote_view(game_id: int, first: str, second: str, lang: Lang) -> discord.ui.View:
    """The two buttons of a player's DM: the dispatcher's builder for ``View("pl_vote", ...)``."""
    view = discord.ui.View(timeout=None)
    view.add_item(VoteButton(game_id, "first", first))
    view.add_item(VoteButton(game_id, "second", second))
    return view


@app_commands.guild_only()
class PollCog(GameCog, group_name="poll", group_description="A two-option poll"):
    """The same skeleton as the built-in games' cogs (cogs/game.py), with a ``new`` of its own
    (the question and its two answers)."""

    service_class = PollService
    service: PollService

    @app_commands.command(name="new", description="Open a poll in this channel")
    @app_commands.describe(
        question="What the players answer",
        first="The first answer (default Yes)",
        second="The second answer (default No)",
        vote_hours="Hours to answer once the poll starts (default 24)",
        faction="A private thread for half the table, whose first member silences a player",
        pick_hours="Hours the faction has to pick whom to silence (default 1)",
        prod_hours="DM a player silent this many hours, then tell the moderator (0 = off)",
        pair="The first player pairs two players in secret",
        tag=TAG_DESCRIPTION,
        forum=FORUM_DESCRIPTION,
    )
    @app_commands.autocomplete(tag=forum_tags)
    async def new(
        self,
        interaction: discord.Interaction,
        question: app_commands.Range[str, 1, 200],
        first: app_commands.Range[str, 1, 80] | None = None,
        second: app_commands.Range[str, 1, 80] | None = None,
        vote_hours: app_commands.Range[float, 0.0005, 336.0] | None = None,
        tag: str | None = None,
        forum: Forum | None = None,
        faction: bool | None = None,
        pick_hours: app_commands.Range[float, 0.0005, 336.0] | None = None,
        prod_hours: app_commands.Range[float, 0.0, 336.0] | None = None,
        pair: bool | None = None,
    ) -> None:
        given = {"question": question, "first": first, "second": second, "vote_hours": vote_hours}
        given |= {"faction": faction, "pick_hours": pick_hours, "prod_hours": prod_hours}
        given |= {"pair": pair}
        await self.open_new(interaction, self.service.new_game, tag, given, forum)

    @app_commands.command(name="pick", description="The faction's pick, if its menu is gone")
    @app_commands.describe(player="The player who may no longer post here")
    async def pick(self, interaction: discord.Interaction, player: discord.Member) -> None:
        choose = self.service.faction.pick.choose
        await self.in_game(interaction, choose, None, str(player.id))

    @app_commands.command(name="status", description="The question, who has answered, the deadline")
    async def status(self, interaction: discord.Interaction) -> None:
        await self.in_game(interaction, self.service.moderation.overview)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(PollCog(bot))
