"""The callbacks' own HTTP/1.1 connections (adapters/discord_callback.py's Callbacks), against a
real local HTTP server (aiohttp's): a request as Discord reads one, a connection kept alive and
reused one request at a time, a new one for each request under way at once, one the server closes or
that idled too long never reused, an answer's body read whole (chunked too), and a connection that
closes before the answer raised as Lost."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any

import orjson
import pytest
from aiohttp import web

from adapters.discord_callback import Answer, Callbacks, Lost

BODY = orjson.dumps({"type": 4, "data": {"content": "On record", "flags": 64}})


class Server:
    """A local HTTP server that records what it received, by connection."""

    def __init__(self) -> None:
        self.seen: list[tuple[int, str, dict[str, str], bytes]] = []
        self.release = asyncio.Event()
        #: set once this many "slow" requests are held
        self.hold = 3
        self.all_held = asyncio.Event()

    async def handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.read()
        peer = id(request.transport)
        self.seen.append((peer, request.path, dict(request.headers), body))
        kind = request.match_info["kind"]
        if kind == "ok":
            return web.Response(status=204)
        if kind == "slow":
            self.hold -= 1
            if self.hold == 0:
                self.all_held.set()
            await self.release.wait()
            return web.Response(status=204)
        if kind == "close":
            return web.Response(status=204, headers={"Connection": "close"})
        if kind == "refused":
            return web.json_response({"message": "Unknown interaction", "code": 10062}, status=404)
        if kind == "chunked":
            response = web.StreamResponse(status=400)
            response.enable_chunked_encoding()
            response.content_type = "application/json"
            await response.prepare(request)
            await response.write(b'{"message": "Invalid ')
            await response.write(b'Form Body", "code": 50035}')
            await response.write_eof()
            return response
        assert request.transport is not None  # "drop": no answer at all
        request.transport.close()
        return web.Response(status=204)


@pytest.fixture
async def server() -> AsyncIterator[tuple[Server, str]]:
    srv = Server()
    app = web.Application()
    app.router.add_post("/api/v10/interactions/{id}/{kind}/callback", srv.handle)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        yield srv, f"http://127.0.0.1:{port}/api/v10"
    finally:
        await runner.cleanup()


@pytest.fixture
def calls(server: tuple[Server, str]) -> Iterator[Callbacks]:
    """The bot's connections to the server's API base."""
    made = Callbacks(server[1], "DiscordBot (test, 1.0)")
    try:
        yield made
    finally:
        made.close()


def path(kind: str, n: int = 1) -> str:
    return f"/interactions/{n}/{kind}/callback"


async def test_a_request_as_discord_reads_it_on_one_kept_connection(
    server: tuple[Server, str], calls: Callbacks
) -> None:
    srv, base = server
    for n in range(5):
        assert await calls.post(path("ok", n), BODY) == Answer(204, "No Content", b"")
    assert calls.opened == 1
    assert len({peer for peer, *_ in srv.seen}) == 1  # one connection, five requests
    _, where, headers, body = srv.seen[0]
    assert where == "/api/v10/interactions/0/ok/callback" and body == BODY
    assert headers["Content-Type"] == "application/json"
    assert headers["User-Agent"] == "DiscordBot (test, 1.0)"
    assert headers["Host"] == base.split("/")[2]
    assert headers["Content-Length"] == str(len(BODY))


async def test_requests_under_way_at_once_each_have_their_own_connection(
    server: tuple[Server, str], calls: Callbacks
) -> None:
    srv, _ = server
    slow = [asyncio.create_task(calls.post(path("slow", n), BODY)) for n in range(3)]
    await srv.all_held.wait()  # the server holds all three
    srv.release.set()
    answers = await asyncio.gather(*slow)
    assert [a.status for a in answers] == [204] * 3
    assert calls.opened == 3 and len({peer for peer, *_ in srv.seen}) == 3
    await calls.post(path("ok"), BODY)  # then one of them again
    assert calls.opened == 3


async def test_a_connection_the_server_closes_or_that_idled_is_not_used_again(
    server: tuple[Server, str], calls: Callbacks
) -> None:
    srv, _ = server
    assert (await calls.post(path("close"), BODY)).status == 204  # "Connection: close"
    assert (await calls.post(path("ok"), BODY)).status == 204
    assert calls.opened == 2
    calls.IDLE = 0.0  # every idle connection now too old
    assert (await calls.post(path("ok"), BODY)).status == 204
    assert calls.opened == 3
    assert len({peer for peer, *_ in srv.seen}) == 3


async def test_a_refusal_is_read_whole_as_discord_py_reads_one(calls: Callbacks) -> None:
    refused = await calls.post(path("refused"), BODY)
    assert (refused.status, refused.data()) == (
        404,
        {"message": "Unknown interaction", "code": 10062},
    )
    chunked = await calls.post(path("chunked"), BODY)
    assert chunked.status == 400 and chunked.reason == "Bad Request"
    assert chunked.data() == {"message": "Invalid Form Body", "code": 50035}
    assert calls.opened == 1  # both on the same connection


async def test_a_connection_closed_before_the_answer_is_lost(calls: Callbacks) -> None:
    with pytest.raises(Lost):
        await calls.post(path("drop"), BODY)
    assert (await calls.post(path("ok"), BODY)).status == 204  # on a new connection
    assert calls.opened == 2
    nowhere = Callbacks("http://127.0.0.1:9/api/v10", "test")  # nothing listens there
    with pytest.raises(Lost):
        await nowhere.post(path("ok"), BODY)


def test_only_an_http_api_base() -> None:
    for base in ("ftp://example.com/api", "/api/v10", "http:///api"):
        with pytest.raises(ValueError):
            Callbacks(base, "test")
    https: Any = Callbacks("https://discord.com/api/v10", "test")
    assert (https.host, https.port, https.path, https.tls is not None) == (
        "discord.com",
        443,
        "/api/v10",
        True,
    )
