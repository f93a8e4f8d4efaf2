"""The core's pick mode (bot/choice.py: ``SecretPick``) on the poll's pair: a select of exactly
two players (the pick so far as its defaults) and a confirm button in the pairer's DM. A pick
is answered by the menu's own message, edited in place with the game's text for it; the pick is
kept by the core (``bot_state``, per menu and chooser), so the confirm reads it in another
process too; the confirm gives it to the game, or the game's refusal; another's click, a
redelivered interaction, a menu whose pick is over are answered as every secret choice is."""

from __future__ import annotations

from functools import partial
from typing import Any

import pytest

from cogs.interaction import service_of
from db import repo
from playtest.players import message, text_of, until
from tests.e2e.poll_game.service import PollService
from tests.e2e.poll_game.test_poll import PollTable, poll_bot

pytestmark = pytest.mark.timeout(120)


def lang(user: Any) -> str:
    return "fr" if user.locale == "fr" else "en"


def pair_menu(sb: Any, user: Any) -> Any:
    """The user's latest DM with the pair's select."""
    for m in reversed(sb.dms(user)):
        if any(str(s["custom_id"]).startswith("choice:pl_pair:") for s in m.selects):
            return m
    return None


def confirm_of(menu: Any) -> str:
    (custom_id,) = [
        str(c["custom_id"])
        for c in menu.all_components
        if str(c.get("custom_id", "")).startswith("choice:pl_pair:")
        and str(c["custom_id"]).endswith(":ok")
    ]
    return custom_id


async def kept(bot: Any, table: Any, user: Any) -> str | None:
    """What the core keeps of ``user``'s pick in the poll of ``table``."""
    async with bot.sessions() as s:
        game = await repo.active_game_in_channel(s, table.channel.id)
        assert game is not None
        key = service_of(bot, PollService).pairing.pick.key(game.id, user.id)
        return await repo.get_bot_state(s, key)


async def opened(poll: PollTable) -> Any:
    await poll.open("Tea or coffee?", vote_hours=1.0, pair=True)
    await poll.start()
    pairer = poll.players[0]
    return await until(partial(pair_menu, poll.sb, pairer), what="the pairer's menu")


async def confirm(poll: PollTable, user: Any, menu: Any, channel: Any = None) -> str:
    ix = await poll.sb.click(user, menu, custom_id=confirm_of(menu), channel=channel)
    return await poll.reply(ix)


async def test_a_pick_of_two_kept_across_a_restart_then_confirmed(table: Any) -> None:
    sb = table.sb
    alice, bob, chloe = table.users[:3]
    poll = PollTable(table, [alice, bob, chloe])
    async with poll_bot(table) as bot:
        menu = await opened(poll)
        (select,) = menu.selects
        assert select["min_values"] == select["max_values"] == 2
        assert {o["value"] for o in select["options"]} == {str(u.id) for u in poll.players}
        assert "Pair them" in menu.labels
        assert text_of(menu) == message("poll.pair.dm")

        # Another player's click on the menu (a forwarded DM): the game's refusal, nothing kept.
        where = sb.dm_channel(bob)
        ix = await sb.select(bob, menu, values=[str(bob.id), str(chloe.id)], channel=where)
        assert await poll.reply(ix) == message("poll.error.not_pairer", lang(bob))
        assert await confirm(poll, bob, menu, where) == message("poll.error.not_pairer")
        # The confirm before any pick: the game's refusal.
        assert await confirm(poll, alice, menu) == message("poll.pair.none")
        assert await kept(bot, table, bob) is None and await kept(bot, table, alice) is None

        # The pick: the menu's message edited in place, its text and its defaults.
        ix = await poll.select(alice, menu, [str(bob.id), str(chloe.id)])
        reply = await poll.reply(ix)
        chosen = message("poll.pair.chosen", names="Bob, Chloé")
        assert reply == f"{message('poll.pair.dm')}\n{chosen}"
        updated = sb.messages[menu.id]
        assert text_of(updated) == reply
        defaults = {o["value"] for o in updated.selects[0]["options"] if o.get("default")}
        assert defaults == {str(bob.id), str(chloe.id)}
        # Delivered again, the same interaction is answered as the first was, and acts no more.
        again = await sb.redeliver(ix)
        assert await poll.reply(again) == reply
        assert await kept(bot, table, alice) is not None

    async with poll_bot(table) as bot:  # another process: the pick is in the database
        bob_dms, chloe_dms = len(sb.dms(bob)), len(sb.dms(chloe))
        done = await confirm(poll, alice, updated)
        assert done == message("poll.pair.done", names="Bob, Chloé"), done
        told = message("poll.pair.told", "en", name="Chloé")
        await until(lambda: any(m.content == told for m in sb.dms(bob)[bob_dms:]), what="Bob")
        told_fr = message("poll.pair.told", "fr", name="Bob")
        await until(lambda: any(m.content == told_fr for m in sb.dms(chloe)[chloe_dms:]))
        assert await kept(bot, table, alice) is None  # used up
        # The pair is made: its menu is closed, to a pick as to the confirm.
        closed = message("common.choice.closed")
        assert await confirm(poll, alice, updated) == closed
        ix = await poll.select(alice, updated, [str(alice.id), str(bob.id)])
        assert await poll.reply(ix) == closed


async def test_a_french_pairer_reads_the_pick_in_french(table: Any) -> None:
    alice, bob, chloe = table.users[:3]
    poll = PollTable(table, [chloe, alice, bob])
    async with poll_bot(table) as bot:
        menu = await opened(poll)
        assert text_of(menu) == message("poll.pair.dm", "fr")
        assert "Les apparier" in menu.labels
        assert await confirm(poll, chloe, menu) == message("poll.pair.none", "fr")
        ix = await poll.select(chloe, menu, [str(alice.id), str(bob.id)])
        chosen = message("poll.pair.chosen", "fr", names="alice, Bob")
        assert await poll.reply(ix) == f"{message('poll.pair.dm', 'fr')}\n{chosen}"
        assert "Choisis\u00a0: alice, Bob" in chosen
        done = await confirm(poll, chloe, table.sb.messages[menu.id])
        assert done == message("poll.pair.done", "fr", names="alice, Bob"), done
        assert await kept(bot, table, chloe) is None


async def test_the_pick_of_a_closed_poll_is_refused(table: Any) -> None:
    alice, bob = table.users[:2]
    poll = PollTable(table, [alice, bob])
    async with poll_bot(table):
        menu = await opened(poll)
        assert await poll.slash(table.mod, "poll resolve") == "The poll is closed now."
        ix = await poll.select(alice, menu, [str(alice.id), str(bob.id)])
        assert await poll.reply(ix) == message("common.choice.closed")
        assert await confirm(poll, alice, menu) == message("common.choice.closed")
