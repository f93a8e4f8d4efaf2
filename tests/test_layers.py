"""The layers as a process loads them, beside the import contracts of ``make lint``: the bot's
package loads no Discord emulator (sandbox/, its jsonschema, playtest/), and ``python -m bot
demo`` on a machine without the sandbox's extra says in one line how to install it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _python(code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``code`` run by a fresh interpreter on the project's modules."""
    env = {k: v for k, v in os.environ.items() if k != "DISCORD_TOKEN"}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=60
    )


def test_importing_the_bot_loads_no_sandbox_and_no_jsonschema(tmp_path: Path) -> None:
    result = _python("import sys, bot.app; print('\\n'.join(sys.modules))", tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    loaded = result.stdout.split()
    assert "bot.app" in loaded and "discord" in loaded
    emulator = [m for m in loaded if m.split(".")[0] in ("sandbox", "playtest", "jsonschema")]
    assert emulator == []


def test_the_demo_without_jsonschema_says_how_to_install_it(tmp_path: Path) -> None:
    hidden = (  # as if jsonschema were not installed: its import fails, find_spec says None
        "import runpy, sys; sys.modules['jsonschema'] = None; sys.argv = ['bot', 'demo']; "
        "runpy.run_module('bot', run_name='__main__', alter_sys=True)"
    )
    result = _python(hidden, tmp_path)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert "jsonschema" in lines[0] and "pip install -e '.[sandbox]'" in lines[0]
    assert result.stdout == ""
