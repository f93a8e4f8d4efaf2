"""Effects survive a crash and an outage: a real bot process (``python -m bot run``) on a SQLite
file, SIGKILLed while the sandbox holds the post of a result; and a sandbox answering 503 to
every post for 30 seconds. Everything is delivered once, in order."""

from __future__ import annotations

import asyncio
import json
import re
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

from games.resistance.players import RESULT_MARKERS, Game
from playtest.players import text_of, until
from sandbox import util
from tests.e2e.shard_procs import BotProcess, processes
from tests.e2e.test_debate_lock import overwrites, team_of
from tests.harness import sqlite_url

pytestmark = pytest.mark.timeout(300)

CALL = ("debate is open",)  # the next leader's call, after every result


def config(sb: Any, database_url: str) -> str:
    return (
        "[discord]\n"
        f'token = "{sb.token}"\n'
        f'api_base = "{sb.api_base}"\n'
        f'gateway_url = "{sb.gateway_url}"\n'
        "\n[database]\n"
        f'url = "{database_url}"\n'
        "\n[logging]\n"
        'level = "INFO"\n'
    )


def bot_process(table: Any, tmp_path: Path) -> BotProcess:
    path = tmp_path / "bot.toml"
    path.write_text(config(table.sb, sqlite_url(tmp_path / "crash.sqlite3")))
    return BotProcess("bot", path, tmp_path / "bot.log")


def kinds(texts: list[str]) -> list[str]:
    """The transcript as what each message is (names and ids differ from game to game)."""
    out = []
    for x in texts:
        if any(m in x for m in RESULT_MARKERS):
            out.append("result")
        elif any(m in x for m in CALL):
            out.append("call")
        else:
            out.append("other")
    return out


@pytest.mark.parametrize("performed", [False, True], ids=["before-discord", "after-discord"])
async def test_a_kill_between_the_result_and_its_post_delivers_it_once_after_restart(
    table: Any, tmp_path: Path, performed: bool
) -> None:
    sb = table.sb
    proc = bot_process(table, tmp_path)
    async with processes(proc):
        players = table.users[:5]
        channel = sb.channel(table.channel.id)
        before = overwrites(channel)
        game = Game(table, players)
        await game.open(lock_during_vote=True, reminder_hours=0.0)
        await game.start()
        team = team_of(game)
        await game.propose(team)
        await until(lambda: all(p.id in channel.permission_overwrites for p in players))
        await game.vote(accept=players, support=team)
        since = len(game.public())
        pinned = game.pinned_text()
        # The result is committed; its post is held by "Discord" (before it is created, or
        # once created, holding only the answer), and the process dies meanwhile.
        hold = sb.hold_route("POST", rf"/channels/{channel.id}/messages$", after=performed)
        await sb.slash(table.mod, "resistance resolve", channel=channel)
        await hold.wait_hit(15)
        await proc.kill()
        hold.release(drop=not performed)
        assert len([x for x in game.public()[since:] if "Team accepted" in x]) == int(performed)
        await proc.start()
        await proc.wait_ready()
        await game.new_public(since, *CALL, timeout=20)
        await game.settled(pinned)
        await until(lambda: overwrites(channel) == before, what="the debate reopened")
        await asyncio.sleep(1.0)  # time for a duplicate to show up, if there were one
    after = game.public()[since:]
    assert kinds(after) == ["result", "call"], after
    assert "Accepted (5)" in after[0]
    pins = sb.pins(channel)
    assert len(pins) == 1 and "mission 2" in text_of(pins[0])  # the list after the result
    leader = re.search(r"\*\*(.+?)\*\* ←", text_of(pins[0]))
    assert leader is not None and f"<@{game.by_name[leader.group(1)].id}>" in after[1]


