"""An interaction's first callback carrying a text, in one small HTTP request of the bot's own.

discord.py's ``InteractionResponse.send_message`` always asks Discord for the message the
callback created (``?with_response=1``) and parses it, through its webhook adapter and
aiohttp's client. A private text answer, what nearly every click gets, needs none of it:
:func:`send_text` posts discord.py's own payload (``interaction_message_response_params``) to
the same route without ``with_response`` (Discord answers 204), over keep-alive HTTP/1.1
connections kept here (:class:`Callbacks`, answers parsed by httptools), which cost a third of
aiohttp's CPU for this one POST (docs/performance.md, "The bypasses").

Anything unusual goes through ``send_message``: the bypass off (``own_callbacks``,
adapters/switch.py), a proxy, an id or token that is not plain, a connection that fails or
closes before the answer, a rate limit or a server error (discord.py then waits and retries by
its rules). A refusal (404, 403, 400) raises what discord.py raises; an answered interaction is
marked as ``send_message`` marks it, so ``is_done()`` and follow-ups behave the same.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import ssl
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import discord
import httptools
import orjson
import yarl
from discord.http import Route
from discord.webhook.async_ import interaction_message_response_params

from adapters import switch

log = logging.getLogger(__name__)

CHANNEL_MESSAGE = discord.InteractionResponseType.channel_message
EPHEMERAL = discord.MessageFlags(ephemeral=True)
#: What an interaction's id and token may hold to be written into a request line as they are
#: (Discord's tokens are base64url with dots; anything else goes through discord.py).
PLAIN = re.compile(r"[A-Za-z0-9._-]{1,500}")


def _nothing(*_: Any) -> None:
    return None


#: What the bot's figures count (bot/metrics.py, :func:`watch`): an interaction answered here
#: (its id), and a 429 met here.
_watchers: dict[str, Callable[..., None]] = {"acknowledged": _nothing, "rate_limited": _nothing}


def watch(acknowledged: Callable[[int], None], rate_limited: Callable[[], None]) -> None:
    """Call ``acknowledged(interaction_id)`` for each callback answered here, ``rate_limited()``
    for each 429."""
    _watchers.update(acknowledged=acknowledged, rate_limited=rate_limited)


@dataclass(frozen=True, slots=True)
class Answer:
    """Discord's answer to a callback: what discord.py's exceptions read of a response."""

    status: int
    reason: str
    body: bytes

    def data(self) -> Any:
        """The body as discord.py reads one (JSON, or the text)."""
        try:
            return orjson.loads(self.body) if self.body else ""
        except orjson.JSONDecodeError:
            return self.body.decode("utf-8", "replace")


class Lost(ConnectionError):
    """The connection failed or closed before Discord's whole answer came."""


class _Connection(asyncio.Protocol):
    """One keep-alive connection: one request at a time, its answer parsed by httptools."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.closed = False
        self.idle_since = 0.0
        self._parser = httptools.HttpResponseParser(self)
        self._waiter: asyncio.Future[tuple[Answer, bool]] | None = None
        self._body: list[bytes] = []
        self._reason = ""

    # -- asyncio.Protocol
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        try:
            self._parser.feed_data(data)
        except httptools.HttpParserError as exc:
            self._fail(Lost(f"an answer that is not HTTP: {exc}"))
            self.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self._fail(Lost(f"connection closed before the answer ({exc or 'by the server'})"))

    # -- httptools' callbacks
    def on_status(self, status: bytes) -> None:
        self._reason = status.decode("latin-1")

    def on_body(self, body: bytes) -> None:
        self._body.append(body)

    def on_message_complete(self) -> None:
        answer = Answer(self._parser.get_status_code(), self._reason, b"".join(self._body))
        self._body, self._reason = [], ""
        waiter, self._waiter = self._waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_result((answer, self._parser.should_keep_alive()))

    # --
    async def request(self, data: bytes) -> tuple[Answer, bool]:
        """Send one request; its answer and whether the connection may be used again."""
        assert self.transport is not None and self._waiter is None
        self._waiter = asyncio.get_running_loop().create_future()
        self.transport.write(data)
        return await self._waiter

    def _fail(self, exc: Exception) -> None:
        waiter, self._waiter = self._waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_exception(exc)

    def close(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.close()


class Callbacks:
    """Keep-alive connections to Discord's API host for interactions' callbacks: one request
    at a time on each, as many as are under way (none is shared between two requests), the
    most recently used taken first; one idle for :attr:`IDLE` seconds is closed when next
    found (aiohttp's keep-alive timeout, shorter than servers' own)."""

    IDLE = 15.0

    def __init__(self, base: str, user_agent: str) -> None:
        url = yarl.URL(base)
        if url.scheme not in ("http", "https") or not url.host:
            raise ValueError(f"not an HTTP API base: {base}")
        self.host = url.host
        self.port = url.port or (443 if url.scheme == "https" else 80)
        self.path = url.raw_path.rstrip("/")
        self.tls = ssl.create_default_context() if url.scheme == "https" else None
        default_port = (url.scheme == "https" and self.port == 443) or self.port == 80
        host = self.host if default_port else f"{self.host}:{self.port}"
        self._head = (
            f"Host: {host}\r\nUser-Agent: {user_agent}\r\n"
            "Content-Type: application/json\r\nContent-Length: "
        )
        self._idle: list[_Connection] = []
        #: connections opened (for the tests)
        self.opened = 0

    async def post(self, path: str, body: bytes) -> Answer:
        """POST ``body`` (JSON) to ``path`` (under the API base); raises :class:`Lost` when
        the connection fails or closes before the whole answer."""
        conn = self._idle_connection() or await self._open()
        head = f"POST {self.path}{path} HTTP/1.1\r\n{self._head}{len(body)}\r\n\r\n"
        try:
            answer, keep = await conn.request(head.encode("latin-1") + body)
        except BaseException:
            conn.close()  # cancelled or lost mid-request: its state is unknown
            raise
        if keep and not conn.closed:
            conn.idle_since = time.monotonic()
            self._idle.append(conn)
        else:
            conn.close()
        return answer

    def _idle_connection(self) -> _Connection | None:
        now = time.monotonic()
        while self._idle:
            conn = self._idle.pop()
            if not conn.closed and now - conn.idle_since < self.IDLE:
                return conn
            conn.close()
        return None

    async def _open(self) -> _Connection:
        loop = asyncio.get_running_loop()
        try:
            _, conn = await loop.create_connection(
                _Connection,
                self.host,
                self.port,
                ssl=self.tls,
                server_hostname=self.host if self.tls is not None else None,
            )
        except OSError as exc:
            raise Lost(f"could not connect to {self.host}:{self.port}: {exc}") from exc
        self.opened += 1
        return conn

    def close(self) -> None:
        conns, self._idle = self._idle, []
        for conn in conns:
            conn.close()


#: Each event loop's connections, by API base (tests run bots on several sandboxes).
_callbacks: dict[tuple[asyncio.AbstractEventLoop, str], Callbacks] = {}


def callbacks(user_agent: str) -> Callbacks:
    """The running loop's connections to the API base discord.py points at (``Route.BASE``)."""
    key = (asyncio.get_running_loop(), Route.BASE)
    found = _callbacks.get(key)
    if found is None:
        for (loop, _), stale in list(_callbacks.items()):
            if loop.is_closed():
                del _callbacks[(loop, _)]
                stale.close()
        found = _callbacks[key] = Callbacks(Route.BASE, user_agent)
    return found


