"""The secret choices' menus (bot/choice.py): a select, or buttons, in a player's DM.

Their meaning is in their custom_id, ``choice:<name>:<game>:<step>`` (a button adds its value),
so they work after a restart; the clicking user is ``interaction.user``, never a value of the
custom_id. A click goes to the secret choice registered under ``name``; one of a choice this
bot no longer runs gets the answer of a closed choice. A pick's (``SecretPick``) select is
answered by its own message edited in place; its confirm button's value is ``ok``.
"""

from __future__ import annotations

import re
from typing import Any

import discord

from bot.choice import CONFIRM, SecretMenu, SecretPick
from bot.effects import View
from bot.errors import UserError
from bot.names import clean
from bot.service import Actor, Reply, Services
from cogs.interaction import id_of, respond, respond_in_place

NAME = r"(?P<name>[a-z0-9_]{1,32}):(?P<game>\d+):(?P<step>\d+)"


def registered(client: discord.Client, name: str) -> SecretMenu | None:
    app = getattr(client, "app", None)  # the GameBot's (as service_of reads its services)
    return app.choices.get(name) if isinstance(app, Services) else None


def found(client: discord.Client, name: str) -> SecretMenu:
    """The secret choice a menu belongs to."""
    choice = registered(client, name)
    if choice is None:
        raise UserError("common.choice.closed")
    return choice


def built(record: View) -> discord.ui.View:
    """The view of a secret choice's record (``SecretMenu.view``), as the dispatcher builds it."""
    return choice_view(*record.args)


async def picked(
    interaction: discord.Interaction, menu: SecretPick, game_id: int, step: int, values: list[str]
) -> None:
    """A pick in a select: kept, and the select's message shows it (its text and defaults)."""

    async def pick(actor: Actor) -> Reply:
        text, record = await menu.pick(actor, game_id, step, values)
        return Reply(text, view=built(record))

    await respond_in_place(interaction, pick)


async def answer(
    interaction: discord.Interaction, name: str, game_id: int, step: int, value: str
) -> None:
    async def choose(actor: Actor) -> str:
        return await found(interaction.client, name).choose(actor, game_id, step, value)

    await respond(interaction, choose)


class ChoiceSelect(discord.ui.DynamicItem[discord.ui.Select[Any]], template=f"choice:{NAME}"):
    """A secret choice's select menu (one value; a pick's: its size)."""

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
        values, menu = self.item.values, registered(interaction.client, self.name)
        if isinstance(menu, SecretPick):
            await picked(interaction, menu, self.game_id, self.step, values)
            return
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
    size: int = 0,
    chosen: list[str] | None = None,
    confirm: str = "",
) -> discord.ui.View:
    """The menu of ``View("secret_choice", ...)`` (``SecretMenu.view``): the dispatcher's
    builder; ``options`` are [label, value] or [label, value, description]. Labels are plain
    text on one line (Discord's limits: 100 characters a select option, 80 a button). A pick
    (``size`` given): :func:`pick_view`."""
    if size:
        return pick_view(name, game_id, step, options, placeholder, size, chosen or [], confirm)
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
    select = a_select(custom_id, placeholder, options, 1, [])
    view.add_item(ChoiceSelect(name, game_id, step, select))
    return view


def a_select(
    custom_id: str, placeholder: str, options: list[list[str]], size: int, chosen: list[str]
) -> discord.ui.Select[Any]:
    """A select of exactly ``size`` of ``options`` (at most as many as there are), ``chosen``
    shown picked."""
    return discord.ui.Select(
        custom_id=custom_id,
        placeholder=placeholder[:150] or None,
        min_values=max(1, min(size, len(options))),
        max_values=max(1, min(size, len(options))),
        options=[
            discord.SelectOption(
                label=clean(o[0])[:100] or o[1],
                value=o[1],
                description=(o[2][:100] if len(o) > 2 else "") or None,
                default=o[1] in chosen,
            )
            for o in options
        ],
        row=0,
    )


def pick_view(
    name: str,
    game_id: int,
    step: int,
    options: list[list[str]],
    placeholder: str,
    size: int,
    chosen: list[str],
    confirm: str,
) -> discord.ui.View:
    """A pick's menu: the select of exactly ``size`` values, then the confirm button."""
    view = discord.ui.View(timeout=None)
    custom_id = f"choice:{name}:{game_id}:{step}"
    view.add_item(
        ChoiceSelect(name, game_id, step, a_select(custom_id, placeholder, options, size, chosen))
    )
    button: discord.ui.Button[Any] = discord.ui.Button(
        label=clean(confirm)[:80] or CONFIRM,
        style=discord.ButtonStyle.primary,
        custom_id=f"{custom_id}:{CONFIRM}",
        row=1,
    )
    view.add_item(ChoiceButton(name, game_id, step, CONFIRM, button))
    return view


#: What cogs.lobby's setup registers besides the view builder: the persistent items.
ITEMS = (ChoiceSelect, ChoiceButton)
