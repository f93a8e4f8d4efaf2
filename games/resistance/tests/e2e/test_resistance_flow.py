"""The Resistance on Discord beyond the happy path: restarts, races, DMs, moderation, errors."""

from __future__ import annotations

import asyncio
from functools import partial
from typing import Any

import discord
import pytest

from db import repo
from db.models import Vote
from games.resistance.players import RESULT_MARKERS, Game
from playtest.players import text_of, until
from tests.harness import running_bot

# each test with every bypass, then with none (tests/e2e/support.py)
pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("public_paths")]


async def snapshot(bot: Any, channel_id: int) -> tuple[Any, ...]:
    """Everything an action could change: the game row, its players and its votes."""
    async with bot.sessions() as s:
        game = await repo.active_game_in_channel(s, channel_id)
        assert game is not None
        players = [
            (p.user_id, p.active, p.seat, p.role) for p in await repo.players(s, game.id, False)
        ]
        votes = await all_votes(s, game.id)
        return (game.status, game.version, game.state, players, votes)


async def all_votes(s: Any, game_id: int) -> list[tuple[str, str, int, str]]:
    from sqlalchemy import select

    rows = (await s.scalars(select(Vote).where(Vote.game_id == game_id))).all()
    return sorted((v.round_key, v.kind, v.user_id, v.value) for v in rows)


def button_id(message: Any) -> str:
    return str(next(c["custom_id"] for c in message.all_components if c.get("type") == 2))


async def forwarded_click(sb: Any, user: Any, message: Any, choice: str) -> Any:
    """``user`` clicks a button of someone else's DM (as on a forwarded copy of it)."""
    custom_id = next(
        c["custom_id"] for c in message.all_components if c.get("custom_id", "").endswith(choice)
    )
    data = {"custom_id": custom_id, "component_type": 2}
    ix = sb._new_interaction(3, user, sb.dm_channel(user), data)
    ix.payload["message"] = message.payload()
    return await sb._send_interaction(ix)


async def started(table: Any, n: int = 5, **options: Any) -> Game:
    game = Game(table, table.users[:n])
    await game.open(**options)
    await game.start()
    return game


async def test_every_bad_input_gets_a_private_answer_and_changes_nothing(
    table: Any, bot: Any
) -> None:
    sb = table.sb
    outsider = table.users[10]
    # Starting with 4 players.
    game = Game(table, table.users[:4])
    await game.open()
    before = await snapshot(bot, table.channel.id)
    reply = await game.slash(table.mod, "resistance start")
    assert "5 to 10 players" in reply and "there are 4" in reply
    assert await snapshot(bot, table.channel.id) == before
    # A second game in a busy channel.
    reply = await game.slash(table.mod, "resistance new")
    assert "already open in this channel" in reply
    # A non-moderator using a moderator command.
    reply = await game.slash(table.users[0], "resistance start")
    assert "Only moderators" in reply
    assert await snapshot(bot, table.channel.id) == before

    lobby = next(m for m in sb.channel_messages(table.channel) if m.labels)
    ix = await sb.click(table.users[4], lobby, label="Join")
    await ix.reply_message(10)
    game.players = table.users[:5]
    game.by_name = {u.name: u for u in game.players}
    await game.start()
    leader = game.leader()
    others = [u for u in game.players if u is not leader]
    size = game.team_size(1)
    before = await snapshot(bot, table.channel.id)

    cases = [
        (others[0], {"player1": others[0], "player2": others[1]}, "Only the Leader"),
        (
            leader,
            {"player1": leader, "player2": others[0], "player3": others[1]},
            f"exactly {size}",
        ),
        (leader, {"player1": others[0], "player2": others[0]}, "twice"),
        (leader, {"player1": others[0], "player2": outsider}, "isn't in this game"),
        (outsider, {"player1": others[0], "player2": others[1]}, "aren't a player"),
    ]
    for user, options, expected in cases:
        reply = await game.slash(user, "resistance propose", **options)
        assert expected in reply, (expected, reply)
        assert await snapshot(bot, table.channel.id) == before
    # Voting outside the vote.
    reply = await game.slash(game.players[0], "resistance vote", choice="accept")
    assert "no team to vote on" in reply, reply
    assert await snapshot(bot, table.channel.id) == before

    await game.propose([leader, others[0]])
    before = await snapshot(bot, table.channel.id)
    # Proposing outside the debate.
    next_leader = game.leader()
    reply = await game.slash(
        next_leader, "resistance propose", player1=others[0], player2=others[1]
    )
    assert "already proposed" in reply, reply
    # A non-player clicking a vote button of a forwarded DM, and with the slash command.
    ix = await forwarded_click(sb, outsider, game.vote_dm(others[1]), "accept")
    assert "aren't a player" in text_of(await ix.reply_message(10))
    reply = await game.slash(outsider, "resistance vote", choice="accept")
    assert "aren't a player" in reply
    # A player not on the team choosing a mission outcome.
    bystander = next(u for u in others[1:] if u.locale == "en-US")
    reply = await game.slash(bystander, "resistance mission", choice="support")
    assert "not on this team" in reply
    # A moderator command from a player.
    reply = await game.slash(bystander, "resistance resolve")
    assert "Only moderators" in reply
    assert await snapshot(bot, table.channel.id) == before

    # A button from an earlier round: resolve, then click the old DM.
    old_dm = game.vote_dm(others[1])
    await game.resolve()
    before = await snapshot(bot, table.channel.id)
    ix = await sb.click(others[1], old_dm, custom_id=button_id(old_dm))
    assert "earlier vote" in text_of(await ix.reply_message(10))
    assert await snapshot(bot, table.channel.id) == before


