"""The tests' composition root: the built-in games are registered (their events and catalogues)
before any test reads an event log or a message, as bot/__main__.py does for the bot. The
database fixtures (tests/db/support.py) and the end-to-end ones (tests/e2e/support.py) are
plugins of every test folder, declared here once: a folder's conftest.py adds only its own."""

from games.builtin import builtin_registry

pytest_plugins = ("tests.db.support", "tests.e2e.support")

builtin_registry()
