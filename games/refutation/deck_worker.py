"""``python -m games.refutation.deck_worker MAX_BYTES SECONDS``: check the deck on stdin, print
the verdict as one JSON line. The bot and ``python -m bot deck check`` run it as a separate process
and kill it after SECONDS: a hostile deck can cost this process, never the bot's event loop. Its own
CPU time is capped too (a second more than SECONDS), in case the parent is gone."""

from __future__ import annotations

import json
import sys


def main(argv: list[str]) -> int:
    max_bytes = int(argv[0]) if argv else 256 * 1024
    seconds = float(argv[1]) if len(argv) > 1 else 5.0
    try:
        import resource

        cpu = int(seconds) + 2
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
    except (ImportError, ValueError, OSError):  # pragma: no cover - not on every platform
        pass
    data = sys.stdin.buffer.read(max_bytes + 1)
    try:
        from bot.i18n import add_locales
        from games.refutation import LOCALES
        from games.refutation.deck_check import result_of

        add_locales("refutation", LOCALES)  # the pages are rendered with the game's catalogue

        verdict = result_of(data, max_bytes)
    except Exception as exc:  # a bug, not the deck's fault: still one line, no traceback
        code = type(exc).__name__
        verdict = {"ok": False, "key": "refutation.decks.error.crashed", "params": {"code": code}}
    sys.stdout.write(json.dumps(verdict) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
