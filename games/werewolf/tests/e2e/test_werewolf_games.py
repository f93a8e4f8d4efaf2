"""Whole games of Werewolf through the sandbox: real discord.py, real SQLite."""

from __future__ import annotations

import io
import logging
import re
from typing import Any

import pytest
from PIL import Image

from bot.service import actions
from games.werewolf import vote_matrix
from games.werewolf.players import END_MARKERS, Game
from playtest.players import text_of, until
from sandbox.core import SandboxError
from tests.harness import running_bot

pytestmark = pytest.mark.timeout(180)


async def test_eight_players_the_village_wins(table: Any, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)  # before the bot starts: its whole log, at DEBUG
    async with running_bot(table.sb, table.url()):
        await play_eight(table, caplog)


async def play_eight(table: Any, caplog: pytest.LogCaptureFixture) -> None:
    game = Game(table, table.users[:8])
    await game.open()
    await game.start()
    wolves, seer, witch = game.having("werewolf"), game.one("seer"), game.one("witch")
    assert len(wolves) == 2
    villagers = game.having("villager")
    den = await until(game.den, what="the den")
    await until(lambda: den.member_ids >= {w.id for w in wolves}, what="the wolves in the den")

    # Night 1: both wolves pick the same villager; the seer looks; the witch does nothing.
    await game.kill(wolves[0], villagers[0])
    await until(lambda: any("picked" in text_of(m) for m in table.sb.messages_in(den)))
    await game.kill(wolves[1], villagers[0])
    assert "werewolf" in await game.act(seer, str(wolves[0].id))
    await game.act(witch, "skip")
    dawn = await game.new_public(0, "Dawn after night 1")
    assert villagers[0].name in dawn and "villager" in dawn

    # Day 1: a dead player cannot vote; the living eliminate a wolf by majority.
    assert "dead" in await game.vote(villagers[0], wolves[0])
    living = [u for u in game.players if u is not villagers[0]]
    assert "no elimination" in await game.vote(living[5], None)  # the menu's button
    for voter in living[:3]:
        await game.vote(voter, wolves[0])
    # the live count: one message, edited as the votes come, each voter in it
    await until(lambda: all(v.name in text_of(game.count_message()) for v in living[:3]))
    assert f"no elimination — 1: {living[5].name}" in text_of(game.count_message())
    await game.vote(living[3], wolves[0])  # 4 of 7: a majority ends the day
    result = await game.new_public(0, "Day 1 is over")
    assert wolves[0].name in result and "werewolf" in result
    final = await game.new_public(0, "The vote is closed.")  # the count's last edit
    assert final.startswith("☀️ **Day 1**") and living[3].name in final

    # Night 2 and day 2: the last wolf is found.
    await game.new_public(0, "Night 2")
    await game.kill(wolves[1], villagers[1], night=2)
    await game.act(seer, str(wolves[1].id), night=2)
    await game.act(witch, "skip", night=2)
    await game.new_public(0, "Dawn after night 2")
    voters = [u for u in game.players if u not in (villagers[0], villagers[1], wolves[0])]
    for voter in voters[:3]:  # 3 of 5: a majority
        await game.vote(voter, wolves[1])
    end = await game.new_public(0, *END_MARKERS)
    assert "The village wins" in end
    assert "night log" in end and wolves[1].name in end
    assert_log_keeps_secrets(game, caplog)
    stats = await game.slash(table.mod, "stats player", user=seer)  # by side and by role
    assert "**Werewolf**: 1 game, 1 won" in stats and "seer 1/1" in stats


def assert_log_keeps_secrets(game: Game, caplog: pytest.LogCaptureFixture) -> None:
    """No line of a role DM, a night menu, a seer's result or the den is in the bot's log, at
    any level (tests/e2e/test_logs.py's check, on this game's secrets)."""
    records = [r for r in caplog.records if not r.name.startswith("sandbox")]
    assert records and "DEBUG" in {r.levelname for r in records}
    log = "\n".join(r.getMessage() for r in records)
    den = game.den()
    private = [m for u in game.players for m in game.sb.dms(u)]
    private += game.sb.messages_in(den) if den is not None else []
    for message in private:
        for line in text_of(message).splitlines():
            if len(line) > 12:
                assert line not in log, line


def assert_public_keeps_secrets(game: Game) -> None:
    """Before the end, no channel message holds a wolves' pick, a seer's result, a potion or
    the lovers (the den's and the DMs' texts)."""
    transcript = game.public()
    end = next((i for i, x in enumerate(transcript) if any(m in x for m in END_MARKERS)), None)
    for text in transcript if end is None else transcript[:end]:
        for secret in ("🐾", "🩸", "🔮", "🧪", "💘", "→"):
            assert secret not in text, f"a secret in the channel: {text!r}"


