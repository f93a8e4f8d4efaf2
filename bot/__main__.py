"""``python -m bot``: the composition root. It builds the registry of the built-in games
(games/builtin.py) and hands it to the command line; nothing below it names a game."""

from bot.cli import main
from games.builtin import builtin_registry

raise SystemExit(main(builtin_registry()))
