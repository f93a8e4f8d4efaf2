"""Run ``python -m bot demo`` as a user would: a child process, no token, a fresh directory."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_demo(tmp_path: Path, game: str, *, within: float = 60.0) -> str:
    """The demo's output; it must exit 0 within ``within`` seconds."""
    env = {k: v for k, v in os.environ.items() if k != "DISCORD_TOKEN"}
    env["PYTHONPATH"] = str(ROOT)
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-m", "bot", "demo", "--game", game],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=within + 20,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert time.monotonic() - started < within
    return result.stdout


#: One message of a transcript: "  3.1s DM → Alice | text" (continuation lines indented).
BLOCK = re.compile(r"^ *\d+\.\ds (?P<where>.+?) \| (?P<text>.*)$")


def blocks(out: str) -> list[tuple[str, str]]:
    """(where, text) of every message the transcript prints, and ("▶", line) for every action
    of a player, in order."""
    found: list[tuple[str, str]] = []
    for line in out.splitlines():
        match = BLOCK.match(line)
        if match:
            found.append((match["where"], match["text"]))
        elif line.strip().startswith("▶"):
            found.append(("▶", line.strip()))
        elif line.startswith(" ") and found and found[-1][0] != "▶" and line.strip():
            where, text = found[-1]
            found[-1] = (where, f"{text}\n{line.strip()}")
    return found


def assert_readable(out: str) -> None:
    """The transcript reads as a Discord client shows it: no raw markup (a timestamp as a
    date, a channel as #name, a mention as @name, a link to the channel as #name), numbers as
    typed; every message once: never the same text twice in a row for the same reader."""
    for raw in ("<t:", "<#", "<@", "</", "discord.com/channels"):
        assert raw not in out, (raw, out[max(0, out.find(raw) - 300) : out.find(raw) + 100])
    assert not re.search(r"\d\.\d{7,}", out), "a number printed as a float's repr"
    last: dict[str, str] = {}
    for where, text in blocks(out):
        if where == "▶":
            continue
        reader = reader_of(where)
        assert last.get(reader) != text, f"printed twice for {reader}: {text[:200]!r}"
        last[reader] = text


def reader_of(where: str) -> str:
    """Who reads a message: the channel, or the member of a DM or of a private answer."""
    where = where.removesuffix(" (edited)").removesuffix(" (private answer)")
    only = re.search(r"\(only (.+) sees\)$", where)
    return only[1] if only else where.removeprefix("DM → ")