async def test_every_post_refused_for_30_seconds_is_delivered_once_in_order_after(
    table: Any, tmp_path: Path
) -> None:
    sb, guild = table.sb, table.guild
    proc = bot_process(table, tmp_path)
    async with processes(proc):
        a = Game(table, table.users[:5])
        b = Game(table, table.users[5:10], channel=guild.add_text_channel("other"))
        for game in (a, b):
            await game.open(lock_during_vote=False, reminder_hours=0.0)
            await game.start()
        team_b = team_of(b)
        await b.propose(team_b)
        since_a, since_b = len(a.public()), len(b.public())
        dms_before = {u.id: len(sb.dms(u)) for u in a.players}
        sb.fail_route("POST", r"/channels/\d+/messages$", status=503, times=1_000_000)
        rule = sb.fail_rules[-1]
        started = time.monotonic()
        try:
            # Game A: a proposal whose post and vote DMs all wait for Discord to come back.
            leader = a.leader()
            team = [leader, next(u for u in a.players if u is not leader)]
            await sb.slash(
                leader, "resistance propose", channel=a.channel, player1=team[0], player2=team[1]
            )
            # Game B keeps going: its votes are acknowledged and recorded, its result decided.
            await b.vote(accept=b.players, support=team_b)
            await sb.slash(table.mod, "resistance resolve", channel=b.channel)
            assert a.public()[since_a:] == [] and b.public()[since_b:] == []
            await asyncio.sleep(max(0.0, 30 - (time.monotonic() - started)))
        finally:
            rule.times = 0
        await b.new_public(since_b, *CALL, timeout=70)
        await until(
            lambda: all(any(m.labels for m in sb.dms(u)[dms_before[u.id] :]) for u in a.players),
            70,
            "game A's vote DMs",
        )
        await asyncio.sleep(1.0)
    assert kinds(b.public()[since_b:]) == ["result", "call"]
    posted_a = a.public()[since_a:]
    assert len(posted_a) == 1 and "proposes for mission 1" in posted_a[0], posted_a
    for u in a.players:
        new = sb.dms(u)[dms_before[u.id] :]
        assert sum(bool(m.labels) for m in new) == 1, u.name  # the vote DM, once
    posts = [r for r in sb.requests_to("POST /channels/{channel_id}/messages") if r.time > started]
    assert any(r.status == 503 for r in posts)
    delivered = [r.time - started for r in posts if r.status == 200]
    assert delivered and min(delivered) >= 29.5  # nothing got through the outage


def normalized(game: Game, texts: list[str]) -> list[str]:
    """Texts with the players' names, mentions and timestamps made alike (each game of the
    scripted round has other leaders and teams, not another shape)."""
    out = []
    for x in texts:
        for name in game.by_name:
            x = x.replace(name, "P")
        x = re.sub(r"<@!?\d+>", "<@U>", x)
        x = re.sub(r"<t:\d+:\w>", "<t>", x)
        x = re.sub(r"<#\d+>", "<#C>", x)  # each round has its own channel
        out.append(x)
    return out


async def scripted_round(
    table: Any, proc: BotProcess, crash_at: int | None, performed: bool = False
) -> list[str]:
    """Open a game in a new channel, play a vote to its result, and (``crash_at``) kill the
    process at the ``crash_at``-th write the bot makes on that channel after the resolution
    (held before or after Discord performs it), then restart it. The round's transcript."""
    sb = table.sb
    channel = table.guild.add_text_channel(f"round-{crash_at}-{performed}")
    players = table.users[:5]
    game = Game(table, players, channel=channel)
    before = overwrites(channel)
    await game.open(lock_during_vote=True, reminder_hours=0.0)
    await game.start()
    team = sorted(players, key=lambda u: u.name)[:2]
    leader = game.leader()
    if leader not in team:
        team = [leader, team[0]]
    await game.propose(team)
    await game.vote(accept=players, support=team)
    since, pinned = len(game.public()), game.pinned_text()
    writes = rf"/channels/{channel.id}/(messages|permissions|pins)"
    hold = None
    if crash_at is not None:
        hold = sb.hold_route("*", writes, skip=crash_at, after=performed)
    await sb.slash(table.mod, "resistance resolve", channel=channel)
    if hold is not None:
        await hold.wait_hit(15)
        await proc.kill()
        hold.release(drop=not performed)
        await proc.start()
        await proc.wait_ready()
    await game.new_public(since, *CALL, timeout=20)
    await game.settled(pinned)
    await until(lambda: overwrites(channel) == before, what="the debate reopened")
    await asyncio.sleep(0.5)  # time for a duplicate to show up, if there were one
    transcript = normalized(game, game.public()[since:])
    # The leader list, its lines sorted: whose seat leads is the game's draw.
    pins = [
        "\n".join(sorted(re.sub(r"(?m)^\d+\. ", "", x).split("\n")))
        for x in normalized(game, [text_of(m) for m in sb.pins(channel)])
    ]
    transcript += ["pins:", *pins]
    transcript.append(f"locked during the vote, restored after: {overwrites(channel) == before}")
    await game.slash(table.mod, "resistance cancel")  # its players are free for the next one
    return transcript


