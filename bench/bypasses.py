"""``python -m bench load --bypasses``: what each bypass is worth, measured in one run.

The 1,000 games × 10 burst (bench/load.py's ``load`` scenario) with every bypass on, every one
off, and each one off alone (``[internals] bypasses``, adapters/switch.py), each run right after
a run of the floor: each figure is read as a ratio to the floor measured beside it, the
machine's load drifting between runs. A bypass is worth keeping when turning it off alone
raises the bot's confirmation p99 or its CPU per click, over the floor's, by :data:`WORTH` or
more (docs/performance.md, "The bypasses"); the launch → ready time says what the start-up one
is worth.
"""

from __future__ import annotations

import json
import statistics
import tempfile
from pathlib import Path
from typing import Any

from adapters.switch import BYPASSES
from bench.load import RESULTS, _guard, backends, now_utc, scenario_load

#: what turning one off alone must cost, of the p99's or the CPU's ratio to the floor
WORTH = 0.2
#: the figures compared, each over the floor's beside it
FIGURES = ("confirm_p99_ms", "cpu_ms_per_click")


def configurations() -> list[tuple[str, tuple[str, ...]]]:
    """Every bypass on, every one off, then each one off alone: (name, the bypasses run)."""
    each = [(f"{b} off", tuple(x for x in BYPASSES if x != b)) for b in BYPASSES]
    return [("all on", BYPASSES), ("all off", ()), *each]


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) else None


def ratios(bot: dict[str, Any], floor: dict[str, Any]) -> dict[str, float | None]:
    """Each of :data:`FIGURES` of the bot over the floor's (None when either is missing)."""
    out: dict[str, float | None] = {}
    for key in FIGURES:
        a, b = _number(bot.get(key)), _number(floor.get(key))
        out[key] = round(a / b, 2) if a is not None and b else None
    return out


async def measure(
    url: str, tmp: Path, games: int, burst: float, repeat: int
) -> list[dict[str, Any]]:
    """Each configuration's runs on ``url``, each after a floor's, in rounds of every one."""
    rows: dict[str, list[dict[str, Any]]] = {name: [] for name, _ in configurations()}
    for rep in range(repeat):
        for name, kept in configurations():
            floor = await _guard(scenario_load(None, tmp, games, burst=burst, keep_log=False))
            label = "bypasses-" + name.replace(" ", "-")
            bot = await _guard(
                scenario_load(url, tmp, games, burst=burst, label=label, bypasses=kept)
            )
            rows[name].append({"rep": rep, "floor": _brief(floor), "bot": _brief(bot)})
            print(f"{now_utc():%H:%M:%S} {name} (round {rep + 1}): {rows[name][-1]}", flush=True)
    return [{"name": name, "runs": runs, **_median(runs)} for name, runs in rows.items()]


def _brief(res: dict[str, Any]) -> dict[str, Any]:
    keys = (*FIGURES, "confirm_p50_ms", "ready_s", "unanswered", "lost", "bench_loop_lag_max_ms")
    return {k: res[k] for k in (*keys, "error") if k in res}


def _median(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The medians of the runs' ratios to their floors, and of the bot's ready time."""
    out: dict[str, Any] = {}
    each = [ratios(r["bot"], r["floor"]) for r in runs]
    for key in FIGURES:
        values = [v for e in each if (v := e[key]) is not None]
        out[f"{key}_ratio"] = round(statistics.median(values), 2) if values else None
    ready = [r["bot"]["ready_s"] for r in runs if "ready_s" in r["bot"]]
    out["ready_s"] = round(statistics.median(ready), 2) if ready else None
    return out


def verdicts(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per bypass: how much each figure's ratio rises with it off alone, against all on."""
    on = next(r for r in rows if r["name"] == "all on")
    out: dict[str, dict[str, Any]] = {}
    for bypass in BYPASSES:
        off = next(r for r in rows if r["name"] == f"{bypass} off")
        rises: dict[str, Any] = {}
        for key in FIGURES:
            a, b = _number(off.get(f"{key}_ratio")), _number(on.get(f"{key}_ratio"))
            rises[key] = round(a / b - 1, 2) if a is not None and b else None
        worth = any(v is not None and v >= WORTH for v in rises.values())
        ready_off, ready_on = _number(off.get("ready_s")), _number(on.get("ready_s"))
        rises["ready_s"] = (
            round(ready_off - ready_on, 2)
            if ready_off is not None and ready_on is not None
            else None
        )
        out[bypass] = {**rises, "worth": worth}
    return out


def markdown(results: dict[str, Any]) -> str:
    """The tables of docs/performance.md: per backend, each configuration's ratios to the floor
    (with the floor's own p99 and CPU, and the bench's worst loop lag: the noise), then what
    turning each bypass off alone cost against all on."""
    lines = [
        "| backend | bypasses | confirmation p99 / floor's | CPU per click / floor's "
        "| floor p99 ms, CPU ms | launch → ready s | bench loop lag ms |",
        "|---|---|---|---|---|---|---|",
    ]
    for backend, rows in results["backends"].items():
        for r in rows:
            floors = [run["floor"] for run in r["runs"]]
            floor = ", ".join(
                f"{f.get('confirm_p99_ms')}, {f.get('cpu_ms_per_click')}" for f in floors
            )
            lag = max((run["bot"].get("bench_loop_lag_max_ms") or 0) for run in r["runs"])
            lines.append(
                f"| {backend} | {r['name']} | {r['confirm_p99_ms_ratio']} "
                f"| {r['cpu_ms_per_click_ratio']} | {floor} | {r['ready_s']} | {lag} |"
            )
    lines += [
        "",
        "| backend | bypass off alone | p99 ratio | CPU ratio | ready | worth 20 %? |",
        "|---|---|---|---|---|---|",
    ]
    for backend, verdict in results["verdicts"].items():
        for bypass, v in verdict.items():
            lines.append(
                f"| {backend} | {bypass} | {_percent(v['confirm_p99_ms'])} "
                f"| {_percent(v['cpu_ms_per_click'])} | {v['ready_s']:+} s "
                f"| {'yes' if v['worth'] else 'no'} |"
            )
    return "\n".join(lines)


def _percent(rise: float | None) -> str:
    return "—" if rise is None else f"{rise * 100:+.0f} %"


async def run_bypasses(
    games: int, *, pg: str | None, burst: float, repeat: int, out: Path | None
) -> dict[str, Any]:
    """Every configuration on SQLite and (with ``pg``) PostgreSQL; the JSON written to ``out``
    (default ``bench/results/bypasses-<time>.json``)."""
    results: dict[str, Any] = {"started": now_utc().isoformat(), "games": games, "burst_s": burst}
    results["backends"] = {}
    with tempfile.TemporaryDirectory(prefix="pbp-bench-") as d:
        tmp = Path(d)
        for backend in backends(tmp, pg):
            if backend.url is not None:
                rows = await measure(backend.url, tmp, games, burst, repeat)
                results["backends"][backend.name] = rows
    results["verdicts"] = {name: verdicts(rows) for name, rows in results["backends"].items()}
    results["finished"] = now_utc().isoformat()
    if out is None:
        RESULTS.mkdir(parents=True, exist_ok=True)
        out = RESULTS / f"bypasses-{now_utc().strftime('%Y%m%d-%H%M%S')}.json"
    out.write_text(json.dumps(results, indent=2, default=str), encoding="utf-8")
    results["json"] = str(out)
    return results
