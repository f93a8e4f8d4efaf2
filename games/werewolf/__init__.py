"""Werewolf (Loups-garous), the classic public-domain party game played by post.

``rules/`` is the pure engine (standard library only); ``options.py`` and ``rulebook.py`` are
its options and its in-bot rules text, ``locales/`` its catalogue; ``service.py`` (with
``acts.py``, its secret choices, and ``render.py``, its texts) plays it on the core's parts,
``cog.py`` is ``/werewolf``, ``plugin.py`` its record, ``players.py`` its simulated players.
"""

from pathlib import Path

#: the game's catalogue (bot.i18n): ``locales/<lang>/*.toml``
LOCALES = Path(__file__).parent / "locales"
