"""``python -m bench load [--games 1000] [--pg URL | --no-pg]
[--only round,floor,load,capacity,rss,startup] [--repeat 3] [--no-capacity] [--rates …]
[--profile] [--out FILE] [--plot FILE]``: with no option, the run of record (every scenario at
the targets' sizes, docs/performance.md)."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from bench.bypasses import markdown, run_bypasses
from bench.load import (
    CAPACITY_RATES,
    LOAD_GAMES,
    RSS_GAMES,
    SCENARIOS,
    STARTUP_DEADLINES,
    format_table,
    markdown_targets,
    run,
)
from bot import english
from bot.single import Held, hold, holder
from games.builtin import builtin_registry


#: One run at a time on a machine: two runs share its cores (and PostgreSQL's ``pbp_bench``),
#: and each measures the other. ``PBP_BENCH_LOCK`` names another file (the tests' own).
def lock_file() -> Path:
    return Path(os.environ.get("PBP_BENCH_LOCK") or Path(tempfile.gettempdir()) / "pbp-bench.lock")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bench", description="Benchmarks of the bot.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    load = sub.add_parser("load", help="the real bot (child process) under simulated players")
    load.add_argument(
        "--games",
        default=str(LOAD_GAMES),
        help=f"comma-separated G of the load scenario (default {LOAD_GAMES}: 13,000 clicks in "
        "10 s); the largest is the headline",
    )
    load.add_argument(
        "--pg",
        default=None,
        help="PostgreSQL URL (default: TEST_DATABASE_URL); the bench uses its own pbp_bench "
        "database on that server, dropped and re-created per scenario",
    )
    load.add_argument(
        "--only", default=",".join(SCENARIOS), help=f"scenarios (default {','.join(SCENARIOS)})"
    )
    load.add_argument("--burst", type=float, default=10.0, help="seconds of clicking (default 10)")
    load.add_argument(
        "--rss-games",
        type=int,
        default=RSS_GAMES,
        help=f"active games of the RSS scenario (default {RSS_GAMES:,})",
    )
    load.add_argument(
        "--deadlines",
        type=int,
        default=STARTUP_DEADLINES,
        help=f"open deadlines at start-up, 1 %% overdue (default {STARTUP_DEADLINES:,})",
    )
    load.add_argument("--no-pg", action="store_true", help="SQLite only")
    load.add_argument(
        "--profile", action="store_true", help="run the bot under py-spy (speedscope files)"
    )
    load.add_argument(
        "--repeat",
        type=int,
        default=None,
        help="repetitions of the largest G's load scenario (the headline); its figures are "
        "their median (default 3; 1 with --bypasses)",
    )
    load.add_argument(
        "--no-capacity", action="store_true", help="skip the capacity search (rate steps)"
    )
    load.add_argument(
        "--step", type=float, default=4.0, help="seconds of each capacity step (default 4)"
    )
    load.add_argument(
        "--capacity-games", type=int, default=500, help="games of the capacity search (500)"
    )
    load.add_argument(
        "--rates",
        default=",".join(str(r) for r in CAPACITY_RATES),
        help="click rates of the capacity search, stepped through until one fails twice "
        f"(default {','.join(map(str, CAPACITY_RATES))}: ×1.25 from 1,250 up to 10,000)",
    )
    load.add_argument(
        "--bypasses",
        action="store_true",
        help="only the largest G's burst, with every bypass on, every one off and each one off "
        "alone, each after a floor's run, --repeat times (default 1 here; bench/bypasses.py)",
    )
    load.add_argument(
        "--out",
        type=Path,
        default=None,
        help="JSON file (default bench/results/load-<time>.json; the Markdown table of targets "
        "beside it, .md)",
    )
    load.add_argument(
        "--plot",
        type=Path,
        default=None,
        help="PNG of the ceiling plot (default: beside the JSON, .png), when capacity ran",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    # The composition root, as ``python -m bot``: the built-in games' catalogues (the vote
    # buttons' labels the bench posts) and events are registered before any is read.
    builtin_registry()
    games = [int(g) for g in args.games.split(",") if g.strip()]
    scenarios = tuple(s.strip() for s in args.only.split(",") if s.strip())
    unknown = set(scenarios) - set(SCENARIOS)
    if unknown:
        print(english.unknown("scenario", unknown), file=sys.stderr)
        return 2
    pg = None if args.no_pg else (args.pg or os.environ.get("TEST_DATABASE_URL") or None)
    try:
        hold(lock_file())  # released when this process ends
    except Held as held:
        print(
            f"another bench run ({holder(held.pid)}) holds {held.path}: wait for it to end",
            file=sys.stderr,
        )
        return 2
    if args.bypasses:
        return _bypasses(args, max(games), pg)
    results = asyncio.run(
        run(
            games,
            pg=pg,
            scenarios=scenarios,
            burst=args.burst,
            rss_games=args.rss_games,
            deadlines=args.deadlines,
            profile=args.profile,
            out=args.out,
            plot=args.plot,
            step=args.step,
            repeat=max(1, 3 if args.repeat is None else args.repeat),
            capacity=not args.no_capacity,
            capacity_games=args.capacity_games,
            rates=tuple(int(r) for r in args.rates.split(",") if r.strip()),
        )
    )
    print(format_table(results))
    markdown = markdown_targets(results)
    print("\ndocs/performance.md (Markdown):\n" + markdown)
    table = Path(results["json"]).with_suffix(".md")
    table.write_text(markdown + "\n", encoding="utf-8")
    print(f"\nJSON: {results['json']}\nMarkdown: {table}")
    if results.get("plot"):
        print(f"plot: {results['plot']}")
    return 0


def _bypasses(args: argparse.Namespace, games: int, pg: str | None) -> int:
    repeat = max(1, args.repeat or 1)
    results = asyncio.run(run_bypasses(games, pg=pg, burst=args.burst, repeat=repeat, out=args.out))
    print(markdown(results))
    print(json.dumps(results["verdicts"], indent=2))
    print(f"\nJSON: {results['json']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
