"""The outbox dispatcher against the sandbox with the real discord.py client, on SQLite and on
PostgreSQL: order per game, independence between games, retries, permanent refusals, nonces
after a crash, long texts, and several processes claiming rows."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from functools import partial
from typing import Any

import discord
import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot import metrics, notices
from bot.clock import utcnow
from bot.dispatcher import LEASE, Dispatcher
from bot.effects import DirectMessage, EditSlot, Post, Record, View
from db import repo
from db.engine import make_engine, make_sessions
from db.models import EffectStatus
from playtest.players import until
from sandbox import Sandbox
from tests.sandbox.client import FAST_CLIENT_OPTIONS, running

pytestmark = pytest.mark.timeout(60)

Sessions = async_sessionmaker[AsyncSession]


@pytest.fixture
async def sb() -> AsyncIterator[Sandbox]:
    async with Sandbox() as sandbox:
        yield sandbox


@pytest.fixture
async def client(sb: Sandbox) -> AsyncIterator[discord.Client]:
    async with running(
        discord.Client(intents=discord.Intents.default(), **FAST_CLIENT_OPTIONS), sb
    ) as c:
        yield c


@contextlib.asynccontextmanager
async def dispatching(client: discord.Client, sessions: Sessions) -> AsyncIterator[Dispatcher]:
    dispatcher = Dispatcher(client, sessions)
    await dispatcher.start()
    try:
        yield dispatcher
    finally:
        await dispatcher.stop()


async def new_game(sessions: Sessions, guild: Any, channel: Any) -> int:
    async with sessions.begin() as s:
        game = await repo.create_game(
            s, kind="poll", guild_id=guild.id, channel_id=channel.id, created_by=1
        )
        await s.flush()
        return game.id


async def send(dispatcher: Dispatcher, game_id: int, guild_id: int, *records: Record) -> int:
    """Write ``records`` as the game's next effects, wake the dispatcher and wait until it has
    delivered them (5 s at most): the last one's seq."""
    seq = await write(dispatcher.sessions, game_id, guild_id, *records)
    dispatcher.wake(game_id)
    assert await dispatcher.delivered(game_id, seq, 5)
    return seq


async def game_in_a_channel(sb: Sandbox, sessions: Sessions) -> tuple[Any, Any, int]:
    """A guild, its text channel ``game`` and a game there: (guild, channel, game id)."""
    guild = sb.add_guild("G")
    channel = guild.add_text_channel("game")
    return guild, channel, await new_game(sessions, guild, channel)


async def write(sessions: Sessions, game_id: int, guild_id: int, *records: Record) -> int:
    async with sessions.begin() as s:
        rows = await repo.add_effects(
            s, game_id, guild_id, [(r.KIND, r.payload()) for r in records]
        )
        return rows[-1].seq


async def rows_of(sessions: Sessions, game_id: int) -> list[Any]:
    async with sessions() as s:
        return await repo.effects_of(s, game_id)


def failures() -> float:
    """The delivery-failure counter as /metrics shows it (the registry is the process's)."""
    return metrics.REGISTRY.get_sample_value("pbp_effect_delivery_failures_total") or 0.0


def texts(sb: Sandbox, channel: Any) -> list[str]:
    return [m.content for m in sb.channel_messages(channel)]


