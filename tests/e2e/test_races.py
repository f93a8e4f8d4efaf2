"""Races and faults at the edges, through the sandbox with the real discord.py client and real
SQLite files: a join during a start's DM check, two starts at once, Discord delivering the same
interaction twice (extend, resolve, substitute, cancel, a setting), a forged click in a batch,
members who are not in the server, and reminders across a restart."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import sqlite3
import subprocess
from collections.abc import Iterator
from datetime import timedelta
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from bot.i18n import t
from bot.names import clean
from db import repo
from games.resistance.players import RESULT_MARKERS, Game
from playtest.players import text_of, until
from tests.clock import FakeClock
from tests.harness import running_bot, sqlite_url

pytestmark = pytest.mark.timeout(120)

DM_CHECK = ("your private messages will arrive here", "vos messages privés arriveront ici")


def ours(record: Any) -> bool:
    """A log record of the bot's own code (not a library's: a connection another test left to
    the garbage collector is logged by SQLAlchemy in whatever test runs then)."""
    return str(record.name).startswith(("bot.", "cogs.", "games.", "db."))


def dm_checks(table: Any, user: Any) -> int:
    """How many DM checks of a start the user received (in either language)."""
    return sum(any(x in (m.content or "") for x in DM_CHECK) for m in table.sb.dms(user))


async def lobby_of(game: Game) -> Any:
    return next(m for m in game.sb.channel_messages(game.channel) if m.labels)


async def test_a_join_during_the_start_waits_for_it_and_no_seat_is_left_without_a_role(
    table: Any, bot: Any
) -> None:
    players, late = table.users[:5], table.users[5]
    game = Game(table, players)
    await game.open()
    # The DM check's first message is held: the start waits in its check.
    held = table.sb.hold_route("POST", r"/channels/\d+/messages", times=1)
    start = asyncio.create_task(game.slash(table.mod, "resistance start"))
    await held.wait_hit()
    join = await table.sb.click(late, await lobby_of(game), label="Join")
    # The join reached the bot and waits on the game's lock: past its budget it is deferred
    # ("thinking…", type 5) while the start still holds the lock.
    await until(lambda: join.callback_type == 5, what="the join waiting for the start")
    held.release()
    assert "started" in await start or "commencé" in await start or await start
    refused = await game.reply(join)
    assert refused == t("common.error.not_in_lobby", "en"), refused
    # Whoever is dealt in was probed and got a role; the late joiner is nowhere.
    for user in players:
        await until(partial(game.role_dm, user), what=f"{user.name}'s role")
        assert dm_checks(table, user) == 1
    assert game.role_dm(late) is None and dm_checks(table, late) == 0
    assert late.name not in game.pinned_text()
    async with bot.sessions() as s:
        row = await repo.active_game_in_channel(s, table.channel.id)
        assert row is not None and row.status == "running"
        seated = {p.user_id for p in await repo.players(s, row.id)}
    assert seated == {u.id for u in players}


async def test_two_starts_at_once_check_each_player_once(table: Any, bot: Any) -> None:
    players = table.users[:5]
    game = Game(table, players)
    await game.open()
    first, second = await asyncio.gather(
        game.slash(table.mod, "resistance start"), game.slash(table.mod, "resistance start")
    )
    for user in players:
        await until(partial(game.role_dm, user), what=f"{user.name}'s role")
    assert [dm_checks(table, u) for u in players] == [1] * 5
    assert t("common.error.not_in_lobby", "en") in (first, second)


async def running_game(table: Any, players: list[Any], **options: Any) -> Game:
    game = Game(table, players)
    await game.open(**options)
    await game.start()
    return game


async def vote_due(bot: Any, table: Any) -> Any:
    async with bot.sessions() as s:
        row = await repo.active_game_in_channel(s, table.channel.id)
        assert row is not None
        (deadline,) = await repo.open_deadlines(s, row.id, kinds=["rs_vote"])
        return deadline.due_at


async def redelivered(table: Any, ix: Any) -> None:
    """Deliver ``ix`` again and wait until the bot has tried to answer it (40060)."""
    calls = len(table.sb.requests_to("/callback"))
    await table.sb.redeliver(ix)
    await until(
        lambda: len(table.sb.requests_to("/callback")) > calls,
        what="the bot's answer to the redelivered interaction",
    )


async def test_a_redelivered_extend_moves_the_deadline_once(table: Any, bot: Any) -> None:
    players = table.users[:5]
    game = await running_game(table, players, reminder_hours=0.0)
    await game.propose(players[:2])
    before = await vote_due(bot, table)
    since = len(game.public())
    ix = await table.sb.slash(table.mod, "resistance extend", channel=table.channel, hours=1.0)
    first = text_of(await ix.reply_message(10.0))
    await game.new_public(since, "deadline")
    await redelivered(table, ix)
    assert await vote_due(bot, table) == before + timedelta(hours=1)
    notices = [x for x in game.public()[since:] if "deadline" in x]
    assert len(notices) == 1, notices
    assert first  # answered once, by the first delivery


async def test_redelivered_resolve_substitute_and_cancel_act_once(table: Any, bot: Any) -> None:
    players, newcomer = table.users[:5], table.users[6]
    game = await running_game(table, players, reminder_hours=0.0)
    await game.propose(players[:2])
    await game.vote(accept=players, support=players[:2])
    # resolve: one result
    since = len(game.public())
    ix = await table.sb.slash(table.mod, "resistance resolve", channel=table.channel)
    await ix.reply_message(10.0)
    await game.new_public(since, *RESULT_MARKERS)
    await redelivered(table, ix)
    results = [x for x in game.public()[since:] if any(m in x for m in RESULT_MARKERS)]
    assert len(results) == 1
    # substitute: one seat handed over, one role DM
    leaver = next(u for u in players if u is not game.leader())
    ix = await table.sb.slash(
        table.mod, "resistance substitute", channel=table.channel, old=leaver, new=newcomer
    )
    await ix.reply_message(10.0)
    await until(lambda: game_role(game, newcomer), what="the newcomer's role DM")
    await redelivered(table, ix)
    assert sum("You are" in text_of(m) for m in table.sb.dms(newcomer)) == 1
    async with bot.sessions() as s:
        row = await repo.active_game_in_channel(s, table.channel.id)
        assert row is not None
        active = [p.user_id for p in await repo.players(s, row.id)]
    assert active.count(newcomer.id) == 1 and leaver.id not in active
    # cancel: one end
    since = len(game.public())
    ix = await table.sb.slash(table.mod, "resistance cancel", channel=table.channel)
    await ix.reply_message(10.0)
    await game.new_public(since, "cancelled")
    await redelivered(table, ix)
    ends = [x for x in game.public()[since:] if "History of the game" in x]  # the record with it
    assert len(ends) == 1, game.public()[since:]


def game_role(game: Game, user: Any) -> bool:
    return any("You are" in text_of(m) for m in game.sb.dms(user))


async def test_a_redelivered_setting_is_kept_once_and_logged_in_one_line(
    table: Any, bot: Any, caplog: pytest.LogCaptureFixture
) -> None:
    ix = await table.sb.slash(table.mod, "settings language", channel=table.channel, language="fr")
    await ix.reply_message(10.0)
    await redelivered(table, ix)
    lines = [r for r in caplog.records if "already acknowledged" in r.getMessage()]
    assert len(lines) == 1 and lines[0].exc_info is None
    assert not [r for r in caplog.records if r.levelname == "ERROR" and ours(r)]


async def test_a_resume_that_replays_a_command_acts_once(table: Any, bot: Any) -> None:
    players = table.users[:5]
    game = await running_game(table, players, reminder_hours=0.0)
    await game.propose(players[:2])
    before = await vote_due(bot, table)
    ix = await table.sb.slash(table.mod, "resistance extend", channel=table.channel, hours=2.0)
    await ix.reply_message(10.0)
    resumes, calls = table.sb.resume_count, len(table.sb.requests_to("/callback"))
    public, dms = len(game.public()), {u.id: len(table.sb.dms(u)) for u in players}
    # The RESUME replays every event of the session: the joins, the start, the proposal,
    # the extend, each INTERACTION_CREATE again.
    table.sb.replay_on_resume(10_000)
    await table.sb.drop_connections()
    await until(lambda: table.sb.resume_count > resumes, what="the RESUME")
    replayed = sum(1 for ix in table.sb.interactions if ix.callbacks) + 1
    await until(
        lambda: len(table.sb.requests_to("/callback")) >= calls + replayed - 1,
        timeout=20,
        what="an answer to each replayed interaction",
    )
    # Nothing acted twice: the deadline moved once, nothing new was posted or DMed.
    assert await vote_due(bot, table) == before + timedelta(hours=2)
    assert len(game.public()) == public
    assert {u.id: len(table.sb.dms(u)) for u in players} == dms


async def test_add_and_substitute_refuse_a_user_who_is_not_a_member(table: Any, bot: Any) -> None:
    outsider = table.sb.add_user("Outsider")  # shares no server with the bot
    game = Game(table, table.users[:5])
    await game.open()
    refused = await game.slash(table.mod, "resistance add", user=outsider)
    assert refused == t("common.error.not_a_member", "en", name="Outsider")
    await game.start()
    leaver = table.users[0]
    refused = await game.slash(table.mod, "resistance substitute", old=leaver, new=outsider)
    assert refused == t("common.error.not_a_member", "en", name="Outsider")
    assert "Outsider" not in game.pinned_text()


async def test_a_forged_click_is_refused_alone_and_the_batch_commits(table: Any, bot: Any) -> None:
    players = table.users[:5]
    game = await running_game(table, players, reminder_hours=0.0)
    await game.propose(players[:2])
    dm = game.vote_dm(players[0])
    forged = "rs:vote:" + "9" * 30 + ":1:accept"
    clicks = [table.sb.forged_click(players[0], dm, forged)]
    clicks += [
        table.sb.click(u, game.vote_dm(u), custom_id=vote_id(game, u, "accept"))
        for u in players[1:]
    ]
    sent = await asyncio.gather(*clicks)
    answers = [await game.reply(ix) for ix in sent]
    assert answers[0] == t("common.error.no_game", "en")
    recorded = ("On record", "Enregistré")  # Chloé reads French
    assert all(a.startswith(recorded) for a in answers[1:]), answers
    status = await game.slash(table.mod, "resistance status")
    assert "Votes in: 4/5" in status, status


def vote_id(game: Game, user: Any, choice: str) -> str:
    message = game.vote_dm(user)
    return next(
        str(c["custom_id"])
        for c in message.all_components
        if str(c.get("custom_id", "")).endswith(f":{choice}")
    )


async def test_a_restart_across_a_reminder_and_its_deadline_sends_no_stale_reminder(
    table: Any,
) -> None:
    clock = FakeClock()
    players = table.users[:5]
    async with running_bot(table.sb, table.url(), clock=clock) as bot:
        game = Game(table, players)
        await game.open(vote_hours=3.0, reminder_hours=1.0)
        await game.start()
        await game.propose(players[:2])
        async with bot.sessions() as s:
            row = await repo.active_game_in_channel(s, table.channel.id)
            assert row is not None
            kinds = {d.kind for d in await repo.open_deadlines(s, row.id)}
        assert kinds == {"rs_vote", "rs_reminder"}
    dms_before = {u.id: len(table.sb.dms(u)) for u in players}
    clock.advance(timedelta(hours=4))  # the bot is down across the reminder and the deadline
    since = len(game.public())
    async with running_bot(table.sb, table.url(), clock=clock):
        await game.new_public(since, *RESULT_MARKERS)
    reminders = [
        text_of(m)
        for u in players
        for m in table.sb.dms(u)[dms_before[u.id] :]
        if "⏰" in text_of(m)
    ]
    assert reminders == []


@contextlib.contextmanager
def small_disk(where: Path, size: str = "8m") -> Iterator[Path]:
    """A tmpfs of ``size`` at ``where`` (the test is skipped where mounting is not allowed)."""
    where.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)], capture_output=True
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


def fill(disk: Path) -> Path:
    """Fill the disk to its last byte (unbuffered: nothing is left to flush at the close)."""
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:
        for size in (1 << 16, 1 << 10, 1):
            with contextlib.suppress(OSError):
                while True:
                    os.write(fd, b"\0" * size)
    finally:
        os.close(fd)
    return filler


async def test_a_full_disk_answers_not_saved_and_commits_nothing(
    table: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The database on a small disk that fills up: clicks and /resistance resolve get the
    private "not saved" answer in the member's language and one log line each, with no trace;
    once the disk has room again the same click counts."""
    players = table.users[:5]
    not_saved = {lang: t("common.error.busy", lang) for lang in ("en", "fr")}
    with small_disk(tmp_path / "disk") as disk:
        url = sqlite_url(disk / "bot.sqlite3")
        async with running_bot(table.sb, url) as bot:
            game = await running_game(table, players, reminder_hours=0.0)
            await game.propose(players[:2])
            # A reader's snapshot keeps the WAL from being reused: every commit must grow it.
            reader = sqlite3.connect(disk / "bot.sqlite3")
            reader.execute("BEGIN")
            reader.execute("SELECT count(*) FROM games").fetchall()
            filler = fill(disk)
            try:
                answers = [await game.click(u, "accept") for u in players]
                for user, answer in zip(players, answers, strict=True):
                    assert answer == not_saved["fr" if user.locale == "fr" else "en"], answer
                assert await game.slash(table.mod, "resistance resolve") == not_saved["en"]
            finally:
                filler.unlink()
                reader.rollback()
                reader.close()
            lines = [r for r in caplog.records if "not saved" in r.getMessage()]
            assert lines and all(r.exc_info is None for r in lines), lines
            assert all("full" in r.getMessage() for r in lines)
            assert not [r for r in caplog.records if r.levelname == "ERROR" and ours(r)]
            # Room again: the same click counts, and nothing of the refused ones was kept.
            assert (await game.click(players[0], "accept")).startswith("On record")
            status = await game.slash(table.mod, "resistance status")
            assert "Votes in: 1/5" in status, status
            async with bot.sessions() as s:
                row = await repo.active_game_in_channel(s, table.channel.id)
                assert row is not None and row.status == "running"


