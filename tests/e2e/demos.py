"""Run ``python -m bot demo`` as a user would: a child process, no token, a fresh directory."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_demo(tmp_path: Path, game: str, *, within: float = 60.0) -> str:
    """The demo's output; it must exit 0 within ``within`` seconds."""
    env = {k: v for k, v in os.environ.items() if k != "DISCORD_TOKEN"}
    env["PYTHONPATH"] = str(ROOT)
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-m", "bot", "demo", "--game", game],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=within + 20,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert time.monotonic() - started < within
    return result.stdout
