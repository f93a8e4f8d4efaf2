"""The Refutation Game: the whole game.

``rules/`` is the pure engine and deck format (standard library only), ``decks/`` the default
deck; the rest is the game's service, renderers, cog and views, options, records, decks by
name, locale files and demo players.
"""

from pathlib import Path

#: the game's catalogue (bot.i18n): ``locales/<lang>/*.toml``
LOCALES = Path(__file__).parent / "locales"
