"""The bot under test in its own process: ``python -m bot run --config <tmp config>``.

The sandbox and the simulated players stay in the bench process; only the bot's own memory is
in the child, so its RSS can be read from ``/proc/<pid>/status``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def proc_status_kb(pid: int, key: str) -> int | None:
    """A ``VmRSS`` / ``VmHWM`` line of ``/proc/<pid>/status``, in kB (None if gone)."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        return None
    return None


def proc_cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a process so far (``/proc/<pid>/stat``), in seconds."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def write_config(
    path: Path,
    sb: Any,
    database_url: str,
    *,
    log_level: str = "INFO",
    metrics_port: int | None = None,
    bypasses: tuple[str, ...] | None = None,
) -> None:
    """The child's config; ``bypasses``: the ones it runs (None: the default, every one)."""
    metrics = "" if metrics_port is None else f"\n[metrics]\nport = {metrics_port}\n"
    if bypasses is not None:
        metrics += "\n[internals]\nbypasses = [" + ", ".join(f'"{b}"' for b in bypasses) + "]\n"
    path.write_text(
        "[discord]\n"
        f'token = "{sb.token}"\n'
        f'api_base = "{sb.api_base}"\n'
        f'gateway_url = "{sb.gateway_url}"\n'
        "sync_commands = true\n\n"
        "[database]\n"
        f'url = "{database_url}"\n\n'
        "[logging]\n"
        f'level = "{log_level}"\n' + metrics,
        encoding="utf-8",
    )


@dataclass
class BotProcess:
    """A running ``python -m bot run`` child, with an RSS sampler."""

    proc: subprocess.Popen[bytes]
    log_path: Path
    started_at: float
    peak_rss_kb: int = 0
    samples: list[tuple[float, int]] = field(default_factory=list)
    _sampler: asyncio.Task[None] | None = None

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc.poll() is None

    def rss_kb(self) -> int:
        return proc_status_kb(self.pid, "VmRSS") or 0

    def cpu_seconds(self) -> float:
        """The child's CPU time so far (under --profile: py-spy's and the bot's under it)."""
        total = proc_cpu_seconds(self.pid) or 0.0
        try:
            with open(f"/proc/{self.pid}/task/{self.pid}/children", encoding="ascii") as fh:
                children = [int(c) for c in fh.read().split()]
        except (OSError, ValueError):
            children = []
        return total + sum(proc_cpu_seconds(c) or 0.0 for c in children)

    def hwm_kb(self) -> int:
        return proc_status_kb(self.pid, "VmHWM") or 0

    def start_sampling(self, every: float = 0.1) -> None:
        async def sample() -> None:
            while self.alive():
                rss = self.rss_kb()
                self.peak_rss_kb = max(self.peak_rss_kb, rss)
                self.samples.append((time.monotonic() - self.started_at, rss))
                if len(self.samples) > 100_000:  # bounded
                    del self.samples[: len(self.samples) // 2]
                await asyncio.sleep(every)

        self._sampler = asyncio.get_running_loop().create_task(sample())

    def reset_peak(self) -> None:
        self.peak_rss_kb = self.rss_kb()

    def keep_log(self, where: Path) -> None:
        """Copy the child's log (e.g. into the gitignored bench/results/)."""
        with contextlib.suppress(OSError):
            where.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(self.log_path, where)

    def log(self) -> str:
        try:
            return self.log_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""

    async def stop(self, timeout: float = 15.0) -> int | None:
        """SIGINT (the bot closes cleanly), then SIGKILL after ``timeout`` seconds."""
        if self._sampler is not None:
            self.peak_rss_kb = max(self.peak_rss_kb, self.rss_kb())
            self._sampler.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sampler
        if self.alive():
            with contextlib.suppress(ProcessLookupError):
                self.proc.send_signal(signal.SIGINT)
            with contextlib.suppress(subprocess.TimeoutExpired):
                await asyncio.to_thread(self.proc.wait, timeout)
            if self.alive():
                self.proc.kill()
                await asyncio.sleep(0.1)
        return self.proc.poll()


def launch(
    config: Path,
    log_path: Path,
    *,
    profile: Path | None = None,
    py_spy: str | None = None,
    floor: bool = False,
) -> BotProcess:
    """Start the bot child (``floor``: the bare discord.py client of ``bench/floor.py``
    instead). ``profile``: run it under ``py-spy record`` into that file."""
    env = {k: v for k, v in os.environ.items() if k not in ("DISCORD_TOKEN", "DATABASE_URL")}
    env["PYTHONUNBUFFERED"] = "1"
    if floor:
        cmd = [sys.executable, "-m", "bench.floor", "--config", str(config)]
    else:
        cmd = [sys.executable, "-m", "bot", "--config", str(config), "run"]
    if profile is not None:
        spy = py_spy or shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
        cmd = [
            spy,
            "record",
            "-o",
            str(profile),
            "-f",
            "raw",
            "-r",
            "100",
            "--nonblocking",
            "--",
            *cmd,
        ]
    log = log_path.open("wb")
    started = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    log.close()
    return BotProcess(proc, log_path, started)


def machine_jiffies() -> tuple[float, float] | None:
    """(busy, total) clock ticks of every core so far (``/proc/stat``'s ``cpu`` line: idle and
    iowait are not busy), or None where there is no /proc."""
    try:
        with open("/proc/stat", encoding="ascii") as fh:
            fields = [float(x) for x in fh.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0.0)
    total = sum(fields[:8])  # guest time is already counted in user
    return total - idle, total


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now (for the child's metrics endpoint)."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def scrape(port: int, timeout: float = 5.0) -> dict[str, float]:
    """The child's ``/metrics``: sample name (``le`` of a bucket appended, other labels summed
    over) → value; empty if it does not answer."""
    import aiohttp
    from prometheus_client.parser import text_string_to_metric_families

    try:
        async with (
            aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=timeout)) as http,
            http.get(f"http://127.0.0.1:{port}/metrics") as response,
        ):
            text = await response.text()
    except (aiohttp.ClientError, TimeoutError, OSError):
        return {}
    out: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            le = sample.labels.get("le")
            key = sample.name if le is None else f"{sample.name}@{le}"
            out[key] = out.get(key, 0.0) + sample.value
    return out


