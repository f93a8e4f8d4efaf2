"""The gateway: HELLO, IDENTIFY, heartbeats, READY/GUILD_CREATE, dispatch, RESUME.

Every dispatched event is appended to its session's log with a sequence number, synchronously;
a writer task per connection streams the log. A RESUME reattaches a new connection to the log
at the client's sequence number, so events dispatched while disconnected are replayed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import zlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aiohttp import WSMsgType, web

from . import util

if TYPE_CHECKING:
    from .core import Sandbox

log = logging.getLogger(__name__)

DISPATCH, HEARTBEAT, IDENTIFY, PRESENCE, VOICE, RESUME, RECONNECT = 0, 1, 2, 3, 4, 6, 7
REQUEST_MEMBERS, INVALID_SESSION, HELLO, HEARTBEAT_ACK = 8, 9, 10, 11


@dataclass(eq=False)
class Session:
    session_id: str
    shard_id: int
    shard_count: int
    intents: int
    events: list[dict[str, Any]] = field(default_factory=list)
    seq: int = 0
    conn: Connection | None = None
    invalid: bool = False
    replayed: int = 0

    def handles_guild(self, guild_id: int | None) -> bool:
        if guild_id is None:
            return self.shard_id == 0
        return (guild_id >> 22) % self.shard_count == self.shard_id

    def push(self, event: str, data: dict[str, Any]) -> None:
        self.seq += 1
        self.events.append({"op": DISPATCH, "t": event, "s": self.seq, "d": data})
        if self.conn is not None:
            self.conn.wake.set()


class Connection:
    def __init__(self, ws: web.WebSocketResponse, compress: bool) -> None:
        self.ws = ws
        self.compressor = zlib.compressobj() if compress else None
        self.lock = asyncio.Lock()
        self.wake = asyncio.Event()
        self.session: Session | None = None
        self.cursor = 0
        self.writer: asyncio.Task[None] | None = None
        self.closed_by_server = False

    async def send(self, frame: dict[str, Any]) -> None:
        text = util.to_json(frame)
        async with self.lock:
            if self.ws.closed:
                return
            if self.compressor is not None:
                data = self.compressor.compress(text) + self.compressor.flush(zlib.Z_SYNC_FLUSH)
                await self.ws.send_bytes(data)
            else:
                await self.ws.send_str(text.decode())

    def attach(self, session: Session, cursor: int) -> None:
        if session.conn is not None and session.conn is not self:
            old = session.conn
            old.session = None
            old.wake.set()
        self.session = session
        self.cursor = cursor
        session.conn = self
        self.writer = asyncio.create_task(self._write())

    async def _write(self) -> None:
        try:
            while not self.ws.closed and self.session is not None:
                session = self.session
                while self.cursor < len(session.events) and self.session is session:
                    frame = session.events[self.cursor]
                    await self.send(frame)
                    self.cursor += 1
                self.wake.clear()
                if self.cursor < len(session.events):
                    continue
                await self.wake.wait()
        except (ConnectionResetError, RuntimeError):  # pragma: no cover - peer went away
            pass


class Gateway:
    #: the next RESUME replays this many events the client had already received
    replay_extra: int = 0

    def __init__(self, sb: Sandbox) -> None:
        self.sb = sb
        self.sessions: dict[str, Session] = {}
        self.connections: set[Connection] = set()
        self.open = asyncio.Event()
        self.open.set()
        self.changed = asyncio.Event()

    # ---- routing ----------------------------------------------------------------
    def live_sessions(self) -> list[Session]:
        return [s for s in self.sessions.values() if not s.invalid]

    def dispatch(
        self,
        event: str,
        data: dict[str, Any],
        *,
        guild_id: int | None,
        intent: int | None = None,
        transform: Any = None,
    ) -> list[Session]:
        targets = []
        for session in self.live_sessions():
            if not session.handles_guild(guild_id):
                continue
            if intent is not None and not session.intents & intent:
                continue
            payload = transform(session, data) if transform is not None else data
            session.push(event, payload)
            targets.append(session)
        return targets

    def shard_ids_for(self, guild_id: int | None) -> list[int]:
        return sorted({s.shard_id for s in self.live_sessions() if s.handles_guild(guild_id)})

    # ---- connection handling ------------------------------------------------------
    async def handle(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(max_msg_size=0, autoping=True)
        await ws.prepare(request)
        conn = Connection(ws, request.query.get("compress") == "zlib-stream")
        self.connections.add(conn)
        try:
            await self.open.wait()
            await conn.send(
                {
                    "op": HELLO,
                    "d": {
                        "heartbeat_interval": int(self.sb.heartbeat_interval * 1000),
                        "_trace": ['["sandbox-gateway",{"micros":0}]'],
                    },
                    "s": None,
                    "t": None,
                }
            )
            async for msg in ws:
                if msg.type is WSMsgType.TEXT:
                    try:
                        frame = json.loads(msg.data)
                    except ValueError:
                        await ws.close(code=4002, message=b"Error while decoding payload.")
                        break
                    await self._on_frame(conn, frame)
                elif msg.type is WSMsgType.BINARY:  # pragma: no cover - etf not supported
                    await ws.close(code=4002, message=b"Error while decoding payload.")
                elif msg.type is WSMsgType.ERROR:  # pragma: no cover
                    break
        except (ConnectionResetError, RuntimeError):  # pragma: no cover - peer went away
            pass
        finally:
            self.connections.discard(conn)
            session = conn.session
            if session is not None and session.conn is conn:
                session.conn = None
                # A clean close by the client (1000/1001) ends the session; anything else
                # (including our own drop) keeps it resumable.
                if not conn.closed_by_server and ws.close_code in (1000, 1001):
                    session.invalid = True
            conn.session = None
            conn.wake.set()
            if conn.writer is not None:
                conn.writer.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await conn.writer
            self._changed()
        return ws

    def _changed(self) -> None:
        self.changed.set()
        self.changed = asyncio.Event()
        self.sb._notify()

    async def _on_frame(self, conn: Connection, frame: dict[str, Any]) -> None:
        op = frame.get("op")
        data = frame.get("d")
        if op == HEARTBEAT:
            await conn.send({"op": HEARTBEAT_ACK, "d": None, "s": None, "t": None})
        elif op == IDENTIFY:
            await self._identify(conn, data or {})
        elif op == RESUME:
            await self._resume(conn, data or {})
        elif op == REQUEST_MEMBERS and conn.session is not None:
            self._request_members(conn.session, data or {})
        elif op in (PRESENCE, VOICE):
            pass
        else:
            log.debug("gateway: ignoring op %s", op)

    async def _identify(self, conn: Connection, data: dict[str, Any]) -> None:
        if data.get("token") != self.sb.token:
            conn.closed_by_server = True
            await conn.ws.close(code=4004, message=b"Authentication failed.")
            return
        if conn.session is not None:
            conn.closed_by_server = True
            await conn.ws.close(code=4005, message=b"Already authenticated.")
            return
        shard = data.get("shard") or [0, 1]
        shard_id, shard_count = int(shard[0]), int(shard[1])
        if shard_count < 1 or not 0 <= shard_id < shard_count:
            conn.closed_by_server = True
            await conn.ws.close(code=4010, message=b"Invalid shard.")
            return
        intents = int(data.get("intents", 0))
        session = Session(secrets.token_hex(16), shard_id, shard_count, intents)
        self.sessions[session.session_id] = session
        guilds = [g for g in self.sb.guilds.values() if session.handles_guild(g.id)]
        bot = self.sb.bot_user.payload()
        bot.update(verified=True, mfa_enabled=False, email=None, locale="en-US")
        session.push(
            "READY",
            {
                "v": 10,
                "user": bot,
                "user_settings": {},
                "guilds": [{"id": str(g.id), "unavailable": True} for g in guilds],
                "session_id": session.session_id,
                "session_type": "normal",
                "resume_gateway_url": self.sb.gateway_url,
                "shard": [shard_id, shard_count],
                "application": {"id": str(self.sb.application_id), "flags": self.sb.app_flags},
                "private_channels": [],
                "relationships": [],
                "presences": [],
                "guild_join_requests": [],
                "geo_ordered_rtc_regions": ["sandbox"],
                "auth": {},
                "_trace": ['["sandbox-gateway",{"micros":0}]'],
            },
        )
        for guild in guilds:
            # A guild in an outage stays unavailable: listed in READY, never created.
            if intents & util.INTENT_GUILDS and not guild.outage:
                session.push(
                    "GUILD_CREATE",
                    guild.create_payload(all_members=bool(intents & util.INTENT_GUILD_MEMBERS)),
                )
        conn.attach(session, 0)
        self.sb.identify_count += 1
        self._changed()

    async def _resume(self, conn: Connection, data: dict[str, Any]) -> None:
        session = self.sessions.get(str(data.get("session_id")))
        if session is None or session.invalid or data.get("token") != self.sb.token:
            await conn.send({"op": INVALID_SESSION, "d": False, "s": None, "t": None})
            return
        seq = int(data.get("seq") or 0)
        cursor = next(
            (i for i, f in enumerate(session.events) if f["s"] > seq), len(session.events)
        )
        # A driver asked for a RESUME that replays events the client already had (Discord
        # does not promise to replay exactly from ``seq``): the last ``replay_extra`` of them.
        cursor, self.replay_extra = max(0, cursor - self.replay_extra), 0
        session.replayed += len(session.events) - cursor
        self.sb.replayed_events += len(session.events) - cursor
        session.push("RESUMED", {"_trace": ['["sandbox-gateway",{"micros":0}]']})
        conn.attach(session, cursor)
        self.sb.resume_count += 1
        self._changed()

    def _request_members(self, session: Session, data: dict[str, Any]) -> None:
        guild = self.sb.guilds.get(int(data.get("guild_id", 0)))
        if guild is None:
            return
        members = list(guild.members.values())
        query = data.get("query")
        if data.get("user_ids"):
            ids = data["user_ids"]
            wanted = {int(i) for i in (ids if isinstance(ids, list) else [ids])}
            members = [m for m in members if m.user.id in wanted]
        elif query:
            members = [m for m in members if m.user.username.startswith(str(query).lower())]
        limit = int(data.get("limit") or 0)
        if limit:
            members = members[:limit]
        chunk: dict[str, Any] = {
            "guild_id": str(guild.id),
            "members": [m.payload() for m in members],
            "chunk_index": 0,
            "chunk_count": 1,
            "not_found": [],
        }
        if data.get("nonce") is not None:
            chunk["nonce"] = data["nonce"]
        session.push("GUILD_MEMBERS_CHUNK", chunk)

    # ---- driver controls ------------------------------------------------------------
    async def drop(self, *, hold: bool = False) -> None:
        if hold:
            self.open.clear()
        conns = list(self.connections)
        for conn in conns:
            conn.closed_by_server = True
            session = conn.session
            if session is not None and session.conn is conn:
                session.conn = None
            conn.session = None
            conn.wake.set()
        for conn in conns:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(conn.ws.close(code=4000, message=b"Unknown error"), 2)

    def release(self) -> None:
        self.open.set()

    async def close(self) -> None:
        self.open.set()
        for conn in list(self.connections):
            conn.closed_by_server = True
            with contextlib.suppress(Exception):
                await asyncio.wait_for(conn.ws.close(code=1001, message=b"Going away"), 2)
