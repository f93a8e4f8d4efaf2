"""Wake the process that owns a guild when another process changed one of its deadlines.

Several bot processes (each running some shards) share one PostgreSQL database, and each
schedules only the deadlines of its own guilds (``(guild_id >> 22) % shard_count``). Some
changes happen elsewhere: Discord delivers DM button clicks on shard 0, so the process running
shard 0 records every vote, and when the last vote of an ``early_close`` game is in, it moves
the game's vote deadline to now. It then calls :func:`notify_owner` in the same transaction:
PostgreSQL delivers ``NOTIFY`` only when that transaction commits (never if it rolls back).

The owner listens with :class:`DeadlineListener` on a dedicated asyncpg connection and runs its
sweep at once (debounced: a burst of notifications is one sweep). A notification lost while the
listener was down costs only time: every (re)connection triggers a sweep, and the periodic and
start-up sweeps resolve anything due anyway. SQLite means one process: nothing to send or hear.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from sqlalchemy import text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.ext.asyncio import AsyncSession

log = logging.getLogger(__name__)

CHANNEL = "pbp_deadlines"
EFFECTS_CHANNEL = "pbp_outbox"  # "<guild_id>:<game_id>": effects of that game were written


def is_postgresql(s: AsyncSession) -> bool:
    bind = s.bind
    return bind is not None and bind.dialect.name == "postgresql"


async def notify_owner(s: AsyncSession, guild_id: int, deadline_id: int) -> bool:
    """Tell the process owning ``guild_id`` (when the caller's transaction commits) that
    deadline ``deadline_id`` was created or moved. False (nothing sent) on SQLite."""
    return await _notify(s, CHANNEL, f"{guild_id}:{deadline_id}")


async def _notify(s: AsyncSession, channel: str, payload: str) -> bool:
    if not is_postgresql(s):
        return False
    await s.execute(
        text("SELECT pg_notify(:channel, :payload)"), {"channel": channel, "payload": payload}
    )
    return True


async def notify_effects(s: AsyncSession, guild_id: int, game_id: int) -> bool:
    """Tell the process owning ``guild_id`` (when the caller's transaction commits) that the
    game wrote effects to its outbox, for its dispatcher to deliver. False on SQLite."""
    return await _notify(s, EFFECTS_CHANNEL, f"{guild_id}:{game_id}")


def parse_payload(payload: str) -> tuple[int, int] | None:
    """``"<guild_id>:<deadline_id>"`` as two integers; None for anything else."""
    guild, _, deadline = payload.partition(":")
    try:
        return int(guild), int(deadline)
    except ValueError:
        return None


def asyncpg_dsn(url: str | URL) -> str:
    """A DSN asyncpg understands for a SQLAlchemy ``postgresql+asyncpg://`` URL (secret: it
    holds the password; never log it)."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


class DeadlineListener:
    """LISTEN on :data:`CHANNEL`; run ``wake`` (the scheduler's sweep) when a notification
    names a guild that ``owns`` accepts. Does nothing unless ``url`` is PostgreSQL."""

    def __init__(
        self,
        url: str | URL,
        wake: Callable[[], Awaitable[Any]],
        *,
        owns: Callable[[int], bool],
        debounce_seconds: float = 0.05,
        reconnect_seconds: float = 5.0,
        ping_seconds: float = 30.0,
        channel: str = CHANNEL,
    ) -> None:
        self._url = make_url(url)
        self._channel = channel
        self._wake = wake
        self._owns = owns
        self._debounce = debounce_seconds
        self._reconnect = reconnect_seconds
        self._ping = ping_seconds
        self._task: asyncio.Task[None] | None = None
        self._drain: asyncio.Task[None] | None = None
        self._pending = False
        self._listening = asyncio.Event()
        self._stopping = False
        self.wakes = 0  # sweeps run on notification (tests, diagnostics)

    @property
    def enabled(self) -> bool:
        return self._url.get_backend_name() == "postgresql"

    @property
    def listening(self) -> bool:
        return self._listening.is_set()

    async def start(self, timeout: float = 10.0) -> None:
        """Start listening; waits (up to ``timeout``) for the first LISTEN, then keeps the
        connection up in the background (a failure is logged and retried)."""
        if not self.enabled or self._task is not None:
            return
        self._stopping = False
        self._task = asyncio.get_running_loop().create_task(self._run(), name="deadline-listener")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._listening.wait(), timeout)

    async def stop(self) -> None:
        self._stopping = True
        for task in (self._task, self._drain):
            if task is not None and not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        self._task = self._drain = None
        self._listening.clear()

    # -- the connection ----------------------------------------------------------------------

    async def _run(self) -> None:
        first = True
        while not self._stopping:
            try:
                await self._listen(resweep=not first)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning(
                    "deadline notifications unavailable (%s); retrying in %.0f s",
                    type(exc).__name__,
                    self._reconnect,
                )
            first = False
            if not self._stopping:
                await asyncio.sleep(self._reconnect)

    async def _listen(self, *, resweep: bool) -> None:
        """One connection: LISTEN, then ping now and then until it is lost or we stop."""
        import asyncpg

        lost = asyncio.Event()
        conn = await asyncpg.connect(asyncpg_dsn(self._url), timeout=10)
        try:
            conn.add_termination_listener(lambda _conn: lost.set())
            await conn.add_listener(self._channel, self._on_notification)
            self._listening.set()
            log.info("listening for deadline notifications")
            if resweep:
                self.request()  # what was sent while we were away is lost: sweep
            while not self._stopping:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(lost.wait(), self._ping)
                if lost.is_set():
                    raise ConnectionError("listener connection closed")
                await asyncio.wait_for(conn.fetchval("SELECT 1"), 10)
        finally:
            self._listening.clear()
            if not conn.is_closed():
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(conn.close(), 5)

    def _on_notification(self, conn: Any, pid: int, channel: str, payload: str) -> None:
        parsed = parse_payload(payload)
        if parsed is None:
            log.warning("ignored a malformed deadline notification")
            return
        guild_id, deadline_id = parsed
        if self._owns(guild_id):
            log.debug("deadline %s of guild %s changed elsewhere: sweeping", deadline_id, guild_id)
            self.request()

    # -- debounced wake-ups ------------------------------------------------------------------

    def request(self) -> None:
        """Run ``wake`` soon; requests that arrive while it waits or runs make one more run."""
        self._pending = True
        if self._drain is None or self._drain.done():
            self._drain = asyncio.get_running_loop().create_task(
                self._drain_requests(), name="deadline-wake"
            )

    async def _drain_requests(self) -> None:
        while self._pending and not self._stopping:
            await asyncio.sleep(self._debounce)
            self._pending = False
            self.wakes += 1
            try:
                await self._wake()
            except Exception:
                log.exception("sweep on notification failed")
