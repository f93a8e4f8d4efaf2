"""``python -m bench load --bypasses``'s arithmetic: each configuration read against the floor
run beside it, and a bypass worth keeping when turning it off alone raises the p99's or the
CPU's ratio to the floor by 20 % or more."""

from __future__ import annotations

from typing import Any

from adapters.switch import BYPASSES
from bench.bypasses import _median, configurations, markdown, ratios, verdicts


def run(p99: float, cpu: float, floor_p99: float = 10.0, floor_cpu: float = 0.5) -> dict[str, Any]:
    bot = {"confirm_p99_ms": p99, "cpu_ms_per_click": cpu, "ready_s": 3.0}
    return {"floor": {"confirm_p99_ms": floor_p99, "cpu_ms_per_click": floor_cpu}, "bot": bot}


def test_every_configuration_once_all_on_all_off_then_each_off_alone() -> None:
    names = [name for name, _ in configurations()]
    assert names[:2] == ["all on", "all off"] and len(names) == len(BYPASSES) + 2
    runs = dict(configurations())
    assert runs["all on"] == BYPASSES and runs["all off"] == ()
    for bypass in BYPASSES:
        assert set(runs[f"{bypass} off"]) == set(BYPASSES) - {bypass}


def test_each_run_is_read_against_its_own_floor() -> None:
    measured = run(20.0, 0.5)
    assert ratios(measured["bot"], measured["floor"]) == {
        "confirm_p99_ms": 2.0,
        "cpu_ms_per_click": 1.0,
    }
    # the same bot figures over a floor twice as slow: half the ratio
    twice = _median([run(20.0, 0.5), run(20.0, 0.5, floor_p99=20.0, floor_cpu=1.0)])
    assert twice["confirm_p99_ms_ratio"] == 1.5 and twice["cpu_ms_per_click_ratio"] == 0.75
    assert ratios({"error": "x"}, measured["floor"])["confirm_p99_ms"] is None


def judged(costs: dict[str, dict[str, Any]]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The verdicts of runs with each bypass of ``costs`` off alone (the others as all on)."""
    on = run(10.0, 0.5)
    rows = [{"name": "all on", "runs": [on], **_median([on])}]
    for bypass in BYPASSES:
        off = costs.get(bypass, on)
        rows.append({"name": f"{bypass} off", "runs": [off], **_median([off])})
    return verdicts(rows), rows


def test_a_bypass_is_worth_it_from_20_percent_of_either_ratio() -> None:
    verdict, rows = judged({BYPASSES[0]: run(11.0, 0.55), BYPASSES[1]: run(12.0, 0.5)})
    assert [verdict[b]["worth"] for b in BYPASSES[:2]] == [False, True]  # +10 %; p99 +20 %
    assert verdict[BYPASSES[1]]["confirm_p99_ms"] == 0.2
    assert judged({BYPASSES[0]: run(10, 0.6)})[0][BYPASSES[0]]["worth"]  # the CPU's +20 %
    table = markdown({"backends": {"SQLite": rows}, "verdicts": {"SQLite": verdict}})
    assert f"| SQLite | {BYPASSES[1]} | +20 % | +0 % | +0.0 s | yes |" in table
