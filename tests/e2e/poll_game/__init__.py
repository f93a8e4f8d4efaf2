"""A third game that exists only in the tests: a two-option poll, registered as a plugin.

It proves that a game is a plugin: its rules (``rules.py``, pure), its service (``service.py``),
its cog and buttons (``cog.py``), its messages (``locales/``) and its record (``plugin.py``) are
all here, and nothing outside this package names it. ``test_poll.py`` plays it end to end.
"""