async def test_each_game_in_order_and_a_failing_game_holds_up_no_other(
    sb: Sandbox, client: discord.Client, sessions: Sessions
) -> None:
    guild = sb.add_guild("G")
    a, b = guild.add_text_channel("a"), guild.add_text_channel("b")
    game_a, game_b = await new_game(sessions, guild, a), await new_game(sessions, guild, b)
    sb.fail_route("POST", rf"/channels/{a.id}/messages$", status=503, times=3)
    failed_before = failures()
    async with dispatching(client, sessions) as dispatcher:
        last_a = await write(sessions, game_a, guild.id, *(Post(a.id, f"a{i}") for i in range(3)))
        last_b = await write(sessions, game_b, guild.id, *(Post(b.id, f"b{i}") for i in range(3)))
        dispatcher.wake(game_a)
        dispatcher.wake(game_b)
        assert await dispatcher.delivered(game_b, last_b, 5)
        assert texts(sb, b) == ["b0", "b1", "b2"]
        assert texts(sb, a) == []  # game A is still waiting out its 503s
        assert await dispatcher.delivered(game_a, last_a, 20)
    assert texts(sb, a) == ["a0", "a1", "a2"]
    first = (await rows_of(sessions, game_a))[0]
    assert first.status == EffectStatus.DONE.value and first.attempts == 4
    assert all(r.status == "done" and r.discord_id for r in await rows_of(sessions, game_b))
    assert failures() == failed_before  # retried, then delivered: not a failure


async def test_a_permanent_refusal_is_recorded_once_and_the_game_goes_on(
    sb: Sandbox, client: discord.Client, sessions: Sessions
) -> None:
    guild = sb.add_guild("G")
    channel = guild.add_text_channel("game")
    shy = sb.add_user("Shy", dms_open=False)
    guild.add_member(shy)
    game = await new_game(sessions, guild, channel)
    failed_before = failures()
    async with dispatching(client, sessions) as dispatcher:
        await send(
            dispatcher, game, guild.id, DirectMessage(shy.id, "psst"), Post(channel.id, "after")
        )
    refused, posted = await rows_of(sessions, game)
    assert refused.status == "failed" and "50007" in (refused.last_error or "")
    assert posted.status == "done" and texts(sb, channel) == ["after"]
    dm_posts = sb.requests_to("POST /channels/{channel_id}/messages")
    assert sum(r.status == 403 for r in dm_posts) == 1  # never tried again
    assert failures() == failed_before + 1  # the effect given up, counted once


async def test_what_a_refused_dm_changes_commits_with_its_refusal(
    sb: Sandbox, client: discord.Client, sessions: Sessions
) -> None:
    """``on_refused``'s handler runs in the transaction that records the refusal (a crash
    cannot keep one without the other); a handler that fails leaves the refusal recorded."""
    guild, _, game = await game_in_a_channel(sb, sessions)
    shy = sb.add_user("Shy", dms_open=False)
    guild.add_member(shy)

    async def passed_on(s: AsyncSession, key: str, fails: bool) -> None:
        await repo.set_bot_state(s, key, "passed on")
        if fails:
            raise RuntimeError("the handler's bug")

    async with dispatching(client, sessions) as dispatcher:
        dispatcher.register_view("offer", lambda *_: discord.ui.View())
        dispatcher.on_refused("offer", passed_on)
        offers = (DirectMessage(shy.id, "a seat?", view=View("offer", (k, k == "b"))) for k in "ab")
        await send(dispatcher, game, guild.id, *offers)
    assert [r.status for r in await rows_of(sessions, game)] == ["failed", "failed"]
    async with sessions() as s:
        assert await repo.get_bot_state(s, "a") == "passed on"
        assert await repo.get_bot_state(s, "b") is None  # rolled back, the refusal kept


