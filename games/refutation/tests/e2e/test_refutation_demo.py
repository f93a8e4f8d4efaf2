"""``python -m bot demo --game refutation`` plays a whole game and exits 0, within a minute."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.demos import run_demo

pytestmark = pytest.mark.timeout(90)


def test_the_refutation_demo_plays_a_whole_game(tmp_path: Path) -> None:
    out = run_demo(tmp_path, "refutation")
    assert "The table wins" in out or "The table loses" in out
    assert "Revealed cards" in out and "Reference page" in out
    assert "DM → Chloé" in out and "Votre main" in out  # her DMs in French
    assert "Demo finished." in out
