"""``python -m bot demo`` (The Resistance, five players) plays a whole game and prints it as the
players see it: markup rendered, the lobby filling up, each message once, every button, and
each Leader's call before their proposal."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.e2e.demos import assert_readable, blocks, run_demo

pytestmark = pytest.mark.timeout(90)


def test_the_resistance_demo_reads_as_the_players_see_it(tmp_path: Path) -> None:
    out = run_demo(tmp_path, "resistance")
    assert "The Resistance wins" in out or "The spies win" in out
    assert "Demo finished." in out
    assert_readable(out)
    # The lobby fills up (its edits), the command as typed, the deadline as a date.
    assert "Players (5, 5 to 10): Alice, Bruno, Chloé, Dmitri, Esther" in out
    assert "▶ Moderator types /resistance new vote_hours: 0.001 reminder_hours: 0" in out
    assert re.search(r"before \w+day, \w+ \d+, 20\d\d \d+:\d\d [AP]M \(in \d+ seconds?\)", out)
    assert re.search(r"avant le \w+ \d+ \w+ 20\d\d \d\d:\d\d \(dans \d+ secondes?\)", out)
    # Every button of a vote DM, in both languages; Chloé types her commands in French.
    assert "[Accept] [Reject]" in out and "[Support] [Sabotage]" in out and "[Pour] [Contre]" in out
    assert "#resistance" in out and "Leader @" in out
    # Each Leader proposes once called: the call by DM comes before the proposal.
    called: set[str] = set()
    for where, text in blocks(out):
        if where.startswith("DM → ") and ("It is your turn" in text or "C’est à vous" in text):
            called.add(where.removeprefix("DM → "))
        match = re.match(r"▶ (\S+) types /(?:resistance propose|résistance proposer)", text)
        if where == "▶" and match:
            assert match[1] in called, f"{match[1]} proposed before the call"
            called.discard(match[1])
    typed_by_chloe = [line for line in out.splitlines() if "▶ Chloé types /" in line]
    assert all("/résistance " in line for line in typed_by_chloe), typed_by_chloe
