"""``python -m bot demo --game avalon`` plays a whole 7-player game with the Lady of the Lake
and an assassination, and exits 0, within a minute."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.e2e.demos import assert_readable, run_demo

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
    assert_readable(out)
    assert "[menu «Player to examine»:" in out or "[menu «Joueur à examiner»:" in out
    assert "[menu «Who is Merlin?»:" in out or "[menu «Qui est Merlin\u202f?»:" in out
    # Each use of the Lady: the pick, the public line, the private result, each once.
    examined = out.count("with the Lady of the Lake. The Lady passes to")
    results = out.count("The Lady of the Lake shows you that") + out.count("vous montre que")
    assert examined == results == len(re.findall(r"▶ \S+ picks .+ in the menu", out)) - 1
