"""REST API v10: the routes discord.py calls, with Discord's payloads and error codes."""

from __future__ import annotations

import logging
import math
import re
import time
import unicodedata
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any

import orjson
from aiohttp import BodyPartReader, web

from . import util
from .models import (
    COMPONENTS_V2,
    DM,
    EPHEMERAL,
    GUILD_FORUM,
    GUILD_TEXT,
    LOADING,
    MAX_ATTACHMENTS,
    MAX_REQUEST_SIZE,
    PRIVATE_THREAD,
    PUBLIC_THREAD,
    REQUIRE_TAG,
    Channel,
    Guild,
    Interaction,
    Message,
    Overwrite,
    iter_components,
)
from .spec import discord_spec
from .util import ApiError, form_error, snowflake, unknown

if TYPE_CHECKING:
    from .core import Sandbox

log = logging.getLogger(__name__)

Json = Any
Result = tuple[int, Json]


@dataclass
class Req:
    method: str
    params: dict[str, str]
    query: dict[str, str]
    body: Json
    files: list[dict[str, Any]] = field(default_factory=list)

    def id(self, name: str) -> int:
        try:
            return int(self.params[name])
        except ValueError:
            raise form_error(name, "NUMBER_TYPE_COERCE", "Value is not snowflake.") from None

    @property
    def json(self) -> dict[str, Any]:
        return self.body if isinstance(self.body, dict) else {}


Handler = Callable[[Req], Awaitable[Result]]


@dataclass
class RouteDef:
    method: str
    template: str
    regex: re.Pattern[str]
    handler: Handler
    auth: bool


NONCE_SECONDS = 300.0  # how long Discord remembers an enforced nonce ("a few minutes")
#: A fail rule's status that drops the connection instead of answering (Sandbox.fail_route).
DROPPED = 0