async def test_eight_players_in_french_the_werewolves_win(table: Any, bot: Any) -> None:
    await Game(table, []).slash(table.mod, "settings language", language="fr")
    game = Game(table, table.users[:8])
    await game.open(seer=False, witch=False)
    await game.start()
    wolves, villagers = game.having("werewolf"), game.having("villager")
    assert len(wolves) == 2 and len(villagers) == 6
    for wolf in wolves:  # no seer, no witch: the wolves' agreement ends the night
        await game.kill(wolf, villagers[0])
    dawn = await game.new_public(0, "L’aube après la nuit 1")
    assert f"Mort cette nuit\u00a0: {villagers[0].name}, **villageois**." in dawn
    for voter in [*wolves, *villagers[2:4]]:  # 4 of 7
        await game.vote(voter, villagers[1])
    result = await game.new_public(0, "Le jour 1 s’achève")
    assert "une majorité" in result and villagers[1].name in result
    await game.new_public(0, "La nuit 2")
    for wolf in wolves:
        await game.kill(wolf, villagers[2], night=2)
    await game.new_public(0, "L’aube après la nuit 2")
    for voter in [*wolves, villagers[4]]:  # 3 of 5
        await game.vote(voter, villagers[3])
    end = await game.new_public(0, *END_MARKERS)
    assert "Les loups-garous gagnent" in end and "Le journal des nuits" in end
    assert_public_keeps_secrets(game)


def more_players(table: Any, count: int) -> list[Any]:
    """The table's would-be players and as many more as a bigger game needs."""
    users = list(table.users)
    while len(users) < count:
        user = table.sb.add_user(f"Player{len(users) + 1}")
        table.guild.add_member(user)
        users.append(user)
    return users[:count]


async def test_sixteen_players_every_role_and_the_captain(table: Any, bot: Any) -> None:
    game = Game(table, more_players(table, 16))
    await game.open(hunter=True, cupid=True, captain=True)
    await game.start()
    wolves, villagers = game.having("werewolf"), game.having("villager")
    seer, witch, hunter, cupid = (game.one(r) for r in ("seer", "witch", "hunter", "cupid"))
    assert len(wolves) == 3
    captain = villagers[0]

    # The election: everyone votes, the captain is elected (early close), night falls.
    for voter in game.players:
        await game.vote(voter, captain)
    assert captain.name in await game.new_public(0, "The captain is")

    # Night 1: Cupid links the captain and a villager in two picks; the wolves take the hunter.
    assert villagers[1].name not in await game.act(cupid, str(captain.id))
    assert villagers[1].name in await game.act(cupid, str(villagers[1].id), since=2)
    for wolf in wolves:
        await game.kill(wolf, hunter)
    den = game.den()
    await until(lambda: any(hunter.name in text_of(m) for m in table.sb.messages_in(den)))
    await game.act(seer, str(wolves[0].id))
    await game.act(witch, "skip")
    await game.new_public(0, "was the hunter")
    reply = await game.slash(hunter, "werewolf choose", player=wolves[0])
    assert wolves[0].name in reply
    shot = await game.new_public(0, "takes a last shot.")
    assert wolves[0].name in shot and "werewolf" in shot
    await until(lambda: wolves[0].id not in den.member_ids, what="the dead wolf out of the den")

    # Day 1: the captain's vote counts twice: 7 voters make 8 votes of 15.
    for voter in [captain, *villagers[2:8]]:
        await game.vote(voter, wolves[1])
    result = await game.new_public(0, "Day 1 is over")
    assert f"{captain.name} (×2)" in result and wolves[1].name in result

    # Night 2: the wolf takes the captain, whose lover dies of grief; a successor is named.
    await game.kill(wolves[2], captain, night=2)
    await game.act(seer, str(wolves[2].id), night=2)
    await game.act(witch, "skip", night=2)
    dawn = await game.new_public(0, "Dawn after night 2")
    assert "died of grief" in dawn and villagers[1].name in dawn
    await game.act(captain, str(villagers[2].id), since=len(table.sb.dms(captain)) - 1)
    assert villagers[2].name in await game.new_public(0, f"The captain is {villagers[2].name}")

    # /werewolf history: the day-votes picture so far, day 2 under way.
    ix = await table.sb.slash(villagers[3], "werewolf history", channel=table.channel)
    history = await ix.reply_message(10.0)
    assert history.ephemeral and re.fullmatch(r"day-votes-game-\d+\.png", history.filenames[0])
    assert_day_votes_picture(history.file(), days=2)
    alt = history.attachments[0]["description"]
    assert f"Day 1: {captain.name} (captain, counted twice): {wolves[1].name};" in alt
    assert alt.endswith("Day 2: vote in progress.")

    # Day 2: the last wolf out, the village wins.
    for voter in [villagers[2], *villagers[3:8]]:  # 7 votes of 11
        await game.vote(voter, wolves[2])
    end = await game.new_public(0, *END_MARKERS)
    assert "The village wins" in end and "the lovers:" in end
    assert_public_keeps_secrets(game)

    # The end's post: the day-votes picture, then the record.
    posted = await until(
        lambda: next((m for m in table.sb.channel_messages(table.channel) if m.attachments), None)
    )
    found = re.search(r"werewolf-game-(\d+)\.md", posted.filenames[-1])
    assert found is not None
    number = int(found[1])
    picture = f"day-votes-game-{number}.png"
    assert posted.filenames == [picture, f"werewolf-game-{number}.md"]
    assert_day_votes_picture(posted.file(picture), days=2)
    alt = posted.attachments[0]["description"]
    assert f"{villagers[2].name} (captain, counted twice): {wolves[2].name}" in alt

    # /werewolf archive attaches it too, and rebuilds the record later, privately, with the
    # night log.
    ix = await table.sb.slash(villagers[3], "werewolf archive", channel=table.channel, game=number)
    record = await ix.reply_message(10.0)
    assert record.ephemeral and record.filenames == [picture, f"werewolf-game-{number}.md"]
    text = record.file(f"werewolf-game-{number}.md").decode()
    assert "The village wins" in text and f"{wolves[0].name} picked {hunter.name}" in text


