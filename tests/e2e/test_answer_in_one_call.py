"""A click or a command is answered in one REST call when its service call is fast
(cogs/interaction.py): the interaction's one callback (type 4) carries the answer. A call still
running after the budget (about a second) is deferred (type 5, "thinking…") and answered by a
follow-up once it ends; a click that reached the bot late is deferred before the call runs.
Errors take the same two ways: one private message in the user's language.

The slow call is made slow for real: the test holds the bot's SQLite writer gate
(db/engine.py), so the service call waits for it, as behind another writer.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import discord
import pytest
from sqlalchemy import select

from adapters.discord_callback import callbacks
from cogs.interaction import BUDGET, MARGIN, WINDOW, answer_budget
from db.engine import writer_gate
from db.models import Player
from games.resistance.players import Game
from playtest.players import message
from sandbox.rest import DROPPED
from tests.e2e.test_deadlines import game_id, votes
from tests.e2e.test_interaction_errors import lobby_of

pytestmark = pytest.mark.timeout(120)

CALLBACK = "/callback"


def calls_of(sb: Any, ix: Any) -> list[str]:
    """The REST calls the bot made for this interaction ("callback", "followup"), all accepted."""
    made = [r for r in sb.requests if ix.token in r.path]
    assert all(r.status < 300 for r in made), [(r.route, r.status, r.error) for r in made]
    return ["callback" if r.path.endswith(CALLBACK) else "followup" for r in made]


def vote_button(game: Game, user: Any, choice: str) -> tuple[Any, str]:
    dm = game.vote_dm(user)
    cid = next(
        c["custom_id"]
        for c in dm.all_components
        if str(c.get("custom_id", "")).endswith(f":{choice}")
    )
    return dm, cid


async def voting(table: Any) -> Game:
    game = Game(table, table.users[:5])
    await game.open(lock_during_vote=False, reminder_hours=0.0)
    await game.start()
    leader = game.leader()
    await game.propose([leader, next(u for u in game.players if u is not leader)])
    return game


async def players(bot: Any) -> list[int]:
    async with bot.sessions() as s:
        return list((await s.scalars(select(Player.user_id))).all())


def test_the_budget_shrinks_with_the_interactions_age() -> None:
    now = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)

    def budget(age: float) -> float:
        created = discord.utils.time_snowflake(now - timedelta(seconds=age))
        return answer_budget(created, now.timestamp())

    assert budget(0.0) == budget(0.2) == BUDGET  # fresh: the whole budget
    assert budget(-5.0) == BUDGET  # a host clock behind Discord's: never more
    assert budget(1.0) == pytest.approx(WINDOW - MARGIN - 1.0)  # late: what the window leaves
    assert budget(WINDOW - MARGIN) <= 0 and budget(10.0) <= 0  # too late: defer first


async def test_a_fast_click_is_answered_by_its_one_callback(table: Any, bot: Any) -> None:
    game = await voting(table)
    gid = await game_id(bot, table.channel.id)
    chloe = next(u for u in game.players if u.name == "Chloé")
    for user, choice, shown in ((game.players[0], "accept", "Accept"), (chloe, "reject", "Contre")):
        dm, cid = vote_button(game, user, choice)
        ix = await table.sb.click(user, dm, custom_id=cid)
        answer = await ix.reply(10)
        assert answer is not None and shown in answer, answer
        assert ix.callback_type == 4 and ix.ephemeral
        assert calls_of(table.sb, ix) == ["callback"]  # one REST call, nothing after
        assert ix.followups == []
        # ... which does not ask for the message it made back (adapters/discord_callback.py):
        # 204, no body.
        (callback,) = [r for r in table.sb.requests if ix.token in r.path]
        assert "with_response" not in callback.query and callback.status == 204
    recorded = await votes(bot, gid)
    assert ("p1", "team", game.players[0].id, "accept") in recorded
    assert ("p1", "team", chloe.id, "reject") in recorded


async def test_a_fast_refusal_is_one_private_callback_in_the_users_language(
    table: Any, bot: Any
) -> None:
    sb = table.sb
    chloe = next(u for u in table.users if u.locale == "fr")
    await (await sb.slash(table.mod, "resistance new", channel=table.channel)).reply(10)
    lobby = await lobby_of(table)
    await (await sb.click(chloe, lobby, label="Join")).reply(10)
    again = await sb.click(chloe, lobby, label="Join")
    assert await again.reply(10) == message("common.error.already_joined", "fr", name="Chloé")
    assert again.callback_type == 4 and again.ephemeral
    assert calls_of(sb, again) == ["callback"]
    # A slash command's refusal too (a player typing a moderator's command).
    start = await sb.slash(chloe, "resistance start", channel=table.channel)
    assert await start.reply(10) == message("common.error.not_moderator", "fr")
    assert start.callback_type == 4 and start.ephemeral
    assert calls_of(sb, start) == ["callback"]
    assert await players(bot) == [chloe.id]


async def test_a_slow_click_is_deferred_then_answered_by_a_follow_up(table: Any, bot: Any) -> None:
    game = await voting(table)
    gid = await game_id(bot, table.channel.id)
    voter = game.players[1]
    dm, cid = vote_button(game, voter, "reject")
    gate = writer_gate(bot.engine)
    assert gate is not None
    await gate.acquire_now()  # the vote's transaction waits behind the test
    try:
        ix = await table.sb.click(voter, dm, custom_id=cid)
        # Deferred within the budget, while the call still waits: no answer yet.
        assert await ix.wait_ack(BUDGET + 2) == 5
        assert ix.answer is None and ix.ephemeral
    finally:
        gate.release_now()
    answer = await ix.reply(10)
    assert answer is not None and "On record" in answer and "Reject" in answer, answer
    assert ix.ephemeral and ix.followups == []  # the follow-up replaced "thinking…"
    assert calls_of(table.sb, ix) == ["callback", "followup"]
    recorded = [v for v in await votes(bot, gid) if v[2] == voter.id]
    assert recorded == [("p1", "team", voter.id, "reject")]  # the call ran once


async def test_a_slow_refusal_is_deferred_then_one_private_follow_up(table: Any, bot: Any) -> None:
    sb = table.sb
    chloe = next(u for u in table.users if u.locale == "fr")
    await (await sb.slash(table.mod, "resistance new", channel=table.channel)).reply(10)
    lobby = await lobby_of(table)
    await (await sb.click(chloe, lobby, label="Join")).reply(10)
    gate = writer_gate(bot.engine)
    assert gate is not None
    await gate.acquire_now()
    try:
        again = await sb.click(chloe, lobby, label="Join")
        assert await again.wait_ack(BUDGET + 2) == 5
        assert again.answer is None
    finally:
        gate.release_now()
    assert await again.reply(10) == message("common.error.already_joined", "fr", name="Chloé")
    assert again.ephemeral and again.followups == []
    assert calls_of(sb, again) == ["callback", "followup"]
    assert await players(bot) == [chloe.id]


async def test_a_click_that_reached_the_bot_late_is_deferred_before_its_call(
    table: Any, bot: Any
) -> None:
    game = await voting(table)
    gid = await game_id(bot, table.channel.id)
    voter = game.players[3]
    dm, cid = vote_button(game, voter, "accept")
    # Created WINDOW - MARGIN seconds before it reaches the bot: no budget is left, so the bot
    # acknowledges first (as for a slow call), then runs the call and answers by a follow-up.
    ix = await table.sb.click(voter, dm, custom_id=cid, late=WINDOW - MARGIN + 0.1)
    answer = await ix.reply(10)
    assert answer is not None and "On record" in answer and "Accept" in answer, answer
    assert ix.callback_type == 5 and ix.ephemeral
    assert calls_of(table.sb, ix) == ["callback", "followup"]
    assert ("p1", "team", voter.id, "accept") in await votes(bot, gid)


@pytest.mark.parametrize("status", [429, 500, DROPPED])
async def test_a_callback_refused_for_a_while_is_sent_again_by_discord_py(
    table: Any, bot: Any, status: int
) -> None:
    """A rate-limited callback (429), a server error (500) or a connection closed before the
    answer (the request dropped) leaves the click unanswered: the answer goes again through
    discord.py's send_message, which waits and retries by its own rules; the vote is on record
    once, and the click answered once."""
    game = await voting(table)
    gid = await game_id(bot, table.channel.id)
    voter = next(u for u in game.players[1:] if u.locale != "fr")
    dm, cid = vote_button(game, voter, "accept")
    table.sb.fail_route("POST", r"/interactions/\d+/[^/]+/callback", status=status)
    ix = await table.sb.click(voter, dm, custom_id=cid)
    answer = await ix.reply(10)
    assert answer is not None and "On record" in answer and "Accept" in answer, answer
    made = [r for r in table.sb.requests if ix.token in r.path]
    assert [r.status for r in made] == [status, 200], [(r.route, r.status) for r in made]
    assert "with_response" not in made[0].query and made[1].query.get("with_response") == "1"
    assert ix.callback_type == 4 and ix.ephemeral and ix.followups == []
    assert [v for v in await votes(bot, gid) if v[2] == voter.id] == [
        ("p1", "team", voter.id, "accept")
    ]


async def test_the_callbacks_keep_one_connection_alive(table: Any, bot: Any) -> None:
    """Clicks one after the other are answered on one kept connection
    (adapters/discord_callback.py), not one each; it is closed with the bot."""
    game = await voting(table)
    calls = callbacks("")
    opened = calls.opened
    for user in game.players:
        dm, cid = vote_button(game, user, "accept")
        ix = await table.sb.click(user, dm, custom_id=cid)
        assert await ix.reply(10)
        assert calls_of(table.sb, ix) == ["callback"]
    assert calls.opened - opened <= 1