def close_callbacks() -> None:
    """Close the running loop's connections (the bot is closing)."""
    loop = asyncio.get_running_loop()
    for key in [k for k in _callbacks if k[0] is loop]:
        _callbacks.pop(key).close()


async def send_text(
    interaction: discord.Interaction,
    content: str,
    *,
    ephemeral: bool,
    allowed_mentions: Any = discord.utils.MISSING,
) -> None:
    """``interaction.response.send_message(content, ephemeral=…, allowed_mentions=…)``, the
    created message not asked for. Raises what ``send_message`` raises (``NotFound`` for an
    expired interaction, ``InteractionResponded`` when it was answered already)."""
    response = interaction.response
    if response.is_done():
        raise discord.InteractionResponded(interaction)
    # discord.py's own objects, read as send_message reads them
    state: Any = interaction._state
    token = interaction.token
    own = switch.runs(interaction.client, switch.OWN_CALLBACKS)
    if own and state.http.proxy is None and PLAIN.fullmatch(token):
        params = interaction_message_response_params(
            type=CHANNEL_MESSAGE.value,
            content=content,
            flags=EPHEMERAL if ephemeral else discord.utils.MISSING,
            allowed_mentions=allowed_mentions,
            previous_allowed_mentions=state.allowed_mentions,
        )
        path = f"/interactions/{interaction.id}/{token}/callback"
        try:
            answer = await callbacks(state.http.user_agent).post(path, orjson.dumps(params.payload))
        except Lost as exc:  # discord.py's own call answers instead
            log.info("interaction %s: callback through discord.py: %s", interaction.id, exc)
        else:
            if answer.status < 300:
                response._response_type = CHANNEL_MESSAGE  # answered, as send_message marks it
                _watchers["acknowledged"](interaction.id)
                return
            await _refused(interaction, answer)
    # Rate limited, a server error, or not sent: discord.py's own call, by its rules.
    await response.send_message(content, ephemeral=ephemeral, allowed_mentions=allowed_mentions)


async def _refused(interaction: discord.Interaction, answer: Answer) -> None:
    """A callback Discord did not take: raise what discord.py raises for it; a rate limit
    (counted, said and waited for as discord.py's own 429s are) or a server error returns, for
    discord.py's own call to answer instead."""
    data = answer.data()
    if answer.status == 429:
        wait = data.get("retry_after", 0.0) if isinstance(data, dict) else 0.0
        _watchers["rate_limited"]()
        log.warning("interaction %s: its callback is rate limited (429)", interaction.id)
        with contextlib.suppress(TypeError, ValueError):
            await asyncio.sleep(float(wait))
        return
    if answer.status >= 500:
        return
    if answer.status == 404:
        raise discord.NotFound(answer, data)
    if answer.status == 403:
        raise discord.Forbidden(answer, data)
    raise discord.HTTPException(answer, data)
