"""The capacity search without a bot (bench/capacity.py): the rate steps, when the search stops,
how its ceiling is bounded, what saturated first; the verdicts of the table of targets and the
ceiling plot (bench/plot.py), from figures made up here (no timing is measured)."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path
from typing import Any

from PIL import Image

from bench.capacity import (
    CATCH_UP_CAP_S,
    LOOP_BLOCKED_CORES,
    LOOP_BLOCKED_MS,
    PROBE_WAIT_S,
    capacity_rates,
    catch_up,
    ceiling_text,
    first_saturated,
    judge,
    knee_step,
    saturation,
    search,
    shares,
    usage,
)
from bench.load import (
    FAILS,
    FLOOR,
    HOLDS,
    TARGETS,
    capacity_verdict,
    format_table,
    markdown_targets,
    summary,
)
from bench.plot import draw_ceiling


def test_the_rates_go_past_1250_by_a_quarter_each_up_to_10000() -> None:
    rates = capacity_rates()
    assert rates[:8] == (100, 200, 300, 400, 500, 650, 800, 1000)
    assert rates[8:] == (1250, 1560, 1950, 2440, 3050, 3810, 4770, 5960, 7450, 9310, 10_000)
    # ×1.25 each (rounded to 10), the last one capped at 10,000
    assert all(1.07 <= b / a <= 1.26 for a, b in pairwise(rates[8:]))
    assert capacity_rates(2000)[-4:] == (1250, 1560, 1950, 2000)


def test_a_step_holds_only_under_the_limit_all_answered_and_offered() -> None:
    good = {"unanswered": 0, "confirm_p99_ms": 12.0}
    assert judge(1000, good, 990.0) == (True, [])
    assert judge(1000, {**good, "confirm_p99_ms": 300.0}, 990.0) == (False, ["p99"])
    assert judge(1000, {**good, "unanswered": 1}, 990.0) == (False, ["unanswered"])
    assert judge(1000, good, 850.0) == (False, ["not offered"])
    assert judge(1000, {"unanswered": 5, "confirm_p99_ms": float("nan")}, 990.0)[1] == [
        "unanswered",
        "p99",
    ]


def stepper(outcomes: dict[int, list[list[str]]], behind: tuple[tuple[int, int], ...] = ()) -> Any:
    """A step function: each rate's failures in turn (``[]``: the step holds); a rate not
    listed holds; the child does not catch up after the steps ``(rate, attempt)`` of
    ``behind``."""
    calls: list[tuple[int, int]] = []

    async def step(rate: int, attempt: int) -> dict[str, Any]:
        calls.append((rate, attempt))
        tries = outcomes.get(rate, [[]])
        why = tries[min(attempt, len(tries)) - 1]
        caught_up = (rate, attempt) not in behind
        return {"ok": not why, "why": why, "offered_per_s": float(rate), "caught_up": caught_up}

    step.calls = calls  # type: ignore[attr-defined]
    return step


async def test_the_search_goes_on_past_a_step_that_failed_once_and_stops_at_two() -> None:
    step = stepper({1950: [["p99"], []], 3050: [["p99"], ["unanswered"]]})
    found = await search(capacity_rates(), step, refine=0)
    assert found["ceiling"] == 2440 and found["bound"] == "knee" and found["failed_at"] == 3050
    assert step.calls[-4:] == [(1950, 2), (2440, 1), (3050, 1), (3050, 2)]
    assert [s["attempt"] for s in found["steps"] if s["rate"] == 1950] == [1, 2]
    assert ceiling_text({"capacity_clicks_per_s": 2440, "bound": "knee"}) == "2,440"


async def test_a_rate_the_bench_could_not_offer_twice_is_the_bench_s_ceiling() -> None:
    found = await search(capacity_rates(), stepper({4770: [["not offered", "p99"]] * 2}))
    assert (found["ceiling"], found["bound"]) == (3810, "bench")
    assert ceiling_text({"capacity_clicks_per_s": 3810, "bound": "bench"}) == (
        "≥ 3,810 (bench-bound)"
    )
    # once offered and failing, the other time not offered: the bot's knee
    found = await search(capacity_rates(), stepper({4770: [["not offered"], ["p99"]]}))
    assert found["bound"] == "knee"


async def test_every_rate_held_is_a_lower_bound() -> None:
    found = await search((5, 10), stepper({}))
    assert (found["ceiling"], found["bound"], found["failed_at"]) == (10, "top", None)
    assert ceiling_text({"capacity_clicks_per_s": 10, "bound": "top"}) == "≥ 10"


class Child:
    """A child as the probes see it, on a clock of its own (no time passes): a probe it does
    not answer costs :data:`PROBE_WAIT_S`, one it answers 0.05 s; it answers from its
    ``answers_from``-th probe on (None: never)."""

    def __init__(self, answers_from: int | None) -> None:
        self.answers_from = answers_from
        self.now = 0.0
        self.probes = 0

    def clock(self) -> float:
        return self.now

    async def probe(self) -> bool:
        self.probes += 1
        answered = self.answers_from is not None and self.probes >= self.answers_from
        self.now += 0.05 if answered else PROBE_WAIT_S
        return answered


async def test_the_child_has_caught_up_when_a_fresh_click_is_answered_in_time() -> None:
    at_once = Child(1)
    assert await catch_up(at_once.probe, clock=at_once.clock) == {
        "caught_up": True,
        "catch_up_s": 0.05,
        "probes": 1,
    }
    # two probes unanswered (each waited for PROBE_WAIT_S), the third answered
    behind = Child(3)
    assert await catch_up(behind.probe, clock=behind.clock) == {
        "caught_up": True,
        "catch_up_s": 4.05,
        "probes": 3,
    }


async def test_a_child_that_does_not_catch_up_is_given_up_at_the_cap() -> None:
    never = Child(None)
    assert await catch_up(never.probe, cap=10.0, clock=never.clock) == {
        "caught_up": False,
        "catch_up_s": 10.0,
        "probes": 5,
    }
    assert never.probes == 5  # none sent after the cap
    # by default, CATCH_UP_CAP_S
    never = Child(None)
    found = await catch_up(never.probe, clock=never.clock)
    assert not found["caught_up"] and found["catch_up_s"] == CATCH_UP_CAP_S
    assert found["probes"] == CATCH_UP_CAP_S / PROBE_WAIT_S
    # answered at the cap: caught up
    late = Child(5)
    assert (await catch_up(late.probe, cap=10.0, clock=late.clock))["caught_up"]


async def test_a_child_that_fell_behind_ends_the_search_there() -> None:
    # 2,440 failed once and the child never caught up: no second try, no refinement, and the
    # ceiling a lower bound
    step = stepper({2440: [["p99", "unanswered"]] * 2}, behind=((2440, 1),))
    found = await search(capacity_rates(), step)
    assert step.calls[-2:] == [(1950, 1), (2440, 1)]
    assert (found["ceiling"], found["bound"], found["failed_at"]) == (1950, "behind", 2440)
    assert found["behind"] == {"rate": 2440, "attempt": 1}
    assert knee_step(found) == found["steps"][-1]
    assert ceiling_text({"capacity_clicks_per_s": 1950, "bound": "behind"}) == (
        "≥ 1,950 (the child fell behind)"
    )
    # behind after a step that held: the search ends on it
    held = await search(capacity_rates(), stepper({}, behind=((800, 1),)))
    assert (held["ceiling"], held["bound"], held["failed_at"]) == (800, "behind", None)
    assert held["steps"][-1]["rate"] == 800
    # behind after the second failure: the knee stands, its refinement is not run
    knee = await search(capacity_rates(), stepper({1250: [["p99"]] * 2}, behind=((1250, 2),)))
    assert (knee["ceiling"], knee["bound"], knee["failed_at"]) == (1000, "knee", 1250)
    assert knee["behind"] == {"rate": 1250, "attempt": 2} and knee["steps"][-1]["rate"] == 1250
    # behind after a refinement step: the refinement ends there, the knee as found so far
    fails = {r: [["p99"], ["p99"]] for r in (1120, 1250)}
    cut = await search(capacity_rates(), stepper(fails, behind=((1120, 1),)))
    assert (cut["ceiling"], cut["bound"], cut["failed_at"]) == (1000, "knee", 1250)
    assert [(s["rate"], s["attempt"]) for s in cut["steps"][-3:]] == [
        (1250, 1),
        (1250, 2),
        (1120, 1),
    ]
    # a child that always caught up is named nowhere
    assert (await search((5, 10), stepper({})))["behind"] is None


def test_usage_turns_two_readings_into_cores_and_shares() -> None:
    before = {"wall": 10.0, "bench": 1.0, "child": 2.0, "db": None, "writer_busy": 0.5}
    before |= {"machine_busy": 100.0, "machine_total": 400.0}
    after = {"wall": 14.0, "bench": 3.0, "child": 5.6, "db": None, "writer_busy": 3.7}
    after |= {"machine_busy": 400.0, "machine_total": 800.0}
    used = usage(before, after)
    assert used == {
        "wall_s": 4.0,
        "bench_cores": 0.5,
        "child_cores": 0.9,
        "db_cores": None,
        "writer_busy": 0.8,
        "machine_busy": 0.75,
    }


def step(rate: int, offered: float, **figures: Any) -> dict[str, Any]:
    base = {"bench_cores": 0.3, "child_cores": 0.3, "machine_busy": 0.4}
    return {"rate": rate, "offered_per_s": offered, **base, **figures}


def test_what_saturated_first_is_the_first_party_at_its_limit() -> None:
    steps = [
        step(1000, 1000.0),
        step(1250, 1249.0, child_cores=0.95, writer_busy=0.5, machine_busy=0.7),
        step(1560, 1500.0, child_cores=0.99, writer_busy=0.97, machine_busy=0.9),
    ]
    assert first_saturated(steps, "sqlite") == {"what": "child_cpu", "at_rate": 1250, "load": 1.056}
    # the writer busier than the loop's core: SQLite's writer
    assert saturation(step(1560, 1500.0, child_cores=0.91, writer_busy=0.99), "sqlite") == "sqlite"
    # PostgreSQL's backends count for PostgreSQL, not for SQLite
    pg = step(1560, 1500.0, db_cores=0.95, writer_busy=0.6)
    assert saturation(pg, "postgresql") == "postgresql"
    # the bench short of the rate comes first, whatever else was busy
    assert saturation(step(3050, 2500.0, child_cores=0.99), None) == "bench"
    # no single party saturated, every core busy: the machine
    assert saturation(step(2440, 2430.0, child_cores=0.7, machine_busy=0.99), None) == "machine"
    # the loop lagging with its core free: blocked
    assert saturation(step(800, 800.0, child_loop_lag_ms=250.0), "sqlite") == "child_loop"
    # nothing at its limit: none, and which party was the busiest
    first = first_saturated([step(100, 100.0, child_cores=0.2)], None)
    assert first["what"] == "none" and first["busiest"] == "sandbox"


def test_a_limit_reached_in_one_step_only_is_not_what_saturated() -> None:
    # a real run on SQLite: the loop stalled 100 ms once at 400/s on 0.39 of a core (a step
    # that held), every rate above was clear up to the knee, where the child's CPU was the limit
    stall = step(400, 400.0, child_cores=0.385, child_loop_lag_ms=100.0)
    clear = [step(r, r * 1.0, child_cores=0.5, child_loop_lag_ms=5.0) for r in (500, 1950)]
    knee = [
        step(2440, 2440.0, child_cores=0.759, child_loop_lag_ms=250.0),
        step(2440, 2440.0, child_cores=0.747, child_loop_lag_ms=500.0),
    ]
    refined = step(2180, 2180.0, child_cores=0.637, child_loop_lag_ms=25.0)  # held, lower
    assert saturation(stall, "sqlite") == "child_loop"
    found = first_saturated([stall, *clear, *knee, refined], "sqlite")
    assert found == {"what": "child_cpu", "at_rate": 2440, "load": 1.0}
    # the same stall in the last step run is where the search stopped: it counts
    assert first_saturated([*clear, stall], "sqlite")["what"] == "child_loop"


def test_a_loop_lagging_on_most_of_a_core_is_short_of_cpu_not_blocked() -> None:
    # a real run's collapse on SQLite: 0.888 of a core (under SATURATED's 0.9), the loop 5 s
    # behind: a backlog, the child's CPU saturated
    collapse = step(2440, 2435.0, bench_cores=0.62, child_cores=0.888, child_loop_lag_ms=5000.0)
    collapse |= {"writer_busy": 0.41, "machine_busy": 0.83}
    assert saturation(collapse, "sqlite") == "child_cpu"
    assert shares(collapse, "sqlite")["child_cpu"] == 1.0
    assert "child_loop" not in shares(collapse, "sqlite")
    held = step(1950, 1948.0, child_cores=0.853, child_loop_lag_ms=25.0)
    assert first_saturated([held, collapse], "sqlite") == {
        "what": "child_cpu",
        "at_rate": 2440,
        "load": 1.0,
    }
    # the loop lagging as much on a third of a core: it waited off the CPU, blocked
    blocked = step(2440, 2435.0, child_cores=0.3, child_loop_lag_ms=2500.0)
    assert saturation(blocked, "sqlite") == "child_loop"
    assert shares(blocked, "sqlite")["child_loop"] == 25.0
    # from LOOP_BLOCKED_CORES up, a lag under LOOP_BLOCKED_MS is no limit, one past it is
    lagging = step(1560, 1555.0, child_cores=LOOP_BLOCKED_CORES, child_loop_lag_ms=60.0)
    assert shares(lagging, None)["child_cpu"] < 1.0 and saturation(lagging, None) == "child_cpu"
    lagging["child_loop_lag_ms"] = LOOP_BLOCKED_MS
    assert shares(lagging, None)["child_cpu"] == 1.0
    # without the child's CPU, its lag says nothing
    unknown = step(800, 800.0, child_cores=None, child_loop_lag_ms=900.0)
    assert "child_loop" not in shares(unknown, None)


def capacity(ceiling: int, bound: str = "knee") -> dict[str, Any]:
    steps = [
        {"rate": r, "attempt": 1, "offered_per_s": r * 0.99, "confirm_p99_ms": 3.0, "ok": True}
        for r in capacity_rates()
        if r <= ceiling
    ]
    steps.append(
        {"rate": int(ceiling * 1.25), "attempt": 1, "offered_per_s": ceiling * 1.2, "ok": False}
    )
    steps[-1]["confirm_p99_ms"] = 650.0
    return {
        "capacity_clicks_per_s": ceiling,
        "bound": bound,
        "failed_at": None if bound == "top" else int(ceiling * 1.25),
        "saturated_first": {"what": "child_cpu", "at_rate": ceiling, "load": 1.02},
        "steps": steps,
    }


def run_of(floor: dict[str, Any], sqlite: dict[str, Any], pg: dict[str, Any]) -> dict[str, Any]:
    results: dict[str, Any] = {
        "started": "2025-06-01T03:00:00+00:00",
        "games": [],
        "repeat": 1,
        "rss_games": 10_000,
        "deadlines": 100_000,
        "backends": {
            FLOOR: {"capacity": floor},
            "SQLite": {
                "capacity": sqlite,
                "rss-10000": {"peak_rss_mb": 310.0},
                "startup": {"launch_to_ready_s": 2.1, "launch_to_overdue_resolved_s": 41.0},
            },
            "PostgreSQL": {
                "capacity": pg,
                "rss-10000": {"peak_rss_mb": 420.0},
                "startup": {"launch_to_ready_s": 2.4, "launch_to_overdue_resolved_s": 30.0},
            },
        },
    }
    results["summary"] = summary(results)
    return results


def test_the_summary_carries_each_ceiling_and_its_ratio_and_the_table_its_verdict() -> None:
    results = run_of(capacity(2440), capacity(2440), capacity(1560))
    summ = results["summary"]
    assert summ["capacity_clicks_per_s"] == {"floor": 2440, "sqlite": 2440, "postgresql": 1560}
    assert summ["capacity_ratio"] == {"sqlite": 1.0, "postgresql": 0.64}
    assert summ["capacity_bound"] == {"floor": "knee", "sqlite": "knee", "postgresql": "knee"}
    assert summ["saturated_first"]["sqlite"]["what"] == "child_cpu"
    assert summ["rss_peak_mb"] == {"sqlite": 310.0, "postgresql": 420.0}
    assert capacity_verdict(results) == FAILS  # PostgreSQL at 64 % < 75 %
    table = markdown_targets(results)
    rows = {line.split(" | ")[0]: line for line in table.splitlines()}
    capacity_row = next(v for k, v in rows.items() if k.startswith("| capacity"))
    assert "2,440 (100 %)" in capacity_row and "1,560 (64 %)" in capacity_row
    assert capacity_row.endswith(f"{FAILS} |")
    rss_row = next(v for k, v in rows.items() if "active games" in k)
    assert "10,000 active games" in rss_row and rss_row.endswith(f"{FAILS} |")  # 420 MB
    ready = next(v for k, v in rows.items() if "100,000 open deadlines" in k)
    assert ready.endswith(f"{HOLDS} |")
    overdue = next(v for k, v in rows.items() if "overdue deadlines resolved" in k)
    assert overdue.endswith(f"{HOLDS} |")
    assert "the child's CPU at 2,440/s" in table
    assert "capacity: saturated first" in format_table(results)


def test_a_floor_the_bench_could_not_saturate_leaves_the_capacity_target_unmeasured() -> None:
    share = TARGETS["capacity_share_of_floor"]
    assert share == {"sqlite": 0.9, "postgresql": 0.75}
    bench_bound = run_of(capacity(3050, "bench"), capacity(3050, "bench"), capacity(3050))
    assert capacity_verdict(bench_bound).startswith("not measured")
    # ... but a bot well under the floor's lower bound fails for sure
    failing = run_of(capacity(3050, "bench"), capacity(1560), capacity(3050))
    assert capacity_verdict(failing) == FAILS
    # a bot whose own ceiling is a lower bound over the share of a floor's knee holds
    holding = run_of(capacity(2440), capacity(2440, "bench"), capacity(1950))
    assert capacity_verdict(holding) == HOLDS


def test_a_ceiling_before_the_child_fell_behind_is_a_lower_bound_in_the_report() -> None:
    behind = capacity(1950, "behind")
    behind["behind"] = {"rate": 2440, "attempt": 1}
    behind["steps"][-1] |= {"caught_up": False, "catch_up_s": 180.4, "probes": 90}
    results = run_of(capacity(2440), behind, capacity(2440))
    # 80 % of the floor's, but a lower bound: not judged as the bot's ceiling
    assert results["summary"]["capacity_bound"]["sqlite"] == "behind"
    assert capacity_verdict(results).startswith("not measured")
    capacity_row = next(
        line for line in markdown_targets(results).splitlines() if line.startswith("| capacity")
    )
    assert "≥ 1,950 (the child fell behind) (80 %)" in capacity_row
    # the step it fell behind after, with the time waited
    assert "180.4 s (not caught up)" in format_table(results)


def test_the_ceiling_plot_is_a_png_of_every_side(tmp_path: Path) -> None:
    results = run_of(capacity(2440), capacity(1950, "bench"), capacity(1560))
    path = draw_ceiling(results, tmp_path / "docs" / "ceiling.png")
    with Image.open(path) as image:
        assert image.format == "PNG" and image.size == (1200, 720)
        colours = {c for _, c in image.convert("RGB").getcolors(1_000_000) or []}
    # each side's colour is drawn (floor grey, SQLite blue, PostgreSQL orange)
    assert {(90, 90, 90), (31, 119, 180), (230, 120, 20)} <= colours


def test_a_search_of_one_rate_is_plotted_on_a_decade(tmp_path: Path) -> None:
    step = {"rate": 1000, "attempt": 1, "offered_per_s": 990.0, "confirm_p99_ms": 40.0, "ok": True}
    one = {"capacity_clicks_per_s": 1000, "bound": "top", "failed_at": None, "steps": [step]}
    results = run_of(one, one, one)
    with Image.open(draw_ceiling(results, tmp_path / "one.png")) as image:
        assert image.format == "PNG"


async def test_at_a_knee_the_gap_is_halved_twice_on_a_log_scale() -> None:
    # the bot holds up to 1,100 a second: 1,250 fails twice, then 1,120 (√(1,000 × 1,250))
    # fails, 1,060 (√(1,000 × 1,120)) holds
    fails = {r: [["p99"], ["p99"]] for r in (1120, 1250)}
    step = stepper(fails)
    found = await search(capacity_rates(), step)
    assert (found["ceiling"], found["failed_at"], found["bound"]) == (1060, 1120, "knee")
    assert step.calls[-5:] == [(1250, 1), (1250, 2), (1120, 1), (1120, 2), (1060, 1)]
    assert knee_step(found) == found["steps"][-2]  # the last try of 1,120, not 1,060
    # no refinement when the bench could not offer the rate, nor when every rate held
    bench = await search(capacity_rates(), stepper({1250: [["not offered"]] * 2}))
    assert (bench["ceiling"], len(bench["steps"])) == (1000, 10)
    assert knee_step(await search((5, 10), stepper({}))) is None
    # nor with refine=0, as before
    plain = await search(capacity_rates(), stepper(fails), refine=0)
    assert (plain["ceiling"], plain["failed_at"]) == (1000, 1250)


def test_a_target_no_bot_was_measured_for_is_not_said_to_hold() -> None:
    # --only floor,capacity: the floor ran the 1,000 × 10 burst, no bot did
    results = run_of(capacity(1650), capacity(1950), capacity(1400))
    results["games"] = [1000]
    results["backends"][FLOOR]["load-1000"] = {
        "clicks": 13_000,
        "confirm_p50_ms": 2.9,
        "confirm_p95_ms": 20.0,
        "confirm_p99_ms": 49.2,
        "unanswered": 0,
        "lost": 0,
    }
    results["summary"] = summary(results)
    row = next(line for line in markdown_targets(results).splitlines() if "/ the floor's" in line)
    assert not row.endswith(f"{HOLDS} |") and not row.endswith(f"{FAILS} |"), row
