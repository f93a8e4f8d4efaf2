"""Moderation of The Refutation Game through the sandbox: extend, resolve, remind, substitute."""

from __future__ import annotations

import re
from functools import partial
from typing import Any

import pytest

from games.refutation.players import RfGame, assert_no_hand_in_public, playable
from games.refutation.tests.e2e.test_refutation_games import setup_target, two_eligible
from playtest.players import text_of, until

pytestmark = pytest.mark.timeout(120)

DEADLINE = re.compile(r"Deadline: <t:(\d+):F>")
REMINDER = "⏰ Reminder"


async def refused(game: RfGame, user: Any, command: str, expected: str, **options: Any) -> None:
    """A private refusal that changes nothing public or in the game."""
    before_status, before_count = await game.status(), len(game.public())
    ix = await game.sb.slash(user, command, channel=game.channel, **options)
    message = await ix.reply_message(10.0)
    assert message is not None and message.ephemeral
    assert expected in text_of(message), text_of(message)
    assert len(game.public()) == before_count
    assert await game.status() == before_status


async def deadline(game: RfGame) -> int:
    match = DEADLINE.search(await game.status())
    assert match is not None
    return int(match.group(1))


def reminders(game: RfGame, user: Any) -> int:
    return sum(REMINDER in text_of(x) for x in game.sb.dms(user))


def reminded(game: RfGame, user: Any, times: int) -> bool:
    return reminders(game, user) == times


async def test_extend_remind_and_resolve_the_choice_then_the_vote(table: Any, bot: Any) -> None:
    players = [table.users[i] for i in (0, 1, 3)]
    game = RfGame(table, players)
    await game.open(techniques=True, choice_hours=48.0, vote_hours=48.0)
    await game.start()
    # (During a turn, extend moves the turn's deadline and remind prods the active player:
    # test_refutation_turns.py.)
    await refused(game, table.mod, "refutation resolve", "No secret choice or vote is open")

    active, owner, target, hands = await setup_target(game, two_eligible)
    cards = playable(hands, target)
    a, b = [u for u in players if u in cards][:2]
    third = next(u for u in players if u not in (a, b))
    assert "is open" in await game.refute(active, owner)

    # Non-moderators are refused, privately, and nothing changes.
    for command, options in (
        ("refutation extend", {"hours": 1.0}),
        ("refutation resolve", {}),
        ("refutation remind", {}),
        ("refutation substitute", {"old": a, "new": table.users[9]}),
    ):
        await refused(game, b, command, "Only moderators", **options)
    assert all(reminders(game, u) == 0 for u in players)

    # Extend the choice by two hours: a public notice with the new timestamp.
    due = await deadline(game)
    since = len(game.public())
    reply = await game.slash(table.mod, "refutation extend", hours=2.0)
    assert f"Deadline moved to <t:{due + 7200}:F>" in reply, reply
    notice = await game.new_public(since, "extended the deadline")
    assert "secret choice of refutation #1" in notice and f"<t:{due + 7200}:F>" in notice
    assert await deadline(game) == due + 7200

    # Remind: only those who have not chosen get a DM.
    assert "On record" in await game.choose(a, cards[a])
    reply = await game.slash(table.mod, "refutation remind")
    assert "Reminder sent to 2 players:" in reply, reply
    for user in (b, third):
        await until(partial(reminded, game, user, 1), what=f"{user.name}'s reminder")
    assert reminders(game, a) == 0
    assert "secret choice" in text_of(game.sb.dms(b)[-1])

    # Resolve the choice: the cards are revealed now, the vote opens.
    assert "On record" in await game.choose(b, cards[b])
    since = len(game.public())
    reply = await game.slash(table.mod, "refutation resolve")
    assert "secret choice of refutation #1 is closed" in reply, reply
    assert "closes the secret choice" in await game.new_public(since, "A moderator closes")
    reveal = await game.new_public(since, "Revealed cards")
    assert f"played by **{a.name}**" in reveal and f"played by **{b.name}**" in reveal
    await until(game.vote_message, what="the vote message")
    assert "vote, 0/3 votes" in await game.status()

    # The vote: extend, remind, then resolve with a single vote (a majority of one).
    due = await deadline(game)
    since = len(game.public())
    assert f"<t:{due + 3600}:F>" in await game.slash(table.mod, "refutation extend", hours=1.0)
    notice = await game.new_public(since, "extended the deadline")
    assert "the vote of refutation #1" in notice
    await refused(game, third, "refutation resolve", "Only moderators")
    assert "Your vote" in await game.click_vote(a, cards[a])
    assert "Reminder sent to 2 players:" in await game.slash(table.mod, "refutation remind")
    for user in (b, third):
        await until(partial(reminded, game, user, 2), what=f"{user.name}'s vote reminder")
    assert reminders(game, a) == 0
    since = len(game.public())
    assert "vote of refutation #1 is closed" in await game.slash(table.mod, "refutation resolve")
    result = await game.new_public(since, "succeeds:", "fails:")
    assert "succeeds" in result and f"card {cards[a]}: 1" in result
    await until(lambda: game.vote_message() is None, what="the vote buttons gone")
    await refused(game, table.mod, "refutation resolve", "No secret choice or vote is open")
    assert_no_hand_in_public(game)


async def test_substitute_during_the_choice(table: Any, bot: Any) -> None:
    players = [table.users[i] for i in (0, 1, 3)]
    outsider, newcomer = table.users[5], table.users[9]
    game = RfGame(table, players)
    await game.open(choice_hours=48.0)
    await game.start()
    _, refuter, _ = await game.watch_then_refute()
    leaving = next(u for u in players if u is not refuter)
    stays = [u for u in players if u is not leaving]
    hand = await game.hand_now(leaving)
    old_dm = game.choice_dm(leaving)
    assert old_dm is not None

    await refused(
        game, refuter, "refutation substitute", "Only moderators", old=leaving, new=newcomer
    )
    await refused(
        game, table.mod, "refutation substitute", "does not play", old=outsider, new=newcomer
    )

    since = len(game.public())
    reply = await game.slash(table.mod, "refutation substitute", old=leaving, new=newcomer)
    assert newcomer.name in reply and leaving.name in reply, reply
    notice = await game.new_public(since, "replaces")
    assert f"**{newcomer.name}** replaces **{leaving.name}**" in notice
    # The newcomer gets the hand, then the choice menu of the open refutation.
    await until(lambda: any("Your hand" in x.content for x in table.sb.dms(newcomer)))
    game.players = [newcomer if u is leaving else u for u in players]
    game.by_id = {u.id: u for u in game.players}
    assert sorted(game.hand(newcomer)) == sorted(hand)
    assert sorted(await game.hand_now(newcomer)) == sorted(hand)
    menu = await until(lambda: game.choice_dm(newcomer), what="the newcomer's choice DM")
    assert "Refutation #1" in text_of(menu)
    # The leaver's old menu is refused; the newcomer chooses.
    ix = await table.sb.select(leaving, old_dm, values=["pass"])
    assert "does not play in this game" in await game.reply(ix)
    assert "you pass" in await game.choose(newcomer, "pass", message=menu)
    assert "secret choice, 1/3 decided" in await game.status()
    status = await game.status()
    assert newcomer.name in status and leaving.name not in status
    since = len(game.public())
    for user in stays:
        await game.choose(user, "pass")
    assert "nobody played a card" in await game.new_public(since, "nobody played a card")
    assert_no_hand_in_public(game)
