"""The capacity search, without the bot: the rate steps, each step's verdict, what saturated
first, and the ceiling (:func:`search` drives any step function; ``bench.load`` gives it the
real one).

- **The steps**: the rates of :data:`BASE_RATES`, then ×1.25 from 1,250 up to 10,000 clicks/s
  (:func:`capacity_rates`). A step that fails is run once more; the search stops at the first
  rate that fails twice (one stall of a shared machine must not end it), then halves the gap
  between the last rate that held and that one, twice (:data:`REFINE_STEPS`).
- **Between steps** the child catches up (:func:`catch_up`): the next step starts once it
  answers a fresh click in time, so that no step measures an earlier one's backlog. A child
  that has not caught up within :data:`CATCH_UP_CAP_S` ends the search there
  (``bound = "behind"`` unless a rate had already failed twice).
- **A step holds** when its confirmation p99 is under 300 ms, no click went unanswered, and the
  bench really offered the rate (at least 90 % of it: :data:`OFFERED_SHARE`).
- **The ceiling** is the highest rate that held. It is the bot's (``bound = "knee"``) only when
  the search stopped on a step the bench offered in full; when the bench could not offer the
  failing rate (its own loop saturated) the ceiling is the bench's, a lower bound of the bot's
  (``bound = "bench"``), and when every rate held it is a lower bound too (``bound = "top"``),
  as when the child fell behind for good before a rate failed twice (``bound = "behind"``).
- **What saturated**: each step carries what each party used over it (:func:`usage`: cores of
  the bench process — the sandbox and the players —, of the child — the bot or the floor —, of
  PostgreSQL's backends, of the whole machine; the share of the time the bot's group-commit
  writer was writing; the bot's event-loop lag). :func:`saturation` names the party nearest its
  limit in a step, :func:`first_saturated` the first one that reached it as the rate went up.
"""

from __future__ import annotations

import math
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any

#: Below the knee region: the rates the search always starts with.
BASE_RATES = (100, 200, 300, 400, 500, 650, 800, 1000)
KNEE_FROM = 1250
FACTOR = 1.25
TOP_RATE = 10_000
LIMIT_P99_MS = 300.0
#: A step the bench offered less than this share of is the bench's failure, not the bot's.
OFFERED_SHARE = 0.9
#: A single-threaded party (an event loop, the writer, a backend) past this share of one core
#: (or, the writer, of the time) is saturated.
SATURATED = 0.9
#: The machine: every core busy past this share.
MACHINE_SATURATED = 0.95
#: The child's event loop lagging past this (ms) is behind: blocked, or short of CPU.
LOOP_BLOCKED_MS = 100.0
#: A lagging loop is blocked only while the child uses less than this of a core: having run
#: less than half the time, it lagged waiting off the CPU (a sync call, a lock, the GIL); from
#: here up the lag is a backlog of a loop short of CPU (the machine's other parties share it).
LOOP_BLOCKED_CORES = 0.5


def capacity_rates(
    top: int = TOP_RATE, *, base: Sequence[int] = BASE_RATES, start: int = KNEE_FROM
) -> tuple[int, ...]:
    """``base``, then ``start`` × 1.25ⁿ (rounded to 10) while under ``top``, then ``top``:
    100 … 1,000, 1,250, 1,560, 1,950, 2,440, 3,050, 3,810, 4,770, 5,960, 7,450, 9,310, 10,000."""
    rates = [r for r in base if r < start and r <= top]
    rate = float(start)
    while rate < top:
        rates.append(round(rate / 10) * 10)
        rate *= FACTOR
    rates.append(top)
    return tuple(sorted(set(rates)))


def judge(
    rate: float, stats: dict[str, Any], offered: float, limit_ms: float = LIMIT_P99_MS
) -> tuple[bool, list[str]]:
    """Whether a step held, and why not (``"p99"``, ``"unanswered"``, ``"not offered"``)."""
    why: list[str] = []
    if offered < OFFERED_SHARE * rate:
        why.append("not offered")
    if stats.get("unanswered", 0):
        why.append("unanswered")
    p99 = stats.get("confirm_p99_ms")
    if not isinstance(p99, int | float) or math.isnan(p99) or p99 >= limit_ms:
        why.append("p99")
    return not why, why


