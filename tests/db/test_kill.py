"""A process killed with SIGKILL loses nothing it reported committed."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import textwrap
from pathlib import Path

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db import repo
from db.engine import make_engine, make_sessions

Sessions = async_sessionmaker[AsyncSession]
REPO_ROOT = Path(__file__).resolve().parents[2]

CHILD = textwrap.dedent(
    """
    import asyncio
    import sys

    from db import repo
    from db.engine import make_engine, make_sessions


    async def main(url: str, game_id: int) -> None:
        sessions = make_sessions(make_engine(url))
        i = 0
        while True:
            async with sessions.begin() as s:
                await repo.record_vote(s, game_id, "p1", "team", 10_000 + i, f"v{i}")
                await repo.record_vote(s, game_id, "p1", "team", 1, f"v{i}")
            print(i, flush=True)  # only once committed
            i += 1


    asyncio.run(main(sys.argv[1], int(sys.argv[2])))
    """
)


async def test_votes_reported_committed_survive_sigkill(
    db_url: str, sessions: Sessions, tmp_path: Path
) -> None:
    async with sessions.begin() as s:
        game = await repo.create_game(s, kind="poll", guild_id=1, channel_id=1, created_by=1)
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        str(script),
        db_url,
        str(game.id),
        stdout=asyncio.subprocess.PIPE,
        cwd=REPO_ROOT,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
    )
    assert child.stdout is not None
    reported: list[int] = []
    try:
        async with asyncio.timeout(30):
            while len(reported) < 40:
                line = await child.stdout.readline()
                assert line, "the child died on its own"
                reported.append(int(line))
    finally:
        child.send_signal(signal.SIGKILL)  # in the middle of its next transaction
        rest = await child.stdout.read()
        await child.wait()
    reported += [int(x) for x in rest.split()]
    assert child.returncode == -signal.SIGKILL
    assert reported == list(range(len(reported)))

    engine = make_engine(db_url)  # a new engine, as after a restart
    try:
        async with make_sessions(engine).begin() as s:
            votes = await repo.votes_for(s, game.id, "p1", "team")
    finally:
        await engine.dispose()
    for i in reported:
        assert votes[10_000 + i] == f"v{i}"
    # the changing vote is at least as recent as the last one reported
    assert int(votes[1].removeprefix("v")) >= reported[-1]
    # nothing half-written: both votes of a transaction, or neither
    last = len(votes) - 2
    assert set(votes) == {1} | {10_000 + i for i in range(last + 1)}
    assert votes[1] == f"v{last}"
