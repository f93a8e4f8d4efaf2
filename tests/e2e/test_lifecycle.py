"""A game outlives neither its place nor the bot's presence: a deleted channel or forum post, or
the bot removed from the server, ends the game as cancelled, drops its deadlines and tells its
creator by DM."""

from __future__ import annotations

import asyncio
from typing import Any

import discord
import pytest

from db import repo
from games.refutation.players import RfGame
from games.resistance.players import Game
from playtest.players import until
from sandbox import util
from tests.db import queries

pytestmark = pytest.mark.timeout(120)


async def state_of(bot: Any, game_id: int) -> tuple[str, list[int]]:
    """The game's status and its open deadlines."""
    async with bot.sessions() as s:
        game = await repo.get_game(s, game_id)
        assert game is not None
        return game.status, [d.id for d in await repo.open_deadlines(s, game_id)]


async def game_in(bot: Any, place_id: int) -> int:
    async with bot.sessions() as s:
        game = await repo.active_game_in_channel(s, place_id)
        assert game is not None
        return game.id


async def cancelled(bot: Any, game_id: int, timeout: float = 10.0) -> None:
    for _ in range(int(timeout / 0.05)):
        if (await state_of(bot, game_id))[0] == "cancelled":
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"game {game_id} was not cancelled")


def dm_with(sb: Any, user: Any, text: str) -> Any:
    return next((m for m in sb.dms(user) if text in m.text), None)


async def test_channel_deleted_mid_vote(table: Any, bot: Any) -> None:
    sb = table.sb
    game = Game(table, table.users[:5])
    await game.open()
    await game.start()
    leader = game.leader()
    await game.propose([leader, next(u for u in game.players if u is not leader)])
    await game.vote(accept=game.players[:2])
    gid = await game_in(bot, table.channel.id)
    status, open_ids = await state_of(bot, gid)
    # Its deadlines are open in the database; those within the scheduler's window have a job
    # (the vote's, hours ahead, gets one from the sweep that finds it within the window).
    assert status == "running" and open_ids

    # A public post that Discord keeps failing (503): its outbox row waits for a retry.
    sb.fail_route("POST", rf"/channels/{table.channel.id}/messages$", status=503, times=1000)
    await sb.slash(table.mod, "resistance extend", channel=table.channel, hours=1.0)
    pending: list[Any] = []
    for _ in range(200):
        async with bot.sessions() as s:
            pending = await repo.effects_of(s, gid, ["pending"])
        if pending:
            break
        await asyncio.sleep(0.05)
    assert pending, "no pending post"

    table.guild.delete_channel(table.channel)
    await cancelled(bot, gid)
    assert (await state_of(bot, gid))[1] == []  # its deadlines are dropped
    async with bot.sessions() as s:
        assert await repo.effects_of(s, gid, ["pending"]) == []  # and its pending effects
        dropped = await repo.effects_of(s, gid, ["dropped"])
    assert {e.id for e in pending} <= {e.id for e in dropped}
    assert not set(open_ids) & set(bot.scheduler.scheduled_ids())  # and their jobs
    dm = await until(
        lambda: dm_with(sb, table.mod, "has ended: its channel or post was deleted"),
        what="the creator's DM",
    )
    assert "#resistance" in dm.text and "The Resistance" in dm.text
    # A late click on the vote DM: refused privately, nothing recorded.
    reply = await game.click(game.players[3], "accept")
    assert "an ended game" in reply, reply
    async with bot.sessions() as s:
        assert len(await queries.vote_rows(s, gid)) == 2


