"""Werewolf (Loups-garous), the classic public-domain party game played by post.

``rules/`` is the pure engine (standard library only); ``options.py`` and ``rulebook.py`` are
its options and its in-bot rules text, ``locales/`` its catalogue. The service, cog and demo
come with the core's composed services (issue 38).
"""

from pathlib import Path

#: the game's catalogue (bot.i18n): ``locales/<lang>/*.toml``
LOCALES = Path(__file__).parent / "locales"
