"""The load driver end to end, small: 2 games, the bot or the floor in a child process, SQLite.

Not a benchmark (no timing is checked): every click the bot answered "on record" must be in
the votes table, none may fail with 10062, every click gets its confirmation, the capacity
search steps through its rates (the child caught up after each), and ``python -m bench load``
writes the JSON summary in the shape docs/performance.md documents, the Markdown table of
targets and the ceiling plot.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from bench.load import FLOOR, scenario_load

ROOT = Path(__file__).resolve().parents[2]


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
def test_the_command_writes_the_summary_the_table_and_the_plot(tmp_path: Path) -> None:
    """``python -m bench load`` as the run of record calls it (its own composition root, no
    test's), small: the floor and the bot on SQLite, a burst, two capacity steps."""
    out = tmp_path / "bench.json"
    plot = tmp_path / "ceiling.png"
    command = [sys.executable, "-m", "bench", "load", "--only", "floor,load,capacity"]
    command += ["--games", "2", "--repeat", "1", "--burst", "1", "--no-pg"]
    command += ["--capacity-games", "2", "--rates", "5,10", "--step", "1"]
    command += ["--out", str(out), "--plot", str(plot)]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=170)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "HEADLINE" in done.stdout and "× the floor's p99" in done.stdout
    data = json.loads(out.read_text(encoding="utf-8"))
    summary = data["summary"]
    assert set(summary) == {
        "confirm_p99_ms",
        "ack_p99_ms",
        "ratio_p99",
        "unanswered",
        "lost",
        "capacity_clicks_per_s",
        "capacity_bound",
        "capacity_ratio",
        "saturated_first",
        "rss_peak_mb",
        "startup_ready_s",
        "startup_overdue_resolved_s",
    }
    assert set(summary["confirm_p99_ms"]) == {"floor", "sqlite"}
    assert set(summary["ratio_p99"]) == {"sqlite"}
    assert summary["unanswered"] == {"sqlite": 0}
    floor = data["backends"][FLOOR]["load-2"]
    assert floor["confirmed"] == floor["clicks"] == 26, floor
    # Each rate in turn, a failed one run once more, the search over at the second failure;
    # the ceiling is the last rate that held (0 if none), never more than offered, and every
    # step says what each party used.
    for side, key in ((FLOOR, "floor"), ("SQLite", "sqlite")):
        cap = data["backends"][side]["capacity"]
        steps = cap["steps"]
        rates = [s["rate"] for s in steps]
        assert rates in ([5, 10], [5, 5, 10], [5, 10, 10], [5, 5, 10, 10], [5, 5]), rates
        held = [s["rate"] for s in steps if s["ok"]]
        assert cap["capacity_clicks_per_s"] == (max(held) if held else 0)
        assert summary["capacity_clicks_per_s"][key] == cap["capacity_clicks_per_s"]
        assert cap["bound"] in ("top", "knee", "bench")
        assert all(s["child_cores"] is not None and s["bench_cores"] is not None for s in steps)
        # both children serve /metrics: the floor's loop lag is read as the bot's is
        assert any(s["child_loop_lag_ms"] is not None for s in steps), steps
        assert cap["saturated_first"]["what"]
        # after each step the child caught up (it answered a fresh click): how long it took
        for s in steps:
            assert s["caught_up"] is True and isinstance(s["catch_up_s"], float), s
            assert s["probes"] >= 1, s
        assert cap["behind"] is None
    assert all(
        s["writer_busy"] is not None for s in data["backends"]["SQLite"]["capacity"]["steps"]
    )
    assert set(summary["capacity_ratio"]) == {"sqlite"}
    assert data["backends"]["PostgreSQL"]["skipped"]
    table = out.with_suffix(".md").read_text(encoding="utf-8")
    assert table.startswith("| target | floor | SQLite | PostgreSQL | holds? |")
    assert "| capacity, clicks/s" in table
    with Image.open(plot) as image:
        assert image.format == "PNG" and image.size[0] > 0
    assert data["plot"] == str(plot)