async def test_missing_permission_is_named(table: Any, sb: Any) -> None:
    guild = table.guild
    bot_role = guild.roles[guild.bot_role_id]
    quiet = guild.add_text_channel("no-pins")
    quiet.set_permissions(bot_role, deny=discord.Permissions(pin_messages=True).value)
    async with running_bot(sb, table.url()):
        ix = await sb.slash(table.mod, "resistance new", channel=quiet)
        reply = text_of(await ix.reply_message(10))
        assert "missing permissions" in reply and "**Pin Messages**" in reply  # as Discord says
        assert not [m for m in sb.channel_messages(quiet) if m.labels]  # no lobby opened


async def test_same_player_clicking_twice_at_once_counts_once(table: Any, bot: Any) -> None:
    game = await started(table, 10)
    leader = game.leader()
    team = [leader, *[u for u in game.players if u is not leader][:2]]
    await game.propose(team)
    user = game.players[3]
    # Two clicks at the same moment from one player, ten players at once.
    await asyncio.gather(
        game.click(user, "accept"), game.click(user, "reject"), game.click(user, "accept")
    )
    await game.vote(accept=[u for u in game.players if u is not user])
    async with bot.sessions() as s:
        g = await repo.active_game_in_channel(s, table.channel.id)
        assert g is not None
        votes = await repo.votes_for(s, g.id, "p1", "team")
    assert len(votes) == 10
    assert set(votes) == {u.id for u in game.players}
    result = await game.resolve()
    count = "Accepted (10)" in result or ("Accepted (9)" in result and "Rejected (1)" in result)
    assert count, result


async def test_restart_mid_vote_keeps_votes_and_buttons(table: Any, sb: Any) -> None:
    async with running_bot(sb, table.url()):
        game = await started(table, 5, vote_hours=3 / 3600, reminder_hours=0.0)
        leader = game.leader()
        team = [leader, next(u for u in game.players if u is not leader)]
        await game.propose(team)
        await game.vote(accept=game.players[:2])
    # The bot is down; the deadline passes while it is.
    await asyncio.sleep(3.5)
    assert not any(m in x for x in game.public() for m in RESULT_MARKERS)
    async with running_bot(sb, table.url()):
        result = await game.new_public(0, *RESULT_MARKERS, timeout=15)
        assert "Accepted (2)" in result and "Did not vote (3)" in result
        await asyncio.sleep(1.5)  # a second firing would post a second result
        assert sum(any(m in x for m in RESULT_MARKERS) for x in game.public()) == 1


