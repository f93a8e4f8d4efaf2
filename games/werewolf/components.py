"""Werewolf's persistent components: the day's vote menu, under the live vote count — the
core's secret-choice select of the living (cogs/choice.py) and a **No elimination** button of
the game's own. Their meaning is in their custom_id (``ww:none:<game>:<day>``), so they work
after a restart; the clicking user is ``interaction.user``, never a value of the custom_id."""

from __future__ import annotations

import re
from typing import Any

import discord

from cogs.choice import choice_view
from cogs.interaction import id_of, respond, service_of
from games.werewolf.service import VOTE_VIEW, WerewolfService


class NoElimination(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"ww:none:(?P<game>\d+):(?P<step>\d+)",
):
    """A vote for no elimination on the day's vote message."""

    def __init__(self, game_id: int, step: int, button: discord.ui.Button[Any]) -> None:
        super().__init__(button)
        self.game_id, self.step = game_id, step

    @classmethod
    def build(cls, game_id: int, step: int, label: str) -> NoElimination:
        button: discord.ui.Button[Any] = discord.ui.Button(
            label=label[:80],
            style=discord.ButtonStyle.secondary,
            custom_id=f"ww:none:{game_id}:{step}",
        )
        return cls(game_id, step, button)

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> NoElimination:
        assert isinstance(item, discord.ui.Button)
        return cls(id_of(match["game"]), id_of(match["step"]), item)

    async def callback(self, interaction: discord.Interaction) -> None:
        service = service_of(interaction.client, WerewolfService)
        await respond(interaction, service.vote.choose, self.game_id, self.step, "none")


def vote_view(
    name: str, game_id: int, step: int, options: list[list[str]], placeholder: str, none: str
) -> discord.ui.View:
    """The builder of ``View("ww_vote", ...)``: the select of the living, and the No
    elimination button by day (``none`` its label; empty for the captain's election)."""
    view = choice_view(name, game_id, step, options, placeholder, False)
    if none:
        view.add_item(NoElimination.build(game_id, step, none))
    return view


VIEWS = {VOTE_VIEW: vote_view}
