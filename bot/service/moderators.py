"""Who may moderate a game, who may open one, and how often the players may be reminded.

Checked at each use, from the roles and permissions the interaction carries now."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from bot.errors import UserError
from bot.service.outcome import Actor
from bot.service.services import Services
from db import repo
from db.models import Game

# The event recording a moderator's reminder (its time starts the remind cooldown).
REMINDED = "moderator_reminded"


class Moderators:
    """The moderators' rights over the games of one service."""

    def __init__(self, app: Services) -> None:
        self.app = app

    async def is_moderator(
        self, s: AsyncSession, actor: Actor, game: Game | None, guild_id: int
    ) -> bool:
        """Checked at each use, from the roles and permissions the interaction carries now:
        Manage Server, or the guild's moderator role. A game's creator moderates it only while
        they could open it: when the guild lets members host (``/settings members_host``)."""
        if actor.manages_guild:
            return True
        settings = await repo.get_guild_settings(s, guild_id)
        if settings.moderator_role_id is not None and settings.moderator_role_id in actor.role_ids:
            return True
        return bool(settings.members_host) and game is not None and game.created_by == actor.id

    async def can_host(self, s: AsyncSession, actor: Actor, guild_id: int) -> bool:
        """Whether ``actor`` may open a game here: a moderator, or anyone with members_host."""
        if await self.is_moderator(s, actor, None, guild_id):
            return True
        return bool((await repo.get_guild_settings(s, guild_id)).members_host)

    async def require_host(self, s: AsyncSession, actor: Actor, guild_id: int) -> None:
        """May open a game, and has fewer open games here than the per-member limit."""
        if not await self.can_host(s, actor, guild_id):
            raise UserError("common.error.not_moderator")
        limit = self.app.limits.max_open_games_per_member
        if limit and await repo.count_open_games_by(s, guild_id, actor.id) >= limit:
            raise UserError("common.error.too_many_games", max=limit)

    async def require_remind_allowed(
        self, s: AsyncSession, game: Game, actor: Actor, step: str
    ) -> None:
        """One moderator reminder per ``remind_cooldown_minutes`` for a step of a game (a vote,
        a secret choice: ``step`` names it; a new step may be reminded at once). Records it."""
        cooldown = timedelta(minutes=self.app.limits.remind_cooldown_minutes)
        now = self.app.clock()
        earlier = [
            e
            for e in await repo.events(s, game.id, kinds=[REMINDED])
            if e.payload.get("step") == step
        ]
        if earlier and now - earlier[-1].at < cooldown:
            left = cooldown - (now - earlier[-1].at)
            minutes = max(1, -(-int(left.total_seconds()) // 60))
            raise UserError("common.error.remind_cooldown", minutes=minutes)
        # Private to the moderator: not part of the game's public history.
        await repo.append_event(
            s, game.id, REMINDED, {"step": step}, actor_id=actor.id, private_to=actor.id, at=now
        )

    async def require_moderator(
        self, s: AsyncSession, actor: Actor, game: Game | None, guild_id: int
    ) -> None:
        if not await self.is_moderator(s, actor, game, guild_id):
            raise UserError("common.error.not_moderator")
