"""One error path for every interaction: expected errors become a private, localized message.

Domain errors (the engines' ``GameError`` and the app's ``UserError``) carry a catalogue key and
its parameters. Anything else is logged with its trace and answered with a generic apology.
"""

from __future__ import annotations

import logging
from typing import Any, Protocol, runtime_checkable

import discord
from discord import app_commands

from adapters.discord_callback import send_text
from bot.i18n import lang_of, localized_params, t
from bot.names import shown
from bot.notices import permission_names
from db.engine import cannot_write
from db.repo import ChannelBusy, StaleState

log = logging.getLogger(__name__)


@runtime_checkable
class Keyed(Protocol):
    key: str
    params: dict[str, Any]


class UserError(Exception):
    """An expected refusal of the app layer: not a moderator, no game here, a stale button..."""

    def __init__(self, key: str, /, **params: Any) -> None:
        super().__init__(key)
        self.key = key
        self.params = params


class Redelivered(Exception):
    """An interaction whose action already committed (Discord delivered it again): it is
    answered as the first delivery was, and acts no more."""

    def __init__(self, reply: str) -> None:
        super().__init__("redelivered")
        self.reply = reply


def _unwrap(error: BaseException) -> BaseException:
    while isinstance(error, app_commands.CommandInvokeError | app_commands.TransformerError):
        cause = getattr(error, "original", None) or error.__cause__
        if cause is None:
            break
        error = cause
    return error


# Parameters of the engines' errors that hold a player's display name (the app's own
# UserErrors escape names where they are raised).
NAME_PARAMS = ("name", "leader")


def engine_params(params: dict[str, Any]) -> dict[str, Any]:
    """An engine error's parameters with every player name Markdown-escaped (bot/names.py)."""
    return {
        k: shown(v) if k in NAME_PARAMS and isinstance(v, str) else v for k, v in params.items()
    }


def describe(error: BaseException, lang: str) -> str | None:
    """The private message for an expected error, or None when it is a bug."""
    error = _unwrap(error)
    if isinstance(error, Redelivered):
        return error.reply or t("common.error.redelivered", lang)
    if isinstance(error, StaleState):
        return t("common.error.conflict", lang)
    if isinstance(error, ChannelBusy):  # a game opened here at the same moment
        return t("common.error.channel_busy", lang)
    if cannot_write(error) is not None:  # full, read-only, down, or locked past the retries
        return t("common.error.busy", lang)
    if isinstance(error, Keyed):
        params = error.params if isinstance(error, UserError) else engine_params(error.params)
        return t(error.key, lang, **localized_params(params, lang))
    if isinstance(error, app_commands.NoPrivateMessage):
        return t("common.error.guild_only", lang)
    if isinstance(error, app_commands.CommandOnCooldown):
        return t("common.error.cooldown", lang, seconds=round(error.retry_after))
    if isinstance(error, app_commands.BotMissingPermissions):
        names = permission_names(error.missing_permissions, lang)
        return t("common.error.bot_missing", lang, permissions=names)
    if isinstance(error, app_commands.CheckFailure):
        return t("common.error.not_allowed", lang)
    return None


async def reply_private(interaction: discord.Interaction, content: str) -> None:
    """Answer ephemerally, whether or not the interaction was already acknowledged."""
    try:
        if interaction.response.is_done():
            await interaction.followup.send(content, ephemeral=True)
        else:
            await send_text(interaction, content, ephemeral=True)
    except discord.HTTPException as exc:
        if exc.code == ALREADY_ACKNOWLEDGED:  # a redelivered interaction: the first answered
            log.warning("interaction %s was already acknowledged (40060)", interaction.id)
            return
        log.warning(
            "could not deliver an error message for interaction %s (%s)", interaction.id, exc.code
        )


#: Discord's code for an interaction whose window to acknowledge (3 s) had passed.
UNKNOWN_INTERACTION = 10062
#: Discord's code for a second callback to an interaction ("already acknowledged").
ALREADY_ACKNOWLEDGED = 40060


def acknowledged(error: BaseException) -> bool:
    """Whether ``error`` is Discord refusing a callback to an interaction already answered."""
    error = _unwrap(error)
    return isinstance(error, discord.HTTPException) and error.code == ALREADY_ACKNOWLEDGED


def expired(error: BaseException) -> bool:
    """Whether ``error`` is Discord refusing the first callback of an interaction too late."""
    error = _unwrap(error)
    return isinstance(error, discord.NotFound) and error.code == UNKNOWN_INTERACTION


async def report(interaction: discord.Interaction, error: BaseException) -> None:
    """The one place where an interaction's error is turned into what the user sees."""
    if expired(error):
        # Nothing can answer it any more (no callback, no follow-up without one): one line, no
        # trace, no second call. Under load a trace and a failing call per expired click made
        # the bot slower still, and more clicks expired.
        log.warning("interaction %s expired before its first callback (10062)", interaction.id)
        return
    if acknowledged(error):
        # A redelivered interaction, or an answer after another one: Discord already has one.
        log.warning("interaction %s was already acknowledged (40060)", interaction.id)
        return
    lang = lang_of(interaction.locale)
    cause = cannot_write(error)
    if cause is not None:  # nothing was committed: one line, the cause, no trace
        log.warning("interaction %s not saved: %s", interaction.id, cause)
    message = describe(error, lang)
    if message is None:
        original = _unwrap(error)
        log.error("unexpected error in interaction %s", interaction.id, exc_info=original)
        message = t("common.generic_error", lang)
    await reply_private(interaction, message)


class GameCommandTree(app_commands.CommandTree[Any]):
    async def on_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        await report(interaction, error)
