"""A tiny discord.py bot used by the sandbox tests (commands, a DM view, a dynamic button)."""

from __future__ import annotations

import asyncio
import io
import re
from typing import Any

import discord
from discord import app_commands

from tests.sandbox.client import FAST_CLIENT_OPTIONS

FR = {
    "resistance": "resistance",
    "The Resistance": "La Résistance",
    "propose": "proposer",
    "Propose a team": "Proposer une équipe",
    "player1": "joueur1",
    "player2": "joueur2",
    "First player": "Premier joueur",
    "Second player": "Second joueur",
    "secret": "secret",
    "A private answer": "Une réponse privée",
}


class FrenchTranslator(app_commands.Translator):
    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        if locale is discord.Locale.french:
            return FR.get(string.message)
        return None


_ = app_commands.locale_str


class VoteButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"rs:vote:(?P<game>\d+):(?P<choice>\w+)",
):
    def __init__(self, game: int, choice: str) -> None:
        super().__init__(
            discord.ui.Button(
                label=choice.capitalize(),
                custom_id=f"rs:vote:{game}:{choice}",
                style=discord.ButtonStyle.primary,
            )
        )
        self.game = game
        self.choice = choice

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> VoteButton:
        return cls(int(match["game"]), match["choice"])

    async def callback(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(
            f"{interaction.user.name} voted {self.choice} in game {self.game}", ephemeral=True
        )


def vote_view(game: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(VoteButton(game, "accept"))
    view.add_item(VoteButton(game, "reject"))
    return view


def make_tree(
    client: discord.Client,
    seen: list[discord.Interaction],
    errors: list[Exception] | None = None,
) -> app_commands.CommandTree:
    errors = errors if errors is not None else []
    tree = app_commands.CommandTree(client)
    group = app_commands.Group(name=_("resistance"), description=_("The Resistance"))

    @group.command(name=_("propose"), description=_("Propose a team"))
    @app_commands.describe(player1=_("First player"), player2=_("Second player"))
    @app_commands.rename(player1=_("player1"), player2=_("player2"))
    async def propose(
        interaction: discord.Interaction,
        player1: discord.Member,
        player2: discord.Member | None = None,
    ) -> None:
        seen.append(interaction)
        names = [player1.display_name] + ([player2.display_name] if player2 else [])
        await interaction.response.send_message("Team: " + ", ".join(names))

    @group.command(name=_("secret"), description=_("A private answer"))
    async def secret(interaction: discord.Interaction) -> None:
        seen.append(interaction)
        await interaction.response.send_message("only you can see this", ephemeral=True)

    admin = app_commands.Group(name="admin", description="Moderation", parent=group)

    @admin.command(name="extend", description="Extend the deadline")
    async def extend(
        interaction: discord.Interaction,
        hours: app_commands.Range[int, 1, 72],
        role: discord.Role | None = None,
        where: discord.TextChannel | None = None,
        ratio: float = 1.0,
    ) -> None:
        parts = [f"+{hours}h", f"role={role.name if role else None}"]
        parts += [f"where={where.name if where else None}", f"ratio={ratio}"]
        await interaction.response.send_message(" ".join(parts))

    tree.add_command(group)

    @tree.command(name="ping", description="Ping")
    async def ping(interaction: discord.Interaction) -> None:
        seen.append(interaction)
        await interaction.response.defer(thinking=True)
        await interaction.followup.send(
            f"pong from shard {interaction.guild and interaction.guild.shard_id}"
        )

    @tree.command(name="slow", description="Answers late")
    async def slow(interaction: discord.Interaction, delay: float) -> None:
        seen.append(interaction)
        await asyncio.sleep(delay)
        try:
            await interaction.response.send_message("too late?")
        except discord.HTTPException as exc:
            errors.append(exc)

    @tree.command(name="double", description="Answers twice")
    async def double(interaction: discord.Interaction) -> None:
        seen.append(interaction)
        await interaction.response.send_message("first")
        try:  # discord.py guards against this itself; send the second callback raw
            await interaction._state.http.request(
                discord.http.Route(
                    "POST",
                    "/interactions/{interaction_id}/{interaction_token}/callback",
                    interaction_id=interaction.id,
                    interaction_token=interaction.token,
                ),
                json={"type": 4, "data": {"content": "second"}},
            )
        except discord.HTTPException as exc:
            errors.append(exc)

    @tree.command(name="watch", description="Watch a card")
    async def watch(interaction: discord.Interaction, card: str, refresh: bool = False) -> None:
        await interaction.response.send_message(f"watching {card} refresh={refresh}")

    @watch.autocomplete("card")
    async def watch_card(
        interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        cards = ["1 Fake expert", "2 Cherry picking", "3 Conspiracy", "13 Red herring"]
        return [app_commands.Choice(name=c, value=c.split()[0]) for c in cards if current in c]

    @tree.command(name="echo_file", description="Answers with the uploaded file reversed")
    @app_commands.choices(
        how=[app_commands.Choice(name=n, value=n) for n in ("response", "followup", "edit")]
    )
    async def echo_file(
        interaction: discord.Interaction, file: discord.Attachment, how: str = "response"
    ) -> None:
        data = await file.read()
        out = discord.File(
            io.BytesIO(data[::-1]), filename=f"reversed-{file.filename}", description="reversed"
        )
        text = f"{file.filename} {file.size} {file.content_type}"
        if how == "response":
            await interaction.response.send_message(text, file=out)
        elif how == "followup":
            await interaction.response.defer(ephemeral=True)
            await interaction.followup.send(text, file=out, ephemeral=True)
        else:
            await interaction.response.send_message(text)
            await interaction.edit_original_response(attachments=[out])

    @tree.command(name="feedback", description="Opens a modal")
    async def feedback(interaction: discord.Interaction) -> None:
        await interaction.response.send_modal(Feedback())

    @tree.command(name="later", description="Defers then edits the original")
    async def later(interaction: discord.Interaction) -> None:
        await interaction.response.defer(ephemeral=True)
        await asyncio.sleep(0.05)
        await interaction.edit_original_response(content="done later")

    return tree


class Feedback(discord.ui.Modal, title="Feedback"):
    text: discord.ui.TextInput[Any] = discord.ui.TextInput(label="Your text", custom_id="fb")

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"got {self.text.value}", ephemeral=True)


class PickView(discord.ui.View):
    """A string select, a user select and a button that edits the message (type 7)."""

    def __init__(self) -> None:
        super().__init__(timeout=None)
        self.picked: list[str] = []

    @discord.ui.select(
        custom_id="pick:card",
        options=[discord.SelectOption(label=f"Card {i}", value=str(i)) for i in (1, 2, 3)],
        max_values=2,
    )
    async def card(self, interaction: discord.Interaction, select: discord.ui.Select[Any]) -> None:
        await interaction.response.send_message(f"cards {','.join(select.values)}")

    @discord.ui.select(cls=discord.ui.UserSelect, custom_id="pick:user")
    async def user(
        self, interaction: discord.Interaction, select: discord.ui.UserSelect[Any]
    ) -> None:
        member = select.values[0]
        kind = type(member).__name__
        await interaction.response.send_message(f"user {member.display_name} {kind}")

    @discord.ui.button(label="Close", custom_id="pick:close")
    async def close(self, interaction: discord.Interaction, button: discord.ui.Button[Any]) -> None:
        await interaction.response.edit_message(content="closed", view=None)


class SandboxBot(discord.Client):
    def __init__(
        self, *, sync: bool = True, intents: discord.Intents | None = None, **options: Any
    ) -> None:
        super().__init__(
            intents=intents or discord.Intents.default(), **{**FAST_CLIENT_OPTIONS, **options}
        )
        self.seen: list[discord.Interaction] = []
        self.errors: list[Exception] = []
        self.tree = make_tree(self, self.seen, self.errors)
        self.sync = sync

    async def setup_hook(self) -> None:
        await self.tree.set_translator(FrenchTranslator())
        self.add_dynamic_items(VoteButton)
        if self.sync:
            await self.tree.sync()


class ShardedSandboxBot(discord.AutoShardedClient):
    def __init__(self, **options: Any) -> None:
        super().__init__(intents=discord.Intents.default(), **{**FAST_CLIENT_OPTIONS, **options})
        self.seen: list[discord.Interaction] = []
        self.tree = make_tree(self, self.seen)

    async def setup_hook(self) -> None:
        await self.tree.set_translator(FrenchTranslator())
        await self.tree.sync()