async def test_old_dm_buttons_work_after_a_restart(table: Any, sb: Any) -> None:
    async with running_bot(sb, table.url()):
        game = await started(table, 5)
        leader = game.leader()
        await game.propose([leader, next(u for u in game.players if u is not leader)])
        await game.vote(accept=game.players[:3])
    async with running_bot(sb, table.url()) as bot:
        await game.vote(reject=game.players[3:])
        async with bot.sessions() as s:
            g = await repo.active_game_in_channel(s, table.channel.id)
            assert g is not None
            votes = await repo.votes_for(s, g.id, "p1", "team")
        assert len(votes) == 5
        result = await game.resolve()
        assert "Accepted (3)" in result and "Rejected (2)" in result


async def test_closed_dms_block_the_start_until_fixed(table: Any, bot: Any) -> None:
    shy = table.users[3]
    shy.dms_open = False
    game = Game(table, table.users[:5])
    await game.open()
    reply = await game.slash(table.mod, "resistance start")
    assert shy.name in reply
    notice = await game.new_public(0, "cannot send private messages")
    assert shy.name in notice
    async with bot.sessions() as s:
        g = await repo.active_game_in_channel(s, table.channel.id)
        assert g is not None and g.status == "lobby"
    shy.dms_open = True
    await game.start()
    # Closed again during the game: the slash command still records the vote.
    shy.dms_open = False
    leader = game.leader()
    partner = leader if leader is not shy else game.players[0]
    reply = await game.slash(leader, "resistance propose", player1=partner, player2=shy)
    assert "proposed" in reply, reply
    reply = await game.slash(shy, "resistance vote", choice="accept")
    assert "Accept" in reply
    reply = await game.slash(shy, "resistance mission", choice="support")
    assert "Support" in reply


async def test_substitute_takes_seat_role_and_leader_place(table: Any, bot: Any) -> None:
    game = await started(table, 5)
    leaving, newcomer = game.players[1], table.users[9]
    leader = game.leader()
    team = [leader, next(u for u in game.players if u not in (leader, leaving))]
    await game.propose(team)
    old_dm = game.vote_dm(leaving)
    reply = await game.slash(table.mod, "resistance substitute", old=leaving, new=newcomer)
    assert newcomer.name in reply
    role_dm = await until(lambda: game.role_dm(newcomer), what="the newcomer's role")
    assert ("Spy" in role_dm) == (game.roles[leaving.id] == "spy")
    pinned = text_of(table.sb.pins(table.channel)[-1])
    assert newcomer.name in pinned and leaving.name not in pinned
    # The leaver's old buttons are refused; the newcomer got a vote DM and can vote.
    ix = await table.sb.click(leaving, old_dm, custom_id=button_id(old_dm))
    assert "aren't a player" in text_of(await ix.reply_message(10))
    await until(lambda: game.vote_dm(newcomer), what="the newcomer's vote DM")
    game.players[1] = newcomer
    game.by_name = {u.name: u for u in game.players}
    assert "Accept" in await game.click(newcomer, "accept")


async def test_edit_failure_reposts_and_repins_the_leader_list(table: Any, bot: Any) -> None:
    game = await started(table, 5)
    first = table.sb.pins(table.channel)[-1]
    table.sb.edit_limit = 0  # Discord's 30046: no more edits to this old message
    await game.round(game.players[:2], accepted=False)
    await until(lambda: table.sb.pins(table.channel)[-1].id != first.id, what="a new pinned list")
    pins = table.sb.pins(table.channel)
    assert len(pins) == 1 and "rejected teams 1/5" in text_of(pins[0])


