"""The secret choices' menus (bot/choice.py): a select, or buttons, in a player's DM.

Their meaning is in their custom_id, ``choice:<name>:<game>:<step>`` (a button adds its value),
so they work after a restart; the clicking user is ``interaction.user``, never a value of the
custom_id. A click goes to the secret choice registered under ``name``; one of a choice this
bot no longer runs gets the answer of a closed choice.
"""

from __future__ import annotations

import re
from typing import Any

import discord

from bot.choice import SecretMenu
from bot.errors import UserError
from bot.names import clean
from bot.service import Actor, Services
from cogs.interaction import id_of, respond

NAME = r"(?P<name>[a-z0-9_]{1,32}):(?P<game>\d+):(?P<step>\d+)"


def found(client: discord.Client, name: str) -> SecretMenu:
    """The secret choice a menu belongs to."""
    app = getattr(client, "app", None)  # the GameBot's (as service_of reads its services)
    choice = app.choices.get(name) if isinstance(app, Services) else None
    if choice is None:
        raise UserError("common.choice.closed")
    return choice


async def answer(
    interaction: discord.Interaction, name: str, game_id: int, step: int, value: str
) -> None:
    async def choose(actor: Actor) -> str:
        return await found(interaction.client, name).choose(actor, game_id, step, value)

    await respond(interaction, choose)


class ChoiceSelect(discord.ui.DynamicItem[discord.ui.Select[Any]], template=f"choice:{NAME}"):
    """A secret choice's select menu (one value)."""

    def __init__(self, name: str, game_id: int, step: int, select: discord.ui.Select[Any]) -> None:
        super().__init__(select)
        self.name, self.game_id, self.step = name, game_id, step

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ChoiceSelect:
        assert isinstance(item, discord.ui.Select)
        return cls(match["name"], id_of(match["game"]), id_of(match["step"]), item)

    async def callback(self, interaction: discord.Interaction) -> None:
        values = self.item.values
        await answer(interaction, self.name, self.game_id, self.step, values[0] if values else "")


class ChoiceButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=f"choice:{NAME}:(?P<value>[^:]{{1,40}})",
):
    """One option of a secret choice offered as buttons."""

    def __init__(
        self, name: str, game_id: int, step: int, value: str, button: discord.ui.Button[Any]
    ) -> None:
        super().__init__(button)
        self.name, self.game_id, self.step, self.value = name, game_id, step, value

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ChoiceButton:
        assert isinstance(item, discord.ui.Button)
        step = (match["name"], id_of(match["game"]), id_of(match["step"]))
        return cls(*step, match["value"], item)

    async def callback(self, interaction: discord.Interaction) -> None:
        await answer(interaction, self.name, self.game_id, self.step, self.value)


def choice_view(
    name: str,
    game_id: int,
    step: int,
    options: list[list[str]],
    placeholder: str,
    buttons: bool,
) -> discord.ui.View:
    """The menu of ``View("secret_choice", ...)`` (``SecretMenu.menu``): the dispatcher's
    builder; ``options`` are [label, value] or [label, value, description]. Labels are plain
    text on one line (Discord's limits: 100 characters a select option, 80 a button)."""
    view = discord.ui.View(timeout=None)
    custom_id = f"choice:{name}:{game_id}:{step}"
    if buttons:
        for label, value, *_ in options:
            button: discord.ui.Button[Any] = discord.ui.Button(
                label=clean(label)[:80] or value,
                style=discord.ButtonStyle.primary,
                custom_id=f"{custom_id}:{value}",
            )
            view.add_item(ChoiceButton(name, game_id, step, value, button))
        return view
    select: discord.ui.Select[Any] = discord.ui.Select(
        custom_id=custom_id,
        placeholder=placeholder[:150] or None,
        min_values=1,
        max_values=1,
        options=[
            discord.SelectOption(
                label=clean(o[0])[:100] or o[1],
                value=o[1],
                description=(o[2][:100] if len(o) > 2 else "") or None,
            )
            for o in options
        ],
    )
    view.add_item(ChoiceSelect(name, game_id, step, select))
    return view


#: What cogs.lobby's setup registers besides the view builder: the persistent items.
ITEMS = (ChoiceSelect, ChoiceButton)
