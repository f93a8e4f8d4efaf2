"""The :class:`Sandbox`: state, gateway dispatch and the driver API used by tests."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import copy
import random
import re
import secrets
import socket
import urllib.parse
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from . import util
from .gateway import Gateway
from .models import (
    ATTACHMENT_SIZE_LIMIT,
    DM,
    DM_PERMISSIONS,
    EPHEMERAL,
    GUILD_FORUM,
    GUILD_TEXT,
    Channel,
    Guild,
    Interaction,
    Member,
    Message,
    RequestRecord,
    Role,
    StoredFile,
    Upload,
    User,
)
from .util import snowflake


class SandboxError(Exception):
    """Something a real Discord client would not let a user do (or a driver misuse)."""


@dataclass
class FailRule:
    method: str
    pattern: re.Pattern[str]
    status: int
    times: int
    retry_after: float
    code: int
    message: str
    is_global: bool = False


@dataclass
class HoldRule:
    """Matching requests wait until :meth:`release` (see :meth:`Sandbox.hold_route`)."""

    method: str
    pattern: re.Pattern[str]
    times: int
    after: bool  # True: performed first, only the answer waits
    hit: asyncio.Event
    released: asyncio.Event
    dropped: bool = False
    held: int = 0
    skip: int = 0  # matching requests let through before the first one held

    async def wait_hit(self, timeout: float = 10.0) -> None:
        await asyncio.wait_for(self.hit.wait(), timeout)

    def release(self, *, drop: bool = False) -> None:
        """Let the held requests go on; ``drop``: answer 503 without performing them (as if
        they never reached Discord)."""
        self.dropped = drop
        self.times = 0
        self.released.set()


Target = User | Member | Role | Channel


class Sandbox:
    """A local Discord: REST API v10 + gateway on 127.0.0.1, plus a driver for tests.

    ``async with Sandbox() as sb:`` binds a free port (or ``port=``).
    """

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        bot_name: str = "Sandbox Bot",
        token: str | None = None,
        heartbeat_interval: float = 41.25,
        interaction_timeout: float = 3.0,
        recommended_shards: int = 1,
    ) -> None:
        self.host = host
        self.port = port
        self.heartbeat_interval = heartbeat_interval
        #: seconds the bot has for the first callback before 10062 Unknown interaction
        self.interaction_timeout = interaction_timeout
        #: followup/edit tokens stay valid this long (Discord: 15 minutes)
        self.token_lifetime = 15 * 60.0
        #: shard count returned by GET /gateway/bot
        self.recommended_shards = recommended_shards
        #: after this many edits of one message, edits fail with 30046 (None: unlimited)
        self.edit_limit: int | None = None
        #: count only edits of messages older than 1 hour (or marked old) toward edit_limit
        self.edit_limit_only_old = False
        self.app_flags = (1 << 13) | (1 << 15) | (1 << 19) | (1 << 23)
        #: bytes per uploaded file (the bot's uploads and users' ATTACHMENT options); over it
        #: the bot gets 413 / 40005 and the driver refuses, as Discord's client does
        self.attachment_size_limit = ATTACHMENT_SIZE_LIMIT
        #: the driver refuses option values outside their declared bounds (min/max value and
        #: length, integer type) or choices, as Discord's client does; False plays a client
        #: that sends them anyway (to prove the bot checks too)
        self.enforce_option_bounds = True
        #: check every request against Discord's OpenAPI spec (sandbox/spec.py)
        self.check_spec = True
        #: every attachment's bytes by attachment id, served at its ``url``
        self.files: dict[int, StoredFile] = {}

        self.users: dict[int, User] = {}
        self.guilds: dict[int, Guild] = {}
        self.channels: dict[int, Channel] = {}
        self.messages: dict[int, Message] = {}
        self._channel_log: dict[int, list[int]] = {}
        self.interactions: list[Interaction] = []
        self._interactions_by_id: dict[int, Interaction] = {}
        self._interactions_by_token: dict[str, Interaction] = {}
        self.global_commands: list[dict[str, Any]] = []
        self.guild_commands: dict[int, list[dict[str, Any]]] = {}
        self.requests: list[RequestRecord] = []
        self.fail_rules: list[FailRule] = []
        self.hold_rules: list[HoldRule] = []
        self.identify_count = 0
        self.resume_count = 0
        self.replayed_events = 0

        self.bot_user = User(
            snowflake(), bot_name, bot=True, discriminator=f"{random.randint(1000, 9999)}"
        )
        self.users[self.bot_user.id] = self.bot_user
        self.application_id = self.bot_user.id
        self.token = token or util.make_token(self.bot_user.id)

        #: called with ("MESSAGE_CREATE" | "MESSAGE_UPDATE", message) on every stored change
        self.message_listeners: list[Callable[[str, Message], None]] = []
        self.gateway = Gateway(self)
        self._changed = asyncio.Event()
        self._runner: web.AppRunner | None = None

    # ------------------------------------------------------------------ lifecycle
    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def api_base(self) -> str:
        return f"{self.base_url}/api/v10"

    @property
    def gateway_url(self) -> str:
        return f"ws://{self.host}:{self.port}/gateway"

    def config_lines(self) -> str:
        """The config lines that point a bot at this sandbox."""
        return (
            "[discord]\n"
            f'api_base = "{self.api_base}"\n'
            f'gateway_url = "{self.gateway_url}"\n'
            f'token = "{self.token}"\n'
        )

    async def start(self) -> None:
        from .rest import RestApi

        app = web.Application(client_max_size=64 * 1024 * 1024)
        self.rest = RestApi(self)
        app.router.add_get("/gateway", self.gateway.handle)
        for cdn in ("attachments", "ephemeral-attachments"):
            app.router.add_get(
                f"/{cdn}/{{folder}}/{{attachment_id}}/{{filename}}", self._serve_file
            )
        app.router.add_route("*", "/api/v{version:\\d+}/{tail:.*}", self.rest.handle)
        app.router.add_route("*", "/{tail:.*}", self.rest.not_found)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        # Discord's edge accepts every connection a client opens; a client behind on its
        # answers opens one per waiting request (discord.py's pool has no limit), hundreds at
        # once, and aiohttp's default backlog of 128 dropped their SYNs: each retried after 1 s
        # and more, seconds the bench then read as the bot's.
        site = web.TCPSite(self._runner, self.host, self.port, backlog=socket.SOMAXCONN)
        await site.start()
        server = site._server
        if self.port == 0 and server is not None:
            sockets = getattr(server, "sockets", None) or []
            self.port = sockets[0].getsockname()[1]

    async def close(self) -> None:
        await self.gateway.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> Sandbox:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # ------------------------------------------------------------------ attachments (CDN)
    def _new_attachment(
        self,
        folder: int,
        filename: str,
        data: bytes,
        *,
        declared_type: str | None = None,
        description: str | None = None,
        title: str | None = None,
        ephemeral: bool = False,
    ) -> dict[str, Any]:
        """Store ``data`` and return the attachment object Discord would send, whose ``url``
        serves the bytes (``/attachments/{channel}/{id}/{name}``; an ephemeral upload such as a
        slash command's file option lives under ``/ephemeral-attachments/{app}/...``)."""
        aid = snowflake()
        ctype = util.detect_content_type(filename, data, declared_type)
        self.files[aid] = StoredFile(data, ctype)
        kind = "ephemeral-attachments" if ephemeral else "attachments"
        quoted = urllib.parse.quote(filename)
        att: dict[str, Any] = {
            "id": str(aid),
            "filename": filename,
            "size": len(data),
            "url": f"{self.base_url}/{kind}/{folder}/{aid}/{quoted}",
            "proxy_url": f"{self.base_url}/{kind}/{folder}/{aid}/{quoted}",
        }
        if ctype is not None:
            att["content_type"] = ctype
        if description is not None:
            att["description"] = description
        if title is not None:
            att["title"] = title
        size = util.image_size(data)
        if size is not None:
            att["width"], att["height"] = size
        if ephemeral:
            att["ephemeral"] = True
        return att

    def attachment_data(self, attachment: dict[str, Any] | str | int) -> bytes:
        """The bytes of an attachment (its object, its id or its url)."""
        if isinstance(attachment, dict):
            key = int(attachment["id"])
        elif isinstance(attachment, str) and "/" in attachment:
            key = int(urllib.parse.urlsplit(attachment).path.split("/")[-2])
        else:
            key = int(attachment)
        return self.files[key].data

    async def _serve_file(self, request: web.Request) -> web.StreamResponse:
        try:
            stored = self.files.get(int(request.match_info["attachment_id"]))
        except ValueError:
            stored = None
        if stored is None:
            return web.Response(status=404, text="This content is no longer available.")
        ctype = stored.content_type or "application/octet-stream"
        return web.Response(body=stored.data, headers={"Content-Type": ctype})

    # ------------------------------------------------------------------ change notification
    def _notify(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    async def _wait_change(self, timeout: float) -> None:
        event = self._changed
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(event.wait(), timeout)

    async def _wait_for(self, check: Callable[[], Any], timeout: float, what: str) -> Any:
        deadline = util.monotonic() + timeout
        while True:
            result = check()
            if result:
                return result
            remaining = deadline - util.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"timed out after {timeout} s waiting for {what}")
            await self._wait_change(remaining)

    # ------------------------------------------------------------------ world building
    def add_user(
        self, name: str, *, dms_open: bool = True, locale: str = "en-US", bot: bool = False
    ) -> User:
        user = User(snowflake(), name, bot=bot, dms_open=dms_open, locale=locale)
        self.users[user.id] = user
        return user

    def add_guild(
        self,
        name: str,
        *,
        owner: User | None = None,
        locale: str = "en-US",
        shard: tuple[int, int] | None = None,
    ) -> Guild:
        """A guild with @everyone, a managed bot role, the owner and the bot as members.
        ``shard=(shard_id, shard_count)`` picks an id that lands on that shard."""
        if owner is None:
            owner = self.add_user(f"{name} Owner")
        gid = util.snowflake_on_shard(*shard) if shard else snowflake()
        guild = Guild(self, gid, name, owner.id, locale=locale)
        guild.roles[gid] = Role(gid, gid, "@everyone", permissions=util.EVERYONE_DEFAULT)
        bot_role = Role(
            snowflake(),
            gid,
            self.bot_user.name,
            permissions=util.BOT_ROLE_DEFAULT,
            position=1,
            managed=True,
            bot_id=self.bot_user.id,
        )
        guild.roles[bot_role.id] = bot_role
        guild.bot_role_id = bot_role.id
        guild.members[owner.id] = Member(owner, gid)
        guild.members[self.bot_user.id] = Member(self.bot_user, gid, [bot_role.id])
        self.guilds[gid] = guild
        self.gateway.dispatch(
            "GUILD_CREATE",
            {},
            guild_id=gid,
            intent=util.INTENT_GUILDS,
            transform=lambda s, _d: guild.create_payload(
                all_members=bool(s.intents & util.INTENT_GUILD_MEMBERS), new_join=True
            ),
        )
        return guild

    def remove_bot_from(self, guild: Guild) -> None:
        """The bot is kicked from (or leaves) ``guild``: GUILD_DELETE without ``unavailable``
        (which would mean an outage); its channels are out of the bot's reach afterwards."""
        self.gateway.dispatch(
            "GUILD_DELETE", {"id": str(guild.id)}, guild_id=guild.id, intent=util.INTENT_GUILDS
        )
        for channel_id in guild.channel_ids:
            self.channels.pop(channel_id, None)
        self.guilds.pop(guild.id, None)
        self._notify()

    def set_outage(self, guild: Guild, down: bool = True) -> None:
        """A Discord outage of ``guild`` starts (``down``) or ends. It starts with GUILD_DELETE
        ``unavailable: true`` to the connected sessions; meanwhile an IDENTIFY lists the guild
        in READY as unavailable and sends no GUILD_CREATE for it (Discord's shape of a guild
        that is down, as opposed to one the bot was removed from: absent from READY). It ends
        with GUILD_CREATE. REST calls on the guild's channels are not refused meanwhile."""
        guild.outage = down
        if down:
            self.gateway.dispatch(
                "GUILD_DELETE",
                {"id": str(guild.id), "unavailable": True},
                guild_id=guild.id,
                intent=util.INTENT_GUILDS,
            )
        else:
            self.gateway.dispatch(
                "GUILD_CREATE",
                {},
                guild_id=guild.id,
                intent=util.INTENT_GUILDS,
                transform=lambda s, _d: guild.create_payload(
                    all_members=bool(s.intents & util.INTENT_GUILD_MEMBERS)
                ),
            )
        self._notify()

    def dm_channel(self, user: User) -> Channel:
        """The DM channel between the bot and ``user`` (created on first use)."""
        if user.dm_channel_id is None:
            channel = Channel(self, snowflake(), DM, recipient_id=user.id)
            self.channels[channel.id] = channel
            user.dm_channel_id = channel.id
        return self.channels[user.dm_channel_id]

    def mark_old(self, message: Message) -> None:
        """Treat ``message`` as older than one hour (for the 30046 edit limit)."""
        message.marked_old = True

    # ------------------------------------------------------------------ lookups
    def user(self, user_id: int) -> User:
        return self.users[int(user_id)]

    def channel(self, channel_id: int | Channel) -> Channel:
        cid = channel_id.id if isinstance(channel_id, Channel) else int(channel_id)
        return self.channels[cid]

    def message(self, message_id: int) -> Message:
        return self.messages[int(message_id)]

    def _messages_of(self, channel: Channel) -> list[Message]:
        return [
            self.messages[m]
            for m in self._channel_log.get(channel.id, [])
            if not self.messages[m].deleted
        ]

    def channel_messages(
        self, channel: Channel, *, ephemeral: bool = False, system: bool = False
    ) -> list[Message]:
        """Messages in a channel or thread, oldest first. Ephemeral and system messages
        (e.g. "pinned a message") are left out unless asked for."""
        return [
            m
            for m in self._messages_of(channel)
            if (ephemeral or not m.ephemeral) and (system or m.type in (0, 19, 20, 23))
        ]

    def messages_in(self, channel: Channel) -> list[Message]:
        return self.channel_messages(channel)

    def dms(self, user: User) -> list[Message]:
        """Every message in the DM channel with ``user`` (both directions), oldest first."""
        if user.dm_channel_id is None:
            return []
        return self.channel_messages(self.channels[user.dm_channel_id], ephemeral=True)

    def pins(self, channel: Channel) -> list[Message]:
        """Pinned messages, most recently pinned first (Discord's order)."""
        pinned = [m for m in self._messages_of(channel) if m.pinned]
        return sorted(pinned, key=lambda m: m.pinned_at or m.created_at, reverse=True)

    def ephemeral_for(self, user: User) -> list[Message]:
        """Ephemeral messages only ``user`` can see, oldest first."""
        return [
            m
            for m in sorted(self.messages.values(), key=lambda m: m.id)
            if m.ephemeral and m.ephemeral_to == user.id and not m.deleted
        ]

    def threads(self, parent: Channel) -> list[Channel]:
        return [c for c in self.channels.values() if c.parent_id == parent.id and c.is_thread]

    def thread_of(self, obj: Message | Channel, name: str | None = None) -> Channel | None:
        """The thread started from a message (or whose first message it is), or the newest
        thread under a text/forum channel (optionally with that name)."""
        if isinstance(obj, Message):
            thread = self.channels.get(obj.id)
            if thread is not None and thread.is_thread:
                return thread
            channel = self.channels.get(obj.channel_id)
            return channel if channel is not None and channel.is_thread else None
        candidates = [t for t in self.threads(obj) if name is None or t.name == name]
        return max(candidates, key=lambda t: t.id) if candidates else None

    def spec_violations(self) -> list[RequestRecord]:
        """Requests that Discord's OpenAPI spec refused (unknown route or invalid body)."""
        return [r for r in self.requests if r.spec_refused]

    def requests_to(self, route: str) -> list[RequestRecord]:
        """Logged requests whose route ("POST /channels/{channel_id}/messages") contains
        ``route``."""
        return [r for r in self.requests if route in r.route]

    def shard_ids_for(self, guild: Guild | None) -> list[int]:
        """Shard ids of the connected sessions that receive this guild's events (None: DMs)."""
        return self.gateway.shard_ids_for(guild.id if guild else None)

    # ------------------------------------------------------------------ waiting helpers
    @staticmethod
    def _match(
        m: Message, contains: str | None, predicate: Callable[[Message], bool] | None
    ) -> bool:
        if contains is not None and not m.contains(contains):
            return False
        return predicate is None or predicate(m)

    async def _wait_newest(
        self,
        messages: Callable[[], list[Message]],
        contains: str | None,
        predicate: Callable[[Message], bool] | None,
        timeout: float,
        what: str,
    ) -> Message:
        """The newest of ``messages()`` that matches; waits for one."""

        def check() -> Message | None:
            for m in reversed(messages()):
                if self._match(m, contains, predicate):
                    return m
            return None

        result: Message = await self._wait_for(check, timeout, f"{what} containing {contains!r}")
        return result

    async def wait_for_message(
        self,
        channel: Channel,
        contains: str | None = None,
        *,
        timeout: float = 10.0,
        predicate: Callable[[Message], bool] | None = None,
        from_bot: bool = True,
    ) -> Message:
        """The newest matching (non-ephemeral) message in ``channel``; waits for one if none
        matches yet. Matching looks at content, embeds and text displays."""
        return await self._wait_newest(
            lambda: [m for m in self.channel_messages(channel) if m.author_is_bot or not from_bot],
            contains,
            predicate,
            timeout,
            f"a message in {channel!r}",
        )

    async def wait_for_dm(
        self,
        user: User,
        contains: str | None = None,
        *,
        timeout: float = 10.0,
        predicate: Callable[[Message], bool] | None = None,
    ) -> Message:
        """The newest DM from the bot to ``user`` that matches; waits for one."""
        return await self._wait_newest(
            lambda: [m for m in self.dms(user) if m.author_is_bot],
            contains,
            predicate,
            timeout,
            f"a DM to {user.name}",
        )

    async def wait_for_ephemeral(
        self,
        user: User,
        contains: str | None = None,
        *,
        timeout: float = 10.0,
        predicate: Callable[[Message], bool] | None = None,
    ) -> Message:
        return await self._wait_newest(
            lambda: self.ephemeral_for(user),
            contains,
            predicate,
            timeout,
            f"an ephemeral message to {user.name}",
        )

    async def wait_until_connected(
        self,
        *,
        guild: Guild | None = None,
        shards: int | None = None,
        timeout: float = 10.0,
        connected: bool = True,
    ) -> None:
        """Wait until a gateway session receives ``guild``'s events (or DMs), or until
        ``shards`` sessions are live. ``connected=False`` also accepts a session that is
        disconnected but resumable (its events are buffered for the RESUME)."""

        def check() -> bool:
            live = [s for s in self.gateway.live_sessions() if s.conn is not None or not connected]
            if shards is not None:
                return len(live) >= shards
            gid = guild.id if guild else None
            return any(s.handles_guild(gid) for s in live)

        await self._wait_for(check, timeout, "the bot's gateway connection")

    # ------------------------------------------------------------------ gateway controls
    async def drop_connections(self, *, hold: bool = False) -> None:
        """Close every gateway connection as a network drop would (sessions stay resumable).
        With ``hold=True`` reconnections wait (no HELLO) until :meth:`release_connections`."""
        await self.gateway.drop(hold=hold)

    def release_connections(self) -> None:
        self.gateway.release()

    def replay_on_resume(self, events: int) -> None:
        """Make the next RESUME replay the last ``events`` events the bot had already received
        (before the ones it missed), as Discord may: with :meth:`drop_connections`, the bot
        sees some INTERACTION_CREATE twice."""
        self.gateway.replay_extra = events

    async def redeliver(self, ix: Interaction) -> Interaction:
        """Deliver the same INTERACTION_CREATE again (the same id and token), as after a RESUME
        that replays it: the bot must act once; its second callback gets 40060."""
        guild = ix.channel.guild
        self.gateway.dispatch(
            "INTERACTION_CREATE", ix.payload, guild_id=guild.id if guild else None
        )
        self._notify()
        return ix

    # ------------------------------------------------------------------ failures
    def fail_route(
        self,
        method: str,
        path_regex: str,
        *,
        status: int = 429,
        retry_after: float = 0.05,
        times: int = 1,
        code: int = 0,
        message: str | None = None,
        is_global: bool = False,
    ) -> None:
        """Answer the next ``times`` matching requests (path after /api/v10, e.g.
        ``r"/channels/\\d+/messages"``) with ``status``; 429s carry Discord's headers and body.
        ``status`` 0 (``DROPPED``): close the connection without an answer, the request not
        performed."""
        default = "You are being rate limited." if status == 429 else f"{status}: Injected"
        self.fail_rules.append(
            FailRule(
                method.upper(),
                re.compile(path_regex),
                status,
                times,
                retry_after,
                code,
                message or default,
                is_global,
            )
        )

    def hold_route(
        self, method: str, path_regex: str, *, times: int = 1, after: bool = False, skip: int = 0
    ) -> HoldRule:
        """Hold the next ``times`` matching requests (after letting ``skip`` through) until
        ``rule.release()``: before they take effect, or with ``after=True`` once performed,
        holding only the answer (a client killed meanwhile never learns that its message was
        created)."""
        rule = HoldRule(
            method.upper(),
            re.compile(path_regex),
            times,
            after,
            asyncio.Event(),
            asyncio.Event(),
            skip=skip,
        )
        self.hold_rules.append(rule)
        return rule

    # ------------------------------------------------------------------ dispatch helpers
    def _dispatch_guild_event(
        self,
        guild: Guild,
        event: str,
        data: dict[str, Any],
        *,
        intent: int = util.INTENT_GUILDS,
    ) -> None:
        self.gateway.dispatch(event, data, guild_id=guild.id, intent=intent)
        self._notify()

    def _dispatch_channel_create(self, channel: Channel) -> None:
        self.gateway.dispatch(
            "CHANNEL_CREATE",
            channel.payload(),
            guild_id=channel.guild_id,
            intent=util.INTENT_GUILDS,
        )
        self._notify()

    def _dispatch_channel_update(self, channel: Channel) -> None:
        if channel.is_thread:
            self._dispatch_thread_update(channel)
            return
        self.gateway.dispatch(
            "CHANNEL_UPDATE",
            channel.payload(),
            guild_id=channel.guild_id,
            intent=util.INTENT_GUILDS,
        )
        self._notify()

    def _dispatch_thread_create(self, thread: Channel) -> None:
        data = thread.payload(for_user=self.bot_user.id)
        data["newly_created"] = True
        self.gateway.dispatch(
            "THREAD_CREATE", data, guild_id=thread.guild_id, intent=util.INTENT_GUILDS
        )
        self._notify()

    def _dispatch_thread_update(self, thread: Channel) -> None:
        self.gateway.dispatch(
            "THREAD_UPDATE",
            thread.payload(for_user=self.bot_user.id),
            guild_id=thread.guild_id,
            intent=util.INTENT_GUILDS,
        )
        self._notify()

    def _dispatch_member_add(self, guild: Guild, member: Member) -> None:
        data = member.payload()
        data["guild_id"] = str(guild.id)
        self._dispatch_guild_event(
            guild, "GUILD_MEMBER_ADD", data, intent=util.INTENT_GUILD_MEMBERS
        )

    def _dispatch_member_update(self, guild: Guild, member: Member) -> None:
        data = member.payload()
        data["guild_id"] = str(guild.id)
        self._dispatch_guild_event(
            guild, "GUILD_MEMBER_UPDATE", data, intent=util.INTENT_GUILD_MEMBERS
        )

    def _message_intent(self, msg: Message) -> int:
        return util.INTENT_GUILD_MESSAGES if msg.guild_id else util.INTENT_DIRECT_MESSAGES

    def _content_filter(self, msg: Message) -> Callable[[Any, dict[str, Any]], dict[str, Any]]:
        """Without the MESSAGE_CONTENT intent, guild messages from others arrive empty."""

        def transform(session: Any, data: dict[str, Any]) -> dict[str, Any]:
            if (
                session.intents & util.INTENT_MESSAGE_CONTENT
                or msg.guild_id is None
                or msg.author_is_bot
                or self.bot_user.id in msg.mentions
            ):
                return data
            stripped = dict(data)
            stripped.update(content="", embeds=[], attachments=[], components=[])
            return stripped

        return transform

    def _dispatch_message(self, event: str, msg: Message) -> None:
        for listener in self.message_listeners:
            listener(event, msg)
        if not msg.ephemeral:
            self.gateway.dispatch(
                event,
                msg.payload(for_gateway=True),
                guild_id=msg.guild_id,
                intent=self._message_intent(msg),
                transform=self._content_filter(msg),
            )
        self._notify()

    def _dispatch_message_delete(self, msg: Message) -> None:
        if not msg.ephemeral:
            data: dict[str, Any] = {"id": str(msg.id), "channel_id": str(msg.channel_id)}
            if msg.guild_id:
                data["guild_id"] = str(msg.guild_id)
            self.gateway.dispatch(
                "MESSAGE_DELETE", data, guild_id=msg.guild_id, intent=self._message_intent(msg)
            )
        self._notify()

    # ------------------------------------------------------------------ messages
    def _store_message(self, msg: Message) -> Message:
        self.messages[msg.id] = msg
        self._channel_log.setdefault(msg.channel_id, []).append(msg.id)
        channel = self.channels.get(msg.channel_id)
        if channel is not None and not msg.ephemeral:
            channel.last_message_id = msg.id
            if channel.is_thread:
                channel.message_count += 1
        return msg

    def _mentions_in(self, content: str, allowed: dict[str, Any] | None) -> list[int]:
        ids = [int(x) for x in re.findall(r"<@!?(\d+)>", content or "")]
        if allowed is not None:
            parse = allowed.get("parse") or []
            listed = {int(u) for u in allowed.get("users") or []}
            ids = [i for i in ids if "users" in parse or i in listed]
        return [i for i in dict.fromkeys(ids) if i in self.users]

    def _role_mentions_in(self, content: str, allowed: dict[str, Any] | None) -> list[int]:
        """The roles a message pings: those its ``<@&id>`` name that its allowed mentions let
        through (all of them without any, as Discord does)."""
        ids = [int(x) for x in re.findall(r"<@&(\d+)>", content or "")]
        if allowed is not None:
            parse = allowed.get("parse") or []
            listed = {int(r) for r in allowed.get("roles") or []}
            ids = [i for i in ids if "roles" in parse or i in listed]
        return list(dict.fromkeys(ids))

    async def say(self, user: User, channel: Channel, content: str) -> Message:
        """``user`` posts ``content`` in ``channel`` (a guild channel, thread or their DM
        channel with the bot): MESSAGE_CREATE."""
        if channel.type == GUILD_FORUM:
            raise SandboxError("post in a forum thread, not the forum channel itself")
        guild = channel.guild
        if guild is not None:
            if user.id not in guild.members:
                raise SandboxError(f"{user.name} is not a member of {guild.name}")
            if not guild.permissions_in(user.id, channel) & util.VIEW_CHANNEL:
                raise SandboxError(f"{user.name} cannot see {channel.name}")
            if not self.can_post(user, channel):
                raise SandboxError(f"{user.name} may not post in {channel.name}")
        msg = Message(
            self,
            snowflake(),
            channel.id,
            user.id,
            content=content,
            guild_id=channel.guild_id,
            mentions=self._mentions_in(content, None),
        )
        self._store_message(msg)
        self._dispatch_message("MESSAGE_CREATE", msg)
        return msg

    def can_post(self, user: User, channel: Channel) -> bool:
        """Whether Discord lets ``user`` post in the guild channel or thread: Send Messages (in
        Threads, for a thread, which also must not be locked) from the channel's overwrites."""
        guild = channel.guild
        if guild is None:
            return True
        perms = guild.permissions_in(user.id, channel)
        if channel.is_thread:
            return bool(perms & util.SEND_MESSAGES_IN_THREADS) and (
                not channel.locked or bool(perms & util.MANAGE_THREADS)
            )
        return bool(perms & util.SEND_MESSAGES)

    # ------------------------------------------------------------------ commands
    def commands(self, guild: Guild | None = None) -> list[dict[str, Any]]:
        """The commands the bot registered (global, or for ``guild``)."""
        if guild is None:
            return self.global_commands
        return self.guild_commands.get(guild.id, [])

    def find_command(self, name: str, guild: Guild | None = None, type_: int = 1) -> dict[str, Any]:
        pools = ([self.guild_commands.get(guild.id, [])] if guild else []) + [self.global_commands]
        for pool in pools:
            for cmd in pool:
                if cmd["name"] == name and cmd.get("type", 1) == type_:
                    return cmd
        raise SandboxError(f"the bot registered no command /{name}")

    # ------------------------------------------------------------------ interactions
    def _new_interaction(
        self, type_: int, user: User, channel: Channel, data: dict[str, Any]
    ) -> Interaction:
        iid = snowflake()
        raw = f"interaction:{iid}:{secrets.token_urlsafe(48)}"
        token = base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")
        guild = channel.guild
        payload: dict[str, Any] = {
            "id": str(iid),
            "application_id": str(self.application_id),
            "type": type_,
            "data": data,
            "token": token,
            "version": 1,
            "locale": user.locale,
            "entitlements": [],
            "attachment_size_limit": self.attachment_size_limit,
            "channel_id": str(channel.id),
        }
        if guild is not None:
            member = guild.members.get(user.id)
            if member is None:
                raise SandboxError(f"{user.name} is not a member of {guild.name}")
            perms = guild.permissions_in(user.id, channel)
            if not perms & util.VIEW_CHANNEL:
                raise SandboxError(f"{user.name} cannot see #{channel.name}")
            mdata = member.payload()
            mdata["permissions"] = str(perms)
            chan = channel.payload()
            chan["permissions"] = str(perms)
            payload.update(
                guild_id=str(guild.id),
                guild_locale=guild.locale,
                guild={"id": str(guild.id), "locale": guild.locale, "features": ["COMMUNITY"]},
                member=mdata,
                channel=chan,
                app_permissions=str(guild.permissions_in(self.bot_user.id, channel)),
                authorizing_integration_owners={"0": str(guild.id)},
                context=0,
            )
        else:
            chan = channel.payload()
            chan["permissions"] = str(DM_PERMISSIONS)
            payload.update(
                user=user.payload(),
                channel=chan,
                app_permissions=str(DM_PERMISSIONS),
                authorizing_integration_owners={"0": "0"},
                context=1,
            )
        ix = Interaction(self, iid, token, type_, user, channel, payload)
        return ix

    async def _send_interaction(self, ix: Interaction) -> Interaction:
        guild = ix.channel.guild
        await self.wait_until_connected(guild=guild, connected=False)
        self.interactions.append(ix)
        self._interactions_by_id[ix.id] = ix
        self._interactions_by_token[ix.token] = ix
        ix.sent_at = util.monotonic()
        self.gateway.dispatch(
            "INTERACTION_CREATE", ix.payload, guild_id=guild.id if guild else None
        )
        self._notify()
        return ix

    def _channel_for(self, user: User, channel: Channel | None) -> Channel:
        return channel if channel is not None else self.dm_channel(user)

    def _check_command_visible(self, cmd: dict[str, Any], user: User, channel: Channel) -> None:
        guild = channel.guild
        contexts = cmd.get("contexts")
        context = 0 if guild else 1
        if contexts is not None and context not in contexts:
            where = "in servers" if guild else "in DMs"
            raise SandboxError(f"/{cmd['name']} is not available {where}")
        if guild is None and cmd.get("dm_permission") is False and contexts is None:
            raise SandboxError(f"/{cmd['name']} is not available in DMs")
        if guild is not None and cmd.get("default_member_permissions") is not None:
            needed = int(cmd["default_member_permissions"])
            perms = guild.permissions_in(user.id, channel)
            if perms & needed != needed and not perms & util.ADMINISTRATOR:
                raise SandboxError(f"{user.name} cannot see /{cmd['name']} (permissions)")

    def _option_value(
        self,
        opt: dict[str, Any],
        value: Any,
        resolved: dict[str, Any],
        guild: Guild | None,
        channel: Channel,
    ) -> Any:
        otype = opt["type"]
        name = opt["name"]
        if otype == 3:
            value = str(value)
        elif otype == 4:
            if self.enforce_option_bounds and (
                isinstance(value, bool) or not float(value).is_integer()
            ):
                raise SandboxError(f"option {name!r} takes an integer, not {value!r}")
            value = int(value)
        elif otype == 5:
            value = bool(value)
        elif otype == 10:
            value = float(value)
        elif otype in (6, 9) and isinstance(value, User | Member):
            user = value.user if isinstance(value, Member) else value
            resolved.setdefault("users", {})[str(user.id)] = user.payload()
            member = guild.members.get(user.id) if guild else None
            if member is not None and guild is not None:
                mdata = member.payload(with_user=False)
                mdata["permissions"] = str(guild.permissions_in(user.id, channel))
                resolved.setdefault("members", {})[str(user.id)] = mdata
            return str(user.id)
        elif otype in (8, 9) and isinstance(value, Role):
            resolved.setdefault("roles", {})[str(value.id)] = value.payload()
            return str(value.id)
        elif otype == 7 and isinstance(value, Channel):
            kinds = opt.get("channel_types")
            if kinds and value.type not in kinds:  # the client offers only those channels
                raise SandboxError(f"option {name!r} takes a channel of type {kinds}")
            cdata = value.payload()
            perms = guild.permissions_in(self.users[self._acting].id, value) if guild else 0
            cdata["permissions"] = str(perms)
            resolved.setdefault("channels", {})[str(value.id)] = cdata
            return str(value.id)
        elif otype == 11 and isinstance(value, Upload):
            if value.size > self.attachment_size_limit:
                raise SandboxError(
                    f"{value.filename} is {value.size} bytes: Discord's client refuses files "
                    f"over {self.attachment_size_limit} bytes"
                )
            att = self._new_attachment(
                self.application_id,
                value.filename,
                value.data,
                declared_type=value.content_type,
                description=value.description,
                ephemeral=True,
            )
            if value.content_type is not None:
                att["content_type"] = value.content_type
            resolved.setdefault("attachments", {})[att["id"]] = att
            return att["id"]
        elif otype in (6, 7, 8, 9, 11):
            raise SandboxError(f"option {name!r} needs a sandbox object, got {value!r}")
        if self.enforce_option_bounds:
            _check_bounds(opt, value)
        choices = opt.get("choices")
        if self.enforce_option_bounds and choices and value not in [c["value"] for c in choices]:
            raise SandboxError(f"{value!r} is not a choice of option {name!r}")
        return value

    _acting: int = 0

    def _command_data(
        self,
        user: User,
        path: str,
        channel: Channel,
        options: dict[str, Any],
        *,
        focused: str | None = None,
    ) -> dict[str, Any]:
        parts = path.strip().lstrip("/").split()
        if channel.type == GUILD_FORUM:
            # A forum channel has no message box: Discord's client runs no command in it, only
            # in its posts (threads) and other channels.
            raise SandboxError(f"/{path}: a forum channel has no message box to run a command in")
        guild = channel.guild
        cmd = self.find_command(parts[0], guild)
        self._check_command_visible(cmd, user, channel)
        self._acting = user.id
        defs: list[dict[str, Any]] = cmd.get("options") or []
        chain: list[dict[str, Any]] = []
        for sub in parts[1:]:
            found = next((o for o in defs if o["name"] == sub and o["type"] in (1, 2)), None)
            if found is None:
                raise SandboxError(f"/{cmd['name']} has no subcommand {sub!r}")
            chain.append(found)
            defs = found.get("options") or []
        if any(o["type"] in (1, 2) for o in defs):
            raise SandboxError(f"/{path} is a group: name a subcommand")
        resolved: dict[str, Any] = {}
        leaf: list[dict[str, Any]] = []
        by_name = {o["name"]: o for o in defs}
        for key, value in options.items():
            opt = by_name.get(key)
            if opt is None:
                raise SandboxError(f"/{path} has no option {key!r} (has {sorted(by_name)})")
            if value is None:
                continue
            entry: dict[str, Any] = {"name": key, "type": opt["type"]}
            if key == focused:
                entry["value"] = str(value)
                entry["focused"] = True
            else:
                entry["value"] = self._option_value(opt, value, resolved, guild, channel)
            leaf.append(entry)
        if focused is None:
            missing = [o["name"] for o in defs if o.get("required") and o["name"] not in options]
            if missing:
                raise SandboxError(
                    f"/{path} needs {'option' if len(missing) == 1 else 'options'} {missing}"
                )
        elif focused not in options:
            raise SandboxError(f"autocomplete: give a value for the focused option {focused!r}")
        nested = leaf
        for sub in reversed(chain):
            nested = [{"name": sub["name"], "type": sub["type"], "options": nested}]
        data: dict[str, Any] = {
            "id": cmd["id"],
            "name": cmd["name"],
            "type": cmd.get("type", 1),
            "options": nested,
        }
        if resolved:
            data["resolved"] = resolved
        if cmd.get("guild_id"):
            data["guild_id"] = cmd["guild_id"]
        return data

    async def slash(
        self,
        user: User,
        command: str,
        /,
        *,
        channel: Channel | None = None,
        named: dict[str, Any] | None = None,
        **options: Any,
    ) -> Interaction:
        """``user`` runs ``/command`` ("group sub" for subcommands) in ``channel`` (default:
        their DM with the bot). Users/members/roles/channels as sandbox objects; ``named``:
        options whose names are this method's own (an option called ``channel``)."""
        options = {**(named or {}), **options}
        channel = self._channel_for(user, channel)
        data = self._command_data(user, command, channel, options)
        ix = self._new_interaction(2, user, channel, data)
        return await self._send_interaction(ix)

    async def autocomplete(
        self,
        user: User,
        command: str,
        *,
        channel: Channel | None = None,
        focused: str,
        timeout: float = 5.0,
        **options: Any,
    ) -> list[dict[str, Any]]:
        """Send an autocomplete interaction (type 4); return the choices the bot answered
        (``[{"name": ..., "value": ...}]``)."""
        channel = self._channel_for(user, channel)
        data = self._command_data(user, command, channel, options, focused=focused)
        ix = self._new_interaction(4, user, channel, data)
        await self._send_interaction(ix)
        ctype = await ix.wait_ack(timeout)
        if ctype != 8:
            raise SandboxError(f"autocomplete answered with callback type {ctype}")
        return ix.choices or []

    def _find_component(
        self,
        msg: Message,
        kinds: tuple[int, ...],
        *,
        label: str | None = None,
        custom_id: str | None = None,
    ) -> dict[str, Any]:
        for comp in msg.all_components:
            if comp.get("type") not in kinds:
                continue
            if custom_id is not None and comp.get("custom_id") != custom_id:
                continue
            if label is not None and comp.get("label") != label:
                continue
            return comp
        raise SandboxError(
            f"no component {label or custom_id!r} on message {msg.id} "
            f"(buttons: {msg.labels}, selects: {[s.get('custom_id') for s in msg.selects]})"
        )

    def _component_interaction(
        self, user: User, msg: Message, data: dict[str, Any], channel: Channel | None = None
    ) -> Interaction:
        msg = self.messages.get(msg.id, msg)
        if msg.deleted:
            raise SandboxError("the message was deleted")
        if channel is None:
            if msg.ephemeral and msg.ephemeral_to != user.id:
                raise SandboxError(f"{user.name} cannot see this ephemeral message")
            channel = self.channels[msg.channel_id]
            if channel.is_dm and channel.recipient_id != user.id:
                raise SandboxError(f"{user.name} cannot see another user's DM")
        ix = self._new_interaction(3, user, channel, data)
        ix.payload["message"] = msg.payload()
        ix.message = msg
        return ix

    async def click(
        self,
        user: User,
        message: Message,
        *,
        label: str | None = None,
        custom_id: str | None = None,
        channel: Channel | None = None,
        late: float = 0.0,
    ) -> Interaction:
        """``user`` clicks a button (by label or custom_id) on ``message``. ``channel``: where
        the click happens when it is not the message's own channel (e.g. ``user``'s DM with a
        forwarded copy of someone else's DM); the visibility checks are then skipped.
        ``late``: seconds between the interaction's creation (its snowflake's time) and its
        delivery, as when the gateway or the bot's shard falls behind (the 3 s window to
        acknowledge still counts from the delivery here)."""
        comp = self._find_component(message, (2,), label=label, custom_id=custom_id)
        if comp.get("disabled"):
            raise SandboxError(f"button {comp.get('label')!r} is disabled")
        if comp.get("style") in (5, 6) or "custom_id" not in comp:
            raise SandboxError("link/premium buttons do not send interactions")
        data: dict[str, Any] = {"custom_id": comp["custom_id"], "component_type": 2}
        if "id" in comp:
            data["id"] = comp["id"]
        ix = self._component_interaction(user, message, data, channel)
        if late > 0:
            await asyncio.sleep(late)
        return await self._send_interaction(ix)

    async def forged_click(
        self, user: User, message: Message, custom_id: str, *, component_type: int = 2
    ) -> Interaction:
        """A component interaction with a custom_id the bot never sent: a tampered client, as if
        Discord relayed it with a message whose first button carries it (the copy in the
        interaction only; the stored message is unchanged)."""
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": component_type}
        ix = self._component_interaction(user, message, data)
        forged = copy.deepcopy(ix.payload["message"])
        for row in forged.get("components") or []:
            for comp in row.get("components") or []:
                if comp.get("type") == component_type and "custom_id" in comp:
                    comp["custom_id"] = custom_id
                    break
            else:
                continue
            break
        ix.payload["message"] = forged
        return await self._send_interaction(ix)

    async def select(
        self,
        user: User,
        message: Message,
        *,
        values: list[Any],
        custom_id: str | None = None,
        channel: Channel | None = None,
    ) -> Interaction:
        """``user`` picks ``values`` in a select menu on ``message`` (string values for a
        string select; users/roles/channels for the other kinds)."""
        comp = self._find_component(message, (3, 5, 6, 7, 8), custom_id=custom_id)
        if comp.get("disabled"):
            raise SandboxError("the select menu is disabled")
        ctype = comp["type"]
        lo, hi = comp.get("min_values", 1), comp.get("max_values", 1)
        if not lo <= len(values) <= hi:
            raise SandboxError(f"select needs between {lo} and {hi} values, got {len(values)}")
        where = channel or self.channels[message.channel_id]
        guild = where.guild
        resolved: dict[str, Any] = {}
        out: list[str] = []
        if ctype == 3:
            allowed = [o["value"] for o in comp.get("options") or []]
            for v in values:
                if v not in allowed:
                    raise SandboxError(f"{v!r} is not an option of the select ({allowed})")
                out.append(str(v))
        else:
            self._acting = user.id
            kind = {5: 6, 6: 8, 7: 9, 8: 7}[ctype]
            for v in values:
                out.append(
                    self._option_value({"type": kind, "name": "value"}, v, resolved, guild, where)
                )
        data: dict[str, Any] = {
            "custom_id": comp["custom_id"],
            "component_type": ctype,
            "values": out,
        }
        if "id" in comp:
            data["id"] = comp["id"]
        if resolved:
            data["resolved"] = resolved
        ix = self._component_interaction(user, message, data, channel)
        return await self._send_interaction(ix)

    async def submit_modal(
        self, user: User, ix: Interaction, values: Mapping[str, str | list[str]]
    ) -> Interaction:
        """Submit the modal the bot opened in answer to ``ix`` (text inputs by custom_id; a
        select inside a label takes a list of values)."""
        if ix.modal is None:
            raise SandboxError("that interaction was not answered with a modal")
        rows: list[dict[str, Any]] = []
        for comp in ix.modal.get("components") or []:
            if comp.get("type") == 1:
                inner = []
                for c in comp.get("components") or []:
                    inner.append(
                        {
                            "type": c["type"],
                            "id": c.get("id", 0),
                            "custom_id": c["custom_id"],
                            "value": values.get(c["custom_id"], c.get("value") or ""),
                        }
                    )
                rows.append({"type": 1, "id": comp.get("id", 0), "components": inner})
            elif comp.get("type") == 18:
                c = comp["component"]
                sub: dict[str, Any] = {
                    "type": c["type"],
                    "id": c.get("id", 0),
                    "custom_id": c["custom_id"],
                }
                if c["type"] == 4:
                    sub["value"] = values.get(c["custom_id"], c.get("value") or "")
                else:
                    raw = values.get(c["custom_id"], [])
                    sub["values"] = raw if isinstance(raw, list) else [raw]
                rows.append({"type": 18, "id": comp.get("id", 0), "component": sub})
        data = {"custom_id": ix.modal["custom_id"], "components": rows}
        new = self._new_interaction(5, user, ix.channel, data)
        if ix.message is not None:
            new.payload["message"] = ix.message.payload()
            new.message = ix.message
        return await self._send_interaction(new)

    def interaction(self, ix_id: int) -> Interaction:
        return self._interactions_by_id[ix_id]

    # ------------------------------------------------------------------ misc
    def is_text_like(self, channel: Channel) -> bool:
        return channel.type in (GUILD_TEXT, DM) or channel.is_thread

    def _is_ephemeral_flags(self, flags: int) -> bool:
        return bool(flags & EPHEMERAL)


#: Discord's integers and numbers stay within ±(2^53 - 1) (the spec's Int53Type); strings at most
#: 6,000 characters.
MAX_SAFE_NUMBER = 2**53 - 1
MAX_STRING_OPTION = 6000


def _check_bounds(opt: dict[str, Any], value: Any) -> None:
    """What Discord's client refuses to send: a number outside the option's declared
    ``min_value``/``max_value`` (or ±2^53), a string outside ``min_length``/``max_length``."""
    name, otype = opt["name"], opt["type"]
    if otype in (4, 10):
        low = opt.get("min_value", -MAX_SAFE_NUMBER)
        high = opt.get("max_value", MAX_SAFE_NUMBER)
        if not low <= value <= high:
            raise SandboxError(
                f"Discord's client refuses {value!r} for option {name!r}: "
                f"it must be between {low} and {high}"
            )
    elif otype == 3:
        low = opt.get("min_length", 0)
        high = opt.get("max_length", MAX_STRING_OPTION)
        if not low <= len(value) <= high:
            raise SandboxError(
                f"Discord's client refuses {len(value)} characters for option {name!r}: "
                f"it takes {low} to {high}"
            )