class RestApi:
    def __init__(self, sb: Sandbox) -> None:
        self.sb = sb
        self.routes: list[RouteDef] = []
        self._nonces: dict[tuple[int, str], tuple[int, float]] = {}  # -> (message id, when)
        r = self._route
        r("GET", "/gateway", self.get_gateway, auth=False)
        r("GET", "/gateway/bot", self.get_gateway_bot)
        r("GET", "/users/@me", self.get_me)
        r("PATCH", "/users/@me", self.get_me)
        r("POST", "/users/@me/channels", self.create_dm)
        r("GET", "/users/{user_id}", self.get_user)
        r("GET", "/oauth2/applications/@me", self.get_application)
        r("GET", "/applications/@me", self.get_application)
        r("PATCH", "/applications/@me", self.get_application)
        for prefix in (
            "/applications/{application_id}",
            "/applications/{application_id}/guilds/{guild_id}",
        ):
            r("GET", prefix + "/commands", self.get_commands)
            r("PUT", prefix + "/commands", self.put_commands)
            r("POST", prefix + "/commands", self.post_command)
            r("GET", prefix + "/commands/{command_id}", self.get_command)
            r("PATCH", prefix + "/commands/{command_id}", self.patch_command)
            r("DELETE", prefix + "/commands/{command_id}", self.delete_command)
        r("GET", "/guilds/{guild_id}", self.get_guild)
        r("GET", "/guilds/{guild_id}/members", self.list_members)
        r("GET", "/guilds/{guild_id}/members/{user_id}", self.get_member)
        r("GET", "/guilds/{guild_id}/roles", self.get_roles)
        r("GET", "/guilds/{guild_id}/channels", self.get_guild_channels)
        r("GET", "/guilds/{guild_id}/threads/active", self.get_active_threads)
        r("GET", "/channels/{channel_id}", self.get_channel)
        r("PATCH", "/channels/{channel_id}", self.patch_channel)
        r("PUT", "/channels/{channel_id}/permissions/{overwrite_id}", self.put_overwrite)
        r("DELETE", "/channels/{channel_id}/permissions/{overwrite_id}", self.delete_overwrite)
        r("POST", "/channels/{channel_id}/threads", self.create_thread)
        r(
            "POST",
            "/channels/{channel_id}/messages/{message_id}/threads",
            self.create_thread_from_message,
        )
        r("PUT", "/channels/{channel_id}/thread-members/@me", self.join_thread)
        r("PUT", "/channels/{channel_id}/thread-members/{user_id}", self.add_thread_member)
        r("DELETE", "/channels/{channel_id}/thread-members/{user_id}", self.remove_thread_member)
        r("GET", "/channels/{channel_id}/messages/pins", self.list_pins_new)
        r("PUT", "/channels/{channel_id}/messages/pins/{message_id}", self.pin)
        r("DELETE", "/channels/{channel_id}/messages/pins/{message_id}", self.unpin)
        r("GET", "/channels/{channel_id}/pins", self.list_pins_old)
        r("PUT", "/channels/{channel_id}/pins/{message_id}", self.pin)
        r("DELETE", "/channels/{channel_id}/pins/{message_id}", self.unpin)
        r("POST", "/channels/{channel_id}/typing", self.typing)
        r("GET", "/channels/{channel_id}/messages", self.history)
        r("POST", "/channels/{channel_id}/messages", self.create_message)
        r("POST", "/channels/{channel_id}/messages/bulk-delete", self.bulk_delete)
        r("GET", "/channels/{channel_id}/messages/{message_id}", self.get_message)
        r("PATCH", "/channels/{channel_id}/messages/{message_id}", self.edit_message)
        r("DELETE", "/channels/{channel_id}/messages/{message_id}", self.delete_message)
        r(
            "POST",
            "/interactions/{interaction_id}/{interaction_token}/callback",
            self.interaction_callback,
            auth=False,
        )
        r("POST", "/webhooks/{webhook_id}/{webhook_token}", self.followup, auth=False)
        r(
            "GET",
            "/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}",
            self.webhook_get,
            auth=False,
        )
        r(
            "PATCH",
            "/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}",
            self.webhook_edit,
            auth=False,
        )
        r(
            "DELETE",
            "/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}",
            self.webhook_delete,
            auth=False,
        )

    def _route(self, method: str, template: str, handler: Handler, *, auth: bool = True) -> None:
        pattern = re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", template.replace("@", "@"))
        self.routes.append(RouteDef(method, template, re.compile(f"^{pattern}$"), handler, auth))

    # ------------------------------------------------------------------ plumbing
    def _headers(self, route: str, status: int, retry_after: float | None = None) -> dict[str, str]:
        reset_after = retry_after if retry_after is not None else 1.0
        bucket = format(abs(hash(route)) & 0xFFFFFFFFFFFF, "x")
        headers = {
            "X-RateLimit-Limit": "5",
            "X-RateLimit-Remaining": "0" if status == 429 else "4",
            "X-RateLimit-Reset": f"{time.time() + reset_after:.3f}",
            "X-RateLimit-Reset-After": f"{reset_after:.3f}",
            "X-RateLimit-Bucket": bucket,
            "Via": "1.1 google",
        }
        if status == 429 and retry_after is not None:
            headers["Retry-After"] = str(max(1, math.ceil(retry_after)))
            headers["X-RateLimit-Scope"] = "user"
        return headers

    @staticmethod
    def _json_response(status: int, body: Json, headers: dict[str, str]) -> web.Response:
        if status == 204 or body is None:
            return web.Response(status=204 if status < 300 else status, headers=headers)
        headers = {**headers, "Content-Type": "application/json"}
        return web.Response(status=status, body=util.to_json(body), headers=headers)

    async def not_found(self, request: web.Request) -> web.Response:
        return self._json_response(404, {"message": "404: Not Found", "code": 0}, {})

    async def _parse_body(self, request: web.Request) -> tuple[Json, list[dict[str, Any]]]:
        """JSON, or multipart/form-data as Discord takes it: ``payload_json`` (or plain form
        fields) and ``files[n]`` parts. A file over the upload limit, or a request over
        25 MiB, is refused with 413 / 40005 as Discord does."""
        ctype = request.content_type
        files: list[dict[str, Any]] = []
        if ctype == "multipart/form-data":
            body: Json = None
            fields: dict[str, Any] = {}
            total = 0
            reader = await request.multipart()
            while True:
                part = await reader.next()
                if part is None:
                    break
                # discord.py's uploads are one flat multipart body: no part is itself multipart
                assert isinstance(part, BodyPartReader)
                name = getattr(part, "name", None)
                data = await part.read()
                total += len(data)
                if total > MAX_REQUEST_SIZE:
                    raise util.request_too_large()
                filename = getattr(part, "filename", None)
                if name == "payload_json":
                    try:
                        body = orjson.loads(data)
                    except ValueError:
                        raise ApiError(
                            400, 50109, "The request body contains invalid JSON."
                        ) from None
                elif filename is None and name is not None:
                    fields[name] = data.decode("utf-8", "replace")
                elif name is not None:
                    if len(data) > self.sb.attachment_size_limit:
                        raise util.request_too_large()
                    files.append(
                        {
                            "field": name,
                            "filename": filename or name,
                            "size": len(data),
                            "data": data,
                            "content_type": part.headers.get("Content-Type"),
                        }
                    )
            if body is None and fields:
                body = fields
            return body, files
        raw = await request.read()
        if not raw:
            return None, files
        try:
            return orjson.loads(raw), files
        except ValueError:
            raise ApiError(400, 50109, "The request body contains invalid JSON.") from None

    async def handle(self, request: web.Request) -> web.Response:
        started = util.monotonic()
        method = request.method
        path = "/" + request.match_info["tail"]
        query = dict(request.query)
        route_def: RouteDef | None = None
        params: dict[str, str] = {}
        for rd in self.routes:
            if rd.method != method:
                continue
            m = rd.regex.match(path)
            if m:
                route_def, params = rd, m.groupdict()
                break
        template = route_def.template if route_def else path
        route_name = f"{method} {template}"
        body: Json = None
        status = 500
        error_code: int | None = None
        error_body: Any = None
        spec_refused = False
        try:
            try:
                body, files = await self._parse_body(request)
                if route_def is None:
                    if self.sb.check_spec and discord_spec().find(method, path) is None:
                        spec_refused = True  # a route Discord does not have either
                    if any(rd.regex.match(path) for rd in self.routes):
                        raise ApiError(405, 0, "405: Method Not Allowed")
                    raise ApiError(404, 0, "404: Not Found")
                rule = self._fail_rule(method, path)
                if rule is not None and rule.status == DROPPED:
                    # The connection closed without an answer, the request not performed (a
                    # proxy or Discord's edge dropping it): the client sees only the close.
                    status = DROPPED
                    if request.transport is not None:
                        request.transport.close()
                    return web.Response(status=204)
                if rule is not None:
                    status = rule.status
                    error_code = rule.code
                    if rule.status == 429:
                        payload = {
                            "message": rule.message,
                            "retry_after": rule.retry_after,
                            "global": rule.is_global,
                            "code": rule.code,
                        }
                        headers = self._headers(route_name, 429, rule.retry_after)
                        if rule.is_global:
                            headers["X-RateLimit-Global"] = "true"
                            headers["X-RateLimit-Scope"] = "global"
                        return self._json_response(429, payload, headers)
                    raise ApiError(rule.status, rule.code, rule.message)
                if (
                    route_def.auth
                    and request.headers.get("Authorization") != f"Bot {self.sb.token}"
                ):
                    raise ApiError(401, 0, "401: Unauthorized")
                if self.sb.check_spec:
                    multipart = request.content_type == "multipart/form-data"
                    try:
                        discord_spec().check(method, path, query, body, multipart)
                    except ApiError:
                        spec_refused = True
                        raise
                hold = self._hold_rule(method, path)
                if hold is not None and not hold.after:
                    await self._held(hold)
                req = Req(method, params, query, body, files)
                status, result = await route_def.handler(req)
                if hold is not None and hold.after:
                    await self._held(hold)
                return self._json_response(status, result, self._headers(route_name, status))
            except ApiError as exc:
                status = exc.status
                error_code = exc.code
                error_body = exc.body()
                return self._json_response(
                    exc.status, exc.body(), self._headers(route_name, exc.status)
                )
        except Exception:
            log.exception("sandbox: %s %s failed", method, path)
            status = 500
            return self._json_response(
                500,
                {"message": "500: Internal Server Error", "code": 0},
                self._headers(route_name, 500),
            )
        finally:
            record = _record(method, route_name, path, query, body, status, started, error_code)
            record.error = error_body
            record.spec_refused = spec_refused
            self.sb.requests.append(record)
            self.sb._notify()

    def _fail_rule(self, method: str, path: str) -> Any:
        return self._rule(self.sb.fail_rules, method, path)

    def _hold_rule(self, method: str, path: str) -> Any:
        for rule in self.sb.hold_rules:
            live = rule.skip > 0 and rule.times > 0 and rule.method in (method, "*")
            if live and rule.pattern.search(path):
                rule.skip -= 1
                return None
        return self._rule(self.sb.hold_rules, method, path)

    @staticmethod
    def _rule(rules: list[Any], method: str, path: str) -> Any:
        """The first rule with uses left that matches (and one use of it)."""
        for rule in rules:
            if rule.times > 0 and rule.method in (method, "*") and rule.pattern.search(path):
                rule.times -= 1
                return rule
        return None

    async def _held(self, rule: Any) -> None:
        rule.held += 1
        rule.hit.set()
        await rule.released.wait()
        if rule.dropped:
            raise ApiError(503, 0, "503: Service Unavailable")

    # ------------------------------------------------------------------ lookups & checks
    def _channel(self, req: Req) -> Channel:
        channel = self.sb.channels.get(req.id("channel_id"))
        if channel is None:
            raise unknown("Channel")
        return channel

    def _guild(self, req: Req) -> Guild:
        guild = self.sb.guilds.get(req.id("guild_id"))
        if guild is None or self.sb.bot_user.id not in guild.members:
            raise unknown("Guild")
        return guild

    def _bot_perms(self, channel: Channel) -> int:
        if channel.type == DM:
            from .models import DM_PERMISSIONS

            return DM_PERMISSIONS
        guild = channel.guild
        assert guild is not None
        return guild.permissions_in(self.sb.bot_user.id, channel)

    def _require_view(self, channel: Channel) -> int:
        perms = self._bot_perms(channel)
        if not perms & util.VIEW_CHANNEL:
            raise util.missing_access()
        return perms

    def _require(self, channel: Channel, *flags: int) -> int:
        """Needs VIEW_CHANNEL (else 50001) and any one of ``flags`` (else 50013)."""
        perms = self._require_view(channel)
        if flags and not any(perms & f for f in flags):
            raise util.missing_permissions()
        return perms

    def _message(self, channel: Channel, message_id: int) -> Message:
        msg = self.sb.messages.get(message_id)
        if msg is None or msg.deleted or msg.channel_id != channel.id or msg.ephemeral:
            raise unknown("Message")
        return msg

    # ------------------------------------------------------------------ gateway, users, app
    async def get_gateway(self, req: Req) -> Result:
        return 200, {"url": self.sb.gateway_url}

    async def get_gateway_bot(self, req: Req) -> Result:
        return 200, {
            "url": self.sb.gateway_url,
            "shards": self.sb.recommended_shards,
            "session_start_limit": {
                "total": 1000,
                "remaining": 1000 - self.sb.identify_count,
                "reset_after": 14_400_000,
                "max_concurrency": 1,
            },
        }

    async def get_me(self, req: Req) -> Result:
        data = self.sb.bot_user.payload()
        data.update(verified=True, mfa_enabled=False, email=None, locale="en-US", bio="")
        return 200, data

    async def get_user(self, req: Req) -> Result:
        user = self.sb.users.get(req.id("user_id"))
        if user is None:
            raise unknown("User")
        return 200, user.payload()

    async def create_dm(self, req: Req) -> Result:
        rid = req.json.get("recipient_id")
        user = self.sb.users.get(int(rid)) if rid is not None else None
        if user is None:
            if rid is None:
                raise form_error("recipient_id", "BASE_TYPE_REQUIRED", "This field is required")
            raise unknown("User")
        return 200, self.sb.dm_channel(user).payload()

    async def get_application(self, req: Req) -> Result:
        owner = next(iter(g.owner for g in self.sb.guilds.values()), None)
        return 200, {
            "id": str(self.sb.application_id),
            "name": self.sb.bot_user.name,
            "icon": None,
            "description": "A bot running against the sandbox.",
            "summary": "",
            "type": None,
            "hook": True,
            "bot_public": True,
            "bot_require_code_grant": False,
            "verify_key": "0" * 64,
            "flags": self.sb.app_flags,
            "owner": (owner or self.sb.bot_user).payload(),
            "team": None,
            "bot": self.sb.bot_user.payload(),
            "redirect_uris": [],
            "interactions_endpoint_url": None,
            "approximate_guild_count": len(self.sb.guilds),
            "integration_types_config": {"0": {}},
            "tags": [],
        }

    # ------------------------------------------------------------------ application commands
    def _commands_pool(self, req: Req) -> tuple[list[dict[str, Any]], int | None]:
        if req.id("application_id") != self.sb.application_id:
            raise ApiError(
                403, 20012, "You are not authorized to perform this action on this application"
            )
        if "guild_id" in req.params:
            guild = self._guild(req)
            return self.sb.guild_commands.setdefault(guild.id, []), guild.id
        return self.sb.global_commands, None

    def _normalize_command(
        self,
        raw: dict[str, Any],
        guild_id: int | None,
        existing: list[dict[str, Any]],
        index: str = "",
    ) -> dict[str, Any]:
        prefix = f"{index}." if index else ""
        ctype = int(raw.get("type", 1))
        _validate_command(raw, ctype, prefix)
        old = next(
            (c for c in existing if c["name"] == raw["name"] and c.get("type", 1) == ctype), None
        )
        cmd: dict[str, Any] = {
            "id": old["id"] if old else str(snowflake()),
            "application_id": str(self.sb.application_id),
            "version": str(snowflake()),
            "type": ctype,
            "name": raw["name"],
            "name_localizations": raw.get("name_localizations"),
            "description": raw.get("description", "") if ctype == 1 else "",
            "description_localizations": raw.get("description_localizations"),
            "default_member_permissions": raw.get("default_member_permissions"),
            "dm_permission": raw.get("dm_permission", True),
            "nsfw": bool(raw.get("nsfw", False)),
            "integration_types": raw.get("integration_types") or [0],
            "contexts": raw.get("contexts"),
        }
        if guild_id is not None:
            cmd["guild_id"] = str(guild_id)
        if raw.get("options"):
            cmd["options"] = [_normalize_option(o) for o in raw["options"]]
        return cmd

    async def get_commands(self, req: Req) -> Result:
        pool, _ = self._commands_pool(req)
        return 200, pool

    async def put_commands(self, req: Req) -> Result:
        pool, guild_id = self._commands_pool(req)
        if not isinstance(req.body, list):
            raise form_error(
                "_root", "LIST_TYPE_CONVERT", "Only iterables may be used in a ListType"
            )
        if len([c for c in req.body if int(c.get("type", 1)) == 1]) > 100:
            raise ApiError(400, 30032, "Maximum number of application commands reached (100)")
        seen: set[tuple[str, int]] = set()
        new = []
        for i, raw in enumerate(req.body):
            cmd = self._normalize_command(raw, guild_id, pool, str(i))
            key = (cmd["name"], cmd["type"])
            if key in seen:
                raise form_error(
                    f"{i}.name",
                    "APPLICATION_COMMANDS_DUPLICATE_NAME",
                    f"Application command names must be unique ({cmd['name']})",
                )
            seen.add(key)
            new.append(cmd)
        pool[:] = new
        return 200, new

    async def post_command(self, req: Req) -> Result:
        pool, guild_id = self._commands_pool(req)
        cmd = self._normalize_command(req.json, guild_id, pool)
        status = 200 if any(c["id"] == cmd["id"] for c in pool) else 201
        pool[:] = [c for c in pool if c["id"] != cmd["id"]] + [cmd]
        return status, cmd

    def _command(self, req: Req) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        pool, _ = self._commands_pool(req)
        cmd = next((c for c in pool if c["id"] == req.params["command_id"]), None)
        if cmd is None:
            raise unknown("application command")
        return pool, cmd

    async def get_command(self, req: Req) -> Result:
        return 200, self._command(req)[1]

    async def patch_command(self, req: Req) -> Result:
        pool, cmd = self._command(req)
        merged = {**cmd, **req.json}
        new = self._normalize_command(
            merged, int(cmd["guild_id"]) if cmd.get("guild_id") else None, pool
        )
        pool[pool.index(cmd)] = new
        return 200, new

    async def delete_command(self, req: Req) -> Result:
        pool, cmd = self._command(req)
        pool.remove(cmd)
        return 204, None

    # ------------------------------------------------------------------ guilds
    async def get_guild(self, req: Req) -> Result:
        guild = self._guild(req)
        data = guild.payload()
        if req.query.get("with_counts") in ("true", "1"):
            data.update(approximate_member_count=len(guild.members), approximate_presence_count=0)
        return 200, data

    async def get_member(self, req: Req) -> Result:
        guild = self._guild(req)
        member = guild.members.get(req.id("user_id"))
        if member is None:
            if req.id("user_id") not in self.sb.users:
                raise unknown("User")
            raise unknown("Member")
        return 200, member.payload()

    async def list_members(self, req: Req) -> Result:
        guild = self._guild(req)
        limit = min(int(req.query.get("limit", 1)), 1000)
        after = int(req.query.get("after", 0))
        members = sorted(
            (m for m in guild.members.values() if m.user.id > after), key=lambda m: m.user.id
        )
        return 200, [m.payload() for m in members[:limit]]

    async def get_roles(self, req: Req) -> Result:
        return 200, [r.payload() for r in self._guild(req).roles.values()]

    async def get_guild_channels(self, req: Req) -> Result:
        return 200, [c.payload() for c in self._guild(req).channels]

    async def get_active_threads(self, req: Req) -> Result:
        guild = self._guild(req)
        bot = self.sb.bot_user.id
        threads = [t for t in guild.threads if not t.archived]
        members = [
            {
                "id": str(t.id),
                "user_id": str(bot),
                "join_timestamp": util.iso(t.created_at),
                "flags": 1,
            }
            for t in threads
            if bot in t.member_ids
        ]
        return 200, {"threads": [t.payload() for t in threads], "members": members}

    # ------------------------------------------------------------------ channels
    async def get_channel(self, req: Req) -> Result:
        channel = self._channel(req)
        if channel.type != DM:
            self._require_view(channel)
        return 200, channel.payload(for_user=self.sb.bot_user.id)

    async def patch_channel(self, req: Req) -> Result:
        channel = self._channel(req)
        body = req.json
        if channel.type == DM:
            raise ApiError(400, 50003, "Cannot execute action on a DM channel")
        perms = self._require_view(channel)
        if channel.is_thread:
            is_owner = channel.owner_id == self.sb.bot_user.id
            manage = bool(perms & util.MANAGE_THREADS)
            if "locked" in body and not manage:
                raise util.missing_permissions()
            if not manage and not (
                is_owner and set(body) <= {"name", "archived", "auto_archive_duration"}
            ):
                raise util.missing_permissions()
            if channel.locked and channel.archived and not manage:
                raise ApiError(400, 50083, "Thread is archived")
            if "name" in body:
                _check_name(body["name"])
                channel.name = body["name"]
            if "locked" in body:
                channel.locked = bool(body["locked"])
            if "archived" in body:
                was = channel.archived
                channel.archived = bool(body["archived"])
                if channel.archived != was:
                    channel.archive_timestamp = util.now()
            if "auto_archive_duration" in body:
                channel.auto_archive_duration = int(body["auto_archive_duration"])
            if "applied_tags" in body:
                tags = _applied_tags(channel.parent, body["applied_tags"])
                channel.applied_tags = tags
            if "invitable" in body:
                channel.invitable = bool(body["invitable"])
            self.sb._dispatch_thread_update(channel)
            return 200, channel.payload(for_user=self.sb.bot_user.id)
        if not perms & util.MANAGE_CHANNELS:
            raise util.missing_permissions()
        if "permission_overwrites" in body:
            if not perms & util.MANAGE_ROLES:
                raise util.missing_permissions()
            new: dict[int, Overwrite] = {}
            for ow in body["permission_overwrites"] or []:
                o = Overwrite(
                    int(ow["id"]),
                    int(ow.get("type", 0)),
                    int(ow.get("allow") or 0),
                    int(ow.get("deny") or 0),
                )
                self._check_grantable(channel, o.allow | o.deny, perms)
                new[o.id] = o
            channel.overwrites = new
        if "name" in body:
            _check_name(body["name"])
            channel.name = body["name"]
        for key in ("topic", "position"):
            if key in body:
                setattr(channel, key, body[key])
        if "flags" in body and channel.type == GUILD_FORUM:
            channel.channel_flags = int(body["flags"] or 0)
        if "available_tags" in body and channel.type == GUILD_FORUM:
            channel.available_tags = [
                {
                    "id": str(t.get("id") or snowflake()),
                    "name": t["name"],
                    "moderated": t.get("moderated", False),
                    "emoji_id": t.get("emoji_id"),
                    "emoji_name": t.get("emoji_name"),
                }
                for t in body["available_tags"]
            ]
        self.sb._dispatch_channel_update(channel)
        return 200, channel.payload()

    def _check_grantable(self, channel: Channel, bits: int, perms: int) -> None:
        """The bot can only allow/deny permissions it has itself (unless admin)."""
        if perms == util.ALL_PERMISSIONS:
            return
        if bits & ~perms:
            raise util.missing_permissions()

    async def put_overwrite(self, req: Req) -> Result:
        channel = self._channel(req)
        if channel.type == DM or channel.is_thread:
            raise ApiError(400, 50024, "Cannot execute action on this channel type")
        perms = self._require(channel, util.MANAGE_ROLES)
        body = req.json
        oid = req.id("overwrite_id")
        otype = int(body.get("type", 0))
        guild = channel.guild
        assert guild is not None
        if otype == 0 and oid not in guild.roles:
            raise unknown("Role")
        if otype == 1 and oid not in guild.members:
            raise unknown("Member")
        ow = Overwrite(oid, otype, int(body.get("allow") or 0), int(body.get("deny") or 0))
        self._check_grantable(channel, ow.allow | ow.deny, perms)
        channel.overwrites[oid] = ow
        self.sb._dispatch_channel_update(channel)
        return 204, None

    async def delete_overwrite(self, req: Req) -> Result:
        channel = self._channel(req)
        if channel.type == DM or channel.is_thread:
            raise ApiError(400, 50024, "Cannot execute action on this channel type")
        self._require(channel, util.MANAGE_ROLES)
        if channel.overwrites.pop(req.id("overwrite_id"), None) is not None:
            self.sb._dispatch_channel_update(channel)
        return 204, None

    async def typing(self, req: Req) -> Result:
        channel = self._channel(req)
        if channel.type != DM:
            self._require(channel, util.SEND_MESSAGES)
        return 204, None

    # ------------------------------------------------------------------ threads
    def _new_thread(
        self, parent: Channel, body: dict[str, Any], type_: int, thread_id: int | None = None
    ) -> Channel:
        guild = parent.guild
        assert guild is not None
        name = body.get("name")
        if not name:
            raise form_error("name", "BASE_TYPE_REQUIRED", "This field is required")
        _check_name(name)
        thread = Channel(
            self.sb,
            thread_id or snowflake(),
            type_,
            name=name,
            guild_id=guild.id,
            parent_id=parent.id,
            owner_id=self.sb.bot_user.id,
            auto_archive_duration=int(body.get("auto_archive_duration") or 4320),
            invitable=bool(body.get("invitable", True)),
            applied_tags=_applied_tags(parent, body.get("applied_tags")),
        )
        thread.member_ids.add(self.sb.bot_user.id)
        self.sb.channels[thread.id] = thread
        guild.channel_ids.append(thread.id)
        return thread

    async def create_thread(self, req: Req) -> Result:
        parent = self._channel(req)
        body = req.json
        if parent.type == GUILD_FORUM:
            self._require(parent, util.SEND_MESSAGES)
            msg_body = body.get("message")
            if not isinstance(msg_body, dict):
                raise form_error("message", "BASE_TYPE_REQUIRED", "This field is required")
            _validate_message_body(msg_body, req.files, prefix="message.")
            self._check_can_attach(parent, req.files)
            thread = self._new_thread(parent, body, PUBLIC_THREAD)
            msg = self._build_message(
                thread, self.sb.bot_user.id, msg_body, req.files, msg_id=thread.id
            )
            self.sb._store_message(msg)
            self.sb._dispatch_thread_create(thread)
            self.sb._dispatch_message("MESSAGE_CREATE", msg)
            data = thread.payload(for_user=self.sb.bot_user.id)
            data["message"] = msg.payload()
            return 201, data
        if parent.type != GUILD_TEXT:
            raise ApiError(400, 50024, "Cannot execute action on this channel type")
        type_ = int(body.get("type") or PRIVATE_THREAD)
        needed = (
            util.CREATE_PRIVATE_THREADS if type_ == PRIVATE_THREAD else util.CREATE_PUBLIC_THREADS
        )
        self._require(parent, needed)
        thread = self._new_thread(parent, body, type_)
        self.sb._dispatch_thread_create(thread)
        return 201, thread.payload(for_user=self.sb.bot_user.id)

    async def create_thread_from_message(self, req: Req) -> Result:
        parent = self._channel(req)
        if parent.type != GUILD_TEXT:
            raise ApiError(400, 50024, "Cannot execute action on this channel type")
        self._require(parent, util.CREATE_PUBLIC_THREADS)
        msg = self._message(parent, req.id("message_id"))
        if msg.id in self.sb.channels:
            raise ApiError(400, 160004, "A thread has already been created for this message")
        thread = self._new_thread(parent, req.json, PUBLIC_THREAD, thread_id=msg.id)
        self.sb._dispatch_thread_create(thread)
        return 201, thread.payload(for_user=self.sb.bot_user.id)

    async def join_thread(self, req: Req) -> Result:
        thread = self._channel(req)
        self._require_view(thread)
        thread.member_ids.add(self.sb.bot_user.id)
        return 204, None

    async def add_thread_member(self, req: Req) -> Result:
        """Discord: the ability to send messages in the thread, the thread not archived; a
        private thread that is not invitable takes new members from its creator or a member
        with Manage Threads only."""
        thread = self._channel(req)
        if not thread.is_thread:
            raise ApiError(400, 50024, "Cannot execute action on this channel type")
        perms = self._require(thread, util.SEND_MESSAGES_IN_THREADS)
        self._check_thread_members_change(thread, perms, invite=True)
        uid = req.id("user_id")
        guild = thread.guild
        assert guild is not None
        if uid not in guild.members:
            raise unknown("Member")
        thread.member_ids.add(uid)
        return 204, None

    async def remove_thread_member(self, req: Req) -> Result:
        """Discord: Manage Threads, or the creator of a private thread; not archived."""
        thread = self._channel(req)
        if not thread.is_thread:
            raise ApiError(400, 50024, "Cannot execute action on this channel type")
        perms = self._require_view(thread)
        self._check_thread_members_change(thread, perms, invite=False)
        thread.member_ids.discard(req.id("user_id"))
        return 204, None

    def _check_thread_members_change(self, thread: Channel, perms: int, *, invite: bool) -> None:
        """Who may add a member to (``invite``) or remove one from a thread, as on Discord."""
        if thread.archived:
            raise ApiError(400, 50083, "Thread is archived")
        if perms & util.MANAGE_THREADS:
            return
        private = thread.type == PRIVATE_THREAD
        owner = thread.owner_id == self.sb.bot_user.id
        if invite and (not private or thread.invitable or owner):
            return
        if not invite and private and owner:
            return
        raise util.missing_permissions()

    # ------------------------------------------------------------------ messages
    def _attachments(
        self, channel: Channel, meta: Any, files: list[dict[str, Any]], *, ephemeral: bool = False
    ) -> list[dict[str, Any]]:
        """The uploaded ``files[n]`` as attachment objects, with the filename and description
        given in the ``attachments`` array under the placeholder id ``n``."""
        out = []
        for i, f in enumerate(files):
            field_name = str(f["field"])
            index = field_name.removeprefix("files[").rstrip("]") if "[" in field_name else str(i)
            info: dict[str, Any] = next((a for a in meta or [] if str(a.get("id")) == index), {})
            out.append(
                self.sb._new_attachment(
                    self.sb.application_id if ephemeral else channel.id,
                    info.get("filename") or f["filename"],
                    f["data"],
                    declared_type=f.get("content_type"),
                    description=info.get("description"),
                    title=info.get("title"),
                    ephemeral=ephemeral,
                )
            )
        return out

    def _build_message(
        self,
        channel: Channel,
        author_id: int,
        body: dict[str, Any],
        files: list[dict[str, Any]],
        *,
        msg_id: int | None = None,
        flags_allowed: int = (1 << 2) | (1 << 12) | COMPONENTS_V2,
    ) -> Message:
        flags = int(body.get("flags") or 0) & flags_allowed
        msg = Message(
            self.sb,
            msg_id or snowflake(),
            channel.id,
            author_id,
            content=body.get("content") or "",
            embeds=_normalize_embeds(body.get("embeds")),
            components=_normalize_components(body.get("components")),
            attachments=self._attachments(
                channel, body.get("attachments"), files, ephemeral=bool(flags & EPHEMERAL)
            ),
            flags=flags,
            guild_id=channel.guild_id,
            tts=bool(body.get("tts", False)),
            nonce=body.get("nonce"),
            allowed_mentions=body.get("allowed_mentions"),
        )
        msg.mentions = self.sb._mentions_in(msg.content, msg.allowed_mentions)
        msg.mention_roles = self.sb._role_mentions_in(msg.content, msg.allowed_mentions)
        ref = body.get("message_reference")
        if isinstance(ref, dict) and ref.get("message_id"):
            target = self.sb.messages.get(int(ref["message_id"]))
            if target is None or target.deleted:
                if ref.get("fail_if_not_exists", True):
                    raise form_error(
                        "message_reference", "MESSAGE_REFERENCE_UNKNOWN_MESSAGE", "Unknown message"
                    )
            else:
                msg.type = 19
                msg.reference = {
                    "type": 0,
                    "message_id": str(target.id),
                    "channel_id": str(target.channel_id),
                }
                if target.guild_id:
                    msg.reference["guild_id"] = str(target.guild_id)
        return msg

    def _check_can_send(self, channel: Channel) -> None:
        if channel.type == DM:
            user = self.sb.users[channel.recipient_id or 0]
            if not user.dms_open or user.bot or not self._shares_a_guild(user):
                raise ApiError(403, 50007, "Cannot send messages to this user")
            return
        if channel.type not in (GUILD_TEXT, PUBLIC_THREAD, PRIVATE_THREAD):
            raise ApiError(400, 50008, "Cannot send messages in a non-text channel")
        if channel.is_thread:
            perms = self._require(channel, util.SEND_MESSAGES_IN_THREADS)
            if channel.locked and not perms & util.MANAGE_THREADS:
                raise (
                    ApiError(400, 50083, "Thread is archived")
                    if channel.archived
                    else util.missing_permissions()
                )
            if channel.archived:
                channel.archived = False
                channel.archive_timestamp = util.now()
                self.sb._dispatch_thread_update(channel)
        else:
            self._require(channel, util.SEND_MESSAGES)

    def _shares_a_guild(self, user: Any) -> bool:
        """Discord lets a bot DM only a user it shares a server with (one who left the last
        such server gets 50007, as one whose DMs are closed)."""
        bot_id = self.sb.bot_user.id
        return any(user.id in g.members and bot_id in g.members for g in self.sb.guilds.values())

    def _check_can_attach(self, channel: Channel, files: list[dict[str, Any]]) -> None:
        """Uploading files in a guild channel needs Attach Files (50013 otherwise)."""
        if files and channel.type != DM:
            self._require(channel, util.ATTACH_FILES)

    async def create_message(self, req: Req) -> Result:
        channel = self._channel(req)
        body = req.json
        self._check_can_send(channel)
        self._check_can_attach(channel, req.files)
        _validate_message_body(body, req.files)
        key = (self.sb.bot_user.id, str(body.get("nonce")))
        if body.get("enforce_nonce") and body.get("nonce") is not None:
            # Discord: the same author and nonce within a few minutes returns the message
            # created the first time (Unknown Message if it was deleted since).
            seen = self._nonces.get(key)
            if seen is not None and util.monotonic() - seen[1] < NONCE_SECONDS:
                first = self.sb.messages.get(seen[0])
                if first is None or first.deleted:
                    raise unknown("Message")
                return 200, first.payload()
        msg = self._build_message(channel, self.sb.bot_user.id, body, req.files)
        self.sb._store_message(msg)
        if body.get("enforce_nonce") and body.get("nonce") is not None:
            self._nonces[key] = (msg.id, util.monotonic())
        self.sb._dispatch_message("MESSAGE_CREATE", msg)
        return 200, msg.payload()

    async def get_message(self, req: Req) -> Result:
        channel = self._channel(req)
        if channel.type != DM:
            self._require(channel, util.READ_MESSAGE_HISTORY)
        return 200, self._message(channel, req.id("message_id")).payload()

    async def history(self, req: Req) -> Result:
        channel = self._channel(req)
        if channel.type != DM:
            perms = self._require_view(channel)
            if not perms & util.READ_MESSAGE_HISTORY:
                return 200, []
        limit = max(1, min(int(req.query.get("limit", 50)), 100))
        msgs = [m for m in self.sb._messages_of(channel) if not m.ephemeral]
        msgs.sort(key=lambda m: m.id)
        if "around" in req.query:
            around = int(req.query["around"])
            before = [m for m in msgs if m.id < around][-(limit // 2) :] if limit > 1 else []
            after = [m for m in msgs if m.id >= around][: limit - len(before)]
            picked = list(reversed(before + after))
        elif "after" in req.query:
            after_id = int(req.query["after"])
            picked = list(reversed([m for m in msgs if m.id > after_id][:limit]))
        else:
            before_id = int(req.query.get("before", 1 << 63))
            picked = list(reversed([m for m in msgs if m.id < before_id]))[:limit]
        return 200, [m.payload() for m in picked]

    def _apply_edit(
        self, msg: Message, body: dict[str, Any], files: list[dict[str, Any]], *, prefix: str = ""
    ) -> None:
        limit = self.sb.edit_limit
        # Interaction responses are edited within their 15-minute token: never an hour old on
        # Discord, so exempt (as is completing a deferred "thinking" message) unless marked old.
        exempt = msg.loading or (msg.interaction_id is not None and not msg.marked_old)
        if (
            limit is not None
            and not exempt
            and msg.edit_count >= limit
            and (msg.is_old or not self.sb.edit_limit_only_old)
        ):
            raise ApiError(
                400,
                30046,
                "Maximum number of edits to messages older than 1 hour reached. Try again later.",
            )
        merged = {
            "content": body.get("content", msg.content) if "content" in body else msg.content,
            "embeds": body.get("embeds", msg.embeds),
            "components": body.get("components", msg.components),
            "flags": body.get("flags") if body.get("flags") is not None else msg.flags,
        }
        keep_loading = False
        if "attachments" in body or files:
            merged["attachments"] = body.get("attachments") or []
        else:
            merged["attachments"] = msg.attachments
        _validate_message_body(
            merged,
            files if "attachments" in body or files else [],
            prefix=prefix,
            allow_empty=bool(msg.attachments),
        )
        msg.content = merged["content"] or ""
        msg.embeds = _normalize_embeds(merged["embeds"])
        msg.components = _normalize_components(merged["components"])
        if "attachments" in body or files:
            existing = {a["id"]: a for a in msg.attachments}
            kept = [
                existing[str(a["id"])]
                for a in body.get("attachments") or []
                if str(a.get("id")) in existing
            ]
            msg.attachments = kept + self._attachments(
                self.sb.channels[msg.channel_id],
                [a for a in body.get("attachments") or [] if str(a.get("id")) not in existing],
                files,
                ephemeral=msg.ephemeral,
            )
        if body.get("flags") is not None:
            # Only SUPPRESS_EMBEDS can change; ephemeral/v2 stay as they were.
            keep = msg.flags & ~(1 << 2)
            msg.flags = keep | (int(body["flags"]) & (1 << 2))
            if int(body["flags"]) & COMPONENTS_V2:
                msg.flags |= COMPONENTS_V2
        if msg.loading and not keep_loading:
            msg.flags &= ~LOADING
        if "allowed_mentions" in body:
            msg.allowed_mentions = body["allowed_mentions"]
        msg.mentions = self.sb._mentions_in(msg.content, msg.allowed_mentions)
        msg.edited_at = util.now()
        msg.edit_count += 1

    async def edit_message(self, req: Req) -> Result:
        channel = self._channel(req)
        if channel.type != DM:
            self._require_view(channel)
        msg = self._message(channel, req.id("message_id"))
        if not msg.author_is_bot:
            body = req.json
            if set(body) - {"flags"}:
                raise ApiError(403, 50005, "Cannot edit a message authored by another user")
        self._check_can_attach(channel, req.files)
        self._apply_edit(msg, req.json, req.files)
        self.sb._dispatch_message("MESSAGE_UPDATE", msg)
        return 200, msg.payload()

    def _delete(self, msg: Message) -> None:
        msg.deleted = True
        if msg.pinned:
            msg.pinned = False
        self.sb._dispatch_message_delete(msg)

    async def delete_message(self, req: Req) -> Result:
        channel = self._channel(req)
        msg = self._message(channel, req.id("message_id"))
        if channel.type != DM:
            self._require_view(channel)
            if not msg.author_is_bot:
                self._require(channel, util.MANAGE_MESSAGES)
        elif not msg.author_is_bot:
            raise ApiError(403, 50003, "Cannot execute action on a DM channel")
        self._delete(msg)
        return 204, None

    async def bulk_delete(self, req: Req) -> Result:
        channel = self._channel(req)
        self._require(channel, util.MANAGE_MESSAGES)
        ids = [int(i) for i in req.json.get("messages") or []]
        if not 2 <= len(ids) <= 100:
            raise form_error(
                "messages", "BASE_TYPE_BAD_LENGTH", "Must be between 2 and 100 in length."
            )
        for mid in ids:
            msg = self.sb.messages.get(mid)
            if msg is not None and msg.channel_id == channel.id and not msg.deleted:
                self._delete(msg)
        return 204, None

    # ------------------------------------------------------------------ pins
    def _pin_perm(self, channel: Channel) -> None:
        """Pinning needs Pin Messages (1 << 51): since 23 February 2026 Manage Messages no
        longer grants it (API change log, "Permission Changes Going into Effect February
        2026")."""
        if channel.type != DM:
            self._require(channel, util.PIN_MESSAGES)

    async def pin(self, req: Req) -> Result:
        channel = self._channel(req)
        self._pin_perm(channel)
        msg = self._message(channel, req.id("message_id"))
        if msg.type not in (0, 19, 20, 23):
            raise ApiError(400, 50021, "Cannot execute action on a system message")
        if not msg.pinned:
            if len(self.sb.pins(channel)) >= 250:
                raise ApiError(400, 30003, "Maximum number of pins reached (250)")
            msg.pinned = True
            msg.pinned_at = util.now()
            self.sb._dispatch_message("MESSAGE_UPDATE", msg)
            self._pins_update(channel)
            system = Message(
                self.sb,
                snowflake(),
                channel.id,
                self.sb.bot_user.id,
                type=6,
                guild_id=channel.guild_id,
            )
            system.reference = {"type": 0, "message_id": str(msg.id), "channel_id": str(channel.id)}
            if channel.guild_id:
                system.reference["guild_id"] = str(channel.guild_id)
            self.sb._store_message(system)
            self.sb._dispatch_message("MESSAGE_CREATE", system)
        return 204, None

    async def unpin(self, req: Req) -> Result:
        channel = self._channel(req)
        self._pin_perm(channel)
        msg = self._message(channel, req.id("message_id"))
        if msg.pinned:
            msg.pinned = False
            msg.pinned_at = None
            self.sb._dispatch_message("MESSAGE_UPDATE", msg)
            self._pins_update(channel)
        return 204, None

    def _pins_update(self, channel: Channel) -> None:
        pins = self.sb.pins(channel)
        data: dict[str, Any] = {
            "channel_id": str(channel.id),
            "last_pin_timestamp": util.iso(pins[0].pinned_at) if pins else None,
        }
        if channel.guild_id:
            data["guild_id"] = str(channel.guild_id)
        self.sb.gateway.dispatch("CHANNEL_PINS_UPDATE", data, guild_id=channel.guild_id)

    def _pins_readable(self, channel: Channel) -> bool:
        if channel.type == DM:
            return True
        return bool(self._require_view(channel) & util.READ_MESSAGE_HISTORY)

    async def list_pins_old(self, req: Req) -> Result:
        channel = self._channel(req)
        if not self._pins_readable(channel):
            return 200, []
        return 200, [m.payload() for m in self.sb.pins(channel)]

    async def list_pins_new(self, req: Req) -> Result:
        channel = self._channel(req)
        if not self._pins_readable(channel):
            return 200, {"items": [], "has_more": False}
        limit = max(1, min(int(req.query.get("limit", 50)), 50))
        pins = self.sb.pins(channel)
        if "before" in req.query:
            from datetime import datetime

            before = datetime.fromisoformat(req.query["before"])
            pins = [m for m in pins if m.pinned_at is not None and m.pinned_at < before]
        items = [{"pinned_at": util.iso(m.pinned_at), "message": m.payload()} for m in pins[:limit]]
        return 200, {"items": items, "has_more": len(pins) > limit}

    # ------------------------------------------------------------------ interactions
    def _interaction(self, req: Req) -> Interaction:
        ix = self.sb._interactions_by_id.get(req.id("interaction_id"))
        if ix is None or ix.token != req.params["interaction_token"]:
            raise unknown("interaction")
        return ix

    async def interaction_callback(self, req: Req) -> Result:
        ix = self._interaction(req)
        arrived = util.monotonic()
        if ix.callback_type is not None:
            raise ApiError(400, 40060, "Interaction has already been acknowledged.")
        if arrived - ix.sent_at > self.sb.interaction_timeout:
            raise unknown("interaction")
        body = req.json
        ctype = int(body.get("type", 0))
        data = body.get("data") or {}
        allowed = {1: {1}, 2: {4, 5, 9, 10}, 3: {4, 5, 6, 7, 9, 10}, 4: {8}, 5: {4, 5, 6, 7}}
        if ctype not in allowed.get(ix.type, set()):
            raise form_error(
                "type", "INTERACTION_RESPONSE_TYPE_INVALID", "Invalid interaction response type"
            )
        message: Message | None = None
        if ctype == 4:
            _validate_message_body(data, req.files, prefix="data.")
            message = self._interaction_message(ix, data, req.files)
            ix.original_id = message.id
        elif ctype == 5:
            flags = int(data.get("flags") or 0) & EPHEMERAL
            message = self._interaction_message(ix, {"flags": flags}, [], loading=True)
            ix.original_id = message.id
        elif ctype == 7:
            if ix.message is None:
                raise form_error(
                    "type", "INTERACTION_RESPONSE_TYPE_INVALID", "Invalid interaction response type"
                )
            self._apply_edit(ix.message, data, req.files, prefix="data.")
            message = ix.message
            self.sb._dispatch_message("MESSAGE_UPDATE", message)
        elif ctype == 8:
            choices = data.get("choices") or []
            if len(choices) > 25:
                raise form_error(
                    "data.choices", "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length."
                )
            for i, c in enumerate(choices):
                if not 1 <= len(str(c.get("name", ""))) <= 100:
                    raise form_error(
                        f"data.choices.{i}.name",
                        "BASE_TYPE_BAD_LENGTH",
                        "Must be between 1 and 100 in length.",
                    )
            ix.choices = choices
        elif ctype == 9:
            for key in ("custom_id", "title", "components"):
                if not data.get(key):
                    raise form_error(f"data.{key}", "BASE_TYPE_REQUIRED", "This field is required")
            ix.modal = data
        # Record only once the callback is accepted.
        ix.callback_type = ctype
        ix.callbacks.append((ctype, data))
        ix.acked_at = arrived
        if ctype in (4, 7):
            ix.answered_at = arrived
        if ix.message is not None:
            ix._edits_at_ack = ix.message.edit_count
        ix._acked.set()
        self.sb._notify()
        if req.query.get("with_response") not in ("true", "1", "True"):
            return 204, None
        callback: dict[str, Any] = {"id": str(ix.id), "type": ix.type}
        if ctype in (4, 5) and message is not None:
            callback.update(
                response_message_id=str(message.id),
                response_message_loading=ctype == 5,
                response_message_ephemeral=message.ephemeral,
            )
        resource: dict[str, Any] = {"type": ctype}
        if message is not None and ctype in (4, 5, 7):
            resource["message"] = message.payload()
        return 200, {"interaction": callback, "resource": resource}

    def _interaction_message(
        self,
        ix: Interaction,
        data: dict[str, Any],
        files: list[dict[str, Any]],
        *,
        loading: bool = False,
        followup: bool = False,
    ) -> Message:
        channel = ix.channel
        msg = self._build_message(
            channel,
            self.sb.bot_user.id,
            data,
            files,
            flags_allowed=(1 << 2) | (1 << 12) | EPHEMERAL | COMPONENTS_V2,
        )
        if loading:
            msg.flags |= LOADING
        msg.webhook_id = self.sb.application_id
        msg.interaction_id = ix.id
        if ix.type == 2 and not followup:
            msg.type = 20
        meta: dict[str, Any] = {
            "id": str(ix.id),
            "type": ix.type,
            "user": ix.user.payload(),
            "authorizing_integration_owners": ix.payload.get("authorizing_integration_owners", {}),
        }
        if ix.type == 2:
            meta["name"] = ix.payload["data"]["name"]
            meta["command_type"] = 1
        if ix.message is not None:
            meta["interacted_message_id"] = str(ix.message.id)
        if followup and ix.original_id:
            meta["original_response_message_id"] = str(ix.original_id)
        msg.interaction_meta = meta
        if msg.ephemeral:
            msg.ephemeral_to = ix.user.id
        self.sb._store_message(msg)
        self.sb._dispatch_message("MESSAGE_CREATE", msg)
        return msg

    def _webhook_interaction(self, req: Req) -> Interaction:
        if req.id("webhook_id") != self.sb.application_id:
            raise unknown("Webhook")
        ix = self.sb._interactions_by_token.get(req.params["webhook_token"])
        if ix is None or ix.callback_type is None:
            raise unknown("Webhook")
        if util.monotonic() - ix.sent_at > self.sb.token_lifetime:
            raise ApiError(401, 50027, "Invalid Webhook Token")
        return ix

    async def followup(self, req: Req) -> Result:
        arrived = util.monotonic()
        ix = self._webhook_interaction(req)
        body = req.json
        _validate_message_body(body, req.files)
        original = self.sb.messages.get(ix.original_id or 0)
        if ix.callback_type == 5 and original is not None and original.loading:
            # The first followup after a defer replaces the "thinking..." message.
            self._apply_edit(original, body, req.files)
            self.sb._dispatch_message("MESSAGE_UPDATE", original)
            msg = original
        else:
            msg = self._interaction_message(ix, body, req.files, followup=True)
            ix.followup_ids.append(msg.id)
        if ix.answered_at is None:
            ix.answered_at = arrived
        self.sb._notify()
        if req.query.get("wait") in ("true", "1", "True"):
            return 200, msg.payload()
        return 204, None

    def _webhook_message(self, req: Req, ix: Interaction) -> Message:
        mid = req.params["message_id"]
        if mid == "@original":
            if ix.type in (3, 5) and ix.callback_type in (6, 7) and ix.message is not None:
                return ix.message
            msg = self.sb.messages.get(ix.original_id or 0)
        else:
            msg = self.sb.messages.get(int(mid))
            if (
                msg is not None
                and msg.interaction_id != ix.id
                and not (ix.message is not None and msg.id == ix.message.id)
            ):
                msg = None
        if msg is None or msg.deleted:
            raise unknown("Message")
        return msg

    async def webhook_get(self, req: Req) -> Result:
        ix = self._webhook_interaction(req)
        return 200, self._webhook_message(req, ix).payload()

    async def webhook_edit(self, req: Req) -> Result:
        arrived = util.monotonic()
        ix = self._webhook_interaction(req)
        msg = self._webhook_message(req, ix)
        self._apply_edit(msg, req.json, req.files)
        shown = (ix.original_id, ix.message.id if ix.message is not None else None)
        if ix.answered_at is None and msg.id in shown:
            ix.answered_at = arrived
        self.sb._dispatch_message("MESSAGE_UPDATE", msg)
        return 200, msg.payload()

    async def webhook_delete(self, req: Req) -> Result:
        ix = self._webhook_interaction(req)
        msg = self._webhook_message(req, ix)
        self._delete(msg)
        return 204, None


# ---------------------------------------------------------------------- validation helpers
def _applied_tags(forum: Channel | None, raw: Any) -> list[int]:
    """A forum post's tags: at most 5, each one of the forum's, and at least one when the
    forum has REQUIRE_TAG (400 / 40067, Discord's answer)."""
    if forum is None or forum.type != GUILD_FORUM:
        return []
    tags = [str(t) for t in raw or []]
    if len(tags) > 5:
        raise form_error("applied_tags", "BASE_TYPE_MAX_LENGTH", "Must be 5 or fewer in length.")
    known = {str(t["id"]) for t in forum.available_tags}
    for i, tag in enumerate(tags):
        if tag not in known:
            raise form_error(f"applied_tags.{i}", "INVALID_TAG", "Unknown tag")
    if not tags and forum.channel_flags & REQUIRE_TAG:
        raise ApiError(400, 40067, "A tag is required to create a forum post in this channel")
    return [int(t) for t in dict.fromkeys(tags)]


def _record(
    method: str,
    route: str,
    path: str,
    query: dict[str, str],
    body: Json,
    status: int,
    started: float,
    code: int | None,
) -> Any:
    from .models import RequestRecord

    return RequestRecord(
        method, route, path, query, body, status, started, util.monotonic() - started, code
    )


#: The scripts Discord's name rule admits whole, combining marks included (``\p{sc=Deva}``,
#: ``\p{sc=Thai}``): Devanagari, Devanagari Extended, Devanagari Extended-A, Thai.
_NAME_SCRIPTS = ((0x0900, 0x097F), (0xA8E0, 0xA8FF), (0x11B00, 0x11B5F), (0x0E00, 0x0E7F))


def valid_command_name(name: object) -> bool:
    r"""A CHAT_INPUT command or option name as Discord takes it ("Application Command Naming"):
    ``^[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$`` with the unicode flag, and every
    letter that has a lowercase variant written in lowercase (``réglages``, ``clôture_anticipée``
    are names; ``Réglages``, ``a b``, an ``e`` followed by a combining accent are not)."""
    if not isinstance(name, str) or not 1 <= len(name) <= 32:
        return False
    for char in name:
        code = ord(char)
        allowed = (
            char in "-_'"
            or unicodedata.category(char)[0] in "LN"
            or any(low <= code <= high for low, high in _NAME_SCRIPTS)
        )
        if not allowed or char.lower() != char:
            return False
    return True


_LOCALES = {
    "id",
    "da",
    "de",
    "en-GB",
    "en-US",
    "es-ES",
    "es-419",
    "fr",
    "hr",
    "it",
    "lt",
    "hu",
    "nl",
    "no",
    "pl",
    "pt-BR",
    "ro",
    "fi",
    "sv-SE",
    "vi",
    "tr",
    "cs",
    "el",
    "bg",
    "ru",
    "uk",
    "hi",
    "th",
    "zh-CN",
    "ja",
    "zh-TW",
    "ko",
}


def _check_name(name: Any) -> None:
    if not isinstance(name, str) or not 1 <= len(name) <= 100:
        raise form_error("name", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length.")


def _check_localizations(value: Any, path: str, max_len: int, slash_name: bool) -> None:
    if value is None:
        return
    for loc, text in value.items():
        if loc not in _LOCALES:
            raise form_error(f"{path}.{loc}", "LOCALE_INVALID", f"Invalid locale {loc!r}")
        if slash_name and not valid_command_name(text):
            raise form_error(
                f"{path}.{loc}",
                "APPLICATION_COMMAND_INVALID_NAME",
                f"Command name is invalid ({text!r})",
            )
        if not 1 <= len(text) <= max_len:
            raise form_error(
                f"{path}.{loc}",
                "BASE_TYPE_BAD_LENGTH",
                f"Must be between 1 and {max_len} in length.",
            )


def _validate_command(raw: dict[str, Any], ctype: int, prefix: str) -> None:
    name = raw.get("name")
    if not isinstance(name, str):
        raise form_error(f"{prefix}name", "BASE_TYPE_REQUIRED", "This field is required")
    if ctype == 1:
        if not valid_command_name(name):
            raise form_error(
                f"{prefix}name",
                "APPLICATION_COMMAND_INVALID_NAME",
                f"Command name is invalid ({name!r})",
            )
        desc = raw.get("description") or ""
        if not 1 <= len(desc) <= 100:
            raise form_error(
                f"{prefix}description",
                "BASE_TYPE_BAD_LENGTH",
                "Must be between 1 and 100 in length.",
            )
        _check_localizations(raw.get("name_localizations"), f"{prefix}name_localizations", 32, True)
        _check_localizations(
            raw.get("description_localizations"), f"{prefix}description_localizations", 100, False
        )
        _validate_options(raw.get("options") or [], f"{prefix}options", depth=0)


def _validate_options(options: list[dict[str, Any]], path: str, depth: int) -> None:
    if len(options) > 25:
        raise form_error(path, "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
    seen_optional = False
    names: set[str] = set()
    for i, opt in enumerate(options):
        p = f"{path}.{i}"
        otype = int(opt.get("type", 0))
        if not 1 <= otype <= 11:
            raise form_error(f"{p}.type", "BASE_TYPE_CHOICES", "Value must be one of 1..11")
        name = opt.get("name", "")
        if not valid_command_name(name):
            raise form_error(
                f"{p}.name",
                "APPLICATION_COMMAND_INVALID_NAME",
                f"Command name is invalid ({name!r})",
            )
        if name in names:
            raise form_error(
                f"{p}.name",
                "APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS",
                "Option names must be unique",
            )
        names.add(name)
        if not 1 <= len(opt.get("description") or "") <= 100:
            raise form_error(
                f"{p}.description", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length."
            )
        _check_localizations(opt.get("name_localizations"), f"{p}.name_localizations", 32, True)
        _check_localizations(
            opt.get("description_localizations"), f"{p}.description_localizations", 100, False
        )
        if otype in (1, 2):
            if otype == 2 and depth > 0:
                raise form_error(
                    f"{p}.type",
                    "APPLICATION_COMMAND_OPTION_TYPE_INVALID",
                    "Subcommand groups cannot be nested",
                )
            sub = opt.get("options") or []
            if otype == 2 and any(int(s.get("type", 0)) != 1 for s in sub):
                raise form_error(
                    f"{p}.options",
                    "APPLICATION_COMMAND_OPTION_TYPE_INVALID",
                    "Groups may only contain subcommands",
                )
            _validate_options(sub, f"{p}.options", depth + 1)
            continue
        if opt.get("required"):
            if seen_optional:
                raise form_error(
                    p,
                    "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID",
                    "Required options must be placed before non-required options",
                )
        else:
            seen_optional = True
        _validate_option_bounds(opt, otype, p)
        choices = opt.get("choices") or []
        if len(choices) > 25:
            raise form_error(
                f"{p}.choices", "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length."
            )
        if choices and opt.get("autocomplete"):
            raise form_error(
                f"{p}.autocomplete",
                "APPLICATION_COMMAND_OPTION_AUTOCOMPLETE",
                "Autocomplete cannot be set with choices",
            )
        for j, c in enumerate(choices):
            if not 1 <= len(str(c.get("name", ""))) <= 100:
                raise form_error(
                    f"{p}.choices.{j}.name",
                    "BASE_TYPE_BAD_LENGTH",
                    "Must be between 1 and 100 in length.",
                )
            _check_localizations(
                c.get("name_localizations"), f"{p}.choices.{j}.name_localizations", 100, False
            )


_SAFE = 2**53 - 1


def _validate_option_bounds(opt: dict[str, Any], otype: int, p: str) -> None:
    """``min_value``/``max_value`` only on INTEGER (4) and NUMBER (10) options, numbers within
    ±2^53 (integers for INTEGER), min <= max; ``min_length`` (0..6000) / ``max_length``
    (1..6000) only on STRING (3); autocomplete only on STRING, INTEGER and NUMBER."""
    kind = "int" if otype == 4 else "float"
    for key in ("min_value", "max_value"):
        if key not in opt or opt[key] is None:
            continue
        value = opt[key]
        if otype not in (4, 10):
            raise form_error(
                f"{p}.{key}",
                "APPLICATION_COMMAND_OPTION_INVALID_FIELD",
                f"{key} is only allowed for INTEGER and NUMBER options",
            )
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise form_error(f"{p}.{key}", "NUMBER_TYPE_COERCE", f'Value "{value}" is not {kind}.')
        if otype == 4 and not float(value).is_integer():
            raise form_error(f"{p}.{key}", "NUMBER_TYPE_COERCE", f'Value "{value}" is not int.')
        if value > _SAFE:
            raise form_error(
                f"{p}.{key}",
                "NUMBER_TYPE_MAX",
                f"{kind} value should be less than or equal to {_SAFE}.",
            )
        if value < -_SAFE:
            raise form_error(
                f"{p}.{key}",
                "NUMBER_TYPE_MIN",
                f"{kind} value should be greater than or equal to {-_SAFE}.",
            )
    low, high = opt.get("min_value"), opt.get("max_value")
    if low is not None and high is not None and low > high:
        raise form_error(
            f"{p}.max_value",
            "NUMBER_TYPE_MIN",
            f"{kind} value should be greater than or equal to {low}.",
        )
    for key, (lo, hi) in (("min_length", (0, 6000)), ("max_length", (1, 6000))):
        if key not in opt or opt[key] is None:
            continue
        if otype != 3:
            raise form_error(
                f"{p}.{key}",
                "APPLICATION_COMMAND_OPTION_INVALID_FIELD",
                f"{key} is only allowed for STRING options",
            )
        value = opt[key]
        if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
            code = "NUMBER_TYPE_MAX" if isinstance(value, int) and value > hi else "NUMBER_TYPE_MIN"
            bound = (
                f"less than or equal to {hi}"
                if code == "NUMBER_TYPE_MAX"
                else f"greater than or equal to {lo}"
            )
            raise form_error(f"{p}.{key}", code, f"int value should be {bound}.")
    if opt.get("autocomplete") and otype not in (3, 4, 10):
        raise form_error(
            f"{p}.autocomplete",
            "APPLICATION_COMMAND_OPTION_INVALID_FIELD",
            "autocomplete is only allowed for STRING, INTEGER and NUMBER options",
        )


def _normalize_option(opt: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in opt.items() if v is not None}
    out.setdefault("name_localizations", None)
    out.setdefault("description_localizations", None)
    if int(out.get("type", 0)) not in (1, 2):
        out["required"] = bool(out.get("required", False))
    if out.get("options"):
        out["options"] = [_normalize_option(o) for o in out["options"]]
    return out


_EMBED_LIMITS = {"title": 256, "description": 4096}


def _validate_message_body(
    body: dict[str, Any],
    files: list[dict[str, Any]],
    *,
    prefix: str = "",
    allow_empty: bool = False,
) -> None:
    content = body.get("content") or ""
    if not isinstance(content, str):
        content = str(content)
    flags = int(body.get("flags") or 0)
    v2 = bool(flags & COMPONENTS_V2)
    if len(content) > 2000:
        raise form_error(
            f"{prefix}content", "BASE_TYPE_MAX_LENGTH", "Must be 2000 or fewer in length."
        )
    embeds = body.get("embeds") or []
    components = body.get("components") or []
    if v2 and (content or embeds):
        raise form_error(
            f"{prefix}content",
            "MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2",
            "The 'content' and 'embeds' fields cannot be used when using the IS_COMPONENTS_V2 flag",
        )
    if len(embeds) > 10:
        raise form_error(
            f"{prefix}embeds", "BASE_TYPE_MAX_LENGTH", "Must be 10 or fewer in length."
        )
    total = 0
    for i, e in enumerate(embeds):
        p = f"{prefix}embeds.{i}"
        for key, lim in _EMBED_LIMITS.items():
            text = str(e.get(key) or "")
            total += len(text)
            if len(text) > lim:
                raise form_error(
                    f"{p}.{key}", "BASE_TYPE_MAX_LENGTH", f"Must be {lim} or fewer in length."
                )
        fields = e.get("fields") or []
        if len(fields) > 25:
            raise form_error(
                f"{p}.fields", "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length."
            )
        for j, f in enumerate(fields):
            name, value = str(f.get("name", "")), str(f.get("value", ""))
            if not name or not value:
                raise form_error(
                    f"{p}.fields.{j}.{'name' if not name else 'value'}",
                    "BASE_TYPE_REQUIRED",
                    "This field is required",
                )
            if len(name) > 256:
                raise form_error(
                    f"{p}.fields.{j}.name",
                    "BASE_TYPE_MAX_LENGTH",
                    "Must be 256 or fewer in length.",
                )
            if len(value) > 1024:
                raise form_error(
                    f"{p}.fields.{j}.value",
                    "BASE_TYPE_MAX_LENGTH",
                    "Must be 1024 or fewer in length.",
                )
            total += len(name) + len(value)
        footer = str((e.get("footer") or {}).get("text") or "")
        author = str((e.get("author") or {}).get("name") or "")
        if len(footer) > 2048 or len(author) > 256:
            raise form_error(
                f"{p}.footer" if len(footer) > 2048 else f"{p}.author",
                "BASE_TYPE_MAX_LENGTH",
                "Too long.",
            )
        total += len(footer) + len(author)
    if total > 6000:
        raise form_error(
            f"{prefix}embeds", "MESSAGE_EMBEDS_TOO_LONG", "Embed size exceeds maximum size of 6000"
        )
    _validate_components(components, f"{prefix}components", v2)
    if len(files) > MAX_ATTACHMENTS or len(body.get("attachments") or []) > MAX_ATTACHMENTS:
        raise form_error(
            f"{prefix}attachments",
            "BASE_TYPE_MAX_LENGTH",
            f"Must be {MAX_ATTACHMENTS} or fewer in length.",
        )
    has_files = bool(files) or bool(body.get("attachments"))
    if not (
        content
        or embeds
        or components
        or has_files
        or body.get("sticker_ids")
        or body.get("poll")
        or allow_empty
    ):
        raise ApiError(400, 50006, "Cannot send an empty message")


def _validate_components(components: list[dict[str, Any]], path: str, v2: bool) -> None:
    if not v2 and len(components) > 5:
        raise form_error(path, "BASE_TYPE_MAX_LENGTH", "Must be 5 or fewer in length.")
    custom_ids: set[str] = set()
    for i, row in enumerate(components):
        rtype = row.get("type")
        if not v2 and rtype != 1:
            raise form_error(
                f"{path}.{i}.type",
                "UNION_TYPE_CHOICES",
                "Top-level components must be action rows without IS_COMPONENTS_V2",
            )
        children = row.get("components") or []
        if rtype == 1:
            if not 1 <= len(children) <= 5:
                raise form_error(
                    f"{path}.{i}.components",
                    "BASE_TYPE_BAD_LENGTH",
                    "Must be between 1 and 5 in length.",
                )
            if any(c.get("type") != 2 for c in children) and len(children) > 1:
                raise form_error(
                    f"{path}.{i}.components",
                    "COMPONENT_LAYOUT_WIDTH_EXCEEDED",
                    "The specified component exceeds the maximum width",
                )
    for j, comp in enumerate(iter_components(components)):
        cid = comp.get("custom_id")
        if cid is not None:
            if not 1 <= len(str(cid)) <= 100:
                raise form_error(
                    f"{path}.{j}.custom_id",
                    "BASE_TYPE_BAD_LENGTH",
                    "Must be between 1 and 100 in length.",
                )
            if cid in custom_ids:
                raise form_error(
                    f"{path}.{j}.custom_id",
                    "COMPONENT_CUSTOM_ID_DUPLICATED",
                    "Component custom id cannot be duplicated",
                )
            custom_ids.add(cid)
        if comp.get("type") == 2:
            if len(str(comp.get("label") or "")) > 80:
                raise form_error(
                    f"{path}.{j}.label", "BASE_TYPE_MAX_LENGTH", "Must be 80 or fewer in length."
                )
            if comp.get("style") == 5 and not comp.get("url"):
                raise form_error(f"{path}.{j}.url", "BASE_TYPE_REQUIRED", "This field is required")
            if comp.get("style") not in (5, 6) and cid is None:
                raise form_error(
                    f"{path}.{j}.custom_id", "BASE_TYPE_REQUIRED", "This field is required"
                )
        if comp.get("type") == 3:
            options = comp.get("options") or []
            if not 1 <= len(options) <= 25:
                raise form_error(
                    f"{path}.{j}.options",
                    "BASE_TYPE_BAD_LENGTH",
                    "Must be between 1 and 25 in length.",
                )
            for k, o in enumerate(options):
                if not 1 <= len(str(o.get("label", ""))) <= 100:
                    raise form_error(
                        f"{path}.{j}.options.{k}.label",
                        "BASE_TYPE_BAD_LENGTH",
                        "Must be between 1 and 100 in length.",
                    )


def _normalize_embeds(embeds: Any) -> list[dict[str, Any]]:
    out = []
    for e in embeds or []:
        e = dict(e)
        e.setdefault("type", "rich")
        if "fields" in e:
            e["fields"] = [{"inline": False, **f} for f in e["fields"]]
        out.append(e)
    return out


def _normalize_components(components: Any) -> list[dict[str, Any]]:
    counter = [0]

    def walk(comps: list[dict[str, Any]]) -> list[dict[str, Any]]:
        result = []
        for c in comps:
            c = dict(c)
            counter[0] += 1
            c.setdefault("id", counter[0])
            if c.get("components"):
                c["components"] = walk(c["components"])
            if isinstance(c.get("accessory"), dict):
                c["accessory"] = walk([c["accessory"]])[0]
            result.append(c)
        return result

    return walk(list(components or []))


_ = timedelta  # kept for callers that compute ages