def bucket_max(before: dict[str, float], after: dict[str, float], name: str) -> float | None:
    """The upper bound of the highest bucket of histogram ``name`` that grew between two
    scrapes (``inf`` past the last bound; None: no observation between them, or no scrape)."""
    prefix = f"{name}_bucket@"
    grew = sorted(
        (float(key[len(prefix) :]), value - before.get(key, 0.0))
        for key, value in after.items()
        if key.startswith(prefix)
    )
    top: float | None = None
    below = 0.0  # the buckets are cumulative: a bound that grew more than the one below it
    for bound, count in grew:
        if count > below:
            top = bound
        below = max(below, count)
    return top


def spy_on(pid: int, path: Path, py_spy: str | None = None) -> subprocess.Popen[bytes] | None:
    """``py-spy record`` of the running process ``pid`` (this one: the sandbox and the
    players) into ``path``, until :func:`stop_spy`, its complaints into :func:`spy_errors`'s
    file; None if py-spy cannot start."""
    spy = py_spy or shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    cmd = [spy, "record", "-o", str(path), "-f", "raw", "-r", "100", "--nonblocking"]
    try:
        with spy_errors(path).open("wb") as errors:
            return subprocess.Popen(
                [*cmd, "--pid", str(pid)], stdout=subprocess.DEVNULL, stderr=errors
            )
    except OSError:
        return None


def spy_errors(path: Path) -> Path:
    """Where py-spy's errors go, beside the profile ``path``."""
    return path.with_name(path.name + ".err")


def spy_failure(path: Path) -> str | None:
    """Why py-spy recorded nothing into ``path``: its ``Error:`` line (None when it recorded
    something, or said nothing). Where it cannot read another process's memory (a container
    without ptrace, say) it says ``Failed to find python version from target process``."""
    if profile_summary(path) is not None:
        return None
    try:
        text = spy_errors(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    said = next((line for line in lines if line.startswith("Error:")), lines[0] if lines else "")
    return said.removeprefix("Error:").strip() or None


async def stop_spy(spy: subprocess.Popen[bytes], timeout: float = 15.0) -> None:
    """SIGINT (py-spy writes its file), then SIGKILL after ``timeout`` seconds."""
    if spy.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            spy.send_signal(signal.SIGINT)
        with contextlib.suppress(subprocess.TimeoutExpired):
            await asyncio.to_thread(spy.wait, timeout)
        if spy.poll() is None:
            spy.kill()


#: Where a sample's time goes, by the first frame from the leaf up that is in one of these
#: (py-spy shows Python frames: a C call, sqlite3's included, counts in its Python caller).
LAYERS = (
    ("the sandbox's spec check", ("jsonschema/", "sandbox/spec.py", "referencing/")),
    ("the sandbox", ("sandbox/",)),
    ("the bench's players", ("bench/",)),
    ("SQLAlchemy", ("sqlalchemy/",)),
    ("aiosqlite", ("aiosqlite/",)),
    ("asyncpg", ("asyncpg/",)),
    ("the bot", ("bot/", "games/", "db/", "cogs/")),
    ("discord.py", ("discord/",)),
    ("aiohttp", ("aiohttp/", "yarl/", "multidict/")),
    ("asyncio", ("asyncio/", "selectors.py")),
)


IDLE = "EpollSelector.select ("


def profile_summary(path: Path, top: int = 10) -> dict[str, Any] | None:
    """A py-spy raw profile (``frame;frame;… count`` lines) in a few figures: the samples, the
    idle share (the loop in ``select``), then of the work: each layer's share (:data:`LAYERS`,
    from the leaf up; "other" for the rest) and the ``top`` functions by self time (None if
    the file is missing or empty)."""
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    total = 0
    layers: dict[str, int] = {}
    leaves: dict[str, int] = {}
    for line in lines:
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        n = int(count)
        total += n
        frames = stack.split(";")
        layer = next(
            (
                name
                for frame in reversed(frames)
                for name, marks in LAYERS
                if any(mark in frame for mark in marks)
            ),
            "other",
        )
        leaf = frames[-1].rsplit(":", 1)[0] + ")" if ":" in frames[-1] else frames[-1]
        leaves[leaf] = leaves.get(leaf, 0) + n
        if not leaf.startswith(IDLE):
            layers[layer] = layers.get(layer, 0) + n
    if not total:
        return None
    idle = sum(n for leaf, n in leaves.items() if leaf.startswith(IDLE))
    busy = max(1, total - idle)
    return {
        "samples": total,
        # the loop waiting for I/O (py-spy samples it too): the rest is the process's work
        "idle": round(idle / total, 3),
        # shares of the work (the idle samples left out)
        "layers": {k: round(v / busy, 3) for k, v in sorted(layers.items(), key=lambda i: -i[1])},
        "top_self": [
            [name, round(v / busy, 3)]
            for name, v in sorted(leaves.items(), key=lambda i: -i[1])
            if not name.startswith(IDLE)
        ][:top],
    }