async def test_forum_post_game_locks_the_post_during_the_vote(table: Any, bot: Any) -> None:
    sb = table.sb
    ix = await sb.slash(table.mod, "resistance new", channel=table.channel, forum=table.forum)
    reply = text_of(await ix.reply_message(10))
    assert "open in" in reply
    post = await until(lambda: next(iter(sb.threads(table.forum)), None), what="the forum post")
    game = Game(table, table.users[:5], channel=post)
    lobby = await until(lambda: next((m for m in sb.channel_messages(post) if m.labels), None))
    for user in game.players:
        await (await sb.click(user, lobby, label="Join")).reply_message(10)
    await game.start()
    leader = game.leader()
    await game.propose([leader, next(u for u in game.players if u is not leader)])
    await until(lambda: sb.channel(post.id).locked, what="the post locked")
    await game.vote(accept=game.players)
    await game.resolve()
    await until(lambda: not sb.channel(post.id).locked, what="the post reopened")


async def test_text_channel_debate_closes_for_players_during_the_vote(table: Any, bot: Any) -> None:
    game = await started(table, 5)
    leader = game.leader()
    await game.propose([leader, next(u for u in game.players if u is not leader)])
    channel = table.sb.channel(table.channel.id)
    await until(lambda: all(u.id in channel.permission_overwrites for u in game.players))
    await game.vote(accept=game.players)
    await game.resolve()
    await until(lambda: not any(u.id in channel.permission_overwrites for u in game.players))


async def test_french_guild_and_two_games_at_once(table: Any, bot: Any) -> None:
    sb = table.sb
    ix = await sb.slash(table.mod, "settings language", channel=table.channel, language="fr")
    assert "French" in text_of(await ix.reply_message(10))
    other = table.guild.add_text_channel("resistance-2")
    await until(lambda: bot.get_channel(other.id) is not None, what="the new channel")
    first = Game(table, table.users[:5])
    second = Game(table, table.users[5:10], channel=other)

    def lobby_of(g: Game) -> Any:
        return next((m for m in sb.channel_messages(g.channel) if m.labels), None)

    for game in (first, second):
        await game.slash(table.mod, "resistance new")
        lobby = await until(partial(lobby_of, game))
        assert "nouvelle partie" in text_of(lobby)
        for user in game.players:
            await (await sb.click(user, lobby, custom_id=button_id(lobby))).reply_message(10)
        await game.start()
    assert "Liste des Leaders" in text_of(sb.pins(table.channel)[-1])
    assert "Liste des Leaders" in text_of(sb.pins(other)[-1])
    for game in (first, second):
        leader = game.leader()
        await game.propose([leader, next(u for u in game.players if u is not leader)])
        await game.vote(reject=game.players)
        since = len(game.public())
        await game.slash(table.mod, "resistance resolve")
        result = await game.new_public(since, "Équipe refusée")
        assert "Contre (5)" in result


async def test_reminder_and_extend(table: Any, bot: Any) -> None:
    # A 60-second vote with a reminder 59 seconds before the end: the reminder fires at once.
    game = await started(table, 5, vote_hours=60 / 3600, reminder_hours=59 / 3600)
    leader = game.leader()
    late = next(u for u in game.players if u is not leader and u.locale == "en-US")
    team = [leader, next(u for u in game.players if u not in (leader, late))]
    await game.propose(team)
    await game.vote(accept=[u for u in game.players if u is not late], support=team)
    await until(
        lambda: any("Reminder" in text_of(m) or "Rappel" in text_of(m) for m in table.sb.dms(late)),
        timeout=10,
        what="the reminder",
    )
    for user in game.players:
        if user is not late:
            assert not any(
                "Reminder" in text_of(m) or "Rappel" in text_of(m) for m in table.sb.dms(user)
            )
    reply = await game.slash(table.mod, "resistance extend", hours=1.0)
    assert "Deadline moved" in reply
    status = await game.slash(leader, "resistance status")
    assert late.name in status and "4/5" in status
