"""One bench run at a time on a machine (``bench/__main__.py`` holds a lock file)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.single import Held, hold

ROOT = Path(__file__).resolve().parents[2]


def test_a_held_lock_names_its_holder_until_it_is_released(tmp_path: Path) -> None:
    lock = tmp_path / "run.lock"
    fd = hold(lock)
    with pytest.raises(Held) as held:
        hold(lock)
    assert held.value.pid == str(os.getpid())
    os.close(fd)  # as when the holder ends
    os.close(hold(lock))


@pytest.mark.timeout(60)
def test_a_second_run_refuses_while_one_is_under_way(tmp_path: Path) -> None:
    lock = tmp_path / "bench.lock"
    fd = hold(lock)  # this test is the run under way
    try:
        command = [sys.executable, "-m", "bench", "load", "--only", "round", "--no-pg"]
        command += ["--out", str(tmp_path / "out.json")]
        env = {**os.environ, "PBP_BENCH_LOCK": str(lock)}
        done = subprocess.run(
            command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=50
        )
    finally:
        os.close(fd)
    assert done.returncode == 2, done.stderr[-2000:]
    assert f"another bench run (process {os.getpid()})" in done.stderr
    assert not (tmp_path / "out.json").exists()  # it measured nothing
