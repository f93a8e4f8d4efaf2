"""The debate closes during a vote wherever the game lives, and what was there comes back
exactly: a private channel's member overwrites, a thread or a forum post the moderator opened
(locked and unlocked; its parent untouched)."""

from __future__ import annotations

from typing import Any

import pytest

from games.resistance.players import Game
from playtest.players import until
from sandbox import util

pytestmark = pytest.mark.timeout(90)

VIEW, SEND, ATTACH = util.VIEW_CHANNEL, util.SEND_MESSAGES, util.ATTACH_FILES


def overwrites(channel: Any) -> dict[int, tuple[int, int, int]]:
    return {i: (o.type, o.allow, o.deny) for i, o in channel.permission_overwrites.items()}


def team_of(game: Game) -> list[Any]:
    leader = game.leader()
    return [leader, next(u for u in game.players if u is not leader)]


async def test_a_private_channel_keeps_its_members_and_their_own_overwrites(
    table: Any, bot: Any
) -> None:
    sb, guild = table.sb, table.guild
    private = guild.add_text_channel("private")
    players = table.users[:5]
    admitted = guild.add_role("Admitted")
    private.set_permissions(guild.everyone, deny=VIEW)
    private.set_permissions(guild.bot_role, allow=VIEW)
    private.set_permissions(admitted, allow=VIEW)
    private.set_permissions(table.mod, allow=VIEW)
    # Admitted one by one by member overwrites; one may already send freely, one may not
    # attach files; the last is admitted by a role and has no overwrite of their own.
    private.set_permissions(players[0], allow=VIEW)
    private.set_permissions(players[1], allow=VIEW | SEND)
    private.set_permissions(players[2], allow=VIEW, deny=ATTACH)
    private.set_permissions(players[3], allow=VIEW)
    guild.add_member_roles(players[4], admitted)
    before = overwrites(private)
    game = Game(table, players, channel=private)
    await game.open(lock_during_vote=True, reminder_hours=0.0)
    await game.start()
    await game.propose(team_of(game))
    channel = sb.channel(private.id)
    await until(lambda: all(p.id in channel.permission_overwrites for p in players), what="lock")
    for p in players:  # each can still read the channel, none can write
        perms = guild.permissions_in(p.id, channel)
        assert perms & VIEW and not perms & SEND, p.name
    assert channel.permission_overwrites[players[2].id].deny & ATTACH
    await game.vote(accept=players)
    await game.resolve()
    await until(lambda: overwrites(channel) == before, what="the overwrites as they were")
    for p in players:
        assert guild.permissions_in(p.id, channel) & (VIEW | SEND) == VIEW | SEND, p.name
    # The next vote closes and reopens the debate the same way.
    await game.propose(team_of(game))
    await until(lambda: not guild.permissions_in(players[1].id, channel) & SEND, what="relock")
    await game.vote(reject=players)
    await game.resolve()
    await until(lambda: overwrites(channel) == before, what="the overwrites again")


async def play_one_vote_in(table: Any, place: Any) -> None:
    sb = table.sb
    parent = sb.channel(place.parent_id)
    parent_before = overwrites(parent)
    game = Game(table, table.users[:5], channel=place)
    await game.open(lock_during_vote=True, reminder_hours=0.0)
    await game.start()
    for attempt in range(2):
        await game.propose(team_of(game))
        await until(lambda: sb.channel(place.id).locked, what="the thread locked")
        assert not sb.channel(place.id).permission_overwrites
        await game.vote(accept=game.players) if attempt else await game.vote(reject=game.players)
        await game.resolve()
        await until(lambda: not sb.channel(place.id).locked, what="the thread reopened")
    assert overwrites(parent) == parent_before
    writes = [r for r in sb.requests if r.method in ("PUT", "DELETE") and "/permissions/" in r.path]
    assert writes == []  # no overwrite anywhere: a thread has none of its own


async def test_a_thread_the_moderator_opened_is_locked_during_each_vote(
    table: Any, bot: Any
) -> None:
    thread = table.channel.add_thread("Game night", owner=table.mod)
    await play_one_vote_in(table, thread)


async def test_a_forum_post_the_moderator_opened_is_locked_during_each_vote(
    table: Any, bot: Any
) -> None:
    post = table.forum.add_thread("Our game", owner=table.mod)
    await play_one_vote_in(table, post)