# -- what each party used over a step ------------------------------------------------------


def usage(before: dict[str, float | None], after: dict[str, float | None]) -> dict[str, Any]:
    """Shares over a step from two readings of the same counters (``wall``, and CPU seconds
    ``bench``, ``child``, ``db``; ``machine_busy`` / ``machine_total`` jiffies; the bot's
    ``writer_busy`` seconds): cores used (``*_cores``), the machine's busy share, the writer's
    busy share. A counter missing from either reading gives None."""
    wall = (after.get("wall") or 0.0) - (before.get("wall") or 0.0)

    def delta(key: str) -> float | None:
        a, b = after.get(key), before.get(key)
        return None if a is None or b is None else a - b

    def per_wall(key: str) -> float | None:
        d = delta(key)
        return None if d is None or wall <= 0 else round(d / wall, 3)

    busy, total = delta("machine_busy"), delta("machine_total")
    return {
        "wall_s": round(wall, 2),
        "bench_cores": per_wall("bench"),
        "child_cores": per_wall("child"),
        "db_cores": per_wall("db"),
        "writer_busy": per_wall("writer_busy"),
        "machine_busy": None if busy is None or not total else round(busy / total, 3),
    }


#: The parties a step can saturate, as the report names them.
PARTIES = {
    "bench": "the bench's own loop (it could not offer the rate)",
    "sandbox": "the sandbox's loop (the bench process's core: answers stamped late)",
    "child_cpu": "the child's CPU (its one event loop's core: busy, or lagging with a backlog)",
    "child_loop": (
        f"the child's event loop (lagging, under {LOOP_BLOCKED_CORES:g} of a core used: blocked)"
    ),
    "sqlite": "SQLite's writer (busy all the time)",
    "postgresql": "PostgreSQL (its backends' CPU, or the writer waiting on it all the time)",
    "machine": "the machine's cores (all busy, no single party saturated)",
    "none": "nothing measured was saturated",
}


def shares(step: dict[str, Any], database: str | None) -> dict[str, float]:
    """Each party's load in a step against its own limit, 1 = saturated: the bench's rate
    short of :data:`OFFERED_SHARE` (above 1: not offered), a process's cores over
    :data:`SATURATED` of one, the writer's busy share over the same, the machine's busy share
    over :data:`MACHINE_SATURATED`. The child's loop lag: over :data:`LOOP_BLOCKED_MS` while
    the child used under :data:`LOOP_BLOCKED_CORES` of a core (``child_loop``: 1 = blocked);
    past it with more of a core used, the child's CPU is saturated (``child_cpu`` at least 1)."""
    out: dict[str, float] = {}

    def put(party: str, value: object, limit: float) -> None:
        if isinstance(value, int | float) and not isinstance(value, bool):
            out[party] = round(value / limit, 3)

    rate, offered = step.get("rate") or 0, step.get("offered_per_s")
    if isinstance(offered, int | float) and rate:
        out["bench"] = round(min(9.99, OFFERED_SHARE * rate / max(offered, 1e-9)), 3)
    put("sandbox", step.get("bench_cores"), SATURATED)
    put("child_cpu", step.get("child_cores"), SATURATED)
    if "child_cpu" in out:
        lag = step.get("child_loop_lag_ms")
        if step["child_cores"] < LOOP_BLOCKED_CORES:
            put("child_loop", lag, LOOP_BLOCKED_MS)
        elif isinstance(lag, int | float) and lag >= LOOP_BLOCKED_MS:
            # behind, having run most of the time: a backlog, its core the limit
            out["child_cpu"] = max(out["child_cpu"], 1.0)
    if database == "sqlite":
        put("sqlite", step.get("writer_busy"), SATURATED)
    elif database == "postgresql":
        figures = [v for v in (step.get("db_cores"), step.get("writer_busy")) if v is not None]
        put("postgresql", max(figures, default=None), SATURATED)
    put("machine", step.get("machine_busy"), MACHINE_SATURATED)
    return out