async def scripted_proposal(
    table: Any, proc: BotProcess, crash_at: int | None, performed: bool = False
) -> list[str]:
    """Open a game in a new channel, start it, and have the leader propose a team; with
    ``crash_at``, kill the process at the ``crash_at``-th write the bot makes for the
    proposal (the team's post, the debate's lock — one overwrite per player —, the players'
    vote DMs), held before or after Discord performs it, then restart it. The step's
    transcript: the posts, each player's new DMs, the overwrites, the pins."""
    sb = table.sb
    channel = table.guild.add_text_channel(f"proposal-{crash_at}-{performed}")
    # Players who all read English: whether Chloé (French) is on the team would change the
    # transcript's shape from one game (leader) to the next.
    players = [u for u in table.users if u.locale != "fr"][:5]
    game = Game(table, players, channel=channel)
    before = overwrites(channel)
    await game.open(lock_during_vote=True, reminder_hours=0.0)
    await game.start()
    await game.new_public(0, *CALL)
    team = sorted(players, key=lambda u: u.name)[:2]
    leader = game.leader()
    if leader not in team:
        team = [leader, team[0]]
    since = len(game.public())
    dms_before = {u.id: len(sb.dms(u)) for u in players}
    # Every write of the step: in the game's channel and in the players' DM channels (opened
    # by the role DMs of the start).
    places = "|".join(str(c) for c in [channel.id, *(sb.dm_channel(u).id for u in players)])
    hold = None
    if crash_at is not None:
        hold = sb.hold_route(
            "*",
            rf"/channels/({places})/(messages|permissions|pins)",
            skip=crash_at,
            after=performed,
        )
    options = {f"player{i}": user for i, user in enumerate(team, 1)}
    await sb.slash(leader, "resistance propose", channel=channel, **options)
    if hold is not None:
        await hold.wait_hit(15)
        await proc.kill()
        hold.release(drop=not performed)
        await proc.start()
        await proc.wait_ready()

    def vote_dms(user: Any) -> list[Any]:
        return [m for m in sb.dms(user)[dms_before[user.id] :] if m.labels]

    await until(lambda: all(vote_dms(u) for u in players), 20, "the vote DMs")
    await game.new_public(since, "proposes for mission 1", timeout=20)
    await until(lambda: all(p.id in channel.permission_overwrites for p in players), 20, "the lock")
    await asyncio.sleep(0.5)  # time for a duplicate to show up, if there were one
    transcript = normalized(game, game.public()[since:])
    blocks = [
        normalized(game, [text_of(m) for m in sb.dms(user)[dms_before[user.id] :]])
        for user in players
    ]
    for block in sorted(blocks):
        transcript += ["dms:", *block]
    locked = overwrites(channel)
    transcript += sorted(
        f"overwrite: {locked[p.id][0]} {locked[p.id][1]} {locked[p.id][2]}" for p in players
    )
    others = {k: v for k, v in locked.items() if k not in {p.id for p in players}}
    transcript.append(f"others untouched: {others == before}")
    pins = [
        "\n".join(sorted(re.sub(r"(?m)^\d+\. ", "", x).split("\n")))
        for x in normalized(game, [text_of(m) for m in sb.pins(channel)])
    ]
    transcript += ["pins:", *pins]
    await game.slash(table.mod, "resistance cancel")  # its players are free for the next one
    return transcript


STEPS = {
    # The result's post, the five overwrites put back, the leader list's edit, the call.
    "resolution": (scripted_round, 8),
    # The team's post, the five overwrites that close the debate, the five vote DMs.
    "proposal": (scripted_proposal, 11),
}


@pytest.mark.parametrize("step", list(STEPS))
async def test_a_crash_at_each_effect_boundary_of_a_round_gives_the_same_transcript(
    table: Any, tmp_path: Path, step: str
) -> None:
    scripted, boundaries = STEPS[step]
    proc = bot_process(table, tmp_path)
    async with processes(proc):
        reference = await scripted(table, proc, None)
        if step == "resolution":
            assert [k for k in kinds(reference) if k != "other"] == ["result", "call"]
        else:
            assert "proposes for mission 1" in reference[0] and len(reference) > 1
            assert sum(x == "dms:" for x in reference) == 5
        for k in range(boundaries):
            performed = k % 2 == 1
            assert await scripted(table, proc, k, performed) == reference, (k, performed)