async def test_forum_post_deleted_in_the_lobby_french(table: Any, bot: Any) -> None:
    sb = table.sb
    ix = await sb.slash(table.mod, "settings language", channel=table.channel, language="fr")
    await ix.reply(10)
    ix = await sb.slash(table.mod, "refutation new", channel=table.channel, forum=table.forum)
    assert "is open" in (await ix.reply(10) or "")
    post = await until(lambda: next(iter(sb.threads(table.forum)), None), what="the post")
    gid = await game_in(bot, post.id)
    table.guild.delete_channel(post)
    await cancelled(bot, gid)
    dm = await until(
        lambda: dm_with(sb, table.mod, "son salon ou son fil a été supprimé"),
        what="the creator's DM in French",
    )
    assert "est terminée\u00a0:" in dm.text
    # The forum itself holds no game any more; a new one can open there.
    ix = await sb.slash(table.mod, "refutation new", channel=table.channel, forum=table.forum)
    assert "is open" in (await ix.reply(10) or "")


async def test_bot_removed_from_the_guild_ends_its_games(table: Any, bot: Any) -> None:
    sb = table.sb
    game = RfGame(table, table.users[:3])
    await game.open()
    await game.start()
    running = await game_in(bot, table.channel.id)
    second = table.guild.add_text_channel("second")
    ix = await sb.slash(table.mod, "resistance new", channel=second)
    await ix.reply(10)
    lobby = await game_in(bot, second.id)
    other_guild = sb.add_guild("Other")
    other_guild.add_member(table.mod)
    other = other_guild.add_text_channel("other")
    other_guild.add_role("m")
    sb.remove_bot_from(table.guild)
    for gid in (running, lobby):
        await cancelled(bot, gid)
        assert (await state_of(bot, gid))[1] == []
    await until(
        lambda: sum("I was removed from that server" in m.text for m in sb.dms(table.mod)) == 2,
        what="two DMs to the creator",
    )
    assert all("**Play-by-post**" in m.text for m in sb.dms(table.mod) if "removed from" in m.text)
    assert other.id in sb.channels  # other guilds untouched


async def test_channel_deleted_while_the_bot_was_down(table: Any) -> None:
    from tests.harness import running_bot

    sb = table.sb
    async with running_bot(sb, table.url()) as bot:
        game = Game(table, table.users[:5])
        await game.open()
        gid = await game_in(bot, table.channel.id)
        kept = table.guild.add_text_channel("kept")
        await (await sb.slash(table.mod, "refutation new", channel=kept)).reply(10)
        kept_id = await game_in(bot, kept.id)
    table.guild.delete_channel(table.channel)
    async with running_bot(sb, table.url()) as bot:
        await cancelled(bot, gid)
        assert (await state_of(bot, kept_id))[0] == "lobby"  # its channel is still there
        await until(
            lambda: dm_with(sb, table.mod, f"<#{table.channel.id}>"), what="the creator's DM"
        )


def told(sb: Any, user: Any, text: str) -> int:
    return sum(text in m.text for m in sb.dms(user))


async def open_in(table: Any, game: str, place: Any, host: Any = None) -> None:
    """``/<game> new`` in ``place``; a forum (no message box) is named from the text channel."""
    if place is table.forum:
        ix = await table.sb.slash(
            host or table.mod, f"{game} new", channel=table.channel, forum=place
        )
    else:
        ix = await table.sb.slash(host or table.mod, f"{game} new", channel=place)
    reply = await ix.reply(10) or ""
    assert "is open" in reply, reply


async def test_bot_removed_from_a_server_while_offline(table: Any) -> None:
    """Removed from one server while stopped: its games end at the next start and their
    creator is told once each. A server that is down at the start (listed unavailable in
    READY) is an outage: its game is left alone."""
    from tests.harness import running_bot

    sb = table.sb
    down = sb.add_guild("Down")
    mods = down.add_role("m", permissions=discord.Permissions(manage_guild=True).value)
    down.add_member(table.mod, roles=[mods])
    elsewhere = down.add_text_channel("elsewhere")
    async with running_bot(sb, table.url()) as bot:
        game = RfGame(table, table.users[:3])
        await game.open()
        await game.start()
        running = await game_in(bot, table.channel.id)
        second = table.guild.add_text_channel("second")
        await open_in(table, "resistance", second)
        lobby = await game_in(bot, second.id)
        await open_in(table, "resistance", elsewhere)
        kept = await game_in(bot, elsewhere.id)
    sb.remove_bot_from(table.guild)
    sb.set_outage(down)
    removed = "I was removed from its server while I was offline"
    async with running_bot(sb, table.url()) as bot:
        for gid in (running, lobby):
            await cancelled(bot, gid)
            assert (await state_of(bot, gid))[1] == []
        await until(lambda: told(sb, table.mod, removed) == 2, what="a DM for each game")
        assert (await state_of(bot, kept))[0] == "lobby"
        sb.set_outage(down, False)
        await asyncio.sleep(1.0)  # a duplicate DM, or the outage taken for a removal
        assert (await state_of(bot, kept))[0] == "lobby"
    assert told(sb, table.mod, removed) == 2
    async with running_bot(sb, table.url()) as bot:  # a second start changes nothing
        await asyncio.sleep(1.0)
        assert (await state_of(bot, kept))[0] == "lobby"
    assert told(sb, table.mod, removed) == 2