async def test_a_missing_permission_is_named_by_a_notice_row_that_never_names_itself(
    sb: Sandbox, client: discord.Client, sessions: Sessions
) -> None:
    guild, channel, game = await game_in_a_channel(sb, sessions)
    async with dispatching(client, sessions) as dispatcher:
        # The post is refused for a missing permission: the notice naming it is the game's
        # next row, written with the refusal, and delivered in the channel.
        sb.fail_route("POST", rf"/channels/{channel.id}/messages$", status=403, code=50013)
        await write(sessions, game, guild.id, Post(channel.id, "result"))
        dispatcher.wake(game)
        await until(lambda: len(texts(sb, channel)) == 1, 10, "the notice")
        await dispatcher.delivered(game, 2, 5)
        refused, notice = await rows_of(sessions, game)
        assert (refused.kind, refused.status) == ("post", "failed")
        assert (notice.kind, notice.status, notice.seq) == ("notice", "done", 2)
        assert "/poll resync" in texts(sb, channel)[0]
        # A notice refused in turn is recorded, and names nothing more (a resync first, so
        # that the permission, named already, is named again: bot/notices.py).
        async with sessions.begin() as s:
            game_row = await repo.get_game(s, game)
            assert game_row is not None
            await notices.forget(s, game_row)
        sb.fail_route("POST", rf"/channels/{channel.id}/messages$", status=403, code=50013)
        sb.fail_route("POST", rf"/channels/{channel.id}/messages$", status=403, code=50013)
        last = await write(sessions, game, guild.id, Post(channel.id, "again"))
        dispatcher.wake(game)
        assert await dispatcher.delivered(game, last + 1, 5)
        await asyncio.sleep(0.3)
    rows = await rows_of(sessions, game)
    assert [(r.kind, r.status) for r in rows] == [
        ("post", "failed"),
        ("notice", "done"),
        ("post", "failed"),
        ("notice", "failed"),
    ]
    assert len(texts(sb, channel)) == 1


async def test_a_crash_after_discord_created_the_message_does_not_post_it_twice(
    sb: Sandbox, client: discord.Client, sessions: Sessions
) -> None:
    guild, channel, game = await game_in_a_channel(sb, sessions)
    # Discord creates the message, but the answer never reaches the process: it dies.
    hold = sb.hold_route("POST", rf"/channels/{channel.id}/messages$", after=True)
    last = await write(
        sessions, game, guild.id, Post(channel.id, "the result"), Post(channel.id, "next")
    )
    first = Dispatcher(client, sessions)
    await first.start()
    await hold.wait_hit()
    await first.stop()  # the delivery in flight is lost with the process
    hold.release()
    assert texts(sb, channel) == ["the result"]
    async with dispatching(client, sessions) as second:
        assert await second.delivered(game, last, 5)
    assert texts(sb, channel) == ["the result", "next"]
    rows = await rows_of(sessions, game)
    assert [r.status for r in rows] == ["done", "done"]
    assert rows[0].discord_id == sb.channel_messages(channel)[0].id


async def test_long_texts_are_split_at_line_boundaries(
    sb: Sandbox, client: discord.Client, sessions: Sessions
) -> None:
    guild, channel, game = await game_in_a_channel(sb, sessions)
    lines = [f"{n:03d} " + "x" * 60 for n in range(100)]  # 6,500 characters
    async with dispatching(client, sessions) as dispatcher:
        await send(dispatcher, game, guild.id, Post(channel.id, "\n".join(lines)))
    sent = texts(sb, channel)
    assert len(sent) == 4 and all(len(x) <= 2000 for x in sent)
    assert "\n".join(sent).split("\n") == lines  # every line once, whole, in order


async def test_a_slot_is_edited_in_place_and_posted_anew_when_discord_refuses(
    sb: Sandbox, client: discord.Client, sessions: Sessions
) -> None:
    guild, channel, game = await game_in_a_channel(sb, sessions)
    async with dispatching(client, sessions) as dispatcher:
        await send(dispatcher, game, guild.id, Post(channel.id, "v1", slot="leader_list", pin=True))
        edit = EditSlot(channel.id, "leader_list", "v2", repost=True, pin=True)
        await send(dispatcher, game, guild.id, edit)
        assert [m.content for m in sb.pins(channel)] == ["v2"]
        sb.fail_route("PATCH", r"/messages/\d+$", status=403, code=50005)
        edit = EditSlot(channel.id, "leader_list", "v3", repost=True, pin=True)
        await send(dispatcher, game, guild.id, edit)
    assert [m.content for m in sb.pins(channel)] == ["v3"]
    assert texts(sb, channel) == ["v2", "v3"]
    async with sessions() as s:
        slot = await repo.get_message(s, game, "leader_list")
    assert slot is not None and slot.message_id == sb.pins(channel)[0].id


