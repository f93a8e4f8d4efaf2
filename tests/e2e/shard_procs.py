"""Real bot processes (``python -m bot run --config FILE``) pointed at a sandbox in the test
process: start, wait until ready, SIGKILL, restart, read their logs."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import sys
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
RESOLVED = re.compile(r"deadline (\d+) \((\w+), game (\d+)\) resolved")


def shard_config(sb: Any, database_url: str, shard_ids: list[int], shard_count: int) -> str:
    """A config file for one process of a sharded deployment (same token and database)."""
    ids = ", ".join(str(i) for i in shard_ids)
    return (
        "[discord]\n"
        f'token = "{sb.token}"\n'
        f'api_base = "{sb.api_base}"\n'
        f'gateway_url = "{sb.gateway_url}"\n'
        f"shard_count = {shard_count}\n"
        f"shard_ids = [{ids}]\n"
        "\n[database]\n"
        f'url = "{database_url}"\n'
        "\n[logging]\n"
        'level = "INFO"\n'
    )


class BotProcess:
    """One ``python -m bot run`` process; its output goes to ``log`` (appended across
    restarts)."""

    def __init__(self, name: str, config: Path, log: Path) -> None:
        self.name = name
        self.config = config
        self.log = log
        self.proc: asyncio.subprocess.Process | None = None
        self.starts = 0
        self._offset = 0

    def text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def resolved(self) -> list[tuple[int, str, int]]:
        """(deadline id, kind, game id) of every deadline this process logged as resolved."""
        return [(int(a), b, int(c)) for a, b, c in RESOLVED.findall(self.text())]

    async def start(self) -> None:
        assert self.proc is None or self.proc.returncode is not None
        env = {k: v for k, v in os.environ.items() if k not in ("DISCORD_TOKEN", "DATABASE_URL")}
        env["PYTHONPATH"] = str(REPO_ROOT)
        self._offset = len(self.text().encode())
        with self.log.open("ab") as out:
            self.proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "bot",
                "--config",
                str(self.config),
                "run",
                cwd=REPO_ROOT,
                env=env,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=out,
                stderr=asyncio.subprocess.STDOUT,
            )
        self.starts += 1

    async def wait_ready(self, timeout: float = 30.0) -> None:
        """Until this run logs that every shard is ready (GameBot.on_ready)."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while True:
            with self.log.open("rb") as fh:
                fh.seek(self._offset)
                if b"ready: shard" in fh.read():
                    return
            assert self.proc is not None
            if self.proc.returncode is not None:
                raise AssertionError(f"{self.name} exited ({self.proc.returncode}):\n{self.tail()}")
            if loop.time() > end:
                raise AssertionError(f"{self.name} not ready after {timeout} s:\n{self.tail()}")
            await asyncio.sleep(0.05)

    async def kill(self) -> None:
        """SIGKILL: no shutdown code runs, as on a crash or an OOM kill."""
        if self.proc is not None and self.proc.returncode is None:
            self.proc.send_signal(signal.SIGKILL)
            await self.proc.wait()

    async def stop(self) -> None:
        if self.proc is None or self.proc.returncode is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(self.proc.wait(), 10)
        except TimeoutError:
            await self.kill()

    def tail(self, lines: int = 40) -> str:
        return "\n".join(self.text().splitlines()[-lines:])


@contextlib.asynccontextmanager
async def processes(*procs: BotProcess) -> Any:
    """Start them all, wait until all are ready; always stop (or kill) them on exit."""
    try:
        await asyncio.gather(*(p.start() for p in procs))
        await asyncio.gather(*(p.wait_ready() for p in procs))
        yield procs
    finally:
        await asyncio.gather(*(p.stop() for p in procs), return_exceptions=True)