def assert_day_votes_picture(png: bytes, *, days: int) -> None:
    """A PNG wide enough for the names column and ``days`` columns of votes."""
    with Image.open(io.BytesIO(png)) as image:
        assert image.format == "PNG"
        assert image.width >= vote_matrix.MIN_WIDTH + (days - 4) * vote_matrix.CELL_W
        assert image.width <= vote_matrix.MAX_WIDTH


async def test_a_substitute_inherits_the_role_and_the_den(table: Any, bot: Any) -> None:
    game = Game(table, table.users[:8])
    await game.open()
    await game.start()
    leaver, mate = game.having("werewolf")
    newcomer = table.users[8]
    den = await until(game.den, what="the den")
    reply = await game.slash(table.mod, "werewolf substitute", old=leaver, new=newcomer)
    assert newcomer.name in reply
    dm = await game.learn_role(newcomer)
    assert game.roles[newcomer.id] == "werewolf" and mate.name in dm
    await until(lambda: newcomer.id in den.member_ids and leaver.id not in den.member_ids)
    game.players = [newcomer if u is leaver else u for u in game.players]
    victim = game.having("villager")[0]
    assert victim.name in await game.kill(newcomer, victim)
    with pytest.raises(SandboxError, match="cannot see"):  # out of the den
        await game.kill(leaver, victim)
    assert "aren't a player" in await game.slash(leaver, "werewolf kill", player=victim)


async def test_in_a_forum_post_the_wolves_confer_by_dm(table: Any, bot: Any) -> None:
    sb = table.sb
    await Game(table, []).slash(table.mod, "werewolf new", forum=table.forum)
    post = await until(lambda: next(iter(sb.threads(table.forum)), None), what="the forum post")
    game = Game(table, table.users[:6], channel=post)
    lobby = await until(lambda: next((m for m in sb.messages_in(post) if m.labels), None))
    for user in game.players:
        await game.reply(await game.press(user, lobby, label="Join"))
    await game.start()
    first, second = game.having("werewolf")
    villager = game.having("villager")[0]
    menu = await until(lambda: game.dm_menu(first), what="the wolf's menu by DM")
    await game.reply(await game.select(first, menu, [str(villager.id)]))
    relayed = await until(
        lambda: next((m for m in reversed(sb.dms(second)) if "🐾" in text_of(m)), None),
        what="the pick relayed to the other wolf",
    )
    assert villager.name in text_of(relayed)
    assert game.den() is None  # no private thread in a forum post


