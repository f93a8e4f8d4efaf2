"""The moderators' log: every moderator action, who, when, what and why.

The command layer (cogs/lobby.py, cogs/settings.py) names the action, with the moderator's
optional ``reason`` (``pending``); a row of ``mod_actions`` records it (what: the action's key
and its names or hours, never a role or a hand: a substitution names the seats). A game's entry
is written in the action's own transaction (``Actions.commit_outcome`` calls ``write_pending``),
so the action and its entry commit together or not at all; with ``/settings mod_log`` its line
there is an outbox row of that transaction. A settings change's entry, which has no game, is
written after the change and sent at once. The game's record lists its entries
(bot/records.py).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import datetime
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


@dataclass
class Pending:
    """A moderator's action on a game under way, waiting for its transaction's commit."""

    values: dict[str, Any]
    #: set once written (in the action's transaction): a task the action started shares it
    written: bool = field(default=False)


#: The entry of the moderator's action running in this task, if any.
PENDING: ContextVar[Pending | None] = ContextVar("mod_log_pending", default=None)


def values_of(
    actor: Actor,
    guild_id: int,
    game_id: int | None,
    action: str,
    reason: str | None,
    **detail: object,
) -> dict[str, Any]:
    return {
        "guild_id": guild_id,
        "game_id": game_id,
        "moderator_id": actor.id,
        "moderator_name": actor.name,
        "action": action,
        "detail": {k: str(v) for k, v in detail.items()},
        "reason": clean(reason)[:REASON_MAX] if reason and reason.strip() else None,
    }


@contextlib.contextmanager
def pending(values: dict[str, Any]) -> Iterator[Pending]:
    """While the moderator's action runs: its entry, for the action's commit to write."""
    entry = Pending(values)
    token = PENDING.set(entry)
    try:
        yield entry
    finally:
        PENDING.reset(token)


async def write_pending(s: AsyncSession, game: Game, at: datetime) -> list[Post]:
    """In the transaction of a moderator's action on ``game``: its entry, and its line for the
    ``mod_log`` channel (none set: nothing more)."""
    entry = PENDING.get()
    if entry is None or entry.written or entry.values["game_id"] != game.id:
        return []
    entry.written = True
    row = await repo.add_mod_action(s, at=at, **entry.values)
    settings = await repo.get_guild_settings(s, game.guild_id)
    if settings.mod_log_channel_id is None:
        return []
    return [Post(settings.mod_log_channel_id, line(row, settings.language, game))]


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
        """The entry of an action done without a game's transaction (a settings change), in
        its own; a failure is logged (the action itself is done)."""
        values = values_of(actor, guild_id, game_id, action, reason, **detail)
        await self.write(values)

    async def write(self, values: dict[str, Any]) -> None:
        """An entry in its own transaction (an action that wrote none of its own)."""
        try:
            posted = await self._write(values)
        except Exception:
            log.exception("the moderators' log could not record %s", values["action"])
            return
        if posted is None:
            return
        if values["game_id"] is None:
            await self._send(*posted)
        elif self.app.dispatcher is not None:
            self.app.dispatcher.wake(values["game_id"])

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


def entry_text(entry: ModAction, lang: str, at: str, escape: Any) -> str:
    """One entry as a game's record or history lists it: when (``at``), who, what, why."""
    text = t(
        "modlog.record_line",
        lang,
        at=at,
        who=escape(entry.moderator_name),
        what=what(entry, lang, escape),
    )
    if entry.reason:
        text += t("modlog.why", lang, reason=escape(entry.reason))
    return text


async def section(s: AsyncSession, game: Game, lang: str) -> str:
    """The record's part (bot/records.py): the game's moderator actions, in order."""
    entries = await repo.mod_actions(s, game.id)
    if not entries:
        return ""
    lines = ["", f"## {t('modlog.record_title', lang)}", ""]
    lines += [f"- {entry_text(entry, lang, when(entry.at), md)}" for entry in entries]
    return "\n".join(lines) + "\n"


async def history_part(s: AsyncSession, game: Game, lang: str) -> str:
    """A game's ``history`` command's part: its moderator actions (empty: none)."""
    entries = await repo.mod_actions(s, game.id)
    if not entries:
        return ""
    lines = [f"**{t('modlog.record_title', lang)}**"]
    lines += [
        entry_text(entry, lang, f"<t:{int(entry.at.timestamp())}:f>", shown) for entry in entries
    ]
    return "\n".join(lines)
