"""``python -m bot demo --game refutation`` plays a whole game and exits 0, within a minute."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.timeout(90)


def test_the_refutation_demo_plays_a_whole_game(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "DISCORD_TOKEN"}
    env["PYTHONPATH"] = str(ROOT)
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-m", "bot", "demo", "--game", "refutation"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=80,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert time.monotonic() - started < 60
    out = result.stdout
    assert "The table wins" in out or "The table loses" in out
    assert "Revealed cards" in out and "Reference page" in out
    assert "DM → Chloé" in out and "Votre main" in out  # her DMs in French
    assert "Demo finished." in out