async def test_a_second_process_on_the_same_sqlite_file_refuses_to_start(
    table: Any, tmp_path: Path
) -> None:
    """One process per SQLite database: the second is refused in one line (exit 2) and sends
    nothing; once the first is killed (SIGKILL: no cleanup), its lock is taken over."""
    from tests.e2e.shard_procs import BotProcess, processes
    from tests.e2e.test_outbox_crash import config

    path = tmp_path / "bot.toml"
    path.write_text(config(table.sb, sqlite_url(tmp_path / "one.sqlite3")))
    first = BotProcess("first", path, tmp_path / "first.log")
    second = BotProcess("second", path, tmp_path / "second.log")
    async with processes(first):
        identified = table.sb.identify_count
        await second.start()
        assert second.proc is not None
        assert await asyncio.wait_for(second.proc.wait(), 30) == 2
        out = second.text().strip().splitlines()
        assert len(out) == 1 and out[0].startswith("not started: another bot"), out
        assert f"process {first.proc.pid}" in out[0] if first.proc else False
        assert table.sb.identify_count == identified  # it never connected
        await first.kill()
        async with processes(second):  # the killed process's lock is taken over
            pass


async def test_names_that_look_like_markup_are_shown_as_typed(table: Any, bot: Any) -> None:
    """Mention-like text is escaped (no badge), a right-to-left override is removed (it
    cannot reverse the line), a zero-width joiner is kept only inside an emoji sequence: in
    the lobby, the leader list, the results, the vote matrix's description and the record."""
    sb, guild = table.sb, table.guild
    weird = [
        sb.add_user("<@123456789012345678>"),
        sb.add_user("Eve\u202eevil"),
        sb.add_user("👩\u200d💻 Zoé"),
        sb.add_user("Ma\u200dx"),
    ]
    for user in weird:
        guild.add_member(user)
    players = [*weird, table.users[0]]
    game = Game(table, players)
    await game.open()
    lobby = text_of(next(m for m in sb.channel_messages(table.channel) if m.labels))
    pinned_before = game.pinned_text()
    await game.start()
    await until(lambda: game.pinned_text() != pinned_before, what="the leader list")
    # Accepted with everyone's vote, then the record of a cancelled game.
    game.by_name = {u.name: u for u in players}
    leader_list = game.pinned_text()
    since = len(game.public())
    team = players[:2]
    await game.slash(
        leader_of(game, players), "resistance propose", player1=team[0], player2=team[1]
    )
    await until(lambda: all(game.vote_dm(u) for u in players), what="the vote DMs")
    await game.vote(accept=players, support=team)
    result = await game.resolve()
    ix = await sb.slash(table.mod, "resistance history", channel=table.channel)
    history = await ix.reply_message(10.0)
    (matrix,) = [a for a in history.attachments if a["filename"].endswith(".png")]
    await game.slash(table.mod, "resistance cancel")
    record = await until(
        lambda: next((m for m in sb.channel_messages(table.channel) if m.filenames), None),
        what="the record",
    )
    texts = {
        "lobby": lobby,
        "leader list": leader_list,
        "result": result,
        "public": "\n".join(game.public()[since:]),
        "matrix": str(matrix.get("description", "")),
        "record": record.file(next(n for n in record.filenames if n.endswith(".md"))).decode(),
    }
    for where, text in texts.items():
        assert "\u202e" not in text and "Ma\u200dx" not in text, where
    # Every name is listed in these; the picture's description names the leader and the team.
    for where in ("lobby", "leader list", "record"):
        assert "👩\u200d💻 Zoé" in texts[where] and "Max" in texts[where], where
        assert "Eveevil" in texts[where], where
    # Discord draws <@…> as a badge in a message, never in an attachment's description.
    for where in ("lobby", "leader list", "result", "public", "record"):
        assert "<@123456789012345678>" not in texts[where].replace("\\<@", ""), where
    assert "\\<@123456789012345678>" in lobby


def leader_of(game: Game, players: list[Any]) -> Any:
    text = game.pinned_text()
    found = re.search(r"\*\*(.+?)\*\* ←", text)
    assert found, text
    name = found.group(1).replace("\\", "")
    return next(u for u in players if name == clean(u.name))