async def test_in_a_forum_post_the_den_opens_in_the_channel_the_server_named(
    table: Any, bot: Any
) -> None:
    sb = table.sb
    wolves_room = table.guild.add_text_channel("wolves-room")
    moderator = Game(table, [])
    named = {"channel": wolves_room}  # the option's name is the sandbox's own keyword's
    reply = await moderator.slash(table.mod, "settings werewolf den", named=named)
    assert f"<#{wolves_room.id}>" in reply
    assert f"<#{wolves_room.id}>" in await moderator.slash(table.mod, "settings show")
    await moderator.slash(table.mod, "werewolf new", forum=table.forum)
    post = await until(lambda: next(iter(sb.threads(table.forum)), None), what="the forum post")
    game = Game(table, table.users[:6], channel=wolves_room)  # where the den is looked for
    lobby = await until(lambda: next((m for m in sb.messages_in(post) if m.labels), None))
    for user in game.players:
        await game.reply(await game.press(user, lobby, label="Join"))
    game.channel = post
    await game.start()
    first, second = game.having("werewolf")
    game.channel = wolves_room
    den = await until(game.den, what="the den in the named channel")
    assert set(den.member_ids) >= {first.id, second.id}
    villager = game.having("villager")[0]
    assert villager.name in await game.kill(first, villager)
    assert game.dm_menu(first) is None  # the den's menu, not a DM relay


async def test_in_a_thread_the_den_opens_in_its_channel_and_the_dead_are_marked(
    table: Any, bot: Any
) -> None:
    """A thread of a text channel has no thread of its own and no member overwrites: the den
    opens in the channel, nobody is silenced, and ``activity`` shows a dead player's posts."""
    sb = table.sb
    thread = table.channel.add_thread("Village", owner=table.mod)
    game = Game(table, table.users[:6], channel=thread)
    await game.open()
    await game.start()
    wolves, seer, witch = game.having("werewolf"), game.one("seer"), game.one("witch")
    villager = game.having("villager")[0]
    game.channel = table.channel  # where the den is looked for
    den = await until(game.den, what="the den in the thread's channel")
    await until(lambda: den.member_ids >= {w.id for w in wolves}, what="the wolves in the den")
    for wolf in wolves:
        await game.kill(wolf, villager)
    await game.act(seer, str(wolves[0].id))
    await game.act(witch, "skip")
    game.channel = thread
    assert villager.name in await game.new_public(0, "Dawn after night 1")
    assert villager.id not in table.channel.overwrites  # a thread cannot silence one member
    await sb.say(villager, thread, "I was innocent!")
    await sb.say(wolves[0], thread, "So sad.")
    lines = (await game.slash(table.mod, "werewolf activity")).splitlines()
    dead = next(line for line in lines if line.startswith(villager.name))
    assert dead.endswith("may not post here (1 post this round)")
    living = next(line for line in lines if line.startswith(wolves[0].name))
    assert "may not post" not in living


async def test_a_vote_is_answered_while_discord_holds_the_count_edit(
    table: Any, bot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The count is a live edit, which the next vote's supersedes: a vote's answer does not
    wait for it (Discord allows a message 5 edits in 5 s), and the edits waiting behind a
    held one go out as one."""
    monkeypatch.setattr(actions, "DELIVERY_WAIT", 3600.0)  # an answer that waited never comes
    game = Game(table, table.users[:8])
    await game.open()
    await game.start()
    wolves, seer, witch = game.having("werewolf"), game.one("seer"), game.one("witch")
    den = await until(game.den, what="the den")
    await until(lambda: den.member_ids >= {w.id for w in wolves}, what="the wolves in the den")
    villager = game.having("villager")[0]
    for wolf in wolves:
        await game.kill(wolf, villager)
    await game.act(seer, str(wolves[0].id))
    await game.act(witch, "heal")
    await game.new_public(0, "Dawn after night 1")
    count = await until(game.count_message, what="the day's vote count")
    path = f"/channels/{count.channel_id}/messages/{count.id}"
    before = text_of(count)
    held = table.sb.hold_route("PATCH", f"^{path}$", times=10**9)
    voters = [p for p in game.players if p not in wolves][:3]  # 3 of 8: no majority
    for voter in voters:
        assert wolves[0].name in await game.vote(voter, wolves[0])
    assert held.held == 1  # the first edit waits at Discord, the next ones in the outbox
    assert text_of(game.count_message()) == before
    mark = len(table.sb.requests)
    held.release()
    table.sb.hold_rules.remove(held)
    voted = f"{wolves[0].name}** — 3: " + ", ".join(v.name for v in voters)
    await until(lambda: voted in text_of(game.count_message()), what="the count of the 3 votes")
    edits = [r for r in table.sb.requests[mark:] if r.method == "PATCH" and r.path == path]
    assert len(edits) == 2  # the one held, then the two that waited in the outbox as one
