"""The Werewolf day-vote burst end to end, small (bench/dayvotes.py): 2 games of 16 players, the
floor and the bot (SQLite) in child processes, the bot a second time with its count edits paced
as Discord's rate limit paces them.

Not a benchmark (no timing is checked): every vote is answered "on record" (the floor's copy of
the answer too), every confirmed vote is in the game's final state and the day still open, each
count message ends showing its game's whole count (no edit lost, none refused), the count is
never edited more often than votes were cast, and while an edit waits its turn the votes behind
it are coalesced into the next one.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.dayvotes import CHANGERS, confirmed_text, run
from bench.floor import DAY_VOTE_ANSWER


def test_the_floor_answers_as_the_bot_does() -> None:
    assert DAY_VOTE_ANSWER.startswith(confirmed_text())


@pytest.mark.timeout(300)
async def test_the_day_vote_burst_loses_no_vote_and_coalesces_the_count(tmp_path: Path) -> None:
    result = await run(2, 16, 0.0, 2.0, True, tmp_path, keep_log=False)
    votes = 2 * round(16 * (1 + CHANGERS))  # a quarter of the players change their vote once
    assert result["majority_ends_day"] is True
    for name in ("floor", "bot", "bot_paced"):
        r = result[name]
        assert r["clicks"] == r["confirmed"] == votes, (name, r)
        assert r["unanswered"] == r["unknown_interaction"] == r["rate_429"] == 0, (name, r)
    for name in ("bot", "bot_paced"):
        r = result[name]
        assert r["recorded"] == 2 * 16 and r["lost"] == 0, (name, r)
        assert r["days_ended"] == 0, (name, r)  # no majority formed: every day still open
        assert r["counts_stale"] == 0 and r["edits_refused"] == 0, (name, r)
        assert 2 <= r["edits"] <= votes, (name, r)
        assert r["outbox_edits"].get("done") == r["edits"], (name, r)
    paced = result["bot_paced"]
    assert paced["edits"] < votes and paced["votes_per_edit_mean"] > 1, paced
    assert paced["outbox_edits"].get("dropped", 0) == votes - paced["edits"], paced