def outbox(db: Path, game_id: int | None = None) -> list[tuple[int, str, str, dict[str, Any]]]:
    """(game id, kind, status, payload) of the outbox rows, by game and seq."""
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT game_id, kind, status, payload FROM outbox ORDER BY game_id, seq"
        ).fetchall()
    return [(g, k, st, json.loads(p)) for g, k, st, p in rows if game_id in (None, g)]


@pytest.mark.parametrize("performed", [False, True], ids=["before-discord", "after-discord"])
async def test_the_creators_dm_of_a_deleted_channel_survives_a_kill(
    table: Any, tmp_path: Path, performed: bool
) -> None:
    sb = table.sb
    proc = bot_process(table, tmp_path)
    async with processes(proc):
        game = Game(table, table.users[:5])
        await game.open(reminder_hours=0.0)
        await game.start()
        await game.new_public(0, *CALL)
        # The cancel is committed with its DM; the DM is held (before or after Discord creates
        # it) and the process dies meanwhile.
        hold = sb.hold_route("POST", r"/channels/\d+/messages$", after=performed)
        table.guild.delete_channel(table.channel)
        await hold.wait_hit(15)
        await proc.kill()
        hold.release(drop=not performed)
        told = "has ended: its channel or post was deleted"
        assert sum(told in m.text for m in sb.dms(table.mod)) == int(performed)
        await proc.start()
        await proc.wait_ready()
        await until(lambda: any(told in m.text for m in sb.dms(table.mod)), 20, "the DM")
        await asyncio.sleep(1.0)  # time for a duplicate to show up, if there were one
    assert sum(told in m.text for m in sb.dms(table.mod)) == 1
    rows = [r for r in outbox(tmp_path / "crash.sqlite3") if r[1] == "dm"]
    assert [(st, p["user_id"]) for _, _, st, p in rows if told in p["text"]] == [
        ("done", table.mod.id)
    ]


async def test_the_missing_permission_notice_survives_a_kill(table: Any, tmp_path: Path) -> None:
    sb, guild = table.sb, table.guild
    proc = bot_process(table, tmp_path)
    async with processes(proc):
        players = table.users[:5]
        channel = sb.channel(table.channel.id)
        game = Game(table, players)
        await game.open(lock_during_vote=True, reminder_hours=0.0)
        await game.start()
        team = team_of(game)
        await game.propose(team)
        await until(lambda: all(p.id in channel.permission_overwrites for p in players))
        full = guild.bot_role.permissions
        # GUILD_ROLE_UPDATE goes out on the bot's one gateway session before the clicks
        # below, and discord.py applies it as it reads it: every click, and the resolve, come
        # after it (no wait needed; the notice asserted below shows the bot saw it).
        guild.set_role_permissions(guild.bot_role, full & ~util.MANAGE_ROLES)
        await game.vote(accept=players, support=team)
        since = len(game.public())
        # The result, the next leader's call, then the notice that reopening the debate was
        # refused (written with the refusal): the notice is held and the process dies.
        hold = sb.hold_route("POST", rf"/channels/{channel.id}/messages$", skip=2)
        await sb.slash(table.mod, "resistance resolve", channel=channel)
        await hold.wait_hit(15)
        await proc.kill()
        hold.release(drop=True)
        assert [x for x in game.public()[since:] if "Manage Roles" in x] == []
        await proc.start()
        await proc.wait_ready()
        await game.new_public(since, "Manage Roles", timeout=20)
        await asyncio.sleep(1.0)  # time for a duplicate to show up, if there were one
    after = game.public()[since:]
    assert kinds(after) == ["result", "call", "other"], after
    assert "**Manage Roles**" in after[2] and "/resistance resync" in after[2]
    rows = outbox(tmp_path / "crash.sqlite3")
    assert [(k, st) for _, k, st, _ in rows if k in ("debate", "notice")][-2:] == [
        ("debate", "failed"),
        ("notice", "done"),
    ]
