"""The bot with exactly the permissions of the README's invite link, on today's Discord rules
(pinning needs Pin Messages since 23 February 2026): a whole game works, the leader list ends
up pinned, and the link asks for nothing the bot does not use."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import discord
import pytest

from games.resistance.players import Game
from playtest.players import text_of
from tests.harness import running_bot

pytestmark = pytest.mark.timeout(180)

README = Path(__file__).resolve().parents[2] / "README.md"


def invite_permissions() -> int:
    """The ``permissions=`` integer of the README's invite link."""
    links = re.findall(r"discord\.com/oauth2/authorize\?\S*permissions=(\d+)", README.read_text())
    assert len(set(links)) == 1, links
    return int(links[0])


def table_permissions() -> int:
    """The bits listed in the README's permission table (`1 << n` column)."""
    bits = re.findall(r"^\s*\| [^|]+ \| `1 << (\d+)` \|", README.read_text(), re.M)
    assert bits
    return sum(1 << int(b) for b in set(bits))


def test_the_link_and_the_table_agree() -> None:
    assert invite_permissions() == table_permissions()
    assert discord.Permissions(invite_permissions()).pin_messages
    assert not discord.Permissions(invite_permissions()).manage_messages


async def test_a_whole_game_with_exactly_the_invite_links_permissions(table: Any, sb: Any) -> None:
    guild = table.guild
    allowed = invite_permissions()
    guild.set_role_permissions(guild.bot_role, allowed)
    async with running_bot(sb, table.url()) as bot:
        # What the bot checks before opening a game is exactly what the link grants.
        used = 0
        for kind in ("resistance", "refutation", "werewolf"):
            service = bot.services[kind]
            for where in (table.channel, table.forum):
                channel = bot.get_channel(where.id)
                for lock in (True, False):
                    names = service.needed_permissions(channel, {"lock_during_vote": lock})
                    used |= discord.Permissions(**dict.fromkeys(names, True)).value
        assert used == allowed

        game = Game(table, table.users[:5])
        await game.open()
        await game.start()
        good = game.resistance()
        for mission in (1, 2, 3):
            result = await game.round(good[: game.team_size(mission)])
            assert f"Mission {mission} succeeds" in result
        await game.new_public(0, "The Resistance wins")
        history = await sb.wait_for_message(table.channel, predicate=lambda m: m.attachments)
        pictures = [n for n in history.filenames if n.endswith(".png")]
        assert pictures and history.file(pictures[0]).startswith(b"\x89PNG")

    pins = sb.pins(table.channel)
    assert len(pins) == 1 and "Leader list" in text_of(pins[0])
    refused = [r for r in sb.requests if r.status in (401, 403)]
    assert not refused, [(r.route, r.error_code) for r in refused]


async def test_without_pin_messages_the_pin_is_refused_and_new_says_so(table: Any, sb: Any) -> None:
    guild = table.guild
    without = invite_permissions() & ~discord.Permissions(pin_messages=True).value
    guild.set_role_permissions(
        guild.bot_role, without | discord.Permissions(manage_messages=True).value
    )
    async with running_bot(sb, table.url()):
        ix = await sb.slash(table.mod, "resistance new", channel=table.channel)
        reply = text_of(await ix.reply_message(10))
        assert "**Pin Messages**" in reply  # as Discord's settings name it
        assert not [m for m in sb.channel_messages(table.channel) if m.labels]
