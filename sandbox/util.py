"""Small helpers: snowflakes, timestamps, permission bits, API errors."""

from __future__ import annotations

import base64
import itertools
import secrets
import threading
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import discord
import orjson

DISCORD_EPOCH_MS = 1420070400000

_P = discord.Permissions

# Permission bits the sandbox checks (taken from discord.py so they cannot drift).
VIEW_CHANNEL = _P.view_channel.flag
SEND_MESSAGES = _P.send_messages.flag
SEND_MESSAGES_IN_THREADS = _P.send_messages_in_threads.flag
READ_MESSAGE_HISTORY = _P.read_message_history.flag
MANAGE_MESSAGES = _P.manage_messages.flag
PIN_MESSAGES = _P.pin_messages.flag
MANAGE_THREADS = _P.manage_threads.flag
MANAGE_CHANNELS = _P.manage_channels.flag
MANAGE_ROLES = _P.manage_roles.flag
CREATE_PUBLIC_THREADS = _P.create_public_threads.flag
CREATE_PRIVATE_THREADS = _P.create_private_threads.flag
EMBED_LINKS = _P.embed_links.flag
ATTACH_FILES = _P.attach_files.flag
MENTION_EVERYONE = _P.mention_everyone.flag
SEND_TTS = _P.send_tts_messages.flag
ADMINISTRATOR = _P.administrator.flag
ALL_PERMISSIONS = _P.all().value

#: What @everyone gets in a new guild (Discord's default set, roughly).
EVERYONE_DEFAULT = discord.Permissions.general().value | discord.Permissions.text().value
EVERYONE_DEFAULT &= ~(
    _P.manage_channels.flag
    | _P.manage_roles.flag
    | _P.manage_guild.flag
    | _P.manage_messages.flag
    | _P.manage_threads.flag
    | _P.manage_webhooks.flag
    | _P.manage_expressions.flag
    | _P.view_audit_log.flag
    | _P.view_guild_insights.flag
    | _P.ban_members.flag
    | _P.kick_members.flag
    | _P.mention_everyone.flag
    | _P.pin_messages.flag
    | _P.administrator.flag
)

#: The bot's own role: enough for everything the project does, not administrator.
BOT_ROLE_DEFAULT = (
    VIEW_CHANNEL
    | SEND_MESSAGES
    | SEND_MESSAGES_IN_THREADS
    | READ_MESSAGE_HISTORY
    | MANAGE_MESSAGES
    | PIN_MESSAGES
    | MANAGE_THREADS
    | MANAGE_CHANNELS
    | MANAGE_ROLES
    | CREATE_PUBLIC_THREADS
    | CREATE_PRIVATE_THREADS
    | EMBED_LINKS
    | ATTACH_FILES
    | _P.add_reactions.flag
    | _P.use_external_emojis.flag
    | _P.use_application_commands.flag
)

# Gateway intents.
INTENT_GUILDS = 1 << 0
INTENT_GUILD_MEMBERS = 1 << 1
INTENT_GUILD_MESSAGES = 1 << 9
INTENT_DIRECT_MESSAGES = 1 << 12
INTENT_MESSAGE_CONTENT = 1 << 15

_lock = threading.Lock()
_last = 0
_counter = itertools.count()


def snowflake(at: datetime | None = None) -> int:
    """A new unique snowflake whose timestamp is ``at`` (default: now)."""
    global _last
    ms = int((at or now()).timestamp() * 1000) - DISCORD_EPOCH_MS
    with _lock:
        value = (ms << 22) | (1 << 17) | (1 << 12) | (next(_counter) & 0xFFF)
        if value <= _last:
            value = _last + 1
        _last = value
        return value


def snowflake_on_shard(shard_id: int, shard_count: int) -> int:
    """A new snowflake ``s`` with ``(s >> 22) % shard_count == shard_id`` (a guild id that
    Discord routes to that shard); its timestamp is at most ``shard_count`` ms ahead."""
    base = now()
    for _ in range(shard_count * 4):
        value = snowflake(base)
        if (value >> 22) % shard_count == shard_id:
            return value
        base = base + timedelta(milliseconds=1)
    raise RuntimeError("could not find a snowflake for that shard")  # pragma: no cover


