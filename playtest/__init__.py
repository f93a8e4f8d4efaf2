"""The bot played against the local Discord emulator: the demo (``python -m bot demo``), the
simulated players and the harness that the demos, the end-to-end tests and the benchmarks run
the real bot with. It stands on ``bot`` and ``sandbox``; the bot's own package imports neither
it nor the sandbox, so a bot in production loads no emulator and needs no jsonschema."""
