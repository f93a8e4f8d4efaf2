"""The core's tests run on the test-only poll: registered (its events and catalogue) before any
test reads a message, as the root conftest.py registers the built-in games (and declares the
databases' fixtures)."""

from tests.bot.poll import poll_registry

poll_registry()
