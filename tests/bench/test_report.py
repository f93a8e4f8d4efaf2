"""The bench's report (bench/load.py): the warning that a run was too noisy to judge the bot."""

from __future__ import annotations

from typing import Any

from bench.load import FLOOR, NOISY_LAG_MS, headline, noise


def load(p99: float, lag: float, **extra: Any) -> dict[str, Any]:
    figures = {f"{kind}_{q}_ms": p99 / 2 for kind in ("confirm", "ack") for q in ("p50", "p95")}
    return {
        **figures,
        "confirm_p99_ms": p99,
        "ack_p99_ms": p99,
        "unanswered": 0,
        "lost": 0,
        "cpu_ms_per_click": 1.0,
        "bench_loop_lag_max_ms": lag,
        **extra,
    }


def results(floor: dict[str, Any], sqlite: dict[str, Any]) -> dict[str, Any]:
    return {
        "games": [500],
        "repeat": 1,
        "backends": {
            FLOOR: {"load-500": floor},
            "SQLite": {"load-500": sqlite},
            "PostgreSQL": {"skipped": "no --pg URL"},
        },
        "summary": {"ratio_p99": {"sqlite": 2.0}},
    }


def test_a_quiet_run_has_no_warning() -> None:
    quiet = results(load(7.0, 6.4), load(14.0, NOISY_LAG_MS))
    assert noise(quiet) is None
    assert "NOISY" not in headline(quiet)


def test_a_run_where_the_bench_itself_lagged_says_so_with_each_sides_worst_lag() -> None:
    # The median of three repetitions lagged little; one of them did not: the worst is shown.
    runs = [load(14.0, 5.0), load(90.0, 38.5), load(15.0, 6.0)]
    noisy = results(load(7.0, 6.4), load(15.0, 6.0, runs=runs))
    warning = noise(noisy)
    assert warning is not None
    assert "floor 6.4 ms, SQLite 38.5 ms" in warning
    assert warning in headline(noisy)
    # Only a warning: the figures and the ratio stay as measured.
    assert "= 2 × the floor's p99" in headline(noisy)
