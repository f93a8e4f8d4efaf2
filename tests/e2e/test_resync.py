"""A permission lost mid-game: the failed effect names it in the channel (or by DM to the
game's creator when the bot cannot post there), and ``/<game> resync`` puts the game back in
order once it is given back."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest

from db import repo
from games.resistance.players import Game
from playtest.players import text_of, until
from sandbox import util
from tests.e2e.test_debate_lock import overwrites, team_of

pytestmark = pytest.mark.timeout(90)


async def bot_sees(bot: Any, channel_id: int, permission: str, granted: bool) -> None:
    """Wait until the bot's cache has the permission change the sandbox made (its gateway
    event reached the bot)."""

    def seen() -> bool:
        channel = bot.get_channel(channel_id)
        allowed = getattr(channel.permissions_for(channel.guild.me), permission)
        return bool(allowed) is granted

    await until(seen, what=f"the bot seeing {permission} {'given' if granted else 'taken'}")


async def silenced_after_a_vote(table: Any, bot: Any) -> Game:
    """A game whose first team is voted on, then Send Messages denied to the bot in its
    channel (the bot has seen it): resolving the vote posts nothing."""
    game = Game(table, table.users[:5])
    await game.open(lock_during_vote=False, reminder_hours=0.0)
    await game.start()
    team = team_of(game)
    await game.propose(team)
    await game.vote(accept=game.players, support=team)
    channel = table.sb.channel(table.channel.id)
    channel.set_permissions(table.guild.bot_role, deny=util.SEND_MESSAGES)
    await bot_sees(bot, channel.id, "send_messages", False)
    return game


def failed_kinds(table: Any) -> list[str]:
    """The kinds of the outbox rows Discord refused for good, in the games' order."""
    with sqlite3.connect(table.db) as db:
        rows = db.execute("SELECT kind FROM outbox WHERE status = 'failed' ORDER BY seq")
        return [kind for (kind,) in rows]


async def test_manage_roles_lost_mid_vote_is_named_then_resync_reopens_the_debate(
    table: Any, bot: Any
) -> None:
    sb, guild = table.sb, table.guild
    players = table.users[:5]
    channel = sb.channel(table.channel.id)
    before = overwrites(channel)
    game = Game(table, players)
    await game.open(lock_during_vote=True, reminder_hours=0.0)
    await game.start()
    await game.propose(team_of(game))
    await until(lambda: all(p.id in channel.permission_overwrites for p in players), what="lock")
    full = guild.bot_role.permissions
    guild.set_role_permissions(guild.bot_role, full & ~util.MANAGE_ROLES)
    await bot_sees(bot, channel.id, "manage_roles", False)
    await game.vote(accept=players)
    since = len(game.public())
    result = await game.resolve()
    assert "Team accepted" in result
    notice = await game.new_public(since, "Manage Roles")
    assert "/resistance resync" in notice
    assert all(not guild.permissions_in(p.id, channel) & util.SEND_MESSAGES for p in players)
    async with bot.sessions() as s:
        game_row = await repo.active_game_in_channel(s, channel.id)
        assert game_row is not None
        failed = await repo.effects_of(s, game_row.id, ["failed"])
    assert [r.kind for r in failed] == ["debate"] and "50013" in (failed[0].last_error or "")

    guild.set_role_permissions(guild.bot_role, full)
    await bot_sees(bot, channel.id, "manage_roles", True)
    reply = await game.slash(table.mod, "resistance resync")
    assert "Done: 1 message Discord had refused is sent again" in reply, reply
    await until(lambda: overwrites(channel) == before, what="the overwrites as they were")
    for p in players:
        assert guild.permissions_in(p.id, channel) & util.SEND_MESSAGES, p.name
    pins = sb.pins(channel)
    assert len(pins) == 1 and "rejected teams 0/5" in text_of(pins[0])


async def test_resync_is_for_moderators(table: Any, bot: Any) -> None:
    game = Game(table, table.users[:5])
    await game.open(lock_during_vote=True, reminder_hours=0.0)
    reply = await game.slash(table.users[0], "resistance resync")
    assert "moderator" in reply.lower(), reply


async def test_a_channel_the_bot_cannot_post_in_is_named_by_dm_then_resync_posts_it(
    table: Any, bot: Any
) -> None:
    sb, guild = table.sb, table.guild
    channel = sb.channel(table.channel.id)
    game = await silenced_after_a_vote(table, bot)
    since, dms = len(game.public()), len(sb.dms(table.mod))
    await game.slash(table.mod, "resistance resolve")

    def notices() -> list[str]:
        texts = [text_of(m) for m in sb.dms(table.mod)[dms:]]
        return [x for x in texts if "Send Messages" in x]

    # The result and the next leader's call are refused: the first refusal is named to the
    # game's creator, the second adds only its failed row (the same permission is missing).
    await until(lambda: failed_kinds(table) == ["post", "post"], what="both posts refused")
    await until(lambda: len(notices()) == 1, what="the DM naming the missing permission")
    assert all("/resistance resync" in x and f"<#{channel.id}>" in x for x in notices())
    assert game.public()[since:] == []
    channel.set_permissions(guild.bot_role)  # given back
    await bot_sees(bot, channel.id, "send_messages", True)
    reply = await game.slash(table.mod, "resistance resync")
    assert "Done: 2 messages Discord had refused are sent again" in reply, reply
    await game.new_public(since, "debate is open")
    posted = game.public()[since:]
    assert "Team accepted" in posted[0] and "debate is open" in posted[1], posted
    assert len(posted) == 2