def saturation(step: dict[str, Any], database: str | None) -> str:
    """The party nearest its limit in ``step`` (a key of :data:`PARTIES`): the bench when it
    did not offer the rate; else the single party most loaded, if saturated; else the machine
    if all its cores were busy; else the most loaded party ("none" without figures)."""
    use = shares(step, database)
    if use.get("bench", 0.0) > 1.0:
        return "bench"
    single = {k: v for k, v in use.items() if k not in ("bench", "machine")}
    top = max(single, key=lambda k: single[k], default=None)
    if top is not None and single[top] >= 1.0:
        return top
    if use.get("machine", 0.0) >= 1.0:
        return "machine"
    return top or "none"


def _at_limit(use: dict[str, float], party: str) -> bool:
    """Whether ``party`` is at its limit in a step's :func:`shares` (the bench: past it)."""
    load = use.get(party, 0.0)
    return load > 1.0 if party == "bench" else load >= 1.0


def first_saturated(steps: Iterable[dict[str, Any]], database: str | None) -> dict[str, Any]:
    """The first step (in the order run) where a party reached its limit and stayed at it in
    every later step of a rate as high or higher: which (:func:`saturation`), at what rate, its
    load (1 = the limit). A limit reached in one step only, the rates above it clear (a stall:
    a collection, a checkpoint, the host), is not what saturated. Else ``what = "none"``, with
    the most loaded party of the last step as ``busiest``."""
    ordered = list(steps)
    for i, step in enumerate(ordered):
        use = shares(step, database)
        if not any(_at_limit(use, party) for party in use):
            continue
        what = saturation(step, database)
        rate = step.get("rate") or 0
        later = [s for s in ordered[i + 1 :] if (s.get("rate") or 0) >= rate]
        if all(_at_limit(shares(s, database), what) for s in later):
            return {"what": what, "at_rate": step.get("rate"), "load": use.get(what)}
    if not ordered:
        return {"what": "none", "at_rate": None, "load": None}
    last = ordered[-1]
    busiest = saturation(last, database)
    return {
        "what": "none",
        "busiest": busiest,
        "at_rate": last.get("rate"),
        "load": shares(last, database).get(busiest),
    }


# -- between steps: the child catches up -----------------------------------------------------

#: How long a probe click waits for its answer before another is sent. A caught-up child
#: answers in milliseconds; one with a backlog answers only after it, or never (a bot may drop
#: interactions too old to answer): a fresh probe then. Under the sandbox's 3 s window.
PROBE_WAIT_S = 2.0
#: How long the child may take to catch up after a step before the search ends there: four
#: times the worst backlog seen after a collapse (the gateway 41 s behind).
CATCH_UP_CAP_S = 180.0

#: ``probe()`` sends a fresh click and returns whether it was answered in time.
Probe = Callable[[], Awaitable[bool]]


async def catch_up(
    probe: Probe, *, cap: float = CATCH_UP_CAP_S, clock: Callable[[], float] = time.monotonic
) -> dict[str, Any]:
    """Probe until a fresh click is answered in time, for at most ``cap`` seconds (and the last
    probe's wait): whether the child caught up (``caught_up``), the seconds it took or that were
    waited in vain (``catch_up_s``) and the probes sent. Silence proves nothing (a child that
    drops the interactions too old to answer calls nothing while still behind); an answer to a
    click sent after the step's does: it came after everything queued before it."""
    start = clock()
    probes = 0
    while True:
        probes += 1
        answered = await probe()
        waited = clock() - start
        if answered or waited >= cap:
            return {"caught_up": answered, "catch_up_s": round(waited, 2), "probes": probes}


# -- the search ------------------------------------------------------------------------------

#: ``step(rate, attempt)`` runs one step and returns its figures, with ``ok`` and ``why``, and
#: ``caught_up`` False when the child had not caught up after it (:func:`catch_up`).
StepRunner = Callable[[int, int], Awaitable[dict[str, Any]]]