async def test_edits_of_one_message_waiting_together_are_sent_once_the_last(
    sb: Sandbox, client: discord.Client, sessions: Sessions
) -> None:
    guild, channel, game = await game_in_a_channel(sb, sessions)
    async with dispatching(client, sessions) as dispatcher:
        await send(dispatcher, game, guild.id, Post(channel.id, "count 0", slot="count"))
        edits = [EditSlot(channel.id, "count", f"count {n}", repost=True) for n in (1, 2, 3)]
        # a text-less edit (keep the content) is not superseded by one of another kind
        cleared = EditSlot(channel.id, "count", clear_view=True)
        await send(dispatcher, game, guild.id, *edits, cleared)
    assert texts(sb, channel) == ["count 3"]  # edited in place, to the last text
    rows = (await rows_of(sessions, game))[1:]
    assert [(r.status, r.last_error) for r in rows] == [
        (EffectStatus.DROPPED.value, "superseded"),
        (EffectStatus.DROPPED.value, "superseded"),
        (EffectStatus.DONE.value, None),
        (EffectStatus.DONE.value, None),
    ]


# SQLite is one process by design (ARCHITECTURE.md, Sharding): the dispatcher claims nothing
# there, so this test is PostgreSQL's only, not a skipped SQLite variant; without
# TEST_DATABASE_URL the backend fixture skips it, saying so.
@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
async def test_two_processes_deliver_each_row_once_in_order(
    sb: Sandbox, client: discord.Client, sessions: Sessions, db_url: str
) -> None:
    guild, channel, game = await game_in_a_channel(sb, sessions)
    # The second process: its own client and its own connection pool on the same database.
    other_engine = make_engine(db_url)
    other = discord.Client(intents=discord.Intents.default(), **FAST_CLIENT_OPTIONS)
    try:
        async with (
            running(other, sb),
            dispatching(client, sessions) as one,
            dispatching(other, make_sessions(other_engine)) as two,
        ):

            def delivered(n: int) -> bool:
                return len(texts(sb, channel)) >= n

            sent = 0
            for round_ in range(4):
                await write(
                    sessions, game, guild.id, *(Post(channel.id, f"m{sent + i}") for i in range(8))
                )
                sent += 8
                for dispatcher in (one, two) if round_ % 2 else (two, one):
                    dispatcher.wake(game)
                await until(partial(delivered, sent), 20, f"{sent} messages")
            await asyncio.sleep(0.5)
    finally:
        await other_engine.dispose()
    assert texts(sb, channel) == [f"m{i}" for i in range(32)]
    assert [r.status for r in await rows_of(sessions, game)] == ["done"] * 32
    assert one.attempts + two.attempts == 32  # each row tried once, by one of them


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
async def test_a_claim_that_cannot_start_the_run_is_given_back(
    sb: Sandbox, client: discord.Client, sessions: Sessions
) -> None:
    """The race of two processes, made deterministic: between this process's read of the
    pending rows and its claim, another process claims the first row. The rows this one took
    behind it are given back at once (kept, the other process would wait out their lease
    before delivering the rest of the game)."""
    guild, channel, game = await game_in_a_channel(sb, sessions)
    await write(sessions, game, guild.id, Post(channel.id, "m0"), Post(channel.id, "m1"))
    dispatcher = Dispatcher(client, sessions)  # not started: this test drives it
    rows = await rows_of(sessions, game)
    now = utcnow()
    async with sessions.begin() as s:
        assert await repo.claim_effects(s, [rows[0].id], "other", now, now + LEASE) == {rows[0].id}
    assert await dispatcher._claim(rows, now) == []
    assert [(r.claimed_by, r.status) for r in await rows_of(sessions, game)] == [
        ("other", "pending"),
        (None, "pending"),
    ]
