"""``python -m bot``: the composition root. It builds the registry of the built-in games
(games/builtin.py) and the demo's player (playtest/, the bot against the sandbox, imported only
when a demo is asked for: the bot's own package needs no sandbox) and hands them to the command
line; nothing below it names a game."""

import asyncio
import importlib.util
import sys

from bot.cli import main
from bot.plugins import Registry
from games.builtin import builtin_registry

NO_SANDBOX = (
    "The demo runs on the sandbox, which needs jsonschema: "
    "pip install -e '.[sandbox]' (make demo installs it)."
)


def play_demo(registry: Registry, game: str, seed: int) -> int:
    """``python -m bot demo``: playtest's demo, or one line saying how to install the sandbox."""
    if importlib.util.find_spec("jsonschema") is None:  # the sandbox's extra is not installed
        print(NO_SANDBOX, file=sys.stderr)
        return 2
    from playtest.demo import run_demo

    return asyncio.run(run_demo(registry, game=game, seed=seed))


raise SystemExit(main(builtin_registry(), demo=play_demo))
