"""The skeleton every game's cog stands on (one class, one ``new``), so that a game's cog holds
only its own commands."""

from __future__ import annotations

from typing import Any, ClassVar

import discord
from discord.ext import commands

from bot.options import OptionsSchema
from bot.service import GameService
from cogs.interaction import service_of
from cogs.lobby import Forum, LobbyCommands, ModerationCommands, new_command
from cogs.records import RecordCommands


class GameCog(LobbyCommands, ModerationCommands, RecordCommands, commands.GroupCog):
    """The skeleton of every game's cog: the lobby, the moderation, ``archive`` and ``rules``,
    and the game's service (``service_class``). A game's cog adds its ``new``
    (:func:`new_game_command`) and its own commands::

        @app_commands.guild_only()
        class ResistanceCog(GameCog, group_name="resistance", group_description="..."):
            service_class = ResistanceService
            new = new_game_command("Open a game of The Resistance here", RESISTANCE_OPTIONS)
    """

    service_class: ClassVar[type[GameService]]

    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot
        self.service = service_of(bot, self.service_class)
        super().__init__()


def new_game_command(description: str, schema: OptionsSchema) -> Any:
    """``/<game> new`` of a :class:`GameCog`: the schema's options, ``forum`` and ``tag``; it
    opens the game with the service's ``new_game``."""

    async def new(
        self: GameCog,
        interaction: discord.Interaction,
        tag: str | None = None,
        forum: Forum | None = None,
        **given: Any,
    ) -> None:
        await self.open_new(interaction, self.service.new_game, tag, given, forum)

    # discord.py passes the cog to a callback defined in a class body; this one is, in effect
    new.__qualname__ = "GameCog.new"
    return new_command(description, schema)(new)
