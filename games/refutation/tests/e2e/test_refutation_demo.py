"""``python -m bot demo --game refutation`` plays a whole game and exits 0, within a minute."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.demos import assert_readable, run_demo

pytestmark = pytest.mark.timeout(90)


def test_the_refutation_demo_plays_a_whole_game(tmp_path: Path) -> None:
    out = run_demo(tmp_path, "refutation")
    assert "The table wins" in out or "The table loses" in out
    assert "Revealed cards" in out and "Reference page" in out
    assert "DM → Chloé" in out and "Votre main" in out  # her DMs in French
    assert "Demo finished." in out
    assert_readable(out)
    assert "Players (3, 2 to 6): Alice, Bruno, Chloé" in out  # the lobby fills up
    assert "[Abstain] [Reference page]" in out and "[menu «Choose a card, or pass»:" in out
    assert "▶ Chloé types /réfutation " in out  # in French, as her client names it
    assert "▶ Moderator types /refutation new techniques: True choice_hours: 0.001" in out
