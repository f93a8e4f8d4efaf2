"""The load driver end to end, small: 2 games, the bot or the floor in a child process, SQLite.

Not a benchmark (no timing is checked): every click the bot answered "on record" must be in
the votes table, none may fail with 10062, every click gets its confirmation, and the JSON
summary has the shape docs/performance.md documents.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.load import FLOOR, format_table, markdown_targets, run, scenario_load


@pytest.mark.timeout(120)
async def test_load_driver_loses_no_vote(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'bench.sqlite3'}"
    result = await scenario_load(url, tmp_path, 2, burst=2.0, keep_log=False)
    assert result["clicks"] == 2 * (10 + 3)  # every player votes, the team of 3 chooses too
    assert result["recorded"] == result["clicks"], result
    assert result["confirmed"] == result["clicks"], result
    assert result["unanswered"] == 0, result
    assert result["lost"] == 0, result
    assert result["unknown_interaction"] == 0, result
    assert result["peak_rss_mb"] > 0
    # per second of the burst: [second, clicks, confirmation p99 ms, unanswered]
    assert sum(row[1] for row in result["timeline"]) == result["clicks"]
    assert all(row[2] >= 0 and row[3] == 0 for row in result["timeline"]), result["timeline"]
    assert result["wal_peak_mb"] > 0  # the votes went through SQLite's WAL


@pytest.mark.timeout(180)
async def test_floor_and_bot_write_the_summary(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    results = await run(
        [2],
        pg=None,
        scenarios=(FLOOR, "load"),
        burst=1.0,
        repeat=1,
        rates=(5,),
        out=out,
    )
    data = json.loads(out.read_text(encoding="utf-8"))
    summary = data["summary"]
    assert set(summary) == {
        "confirm_p99_ms",
        "ack_p99_ms",
        "ratio_p99",
        "unanswered",
        "capacity_clicks_per_s",
    }
    assert set(summary["confirm_p99_ms"]) == {"floor", "sqlite"}
    assert set(summary["ratio_p99"]) == {"sqlite"}
    assert summary["unanswered"] == {"sqlite": 0}
    floor = data["backends"][FLOOR]["load-2"]
    assert floor["confirmed"] == floor["clicks"] == 26, floor
    # One step at 5 clicks/s each, run once more only if it failed; the capacity is that rate
    # if a run of it held, else 0, never more than offered.
    for side in (FLOOR, "SQLite"):
        steps = data["backends"][side]["capacity"]["steps"]
        assert [s["rate"] for s in steps] in ([5], [5, 5])
        assert [s["attempt"] for s in steps] == list(range(1, len(steps) + 1))
        assert all(not s["ok"] for s in steps[:-1])
        capacity = data["backends"][side]["capacity"]["capacity_clicks_per_s"]
        assert capacity == (5 if steps[-1]["ok"] else 0)
    assert data["backends"]["PostgreSQL"]["skipped"]
    table = format_table(results)
    assert "HEADLINE" in table and "× the floor's p99" in table
    markdown = markdown_targets(results)
    assert markdown.startswith("| target | floor | SQLite | PostgreSQL | holds? |")
