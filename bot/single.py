"""One bot process per SQLite database: a second one refuses to start.

Two processes on one SQLite file would both answer every interaction and both deliver the
outbox (Discord's nonces keep posts from doubling only for minutes, and DMs carry none). The
running process holds an exclusive ``flock`` on ``<database>.lock``; the kernel drops it when
the process ends however it ends, so the lock of a killed process is taken over by the next
start without anyone cleaning up. The file holds the holder's pid, for the refusal's message.
PostgreSQL needs no such lock: several processes each own their shards, and the outbox's claim
holds across them.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path

from sqlalchemy.engine import make_url


def holder(pid: str) -> str:
    """A lock's holder as a refusal names it (its file may not hold a pid yet)."""
    return f"process {pid}" if pid else "another process"


class AlreadyRunning(Exception):
    """Another bot process holds this SQLite database."""

    def __init__(self, database: Path, pid: str) -> None:
        who = holder(pid)
        super().__init__(
            f"another bot ({who}) is already running on {database}: stop it first "
            "(one process per SQLite database; several processes need PostgreSQL)"
        )
        self.database = database
        self.pid = pid


def sqlite_file(url: str) -> Path | None:
    """The file of a SQLite URL (None: another database, or one in memory)."""
    parsed = make_url(url)
    if not parsed.drivername.startswith("sqlite") or parsed.database in (None, "", ":memory:"):
        return None
    return Path(parsed.database).resolve()


class Held(Exception):
    """The lock file is held by another process (``pid``, as its file says; may be empty)."""

    def __init__(self, path: Path, pid: str) -> None:
        super().__init__(f"{path} is held by {holder(pid)}")
        self.path = path
        self.pid = pid


def hold(path: Path) -> int:
    """An exclusive ``flock`` on ``path`` (created with its folder), which then holds this
    process's pid: the open file descriptor, to keep for as long as the lock is held (the kernel
    drops it when the process ends). :class:`Held` when another process has it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.read(fd, 32).decode(errors="replace").strip()
        os.close(fd)
        raise Held(path, holder) from None
    os.ftruncate(fd, 0)
    os.write(fd, str(os.getpid()).encode())
    return fd


class ProcessLock:
    """The exclusive lock of one SQLite database (nothing for other databases)."""

    def __init__(self, url: str) -> None:
        self.database = sqlite_file(url)
        self._fd: int | None = None

    def acquire(self) -> None:
        """Take the lock, or raise :class:`AlreadyRunning` naming the holder."""
        if self.database is None or self._fd is not None:
            return
        try:
            self._fd = hold(self.database.with_name(self.database.name + ".lock"))
        except Held as held:
            raise AlreadyRunning(self.database, held.pid) from None

    def release(self) -> None:
        if self._fd is None:
            return
        with contextlib.suppress(OSError):
            fcntl.flock(self._fd, fcntl.LOCK_UN)
        os.close(self._fd)
        self._fd = None
