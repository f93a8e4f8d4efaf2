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
    demo.add_argument(
        "--game", choices=["resistance", "avalon", "refutation"], default="resistance"
    )
    demo.add_argument("--seed", type=int, default=7)
    deck = sub.add_parser("deck", help="Refutation Game decks")
    deck_sub = deck.add_subparsers(dest="deck_command", required=True, metavar="ACTION")
    check = deck_sub.add_parser("check", help="validate a deck file and report the first error")
    check.add_argument("file", type=Path)
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
    if args.command == "deck":
        return _deck_check(args.file)
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


def _deck_check(path: Path) -> int:
    from bot.i18n import t
    from games.refutation.deck import load_deck
    from games.refutation.errors import DeckError

    try:
        deck = load_deck(path)
    except DeckError as exc:
        print(f"{path}: {t(exc.key, 'en', **exc.params)}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"{path}: {exc.strerror}", file=sys.stderr)
        return 1
    counts = (
        f"{len(deck.families)} families, {len(deck.disinformation())} disinformation, "
        f"{len(deck.refutations())} refutation and {len(deck.techniques())} technique cards, "
        f"{sum(len(page) for page in deck.relevance.values())} relevance entries"
    )
    print(f"{path}: ok — deck {deck.id!r} version {deck.version}: {counts}")
    return 0
