"""``python -m bot demo --game avalon`` plays a whole 7-player game with the Lady of the Lake
and an assassination, and exits 0, within a minute."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.demos import run_demo

pytestmark = pytest.mark.timeout(90)


def test_the_avalon_demo_plays_a_whole_game(tmp_path: Path) -> None:
    out = run_demo(tmp_path, "avalon")
    assert "begins with 7 players" in out
    assert out.count("with the Lady of the Lake. The Lady passes to") >= 1
    assert "evil has one last chance" in out and "The Assassin, **" in out
    assert "Good wins" in out or "Evil wins" in out
    assert "Merlin: " in out and "Mordred: " in out  # every role at the end
    assert "DM → Chloé" in out and "Vous incarnez" in out  # her DMs in French
    assert "Demo finished." in out
