"""The moderators' log: every moderator action, who, when, what and why.

The command layer (cogs/lobby.py, cogs/settings.py) records an action once the service has
done it, with the moderator's optional ``reason``: a row of ``mod_actions`` (what: the action's
key and its names or hours, never a role or a hand: a substitution names the seats). With
``/settings mod_log`` the bot posts each entry there as it happens, one line, names escaped: a
game's entry is an outbox row of the entry's own transaction, a settings change's is sent at
once. The game's record lists its entries (bot/records.py).

The entry is written in its own transaction after the action's: a crash between the two
commits loses the entry, never the action (recording it in the action's transaction would
take a hook in each service's commit, bot/service.py's ``commit_outcome``).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord
from sqlalchemy.ext.asyncio import AsyncSession

from bot.archive import md, when
from bot.effects import Post
from bot.i18n import game_name, number, t
from bot.names import clean, shown
from db import repo
from db.models import Game, ModAction

if TYPE_CHECKING:
    from bot.service import Actor, Services

log = logging.getLogger(__name__)

#: The longest reason kept (Discord's option takes as much; a log line stays readable).
REASON_MAX = 200


def what(entry: ModAction, lang: str, escape: Any = shown) -> str:
    """The action in the reader's language: its names and values escaped (``escape``), a
    setting's key as typed (in code style), hours as the language writes a number."""
    detail = {k: escape(str(v)) for k, v in (entry.detail or {}).items()}
    if "setting" in detail:
        detail["setting"] = str(entry.detail["setting"])
    if "hours" in detail:
        detail["hours"] = number(float(entry.detail["hours"]), lang)
    return t(f"modlog.action.{entry.action}", lang, **detail)


def line(entry: ModAction, lang: str, game: Game | None) -> str:
    """The entry as the ``mod_log`` channel shows it."""
    text = t(
        "modlog.line" if game is None else "modlog.line_game",
        lang,
        at=f"<t:{int(entry.at.timestamp())}:f>",
        who=shown(entry.moderator_name),
        what=what(entry, lang),
        game=game_name(game.kind, lang, game.options) if game is not None else "",
        number=game.id if game is not None else 0,
    )
    if entry.reason:
        text += t("modlog.why", lang, reason=shown(entry.reason))
    return text


class ModLog:
    """Records the entries and posts them in the server's ``mod_log`` channel."""

    def __init__(self, app: Services, client: discord.Client) -> None:
        self.app = app
        self.client = client

    async def record(
        self,
        actor: Actor,
        guild_id: int,
        game_id: int | None,
        action: str,
        reason: str | None,
        **detail: object,
    ) -> None:
        """One entry; a failure is logged (the action itself is done)."""
        entry = {
            "guild_id": guild_id,
            "game_id": game_id,
            "moderator_id": actor.id,
            "moderator_name": actor.name,
            "action": action,
            "detail": {k: str(v) for k, v in detail.items()},
            "reason": clean(reason)[:REASON_MAX] if reason and reason.strip() else None,
        }
        try:
            posted = await self._write(entry)
        except Exception:
            log.exception("the moderators' log could not record %s", action)
            return
        if posted is None:
            return
        if game_id is None:
            await self._send(*posted)
        elif self.app.dispatcher is not None:
            self.app.dispatcher.wake(game_id)

    async def _write(self, values: dict[str, Any]) -> tuple[int, str] | None:
        """The entry's row, and its post as an outbox row of a game; (channel, text) to post."""
        async with self.app.sessions.begin() as s:
            entry = await repo.add_mod_action(s, at=self.app.clock(), **values)
            guild_id, game_id = entry.guild_id, entry.game_id
            settings = await repo.get_guild_settings(s, guild_id)
            channel = settings.mod_log_channel_id
            if channel is None:
                return None
            game = await repo.get_game(s, game_id) if game_id is not None else None
            text = line(entry, settings.language, game)
            if game is not None:
                post = Post(channel, text)
                await repo.add_effects(
                    s, game.id, guild_id, [(post.KIND, post.payload())], at=self.app.clock()
                )
            return channel, text

    async def _send(self, channel_id: int, text: str) -> None:
        """A settings change's entry (no game, no outbox of its own), sent now."""
        try:
            await self.client.get_partial_messageable(channel_id).send(
                text, allowed_mentions=discord.AllowedMentions.none()
            )
        except discord.HTTPException as exc:
            log.warning("the moderators' log channel %s refused an entry: %s", channel_id, exc)


async def section(s: AsyncSession, game: Game, lang: str) -> str:
    """The record's part (bot/records.py): the game's moderator actions, in order."""
    entries = await repo.mod_actions(s, game.id)
    if not entries:
        return ""
    lines = ["", f"## {t('modlog.record_title', lang)}", ""]
    for entry in entries:
        text = t(
            "modlog.record_line",
            lang,
            at=when(entry.at),
            who=md(entry.moderator_name),
            what=what(entry, lang, md),
        )
        if entry.reason:
            text += t("modlog.why", lang, reason=md(entry.reason))
        lines.append(f"- {text}")
    return "\n".join(lines) + "\n"