#: Rates between the last that held and the first that failed, halving the gap on a log
#: scale: the ×1.25 grid alone leaves the knee anywhere in a 25 % gap (a bot and a floor in
#: neighbouring gaps read as up to 36 % apart when they are a few per cent apart).
REFINE_STEPS = 2
#: No refinement in a gap narrower than this ratio.
REFINE_GAP = 1.05


async def search(
    rates: Sequence[int], step: StepRunner, *, refine: int = REFINE_STEPS
) -> dict[str, Any]:
    """Step through ``rates`` in order until one fails twice; then, at a knee, up to
    ``refine`` rates between the last that held and the one that failed (their geometric
    mean, rounded to 10), each run as every step is. The ceiling (the highest rate that
    held), how it is bounded (``knee``, ``bench``, ``top``, ``behind``) and every step run, in
    order. A step after which the child did not catch up (``caught_up`` False) is the last:
    every later step would measure its backlog. It is named in ``behind`` (None otherwise);
    before a rate failed twice the ceiling is then a lower bound (``behind``), after, the
    knee stands and only its refinement is cut short."""
    steps: list[dict[str, Any]] = []
    behind: dict[str, int] | None = None

    async def holds(rate: int) -> bool:
        nonlocal behind
        for attempt in (1, 2):
            result = await step(rate, attempt)
            steps.append({"rate": rate, "attempt": attempt, **result})
            if result.get("caught_up") is False:
                behind = {"rate": rate, "attempt": attempt}
            if result.get("ok") or behind is not None:
                break
        return bool(steps[-1].get("ok"))

    def failed_twice(rate: int) -> bool:
        return sum(1 for s in steps if s["rate"] == rate and not s.get("ok")) >= 2

    ceiling = 0
    bound = "top"
    failed_at: int | None = None
    for rate in rates:
        if await holds(rate):
            ceiling = rate
            if behind is None:
                continue
            bound = "behind"
        elif failed_twice(rate):
            failed_at = rate
            tries = [s for s in steps if s["rate"] == rate]
            # The bench's own shortfall in both tries: the rate was never offered.
            bound = "bench" if all("not offered" in s.get("why", ()) for s in tries) else "knee"
        else:  # failed once, and the child never caught up for a second try
            failed_at = rate
            bound = "behind"
        break
    for _ in range(refine if bound == "knee" and ceiling and behind is None else 0):
        assert failed_at is not None
        if failed_at / ceiling <= REFINE_GAP:
            break
        mid = round(math.sqrt(ceiling * failed_at) / 10) * 10
        if not ceiling < mid < failed_at:
            break
        if await holds(mid):
            ceiling = mid
        elif failed_twice(mid):
            failed_at = mid
        if behind is not None:
            break
    return {
        "ceiling": ceiling,
        "bound": bound,
        "failed_at": failed_at,
        "behind": behind,
        "steps": steps,
    }


def knee_step(result: dict[str, Any]) -> dict[str, Any] | None:
    """The last try of the rate a search ended on (``failed_at``; a refinement's steps that
    held may come after it), or None when every rate held."""
    failed_at = result.get("failed_at")
    steps = result.get("steps") or []
    return next((s for s in reversed(steps) if s.get("rate") == failed_at), None)


def ceiling_text(result: dict[str, Any] | None) -> str:
    """``1,950``; ``≥ 10,000`` when every step held; ``≥ 2,440 (bench-bound)`` when the bench
    could not offer the next rate; ``≥ 1,950 (the child fell behind)`` when the search ended on
    a child that did not catch up before a rate failed twice; ``error`` / ``—``."""
    if not result:
        return "—"
    if "error" in result:
        return "error"
    value = result.get("capacity_clicks_per_s")
    if not isinstance(value, int):
        return "—"
    bound = result.get("bound")
    if bound == "top":
        return f"≥ {value:,}"
    if bound == "bench":
        return f"≥ {value:,} (bench-bound)"
    if bound == "behind":
        return f"≥ {value:,} (the child fell behind)"
    return f"{value:,}"
