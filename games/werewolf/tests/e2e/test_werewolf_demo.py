"""``python -m bot demo --game werewolf`` (eight players) plays a whole game and prints it as
the players see it: the role DMs, the nights' menus, the live vote count as it is edited, the
end with every role and the night log."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.demos import assert_readable, run_demo

pytestmark = pytest.mark.timeout(120)


def test_the_werewolf_demo_reads_as_the_players_see_it(tmp_path: Path) -> None:
    out = run_demo(tmp_path, "werewolf")
    assert "The village wins" in out or "The werewolves win" in out
    assert "Demo finished." in out
    assert_readable(out)
    assert "Players (8, 6 to 18): Alice, Bruno, Chloé, Dmitri, Esther, Farid, Gwen, Hugo" in out
    assert "🌙 **Night 1** falls on the village" in out and "Dawn after night 1" in out
    assert "#werewolf (edited)" in out and "Not voted yet:" in out  # the live count
    assert "Vous êtes **" in out  # Chloé's role DM, in French
    assert "**The night log:**" in out and "Too late" not in out and "Trop tard" not in out
