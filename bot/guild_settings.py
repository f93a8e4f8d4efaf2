"""Guild settings: language of public messages, moderator role, default game options."""

from __future__ import annotations

from typing import Any

from bot import daily
from bot.errors import UserError
from bot.i18n import t
from bot.service import Actor, Services
from db import repo


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
        given = {k: v for k, v in given.items() if v is not None}
        daily.check_options(given)
        async with self.app.sessions.begin() as s:
            settings = await repo.get_guild_settings(s, guild_id)
            current = dict(getattr(settings, f"{kind}_defaults") or {})
            current.update({k: v for k, v in given.items() if v is not None and k in known})
            setattr(settings, f"{kind}_defaults", current)
            await repo.save_guild_settings(s, settings)
        return self.describe(actor, kind, {**known, **current})

    async def set_timezone(self, actor: Actor, guild_id: int, zone: str) -> str:
        await self._require_manager(actor)
        name = daily.check_zone(zone)
        async with self.app.sessions.begin() as s:
            settings = await repo.get_guild_settings(s, guild_id)
            settings.timezone = name
            await repo.save_guild_settings(s, settings)
        now = self.app.clock().astimezone(daily.zone(name)).strftime("%H:%M")
        return t("daily.timezone_set", actor.lang, zone=name, now=now)

    async def set_deck(self, actor: Actor, guild_id: int, path: str | None) -> str:
        await self._require_manager(actor)
        if path:
            from pathlib import Path

            from games.refutation.deck import load_deck

            load_deck(Path(path))  # a bad deck is refused here, with the card and field named
        async with self.app.sessions.begin() as s:
            settings = await repo.get_guild_settings(s, guild_id)
            settings.deck_path = path or None
            await repo.save_guild_settings(s, settings)
        return t(
            "settings.deck_set", actor.lang, deck=path or t("settings.default_deck", actor.lang)
        )

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
        for kind in ("resistance", "refutation"):
            merged = {**self.app.defaults[kind], **(getattr(settings, f"{kind}_defaults") or {})}
            lines.append(self.describe(actor, kind, merged))
        lines.append(
            t(
                "settings.show.deck",
                actor.lang,
                deck=settings.deck_path or t("settings.default_deck", actor.lang),
            )
        )
        return "\n".join(lines)

    def describe(self, actor: Actor, kind: str, options: dict[str, Any]) -> str:
        shown = ", ".join(f"`{k}` = {v}" for k, v in sorted(options.items()) if k != "deck")
        return t(
            "settings.show.defaults",
            actor.lang,
            game=t(f"common.game_name.{kind}", actor.lang),
            options=shown,
        )
