"""A game of Werewolf moderated through the sandbox: the deadlines closed by ``resolve`` (the
wolves' tie: no victim; a day with no majority: the most votes), the dead silenced in the
channel and unable to vote, the read-only commands, and the cancel that reveals every role,
lets the dead post again and archives the den."""

from __future__ import annotations

import re
from typing import Any

import discord
import pytest

from games.werewolf.players import Game
from playtest.players import message, until
from tests.harness import running_bot

pytestmark = pytest.mark.timeout(180)

SEND = discord.Permissions(send_messages=True).value


async def test_resolve_silence_read_and_cancel(table: Any, bot: Any) -> None:
    sb, channel = table.sb, table.channel
    game = Game(table, table.users[:6])
    await game.open(seer=False, witch=False, majority_ends_day=False)
    await game.start()
    wolves, villagers = game.having("werewolf"), game.having("villager")
    den = await until(game.den, what="the den")

    # The wolves disagree; the moderator closes the night: a tie, no victim.
    await game.kill(wolves[0], villagers[0])
    ix = await sb.slash(
        wolves[1], "werewolf kill", channel=den, player=villagers[1]
    )  # typed in the den
    assert villagers[1].name in await game.reply(ix)
    assert "the open step is over" in await game.slash(table.mod, "werewolf resolve")
    assert "Nobody died in the night." in await game.new_public(0, "Dawn after night 1")

    # Day 1 without a majority: the moderator closes it, the most votes eliminate.
    await game.vote(wolves[0], villagers[0])
    await game.vote(wolves[1], villagers[0])
    await game.vote(villagers[2], None)
    assert "3 players reminded" in await game.slash(table.mod, "werewolf remind")
    reminder = await until(
        lambda: next((m for m in sb.dms(villagers[3]) if "⏰" in m.content), None)
    )
    assert "waiting for you" in reminder.content
    await game.slash(table.mod, "werewolf extend", hours=1.0)
    assert "The vote is extended until" in await game.new_public(0, "extended")
    votes = await game.slash(villagers[3], "werewolf votes")
    assert f"**{villagers[0].name}** — 2: " in votes and "no elimination — 1" in votes
    await game.slash(table.mod, "werewolf resolve")
    result = await game.new_public(0, "Day 1 is over")
    assert villagers[0].name in result and "villager" in result
    dead = villagers[0]
    await until(lambda: not table.guild.permissions_in(dead.id, channel) & SEND, what="silence")

    # The read-only commands; the dead player may read but not vote.
    await game.new_public(0, "Night 2")
    assert "Night 2" in await game.slash(dead, "werewolf status")
    assert "villager" in await game.slash(dead, "werewolf role")
    assert "Day 1 is over" in await game.slash(dead, "werewolf history")
    assert "You are dead" in await game.slash(dead, "werewolf vote", player=wolves[0])
    assert "it is not day" in await game.slash(wolves[0], "werewolf votes")

    # The moderator cancels: every role and the night log; the dead may post again.
    await game.slash(table.mod, "werewolf cancel")
    end = await game.new_public(0, "The game was cancelled.")
    assert all(u.name in end for u in game.players) and "werewolf" in end
    await until(lambda: table.guild.permissions_in(dead.id, channel) & SEND, what="restored")
    await until(lambda: den.archived, what="the den archived")
    record = await until(
        lambda: next((m for m in sb.channel_messages(channel) if m.attachments), None)
    )
    picture, written = record.filenames  # the day-votes picture, as at a natural end
    assert re.fullmatch(r"day-votes-game-\d+\.png", picture) and written.endswith(".md")
    assert "The night log" in record.file(written).decode()
    assert wolves[0].name in record.file(written).decode()


async def test_new_names_the_permission_the_den_needs(table: Any, sb: Any) -> None:
    """Without Create Private Threads in the channel (@everyone grants it by default: an
    overwrite takes it away), ``/werewolf new`` names it and opens nothing."""
    table.channel.set_permissions(
        sb.bot_user, deny=discord.Permissions(create_private_threads=True).value
    )
    async with running_bot(sb, table.url()):
        reply = await Game(table, []).slash(table.mod, "werewolf new")
    assert "**Create Private Threads**" in reply  # named as Discord's settings name it
    assert not [m for m in sb.channel_messages(table.channel) if m.labels]  # no lobby


async def test_the_night_commands_and_hidden_roles(table: Any, bot: Any) -> None:
    """Cupid's and the witch's commands (both potions at once); with ``reveal_roles`` off the
    dawn names the dead without their role."""
    game = Game(table, table.users[:8])
    await game.open(cupid=True, reveal_roles=False)
    await game.start()
    wolves, villagers = game.having("werewolf"), game.having("villager")
    cupid, witch, seer = game.one("cupid"), game.one("witch"), game.one("seer")
    reply = await game.slash(cupid, "werewolf link", first=villagers[0], second=villagers[1])
    assert villagers[0].name in reply and villagers[1].name in reply
    lover_dm = await until(
        lambda: next((m for m in table.sb.dms(villagers[0]) if "in love" in m.content), None)
    )
    assert villagers[1].name in lover_dm.content
    assert witch.name in await game.slash(seer, "werewolf choose", player=witch)  # the look
    for wolf in wolves:
        await game.kill(wolf, villagers[2])
    await until(lambda: game.dm_menu(witch, night=1), what="the witch's turn")
    lang = "fr" if witch.locale == "fr" else "en"  # Chloé's client is in French
    reply = await game.slash(witch, "werewolf brew", heal=True, poison=wolves[0])
    assert reply == message("werewolf.witch.done", lang)
    dawn = await game.new_public(0, "Dawn after night 1")
    assert f"💀 {wolves[0].name} died in the night." in dawn and villagers[2].name not in dawn
    assert "werewolf" not in dawn  # the roles stay hidden
    none = message("werewolf.dm.no_potion", lang)
    assert message("werewolf.dm.potions", lang, choices=none) in await game.slash(
        witch, "werewolf role"
    )


async def test_a_setup_that_cannot_be_played_is_refused_at_start(table: Any, bot: Any) -> None:
    game = Game(table, table.users[:6])
    await game.open(wolves=3)
    reply = await game.slash(table.mod, "werewolf start")
    assert "3 werewolves are too many for 6 players" in reply and "at most 2" in reply
    assert not [u for u in game.players if game.role_dm(u)]  # nobody was dealt a role
