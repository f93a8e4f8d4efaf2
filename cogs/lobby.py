"""Join / Leave buttons on a lobby message, shared by both games."""

from __future__ import annotations

import re
from typing import Any

import discord

from bot.errors import report
from bot.i18n import Lang, t
from bot.service import Actor, GameService


def service_for(client: discord.Client, kind: str) -> GameService:
    services: dict[str, GameService] = client.services  # type: ignore[attr-defined]
    return services[kind]


class LobbyButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"lobby:(?P<kind>resistance|refutation):(?P<game>\d+):(?P<action>join|leave)",
):
    def __init__(self, kind: str, game_id: int, action: str, lang: Lang = "en") -> None:
        style = discord.ButtonStyle.success if action == "join" else discord.ButtonStyle.secondary
        super().__init__(
            discord.ui.Button(
                label=t(f"common.lobby.{action}_button", lang),
                style=style,
                custom_id=f"lobby:{kind}:{game_id}:{action}",
            )
        )
        self.kind, self.game_id, self.action = kind, game_id, action

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> LobbyButton:
        return cls(match["kind"], int(match["game"]), match["action"])

    async def callback(self, interaction: discord.Interaction) -> None:
        try:
            await interaction.response.defer(ephemeral=True, thinking=True)
            service = service_for(interaction.client, self.kind)
            actor = Actor.of(interaction)
            if self.action == "join":
                reply = await service.join(actor, self.game_id)
            else:
                reply = await service.leave(actor, self.game_id)
            await interaction.followup.send(reply, ephemeral=True)
        except Exception as exc:
            await report(interaction, exc)


def lobby_view(kind: str) -> Any:
    def make(game_id: int, lang: Lang) -> discord.ui.View:
        view = discord.ui.View(timeout=None)
        view.add_item(LobbyButton(kind, game_id, "join", lang))
        view.add_item(LobbyButton(kind, game_id, "leave", lang))
        return view

    return make
