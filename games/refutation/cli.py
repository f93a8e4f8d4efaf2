"""``python -m bot deck check FILE``: the Refutation Game's command of the command line."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bot.config import Settings
from games.refutation.decks import settings as deck_settings


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``deck check FILE [--seconds S]`` (the config is read for ``[decks]``)."""
    deck = sub.add_parser("deck", help="Refutation Game decks")
    deck_sub = deck.add_subparsers(dest="deck_command", required=True, metavar="ACTION")
    check = deck_sub.add_parser(
        "check",
        help="check a deck file (format and Discord's limits) and report the first problem",
    )
    check.add_argument(
        "--config", type=Path, default=argparse.SUPPRESS, help="config file (default: config.toml)"
    )
    check.add_argument("file", type=Path)
    check.add_argument(
        "--seconds",
        type=float,
        default=None,
        help="time cap of the check (default: [decks] check_seconds of the config, 5)",
    )
    check.set_defaults(run=run_check)


def run_check(args: argparse.Namespace, settings: Settings) -> int:
    decks = deck_settings.of(settings.sections)
    seconds = args.seconds if args.seconds else decks.check_seconds
    return deck_check(args.file, seconds, decks.max_kb * 1024)


def deck_check(path: Path, seconds: float, max_bytes: int) -> int:
    """Exit 0 and a summary, or exit 1 and one line naming the problem: never a traceback,
    never longer than ``seconds`` (the check runs in a separate process, killed then)."""
    from games.refutation.decks.registry import (
        DeckRefused,
        check_in_process,
        problem_text,
        read_capped,
    )

    try:
        data = read_capped(path, max_bytes)
    except DeckRefused as exc:
        verdict = {"key": exc.key, "params": exc.params}
        print(f"{path}: {problem_text(verdict, 'en', markdown=False)}", file=sys.stderr)
        return 1
    verdict = check_in_process(data, seconds, max_bytes)
    if not verdict["ok"]:
        print(f"{path}: {problem_text(verdict, 'en', markdown=False)}", file=sys.stderr)
        return 1
    counts = (
        f"{verdict['families']} families, {verdict['disinformation']} disinformation, "
        f"{verdict['refutation']} refutation and {verdict['technique']} technique cards, "
        f"{verdict['relevance']} relevance entries"
    )
    print(f"{path}: ok — deck {verdict['id']!r} version {verdict['version']}: {counts}")
    return 0
