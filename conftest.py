"""The tests' composition root: the built-in games are registered (their events and catalogues)
before any test reads an event log or a message, as bot/__main__.py does for the bot."""

from games.builtin import builtin_registry

builtin_registry()
