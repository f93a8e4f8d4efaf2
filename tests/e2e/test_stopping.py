"""SIGTERM and SIGINT stop a real bot process (``python -m bot run``) the same way: the clicks
it received are answered, a new one is not taken, one "stopping" and one "stopped" line, exit
0; a second signal during the drain exits at once, and what was committed stays."""

from __future__ import annotations

import asyncio
import signal
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from games.resistance.players import Game
from playtest.players import until
from tests.e2e.shard_procs import BotProcess, processes
from tests.e2e.test_debate_lock import team_of
from tests.harness import sqlite_url

pytestmark = pytest.mark.timeout(120)

CALLBACK = r"/interactions/\d+/[^/]+/callback$"


def bot_process(table: Any, tmp_path: Path, grace: float = 8) -> BotProcess:
    sb = table.sb
    path = tmp_path / "bot.toml"
    path.write_text(
        "[discord]\n"
        f'token = "{sb.token}"\n'
        f'api_base = "{sb.api_base}"\n'
        f'gateway_url = "{sb.gateway_url}"\n'
        "\n[database]\n"
        f'url = "{sqlite_url(tmp_path / "stop.sqlite3")}"\n'
        f"\n[shutdown]\ngrace_seconds = {grace}\n"
        '\n[logging]\nlevel = "INFO"\n'
    )
    return BotProcess("bot", path, tmp_path / "bot.log")


async def votes_held(table: Any, proc: BotProcess, voters: list[Any]) -> tuple[Any, Any]:
    """A game whose vote is open, and the callbacks of ``voters``' Accept clicks held by
    "Discord": each click is received, committed, and its answer on its way."""
    sb = table.sb
    sb.interaction_timeout = 30.0  # the held answers stay answerable
    game = Game(table, table.users[:5])
    await game.open(reminder_hours=0.0, lock_during_vote=False)
    await game.start()
    await game.propose(team_of(game))
    hold = sb.hold_route("POST", CALLBACK, times=len(voters))
    clicks = asyncio.gather(*(game.click(u, "accept") for u in voters))
    await until(lambda: hold.held == len(voters), what="the answers held")
    return hold, clicks


def lines(proc: BotProcess, words: str) -> int:
    return sum(words in line for line in proc.text().splitlines())


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
async def test_a_signal_answers_the_clicks_received_takes_no_new_one_and_exits_0(
    table: Any, tmp_path: Path, signum: signal.Signals
) -> None:
    sb = table.sb
    proc = bot_process(table, tmp_path)
    async with processes(proc):
        voters = table.users[:5]
        hold, clicks = await votes_held(table, proc, voters)
        assert proc.proc is not None
        proc.proc.send_signal(signum)
        await until(lambda: lines(proc, f"stopping ({signum.name})") == 1, what="stopping")
        late = await sb.slash(table.mod, "resistance status", channel=table.channel)
        await until(lambda: lines(proc, f"interaction {late.id} not taken") == 1, what="dropped")
        hold.release()
        replies = await clicks
        assert await asyncio.wait_for(proc.proc.wait(), 30) == 0
    # in each voter's language (Chloé's is French)
    recorded = [reply.startswith(("On record", "Enregistré")) for reply in replies]
    assert recorded == [True] * len(voters), replies
    assert late.callbacks == []
    assert lines(proc, ": stopping (") == 1 and lines(proc, ": stopped") == 1, proc.tail()


async def test_a_second_signal_exits_at_once_and_keeps_what_was_committed(
    table: Any, tmp_path: Path
) -> None:
    proc = bot_process(table, tmp_path)
    async with processes(proc):
        voter = table.users[0]
        hold, clicks = await votes_held(table, proc, [voter])
        assert proc.proc is not None
        proc.proc.send_signal(signal.SIGTERM)
        await until(lambda: lines(proc, "stopping (SIGTERM)") == 1, what="stopping")
        proc.proc.send_signal(signal.SIGTERM)
        # at once: well before the grace time, with the answer still held
        assert await asyncio.wait_for(proc.proc.wait(), 5) == 128 + signal.SIGTERM
        assert lines(proc, "SIGTERM again while stopping: exiting at once") == 1
        hold.release(drop=True)
        await asyncio.gather(clicks, return_exceptions=True)
    with sqlite3.connect(tmp_path / "stop.sqlite3") as db:
        votes = db.execute("SELECT user_id FROM votes").fetchall()
    assert votes == [(voter.id,)]


async def test_a_signal_delivers_what_the_outbox_holds_before_it_exits(
    table: Any, tmp_path: Path
) -> None:
    sb = table.sb
    proc = bot_process(table, tmp_path)
    async with processes(proc):
        game = Game(table, table.users[:5])
        await game.open(reminder_hours=0.0, lock_during_vote=False)
        await game.start()
        await game.propose(team_of(game))
        await game.vote(accept=game.players)
        since = len(game.public())
        # The result is committed; "Discord" holds its post while the signal comes.
        hold = sb.hold_route("POST", rf"/channels/{table.channel.id}/messages$")
        await sb.slash(table.mod, "resistance resolve", channel=table.channel)
        await hold.wait_hit(15)
        assert proc.proc is not None
        proc.proc.send_signal(signal.SIGTERM)
        await until(lambda: lines(proc, "stopping (SIGTERM)") == 1, what="stopping")
        hold.release()
        assert await asyncio.wait_for(proc.proc.wait(), 30) == 0
    # The result, then the next leader's call: delivered before the exit, in order.
    posted = game.public()[since:]
    assert "Team accepted" in posted[0] and "debate is open" in posted[1], posted
