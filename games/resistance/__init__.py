"""The Resistance, forum (play-by-post) adaptation, with its Avalon variant: the whole game.

``rules/`` is the pure engine (standard library only); the rest is the game's service,
renderers, cog and views, options, records and pictures, locale files and demo players.
"""

from pathlib import Path

#: the game's catalogue (bot.i18n): ``locales/<lang>/*.toml``
LOCALES = Path(__file__).parent / "locales"
