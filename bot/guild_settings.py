"""Guild settings: language of public messages, moderator role, default game options."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from bot import daily, limits
from bot.decks import DEFAULT, name_from_filename, problem_text
from bot.errors import UserError
from bot.i18n import game_name, t
from bot.records import options_listing
from bot.service import Actor, Services
from db import repo

ReadUpload = Callable[[int], Awaitable[bytes]]


class GuildSettingsService:
    def __init__(self, app: Services) -> None:
        self.app = app

    async def _require_manager(self, actor: Actor) -> None:
        if not actor.manages_guild:
            raise UserError("settings.error.manage_guild")

    async def set_language(self, actor: Actor, guild_id: int, language: str) -> str:
        await self._require_manager(actor)
        if language not in ("en", "fr"):
            raise UserError("settings.error.language")
        async with self.app.sessions.begin() as s:
            settings = await repo.get_guild_settings(s, guild_id)
            settings.language = language
            await repo.save_guild_settings(s, settings)
        return t(
            "settings.language_set",
            actor.lang,
            language=t(f"settings.language_name.{language}", actor.lang),
        )

    async def set_moderator_role(
        self, actor: Actor, guild_id: int, role_id: int | None, role_name: str
    ) -> str:
        await self._require_manager(actor)
        async with self.app.sessions.begin() as s:
            settings = await repo.get_guild_settings(s, guild_id)
            settings.moderator_role_id = role_id
            await repo.save_guild_settings(s, settings)
        if role_id is None:
            return t("settings.moderator_role_cleared", actor.lang)
        return t("settings.moderator_role_set", actor.lang, role=role_name)

    async def set_members_host(self, actor: Actor, guild_id: int, enabled: bool) -> str:
        await self._require_manager(actor)
        async with self.app.sessions.begin() as s:
            settings = await repo.get_guild_settings(s, guild_id)
            settings.members_host = enabled
            await repo.save_guild_settings(s, settings)
        key = "settings.members_host_on" if enabled else "settings.members_host_off"
        return t(key, actor.lang, max=self.app.limits.max_open_games_per_member or "∞")

    async def set_defaults(
        self, actor: Actor, guild_id: int, kind: str, given: dict[str, Any]
    ) -> str:
        await self._require_manager(actor)
        known = self.app.defaults[kind]
        given = self.app.schema(kind).given(given, "settings")
        daily.check_options(given)
        async with self.app.sessions.begin() as s:
            settings = await repo.get_guild_settings(s, guild_id)
            current = {**settings.defaults_for(kind), **given}
            settings.set_defaults_for(kind, current)
            await repo.save_guild_settings(s, settings)
        return self.describe(actor, kind, self.app.schema(kind).merge(known, current, {}))

    async def set_timezone(self, actor: Actor, guild_id: int, zone: str) -> str:
        await self._require_manager(actor)
        name = daily.check_zone(zone)
        async with self.app.sessions.begin() as s:
            settings = await repo.get_guild_settings(s, guild_id)
            settings.timezone = name
            await repo.save_guild_settings(s, settings)
        now = self.app.clock().astimezone(daily.zone(name)).strftime("%H:%M")
        return t("daily.timezone_set", actor.lang, zone=name, now=now)

    async def set_deck(self, actor: Actor, guild_id: int, name: str | None) -> str:
        """Choose the guild's deck by name (empty or ``default``: the configured deck)."""
        await self._require_manager(actor)
        name = (name or "").strip().lower()
        if name:
            # Refused here, privately, when unknown or broken; its text is stored on the way.
            name, _ = await self.app.decks.resolve(self.app.sessions, guild_id, name, actor.lang)
        async with self.app.sessions.begin() as s:
            settings = await repo.get_guild_settings(s, guild_id)
            settings.deck_name = name or None
            await repo.save_guild_settings(s, settings)
        return t("settings.deck_set", actor.lang, deck=self.deck_shown(name, actor.lang))

    async def upload_deck(
        self, actor: Actor, guild_id: int, filename: str, size: int, read: ReadUpload
    ) -> str:
        """Store an uploaded deck under the name of its file, once it passed the check (in a
        separate process, with a time cap). ``size`` is what Discord says of the attachment:
        a file over the cap is refused before a byte is read; ``read(limit)`` reads at most
        ``limit`` bytes."""
        await self._require_manager(actor)
        decks = self.app.decks
        name = name_from_filename(filename)
        if name is None:
            raise UserError("decks.error.bad_name")
        await decks.admit(self.app.sessions, guild_id, name)
        if size > decks.max_bytes:
            verdict = {
                "key": "refutation.deck_error.too_large",
                "params": {"size": size, "max": decks.max_bytes},
            }
            raise UserError("decks.upload.refused", problem=problem_text(verdict, actor.lang))
        data = await read(decks.max_bytes + 1)
        verdict = await decks.upload(self.app.sessions, guild_id, name, data, actor.id, actor.lang)
        return t(
            "decks.upload.done",
            actor.lang,
            name=name,
            disinformation=verdict["disinformation"],
            refutation=verdict["refutation"],
            technique=verdict["technique"],
        )

    async def deck_choices(self, guild_id: int, current: str, lang: str) -> list[tuple[str, str]]:
        """Autocomplete of ``deck``: the names this guild may choose, with their origin."""
        needle = current.strip().casefold()
        known = await self.app.decks.known(self.app.sessions, guild_id)
        return [
            (
                limits.cut(f"{k.name} — {t(f'decks.origin.{k.origin}', lang)}", limits.CHOICE_NAME),
                k.name,
            )
            for k in known
            if needle in k.name
        ][: limits.AUTOCOMPLETE_CHOICES]

    def deck_shown(self, name: str | None, lang: str) -> str:
        if not name or name == DEFAULT:
            return t("settings.default_deck", lang)
        return f"`{name}`"

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
                "settings.show.members_host",
                actor.lang,
                value="✅" if settings.members_host else "❌",
            ),
        ]
        lines.append(t("daily.show", actor.lang, zone=settings.timezone or daily.DEFAULT_ZONE))
        for kind, schema in self.app.options.items():  # the registered games (bot.plugins)
            merged = schema.merge(self.app.defaults[kind], settings.defaults_for(kind), {})
            lines.append(self.describe(actor, kind, merged))
        lines.append(
            t(
                "settings.show.deck",
                actor.lang,
                deck=self.deck_shown(settings.deck_name, actor.lang),
            )
        )
        return "\n".join(lines)

    def describe(self, actor: Actor, kind: str, options: dict[str, Any]) -> str:
        shown = options_listing(kind, self.app.schema(kind), options, actor.lang)
        return t(
            "settings.show.defaults",
            actor.lang,
            game=game_name(kind, actor.lang),
            options=shown,
        )
