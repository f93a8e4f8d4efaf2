"""``python -m bot``: run the bot, apply migrations, play a demo, check a deck."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from collections.abc import Sequence
from pathlib import Path

from bot.config import ConfigError, Settings, load_settings

NO_TOKEN = (
    'No Discord token: set the DISCORD_TOKEN environment variable, or put token = "..." '
    "under [discord] in config.toml (see config.example.toml)."
)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bot",
        description="A Discord bot for play-by-post games: The Resistance, The Refutation Game.",
    )
    config_help = "config file (default: config.toml if present)"
    parser.add_argument("--config", type=Path, default=None, help=config_help)
    # --config is accepted after the command too: `python -m bot run --config FILE`.
    with_config = argparse.ArgumentParser(add_help=False)
    with_config.add_argument("--config", type=Path, default=argparse.SUPPRESS, help=config_help)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    sub.add_parser(
        "run", parents=[with_config], help="run the bot (applies pending migrations first)"
    )
    sub.add_parser("migrate", parents=[with_config], help="apply pending database migrations")
    demo = sub.add_parser(
        "demo", help="play a whole game against the local Discord emulator (no token, no network)"
    )
    from bot.demo import demos

    names = list(demos())  # the built-in games' demos (bot.plugins)
    demo.add_argument("--game", choices=names, default=names[0])
    demo.add_argument("--seed", type=int, default=7)
    sub.add_parser(
        "options-table", help="print the README's table of every game's options (Markdown)"
    )
    deck = sub.add_parser("deck", help="Refutation Game decks")
    deck_sub = deck.add_subparsers(dest="deck_command", required=True, metavar="ACTION")
    check = deck_sub.add_parser(
        "check",
        parents=[with_config],
        help="check a deck file (format and Discord's limits) and report the first problem",
    )
    check.add_argument("file", type=Path)
    check.add_argument(
        "--seconds",
        type=float,
        default=None,
        help="time cap of the check (default: [decks] check_seconds of the config, 5)",
    )
    return parser


def _setup_logging(level: str) -> None:
    logging.basicConfig(
        level=getattr(logging, level, logging.INFO),
        format="%(asctime)s %(levelname)-7s %(name)s: %(message)s",
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        settings = load_settings(args.config)
    except ConfigError as exc:
        print(f"config error: {exc}", file=sys.stderr)
        return 2
    if args.command == "run":
        return _run(settings)
    if args.command == "migrate":
        _setup_logging(settings.log_level)
        from db.engine import migrate

        asyncio.run(migrate(settings.database.url))
        print(f"database is up to date ({_safe_url(settings.database.url)})")
        return 0
    if args.command == "demo":
        from bot.demo import run_demo

        return asyncio.run(run_demo(game=args.game, seed=args.seed))
    if args.command == "options-table":
        from bot.options import README_END, README_START, readme_table

        print("\n".join([README_START, readme_table(), README_END]))
        return 0
    if args.command == "deck":
        seconds = args.seconds if args.seconds else settings.decks.check_seconds
        return _deck_check(args.file, seconds, settings.decks.max_kb * 1024)
    return 2


def _safe_url(url: str) -> str:
    """The database URL without its password, for logs."""
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


def _run(settings: Settings) -> int:
    if not settings.discord.token:
        print(NO_TOKEN, file=sys.stderr)
        return 2
    _setup_logging(settings.log_level)
    from bot.app import run_bot

    try:
        asyncio.run(run_bot(settings))
    except KeyboardInterrupt:  # Ctrl-C or systemd's SIGINT: the bot has already closed cleanly
        logging.getLogger(__name__).info("stopped")
    return 0


def _deck_check(path: Path, seconds: float, max_bytes: int) -> int:
    """Exit 0 and a summary, or exit 1 and one line naming the problem: never a traceback,
    never longer than ``seconds`` (the check runs in a separate process, killed then)."""
    from bot.decks import DeckRefused, check_in_process, problem_text, read_capped

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
