"""The Refutation Game's part of ``/settings``: ``/settings refutation defaults`` (the server's
default options), ``deck`` (the deck of new games, by name) and ``deck_upload`` (a deck file,
checked then stored), and its line of ``/settings show``."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
import discord
from discord import app_commands

from bot import limits
from bot.errors import UserError
from bot.i18n import lang_of, t
from bot.service import Actor
from cogs.interaction import service_of
from cogs.lobby import REASON, Reason
from db import repo
from db.models import GuildSettings
from games.refutation.decks.registry import DEFAULT, name_from_filename, problem_text
from games.refutation.options import DECK, REFUTATION_OPTIONS
from games.refutation.service import RefutationService

KIND = "refutation"

ReadUpload = Callable[[int], Awaitable[bytes]]


class DeckSettingsService:
    """The guild's deck: chosen by name, or uploaded (checked in a separate process first)."""

    def __init__(self, service: RefutationService) -> None:
        self.app = service.app
        self.decks = service.decks

    async def set_deck(self, actor: Actor, guild_id: int, name: str | None) -> str:
        """Choose the guild's deck by name (empty or ``default``: the configured deck)."""
        require_manager(actor)
        name = (name or "").strip().lower()
        if name:
            # Refused here, privately, when unknown or broken; its text is stored on the way.
            name, _ = await self.decks.resolve(self.app.sessions, guild_id, name, actor.lang)
        async with self.app.sessions.begin() as s:
            settings = await repo.get_guild_settings(s, guild_id)
            chosen = {k: v for k, v in settings.defaults_for(KIND).items() if k != DECK}
            settings.set_defaults_for(KIND, {**chosen, DECK: name} if name else chosen)
            await repo.save_guild_settings(s, settings)
        return t("refutation.decks.deck_set", actor.lang, deck=deck_shown(name, actor.lang))

    async def upload_deck(
        self, actor: Actor, guild_id: int, filename: str, size: int, read: ReadUpload
    ) -> str:
        """Store an uploaded deck under the name of its file, once it passed the check (in a
        separate process, with a time cap). ``size`` is what Discord says of the attachment:
        a file over the cap is refused before a byte is read; ``read(limit)`` reads at most
        ``limit`` bytes."""
        require_manager(actor)
        decks = self.decks
        name = name_from_filename(filename)
        if name is None:
            raise UserError("refutation.decks.error.bad_name")
        await decks.admit(self.app.sessions, guild_id, name)
        if size > decks.max_bytes:
            verdict = {
                "key": "refutation.deck_error.too_large",
                "params": {"size": size, "max": decks.max_bytes},
            }
            raise UserError(
                "refutation.decks.upload.refused", problem=problem_text(verdict, actor.lang)
            )
        data = await read(decks.max_bytes + 1)
        verdict = await decks.upload(self.app.sessions, guild_id, name, data, actor.id, actor.lang)
        return t(
            "refutation.decks.upload.done",
            actor.lang,
            name=name,
            disinformation=verdict["disinformation"],
            refutation=verdict["refutation"],
            technique=verdict["technique"],
        )

    async def deck_choices(self, guild_id: int, current: str, lang: str) -> list[tuple[str, str]]:
        """Autocomplete of ``deck``: the names this guild may choose, with their origin."""
        needle = current.strip().casefold()
        known = await self.decks.known(self.app.sessions, guild_id)
        return [
            (
                limits.cut(
                    f"{k.name} — {t(f'refutation.decks.origin.{k.origin}', lang)}",
                    limits.CHOICE_NAME,
                ),
                k.name,
            )
            for k in known
            if needle in k.name
        ][: limits.AUTOCOMPLETE_CHOICES]


def require_manager(actor: Actor) -> None:
    if not actor.manages_guild:
        raise UserError("settings.error.manage_guild")


def deck_shown(name: str | None, lang: str) -> str:
    if not name or name == DEFAULT:
        return t("refutation.decks.default_deck", lang)
    return f"`{name}`"


def guild_deck(settings: GuildSettings) -> str | None:
    """The deck the guild chose (``/settings refutation deck``), kept with its defaults for the
    game as the ``deck`` option; None: the configured one."""
    return settings.defaults_for(KIND).get(DECK) or None


def settings_lines(settings: GuildSettings, lang: str) -> list[str]:
    """``/settings show``: the guild's deck."""
    return [t("refutation.decks.show_deck", lang, deck=deck_shown(guild_deck(settings), lang))]


def settings_group(cog: Any) -> app_commands.Group:
    """``/settings refutation``: ``defaults``, ``deck`` and ``deck_upload``. ``cog`` is the
    settings cog (its ``set_defaults`` and ``in_guild`` answer as every setting does)."""
    group = app_commands.Group(
        name=KIND, description="The Refutation Game: default options and decks"
    )

    def decks() -> DeckSettingsService:
        return DeckSettingsService(service_of(cog.bot, RefutationService))

    group.add_command(cog.defaults_command(KIND, REFUTATION_OPTIONS, "defaults"))

    async def deck_names(
        interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        pairs = await decks().deck_choices(
            interaction.guild_id or 0, current, lang_of(interaction.locale)
        )
        return [app_commands.Choice(name=label, value=name) for label, name in pairs]

    @group.command(name="deck", description="The deck of new games, by name")
    @app_commands.describe(
        name="default, a deck of the bot's folder, or one uploaded here", reason=REASON
    )
    @app_commands.autocomplete(name=deck_names)
    async def deck(
        interaction: discord.Interaction,
        name: app_commands.Range[str, 1, 100],
        reason: Reason = None,
    ) -> None:
        await cog.changed(interaction, reason, (DECK, name), decks().set_deck, name)

    @group.command(
        name="deck_upload", description="Upload a deck file (TOML); it is checked, then stored"
    )
    @app_commands.describe(
        file="The deck file; its name without .toml becomes the deck's name", reason=REASON
    )
    async def deck_upload(
        interaction: discord.Interaction, file: discord.Attachment, reason: Reason = None
    ) -> None:
        async def read(limit: int) -> bytes:
            return await read_attachment(file.url, limit)

        upload = decks().upload_deck
        what = ("deck_upload", file.filename)
        await cog.changed(interaction, reason, what, upload, file.filename, file.size, read)

    return group


async def read_attachment(url: str, limit: int) -> bytes:
    """At most ``limit`` bytes of an attachment (streamed: never more is read)."""
    timeout = aiohttp.ClientTimeout(total=30)
    try:
        async with aiohttp.ClientSession(timeout=timeout) as session, session.get(url) as resp:
            if resp.status != 200:
                raise UserError("refutation.decks.error.download")
            data = b""
            while len(data) < limit:
                chunk = await resp.content.read(limit - len(data))
                if not chunk:
                    break
                data += chunk
            return data
    except (aiohttp.ClientError, TimeoutError):
        raise UserError("refutation.decks.error.download") from None