def now() -> datetime:
    return datetime.now(UTC)


def iso(dt: datetime | None) -> str | None:
    return dt.isoformat() if dt is not None else None


def to_json(value: Any) -> bytes:
    """A payload as Discord sends it (orjson: the gateway's events and the REST bodies of a
    bench's burst are encoded on the loop that stamps the answers)."""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)


def monotonic() -> float:
    return time.monotonic()


def make_token(user_id: int) -> str:
    """A token shaped like a real bot token (base64 id . timestamp . hmac)."""
    first = base64.b64encode(str(user_id).encode()).decode().rstrip("=")
    return f"{first}.{secrets.token_urlsafe(5)}.{secrets.token_urlsafe(28)}"


class ApiError(Exception):
    """An error response in Discord's JSON shape: ``{"message", "code"[, "errors"]}``."""

    def __init__(
        self, status: int, code: int, message: str, errors: dict[str, Any] | None = None
    ) -> None:
        super().__init__(f"{status} {code} {message}")
        self.status = status
        self.code = code
        self.message = message
        self.errors = errors

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"message": self.message, "code": self.code}
        if self.errors is not None:
            body["errors"] = self.errors
        return body


def form_error(path: str, code: str, message: str) -> ApiError:
    """400 / 50035 Invalid Form Body with a nested ``errors`` object for ``path`` (a.b.0.c)."""
    errors: dict[str, Any] = {"_errors": [{"code": code, "message": message}]}
    for part in reversed(path.split(".")):
        errors = {part: errors}
    return ApiError(400, 50035, "Invalid Form Body", errors)


# Well-known error codes.
def unknown(kind: str) -> ApiError:
    codes = {
        "Channel": 10003,
        "Guild": 10004,
        "Member": 10007,
        "Message": 10008,
        "Overwrite": 10009,
        "Role": 10011,
        "User": 10013,
        "Webhook": 10015,
        "interaction": 10062,
        "application command": 10063,
        "Application": 10002,
    }
    return ApiError(404, codes[kind], f"Unknown {kind}")


MISSING_ACCESS = (403, 50001, "Missing Access")
MISSING_PERMISSIONS = (403, 50013, "Missing Permissions")


def missing_access() -> ApiError:
    return ApiError(*MISSING_ACCESS)


def missing_permissions() -> ApiError:
    return ApiError(*MISSING_PERMISSIONS)


_TEXTUAL = ("application/json", "application/toml", "application/xml", "application/yaml")
_EXTRA_TYPES = {
    ".toml": "application/toml",
    ".yaml": "application/yaml",
    ".yml": "application/yaml",
}


def detect_content_type(filename: str, data: bytes, declared: str | None = None) -> str | None:
    """The ``content_type`` Discord reports for an upload: from the file's name (else what the
    client declared, unless it is the generic octet-stream, else plain text for UTF-8 bytes),
    with ``; charset=utf-8`` for text that decodes as UTF-8. ``None`` when unknown."""
    import mimetypes
    import os

    guessed = mimetypes.guess_type(filename)[0] or _EXTRA_TYPES.get(
        os.path.splitext(filename)[1].lower()
    )
    if guessed is None and declared and declared != "application/octet-stream":
        guessed = declared.split(";")[0].strip()
    try:
        data.decode("utf-8")
        utf8 = True
    except UnicodeDecodeError:
        utf8 = False
    if guessed is None:
        return "text/plain; charset=utf-8" if utf8 and data else None
    if (guessed.startswith("text/") or guessed in _TEXTUAL) and utf8:
        return f"{guessed}; charset=utf-8"
    return guessed


def image_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) of a PNG or GIF, from its header (Discord reports both for images)."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24 and data[12:16] == b"IHDR":
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        return int.from_bytes(data[6:8], "little"), int.from_bytes(data[8:10], "little")
    return None


def request_too_large() -> ApiError:
    """What Discord answers a file over the upload limit or a request over 25 MiB."""
    return ApiError(413, 40005, "Request entity too large")
