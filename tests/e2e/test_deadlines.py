"""Deadlines are exact at the click: an answer given after its deadline is refused in the
transaction that would record it, whatever the scheduler is doing; an answer given before it
counts, even when a busy database makes it reach the table after the deadline."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from datetime import UTC, datetime
from typing import Any

import pytest

from db import repo
from db.models import Deadline
from games.refutation.players import RfGame, best_card
from games.resistance.players import Game
from games.resistance.tests.e2e.test_resistance_flow import all_votes
from playtest.players import until

pytestmark = pytest.mark.timeout(120)

TOO_LATE = ("Too late", "Trop tard")


async def open_deadline(bot: Any, game_id: int, kind: str) -> Deadline:
    async with bot.sessions() as s:
        found = await repo.open_deadlines(s, game_id, kinds=[kind])
    assert found, f"no open {kind} deadline"
    return found[0]


async def game_id(bot: Any, channel_id: int) -> int:
    async with bot.sessions() as s:
        game = await repo.active_game_in_channel(s, channel_id)
        assert game is not None
        return game.id


async def votes(bot: Any, gid: int) -> list[tuple[str, str, int, str]]:
    async with bot.sessions() as s:
        return await all_votes(s, gid)


async def voting(table: Any, bot: Any, vote_hours: float) -> tuple[Game, list[Any], int]:
    """A 5-player game of The Resistance whose first team is up for the vote."""
    game = Game(table, table.users[:5])
    await game.open(vote_hours=vote_hours, lock_during_vote=False, reminder_hours=0.0)
    await game.start()
    leader = game.leader()
    team = [leader, next(u for u in game.players if u is not leader)]
    await game.propose(team)
    return game, team, await game_id(bot, table.channel.id)


async def past(when: datetime) -> None:
    """Sleep until a moment after ``when`` (real time: the sandbox stamps clicks with it)."""
    delay = (when - datetime.now(UTC)).total_seconds() + 0.3
    if delay > 0:
        await asyncio.sleep(delay)


async def test_a_vote_changed_after_the_deadline_is_refused_while_the_deadline_waits(
    table: Any, bot: Any
) -> None:
    # The deadline will not be resolved on time: the scheduler is down (as when its process is
    # down or busy); the clicks still reach the bot.
    await bot.scheduler.shutdown()
    game, team, gid = await voting(table, bot, 0.002)
    changer, silent = game.players[0], game.players[1]
    assert "On record" in await game.click(changer, "accept")
    assert "On record" in await game.click(team[0], "support")
    deadline = await open_deadline(bot, gid, "rs_vote")
    before = await votes(bot, gid)
    await past(deadline.due_at)

    # After the deadline: a changed vote, a first vote, a mission choice, the slash command.
    cases = [
        (changer, "reject"),
        (silent, "accept"),
        (team[0], "sabotage"),
    ]
    for user, choice in cases:
        reply = await game.click(user, choice)
        assert "Too late" in reply, (user.name, choice, reply)
    reply = await game.slash(game.players[3], "resistance vote", choice="accept")
    assert "Too late" in reply, reply
    # Chloé's client is in French: so is her refusal.
    chloe = next(u for u in game.players if u.name == "Chloé")
    reply = await game.click(chloe, "accept")
    assert "Trop tard\u00a0:" in reply, reply
    assert await votes(bot, gid) == before  # nothing recorded
    assert (await open_deadline(bot, gid, "rs_vote")).id == deadline.id  # still not resolved

    # The deadline is resolved late: the vote cast in time counts, the late ones do not.
    since = len(game.public())
    await bot.scheduler.sweep()
    result = await game.new_public(since, "Team accepted", "Team rejected")
    accepted = next(line for line in result.splitlines() if line.startswith("Accepted"))
    assert accepted == f"Accepted (1): {changer.name}", result


async def test_a_refutation_choice_and_vote_after_their_deadline_are_refused(
    table: Any, bot: Any
) -> None:
    players = [table.users[i] for i in (0, 1, 3)]
    game = RfGame(table, players)
    seconds = 4.0
    await game.open(techniques=True, choice_hours=seconds / 3600, vote_hours=seconds / 3600)
    await game.start()
    _, _, target = await game.watch_then_refute()
    hands = {u: game.hand(u) for u in players}
    player = next(u for u in players if best_card(hands[u], target) is not None)
    card = best_card(hands[player], target)
    assert card is not None
    gid = await game_id(bot, table.channel.id)
    await bot.scheduler.shutdown()
    assert "On record" in await game.choose(player, card)
    before = await votes(bot, gid)
    await past((await open_deadline(bot, gid, "rf_choice")).due_at)
    others = [u for u in players if u is not player]
    for user, value in [(player, "pass"), (others[0], "pass")]:
        reply = await game.choose(user, value)
        assert "Too late" in reply, reply
    reply = await game.slash(others[1], "refutation choose", card="pass")
    assert "Too late" in reply, reply
    assert await votes(bot, gid) == before

    # The late reveal shows the card chosen in time; then the vote, refused after its deadline.
    since = len(game.public())
    await bot.scheduler.sweep()
    reveal = await game.new_public(since, "Revealed cards")
    assert f"played by **{player.name}**" in reveal
    message = await until(game.vote_message, what="the vote message")
    assert "Your vote" in await game.click_vote(player, card, message)
    before = await votes(bot, gid)
    await past((await open_deadline(bot, gid, "rf_vote")).due_at)
    assert "Too late" in await game.click_vote(player, "abstain", message)
    assert "Too late" in await game.click_vote(others[0], card, message)
    assert "Too late" in await game.click_vote(others[1], "ref", message)
    assert await votes(bot, gid) == before
    since = len(game.public())
    await bot.scheduler.sweep()
    result = await game.new_public(since, "succeeds:", "fails:")
    assert "succeeds" in result, result


def hold_write_lock(path: Any, seconds: float, held: threading.Event) -> None:
    """Another process's writer: SQLite's write lock, held for ``seconds``."""
    conn = sqlite3.connect(path, isolation_level=None, timeout=30)
    try:
        conn.execute("BEGIN EXCLUSIVE")
        held.set()
        threading.Event().wait(seconds)
        conn.execute("COMMIT")
    finally:
        conn.close()


async def test_a_click_before_the_deadline_waits_out_a_busy_database_and_counts(
    table: Any, bot: Any
) -> None:
    game, _, gid = await voting(table, bot, 0.0015)
    deadline = await open_deadline(bot, gid, "rs_vote")
    voter = game.players[3]
    # Another process holds SQLite's write lock for 7 s (longer than the 5 s busy timeout),
    # across the deadline; the player clicks during it, before the deadline.
    held = threading.Event()
    holder = threading.Thread(target=hold_write_lock, args=(table.db, 7.0, held))
    holder.start()
    try:
        assert await asyncio.to_thread(held.wait, 10)
        clicked = datetime.now(UTC)
        assert clicked < deadline.due_at
        message = game.vote_dm(voter)
        custom_id = next(
            c["custom_id"]
            for c in message.all_components
            if str(c.get("custom_id", "")).endswith(":reject")
        )
        ix = await table.sb.click(voter, message, custom_id=custom_id)
        await ix.wait_ack(3)  # deferred at once, whatever the database does
        reply = await ix.reply(30)
    finally:
        await asyncio.to_thread(holder.join)
    assert reply is not None and "On record" in reply and "Reject" in reply, reply
    assert datetime.now(UTC) > deadline.due_at  # it was recorded after the deadline
    assert ("p1", "team", voter.id, "reject") in await votes(bot, gid)
    since = 0
    result = await game.new_public(since, "Team accepted", "Team rejected", timeout=20)
    assert f"Rejected (1): {voter.name}" in result, result


async def test_settings_show_an_unset_deadline_time_as_a_dash(table: Any, bot: Any) -> None:
    """An empty option reads "—" in /settings show, as in /resistance rules (not "= ,")."""
    game = Game(table, table.users[:5])
    shown = await game.slash(table.mod, "settings show")
    assert "`deadline_time` = —, `early_close` = False" in shown
    assert "`choice_hours` = 24.0, `deadline_time` = —, `min_hours`" in shown
    await game.slash(table.mod, "settings resistance", deadline_time="21:00")
    shown = await game.slash(table.mod, "settings show")
    assert "`deadline_time` = 21:00, `early_close` = False" in shown