async def test_a_thread_and_a_forum_post_deleted_while_offline(table: Any) -> None:
    """Threads are not all in the cache at start: a game's place that is not is fetched once.
    Unknown Channel (deleted) ends the game; an archived thread, or one the bot may no longer
    see (403), keeps it; a game in a thread still there survives the restart."""
    from tests.harness import running_bot

    sb, guild = table.sb, table.guild
    thread = table.channel.add_thread("Game night", owner=table.mod)
    archived = table.channel.add_thread("Slow game", owner=table.mod)
    hidden_parent = guild.add_text_channel("hidden")
    hidden = hidden_parent.add_thread("Hidden game", owner=table.mod)
    alive = guild.add_text_channel("games").add_thread("Still here", owner=table.mod)
    other_mod = sb.add_user("Second moderator")  # a member opens at most 3 games a server
    guild.add_member(other_mod, roles=[r for r in guild.roles.values() if r.name == "Game masters"])
    async with running_bot(sb, table.url()) as bot:
        await open_in(table, "refutation", table.forum)
        post = await until(lambda: next(iter(sb.threads(table.forum)), None), what="the post")
        ids = {}
        for name, place, game, host in (
            ("thread", thread, "resistance", table.mod),
            ("archived", archived, "refutation", other_mod),
            ("hidden", hidden, "resistance", other_mod),
            ("alive", alive, "refutation", other_mod),
        ):
            await open_in(table, game, place, host)
            ids[name] = await game_in(bot, place.id)
        ids["post"] = await game_in(bot, post.id)
    guild.delete_channel(thread)
    guild.delete_channel(post)
    archived.archived = True
    hidden.archived = True
    hidden_parent.set_permissions(guild.bot_member, deny=util.VIEW_CHANNEL)
    fetches_before = len(sb.requests_to("GET /channels/{channel_id}"))
    gone = "has ended: its channel or post was deleted"
    async with running_bot(sb, table.url()) as bot:
        await cancelled(bot, ids["thread"])
        await cancelled(bot, ids["post"])
        await until(lambda: told(sb, table.mod, gone) == 2, what="a DM for each game")
        await asyncio.sleep(1.0)
        for name in ("archived", "hidden", "alive"):
            assert (await state_of(bot, ids[name]))[0] == "lobby", name
    assert told(sb, table.mod, gone) == 2 and told(sb, other_mod, gone) == 0
    assert any(f"<#{thread.id}>" in m.text for m in sb.dms(table.mod))
    fetched = [
        r.path.rsplit("/", 1)[1]
        for r in sb.requests_to("GET /channels/{channel_id}")[fetches_before:]
    ]
    # Each place not in the cache, once: the deleted two, the archived one and the hidden one.
    expected = {str(x.id) for x in (thread, post, archived, hidden)}
    assert sorted(fetched) == sorted(expected), fetched
    statuses = {
        r.path.rsplit("/", 1)[1]: r.status
        for r in sb.requests_to("GET /channels/{channel_id}")[fetches_before:]
    }
    assert statuses[str(hidden.id)] == 403 and statuses[str(archived.id)] == 200
