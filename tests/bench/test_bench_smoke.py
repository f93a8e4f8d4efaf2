"""The load driver end to end, small: 2 games, the bot in a child process, SQLite.

Not a benchmark (no timing is checked): every click the bot answered "on record" must be in
the votes table, and none may fail with 10062.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.load import scenario_load


@pytest.mark.timeout(120)
async def test_load_driver_loses_no_vote(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'bench.sqlite3'}"
    result = await scenario_load(url, tmp_path, 2, burst=2.0, keep_log=False)
    assert result["clicks"] == 2 * (10 + 3)  # every player votes, the team of 3 chooses too
    assert result["recorded"] == result["clicks"], result
    assert result["lost"] == 0, result
    assert result["unknown_interaction"] == 0, result
    assert result["peak_rss_mb"] > 0
