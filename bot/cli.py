"""``python -m bot``: run the bot, apply migrations, play a demo, and each game's own commands
(``GamePlugin.cli``: the Refutation Game's ``deck check``). The games and the demo's player (the
bot against the sandbox, outside the bot's package) come from the composition root
(bot/__main__.py), which passes them to :func:`main`."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from bot.config import ConfigError, Settings, load_settings
from bot.i18n import game_name
from bot.plugins import Registry

if TYPE_CHECKING:
    from bot.startup import StartupError

NO_TOKEN = (
    'No Discord token: set the DISCORD_TOKEN environment variable, or put token = "..." '
    "under [discord] in config.toml (see config.example.toml)."
)
BLANK_TOKEN = (
    "The Discord token is only spaces: set the DISCORD_TOKEN environment variable, or put "
    'token = "..." under [discord] in config.toml, to the token from the Developer Portal.'
)

#: ``python -m bot demo``: plays the demo ``game`` of a registry with a seed, returns the status.
Demo = Callable[[Registry, str, int], int]


def _parser(registry: Registry, with_demo: bool = True) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bot",
        description="A Discord bot for play-by-post games: "
        + ", ".join(game_name(plugin.kind) for plugin in registry)
        + ".",
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
    if with_demo:
        demo = sub.add_parser(
            "demo",
            help="play a whole game against the local Discord emulator (no token, no network)",
        )
        names = list(registry.demos())
        demo.add_argument("--game", choices=names, default=names[0] if names else None)
        demo.add_argument("--seed", type=int, default=7)
    sub.add_parser(
        "options-table", help="print docs/operations.md's table of every game's options (Markdown)"
    )
    for plugin in registry:
        if plugin.cli is not None:
            plugin.cli(sub)
    return parser


def _setup_logging(level: str) -> None:
    logging.basicConfig(
        level=getattr(logging, level, logging.INFO),
        format="%(asctime)s %(levelname)-7s %(name)s: %(message)s",
    )


def read_settings(
    registry: Registry, path: Path | None = None, env: dict[str, str] | None = None
) -> Settings:
    """The settings of a bot that runs the games of ``registry``: the config file (with each
    game's ``[games.<kind>]`` and its own sections) and the environment (bot.config), each
    value checked, and the games' own checks of them (``GamePlugin.config_check``)."""
    readers = {name: section.parse for name, section in registry.sections().items()}
    return load_settings(
        path,
        env,
        games=registry.schemas(),
        sections=readers,
        checks=registry.config_checks(),
    )


def main(registry: Registry, argv: Sequence[str] | None = None, *, demo: Demo | None = None) -> int:
    """The command line of a bot that runs the games of ``registry``; ``demo`` plays their demos
    (without it, there is no ``demo`` command)."""
    args = _parser(registry, with_demo=demo is not None).parse_args(argv)
    try:
        settings = read_settings(registry, getattr(args, "config", None))
    except ConfigError as exc:
        print(f"config error: {exc}", file=sys.stderr)
        return 2
    if args.command == "run":
        return _run(settings, registry)
    if args.command == "migrate":
        _setup_logging(settings.log_level)
        from bot.startup import StartupError, prepare_database, safe_url

        try:
            asyncio.run(prepare_database(settings.database.url))
        except StartupError as exc:
            return _failed(exc)
        print(f"database is up to date ({safe_url(settings.database.url)})")
        return 0
    if args.command == "demo" and demo is not None:
        return demo(registry, args.game, args.seed)
    if args.command == "options-table":
        from bot.options import TABLE_END, TABLE_START, options_table

        print("\n".join([TABLE_START, options_table(registry.schemas()), TABLE_END]))
        return 0
    run = getattr(args, "run", None)  # a game's own command (GamePlugin.cli)
    return int(run(args, settings)) if run is not None else 2


def _failed(exc: StartupError) -> int:
    """A start that cannot go on: its one line (the trace too, at DEBUG only)."""
    logging.getLogger(__name__).debug("start-up failed", exc_info=exc)
    print(str(exc), file=sys.stderr)
    return exc.status


def _run(settings: Settings, registry: Registry) -> int:
    token = settings.discord.token
    if not token:
        print(NO_TOKEN, file=sys.stderr)
        return 2
    if not token.strip():  # refused before connecting (discord.py would send it, stripped)
        print(BLANK_TOKEN, file=sys.stderr)
        return 2
    _setup_logging(settings.log_level)
    from bot.app import run_bot
    from bot.single import AlreadyRunning
    from bot.startup import StartupError

    try:
        asyncio.run(run_bot(settings, registry))
    except AlreadyRunning as exc:
        print(f"not started: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # Ctrl-C before the bot connected (then bot/stopping.py's)
        logging.getLogger(__name__).info("stopped")
    except StartupError as exc:
        return _failed(exc)
    return 0
