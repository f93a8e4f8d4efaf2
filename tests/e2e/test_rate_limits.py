"""Rate limits and refusals on the DM routes: every DM still arrives, once; Retry-After is
honoured; a refused DM (403) is tried once; the bot stays far inside Discord's budget of
invalid requests (10,000 answers 401/403/429 per 10 minutes per IP, or the IP is banned)."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from collections.abc import AsyncIterator
from functools import partial
from typing import Any

import discord
import pytest

from bot.courier import RATE_LIMIT_ROUNDS, patiently, retry_after
from games.resistance.players import Game
from playtest.players import text_of, until

pytestmark = pytest.mark.timeout(120)

INVALID = (401, 403, 429)
BUDGET_PER_SECOND = 10_000 / 600  # Discord's invalid-request limit, per second
RETRY_AFTER = 0.25  # what the storm's 429s ask for
STORM_SECONDS = 2.5  # longer than discord.py's five tries of one request (5 x 0.25 s)


def invalid_requests(sb: Any, since: float) -> list[Any]:
    return [r for r in sb.requests if r.time >= since and r.status in INVALID]


def assert_within_budget(sb: Any, since: float) -> int:
    """The invalid answers since ``since``: at most a quarter of Discord's budget for that
    time (and never more than a second's worth of it in any one second)."""
    bad = invalid_requests(sb, since)
    elapsed = max(time.monotonic() - since, 1.0)
    assert len(bad) <= BUDGET_PER_SECOND * elapsed / 4, (len(bad), elapsed)
    for r in bad:
        in_one_second = [x for x in bad if r.time <= x.time < r.time + 1]
        assert len(in_one_second) <= BUDGET_PER_SECOND, len(in_one_second)
    return len(bad)


@contextlib.asynccontextmanager
async def storm(sb: Any, path_regex: str, seconds: float) -> AsyncIterator[None]:
    """Every POST to ``path_regex`` is answered 429 (Retry-After 0.25 s) for ``seconds``,
    however often the bot asks."""
    sb.fail_route("POST", path_regex, status=429, retry_after=RETRY_AFTER)
    rules = sb.fail_rules[-1:]
    for rule in rules:
        rule.times = 1_000_000

    async def end() -> None:
        await asyncio.sleep(seconds)
        for rule in rules:
            rule.times = 0

    ender = asyncio.create_task(end())
    try:
        yield
    finally:
        await ender


def dm_texts(sb: Any, user: Any) -> list[str]:
    return [text_of(m) for m in sb.dms(user) if m.author_id == sb.bot_user.id]


def assert_retry_after_honoured(sb: Any, since: float) -> None:
    """After a 429 on a route, the next request to that route waits Retry-After."""
    by_path: dict[str, list[Any]] = {}
    for r in sb.requests:
        if r.time >= since and r.method == "POST":
            by_path.setdefault(r.path, []).append(r)
    for path, calls in by_path.items():
        for before, after in itertools.pairwise(calls):
            if before.status == 429:
                gap = after.time - before.time
                assert gap >= RETRY_AFTER * 0.9, (path, gap)


async def test_dm_storm_every_dm_arrives_once_within_budget(table: Any, bot: Any) -> None:
    sb = table.sb
    players = table.users[:5]
    game = Game(table, players)
    await game.open(lock_during_vote=False, reminder_hours=0.0)
    since = time.monotonic()
    # The DM check and the roles while opening DM channels is rate limited...
    async with storm(sb, r"/users/@me/channels$", STORM_SECONDS):
        await game.start()
    # ... then the vote DMs while sending in them is.
    ids = "|".join(str(sb.dm_channel(u).id) for u in players)
    leader = game.leader()
    async with storm(sb, rf"/channels/({ids})/messages$", STORM_SECONDS):
        await game.propose([leader, next(u for u in players if u is not leader)])
    storm_429s = [r for r in invalid_requests(sb, since) if r.status == 429]
    for route in ("POST /users/@me/channels", "POST /channels/{channel_id}/messages"):
        # The storm outlasted discord.py's own five tries of a request on each route.
        assert sum(r.route == route for r in storm_429s) > 5, route
    for user in players:
        texts = dm_texts(sb, user)
        assert sum("You are" in x or "Vous incarnez" in x for x in texts) == 1, texts  # the role
        votes = [m for m in sb.dms(user) if "Accept" in m.labels or "Pour" in m.labels]
        assert len(votes) == 1  # the vote DM, once
        menus = [m for m in sb.dms(user) if m.selects]  # the leader's call and its menu
        assert len(menus) == (1 if user is leader else 0)
        # The DM check before the roles, and the leader's call to propose: nothing twice.
        called = sum("It is your turn" in x or "C’est à vous" in x for x in texts)
        assert called == (1 if user is leader else 0), texts
        assert len(texts) == 3 + called, texts
    assert_retry_after_honoured(sb, since)
    assert assert_within_budget(sb, since) == len(storm_429s)


async def test_closed_dms_are_tried_once_per_message(table: Any, bot: Any) -> None:
    sb = table.sb
    shy = table.users[5]
    shy.dms_open = False
    players = [*table.users[:4], shy]
    game = Game(table, players)
    await game.open(lock_during_vote=False)
    since = time.monotonic()

    def posted_since(before: int) -> bool:
        return len(game.public()) > before

    for attempt in (1, 2):
        before = len(game.public())
        reply = await game.slash(table.mod, "resistance start")
        assert shy.name in reply, reply
        await until(partial(posted_since, before), what="the unreachable notice")
        await asyncio.sleep(0.3)  # time for a retry to show up, if there were one
        to_shy = [
            r
            for r in sb.requests
            if r.time >= since
            and r.method == "POST"
            and r.path == f"/channels/{sb.dm_channel(shy).id}/messages"
        ]
        assert [r.status for r in to_shy] == [403] * attempt
        assert all(r.error_code == 50007 for r in to_shy)
    assert assert_within_budget(sb, since) == 2
    assert not any(r.status == 401 for r in sb.requests)


class FakeResponse:
    reason = "Refused"

    def __init__(self, status: int, headers: dict[str, str]) -> None:
        self.status = status
        self.headers = headers


def http_error(status: int, **headers: str) -> discord.HTTPException:
    cls = discord.Forbidden if status == 403 else discord.HTTPException
    return cls(FakeResponse(status, headers), {"message": "no", "code": 0})


def test_which_refusals_are_worth_waiting_for() -> None:
    assert retry_after(http_error(429, **{"Via": "1.1 google", "Retry-After": "2"})) == 2.0
    assert retry_after(http_error(429, Via="1.1 google")) == 1.0
    assert retry_after(http_error(429, **{"Retry-After": "2"})) is None  # Cloudflare: no Via
    assert retry_after(http_error(429, **{"Via": "1.1 google", "Retry-After": "3600"})) is None
    assert retry_after(http_error(403)) is None
    assert retry_after(http_error(500)) is None


async def test_patiently_tries_a_403_once_and_a_429_a_bounded_number_of_times() -> None:
    calls: list[int] = []

    async def refused() -> None:
        calls.append(403)
        raise http_error(403)

    async def limited() -> None:
        calls.append(429)
        raise http_error(429, **{"Via": "1.1 google", "Retry-After": "0"})

    with pytest.raises(discord.Forbidden):
        await patiently(refused, "test")
    assert calls == [403]
    calls.clear()
    with pytest.raises(discord.HTTPException):
        await patiently(limited, "test")
    assert calls == [429] * (RATE_LIMIT_ROUNDS + 1)
