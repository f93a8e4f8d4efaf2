"""Guild settings: language of public messages, moderator role, time zone, default game options
(each game's own settings come with its plugin: ``GamePlugin.settings_command``)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from bot import daily
from bot.archive import options_listing
from bot.errors import Redelivered, UserError
from bot.i18n import game_name, t
from bot.service import Actor, Services
from db import repo


@dataclass
class Change:
    """A change of the guild's settings under way: its transaction, and the answer it gives
    (kept with it, for a redelivery of the same interaction)."""

    s: AsyncSession
    reply: str = ""


class GuildSettingsService:
    def __init__(self, app: Services) -> None:
        self.app = app

    @asynccontextmanager
    async def change(self, actor: Actor) -> AsyncIterator[Change]:
        """One transaction that changes the guild's settings, once per interaction, with its
        answer (``Change.reply``, set in the block): a redelivered one (Discord may deliver an
        interaction again after a RESUME) changes nothing more and is answered as the first
        delivery was (``Redelivered``)."""
        interaction = actor.interaction_id
        async with self.app.sessions.begin() as s:
            if interaction is not None:
                handled = await repo.handled_interaction(s, interaction)
                if handled is not None:
                    raise Redelivered(handled)
            change = Change(s)
            yield change
            if interaction is not None and not await repo.record_interaction(
                s, interaction, change.reply, at=self.app.clock()
            ):  # another delivery of it committed first: this one rolls back
                raise Redelivered(await repo.handled_interaction(s, interaction) or "")

    async def _require_manager(self, actor: Actor) -> None:
        if not actor.manages_guild:
            raise UserError("settings.error.manage_guild")

    async def set_language(self, actor: Actor, guild_id: int, language: str) -> str:
        await self._require_manager(actor)
        if language not in ("en", "fr"):
            raise UserError("settings.error.language")
        async with self.change(actor) as change:
            settings = await repo.get_guild_settings(change.s, guild_id)
            settings.language = language
            await repo.save_guild_settings(change.s, settings)
            change.reply = t(
                "settings.language_set",
                actor.lang,
                language=t(f"settings.language_name.{language}", actor.lang),
            )
        return change.reply

    async def set_moderator_role(
        self, actor: Actor, guild_id: int, role_id: int | None, role_name: str
    ) -> str:
        return await self._set(actor, guild_id, "moderator_role", role_id, role=role_name)

    async def set_lobby_role(
        self, actor: Actor, guild_id: int, role_id: int | None, role_name: str
    ) -> str:
        """The role a new lobby mentions once (bot/listing.py); None: none."""
        return await self._set(actor, guild_id, "lobby_role", role_id, role=role_name)

    async def set_mod_log(self, actor: Actor, guild_id: int, channel_id: int | None) -> str:
        """The channel where each moderator action is posted (bot/modlog.py); None: none."""
        channel = f"<#{channel_id}>"
        return await self._set(
            actor, guild_id, "mod_log", channel_id, "_channel_id", channel=channel
        )

    async def _set(
        self,
        actor: Actor,
        guild_id: int,
        setting: str,
        value: int | None,
        column: str = "_id",
        **shown: str,
    ) -> str:
        """A role or channel setting (the column ``<setting><column>`` of the guild's
        settings) set, or cleared (None); the answer names it (``shown``)."""
        await self._require_manager(actor)
        async with self.change(actor) as change:
            settings = await repo.get_guild_settings(change.s, guild_id)
            setattr(settings, f"{setting}{column}", value)
            await repo.save_guild_settings(change.s, settings)
            change.reply = (
                t(f"settings.{setting}_cleared", actor.lang)
                if value is None
                else t(f"settings.{setting}_set", actor.lang, **shown)
            )
        return change.reply

    async def set_members_host(self, actor: Actor, guild_id: int, enabled: bool) -> str:
        await self._require_manager(actor)
        key = "settings.members_host_on" if enabled else "settings.members_host_off"
        async with self.change(actor) as change:
            settings = await repo.get_guild_settings(change.s, guild_id)
            settings.members_host = enabled
            await repo.save_guild_settings(change.s, settings)
            limit = self.app.limits.max_open_games_per_member or "∞"
            change.reply = t(key, actor.lang, max=limit)
        return change.reply

    async def set_defaults(
        self, actor: Actor, guild_id: int, kind: str, given: dict[str, Any]
    ) -> str:
        """The guild's defaults of a game: each value checked by the game's schema, then the
        guild's defaults over the config's checked together (``OptionsSchema.verify``, the
        check of the config at start and of ``/<kind> new``) before anything is saved."""
        await self._require_manager(actor)
        known = self.app.defaults[kind]
        schema = self.app.schema(kind)
        given = schema.given(given, "settings")
        async with self.change(actor) as change:
            settings = await repo.get_guild_settings(change.s, guild_id)
            current = {**settings.defaults_for(kind), **given}
            merged = schema.merge(known, current, {})
            schema.verify(merged)
            settings.set_defaults_for(kind, current)
            await repo.save_guild_settings(change.s, settings)
            change.reply = self.describe(actor, kind, merged)
        return change.reply

    async def set_timezone(self, actor: Actor, guild_id: int, zone: str) -> str:
        await self._require_manager(actor)
        name = daily.check_zone(zone)
        async with self.change(actor) as change:
            settings = await repo.get_guild_settings(change.s, guild_id)
            settings.timezone = name
            await repo.save_guild_settings(change.s, settings)
            now = self.app.clock().astimezone(daily.zone(name)).strftime("%H:%M")
            change.reply = t("daily.timezone_set", actor.lang, zone=name, now=now)
        return change.reply

    async def show(self, actor: Actor, guild_id: int) -> str:
        async with self.app.sessions() as s:
            settings = await repo.get_guild_settings(s, guild_id)
        lines = [
            t(
                "settings.show.language",
                actor.lang,
                language=t(f"settings.language_name.{settings.language}", actor.lang),
            ),
            t(
                "settings.show.moderator_role",
                actor.lang,
                role=f"<@&{settings.moderator_role_id}>" if settings.moderator_role_id else "—",
            ),
            t(
                "settings.show.lobby_role",
                actor.lang,
                role=f"<@&{settings.lobby_role_id}>" if settings.lobby_role_id else "—",
            ),
            t(
                "settings.show.mod_log",
                actor.lang,
                channel=f"<#{settings.mod_log_channel_id}>" if settings.mod_log_channel_id else "—",
            ),
            t(
                "settings.show.members_host",
                actor.lang,
                value="✅" if settings.members_host else "❌",
            ),
        ]
        lines.append(t("daily.show", actor.lang, zone=settings.timezone or daily.DEFAULT_ZONE))
        for kind, schema in self.app.options.items():  # the registered games (bot.plugins)
            merged = schema.merge(self.app.defaults[kind], settings.defaults_for(kind), {})
            lines.append(self.describe(actor, kind, merged))
        for plugin in self.app.registry or ():  # each game's own lines (the Refutation deck)
            if plugin.settings_lines is not None:
                lines += plugin.settings_lines(settings, actor.lang)
        return "\n".join(lines)

    def describe(self, actor: Actor, kind: str, options: dict[str, Any]) -> str:
        shown = options_listing(kind, self.app.schema(kind), options, actor.lang)
        return t(
            "settings.show.defaults",
            actor.lang,
            game=game_name(kind, actor.lang),
            options=shown,
        )
