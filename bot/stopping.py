"""Stopping the same way on SIGTERM and SIGINT: the interactions received are answered.

``docker stop``, Kubernetes, ``systemctl stop`` and most process managers send SIGTERM; Ctrl-C
sends SIGINT. On either, :func:`run_until_stopped` logs "stopping", and the bot drains
(``GameBot.drain``): it takes no new interaction (:class:`InFlight` drops them), waits for the
ones already received to be answered, lets a deadline being resolved finish and delivers what
the outbox can, all within ``[shutdown] grace_seconds``; then it closes, logs "stopped", and the
process exits 0. A second signal during the drain exits at once (status 128 + the signal's
number): whatever was committed is in the database, delivered at the next start.

The interactions in flight are the tasks discord.py (or the click router) creates while it
parses an INTERACTION_CREATE: a task factory is set for that moment only, and records them.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

log = logging.getLogger(__name__)

#: The signals that stop the bot (the same way).
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


class InFlight:
    """The interactions received and not answered yet (their tasks), and whether new ones are
    still taken."""

    def __init__(self) -> None:
        self.tasks: set[asyncio.Task[Any]] = set()
        #: set once the bot stops: an interaction that arrives is dropped (never acted on)
        self.closed = False
        self._before: Any = None

    def receive(self, handle: Callable[[Any], object], data: Any) -> None:
        """``handle(data)`` (the parse of an INTERACTION_CREATE), the tasks it creates recorded
        as in flight: the loop's task factory is this one's for that call only."""
        loop = asyncio.get_running_loop()
        self._before = before = loop.get_task_factory()
        # typeshed's factory type has no keyword arguments; asyncio passes name= and context=.
        loop.set_task_factory(self._factory)  # type: ignore[arg-type]
        try:
            handle(data)
        finally:
            loop.set_task_factory(before)

    def _factory(
        self, loop: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, Any], **kw: Any
    ) -> asyncio.Task[Any]:
        before = self._before
        task: asyncio.Task[Any] = (
            before(loop, coro, **kw) if before is not None else asyncio.Task(coro, loop=loop, **kw)
        )
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    async def answered(self, timeout: float) -> int:
        """Close to new interactions, then wait (up to ``timeout``) until those received are
        answered; how many were still unanswered then."""
        self.closed = True
        if not self.tasks or timeout <= 0:
            return len(self.tasks)
        _done, pending = await asyncio.wait(set(self.tasks), timeout=timeout)
        return len(pending)


class GraceTime:
    """What is left of a grace time, in seconds."""

    def __init__(self, seconds: float) -> None:
        self._end = asyncio.get_running_loop().time() + seconds

    def left(self) -> float:
        return max(0.0, self._end - asyncio.get_running_loop().time())


async def run_until_stopped(
    run: Awaitable[None],
    drain: Callable[[], Awaitable[None]],
    close: Callable[[], Awaitable[None]],
) -> None:
    """Await ``run`` (the bot's connection) until it ends or SIGTERM / SIGINT arrives. On the
    signal: log "stopping", ``drain``, ``close``, log "stopped". A second signal meanwhile
    exits the process at once."""
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    received: list[signal.Signals] = []

    def on_signal(signum: signal.Signals) -> None:
        if received:
            log.warning("%s again while stopping: exiting at once", signum.name)
            logging.shutdown()
            os._exit(128 + signum.value)
        received.append(signum)
        stop.set()

    for signum in STOP_SIGNALS:
        loop.add_signal_handler(signum, on_signal, signum)
    connection = asyncio.ensure_future(run)
    stopped = loop.create_task(stop.wait())
    try:
        await asyncio.wait((connection, stopped), return_when=asyncio.FIRST_COMPLETED)
        if not received:
            connection.result()  # its error, if it failed
            return
        log.info("stopping (%s)", received[0].name)
        await drain()
        await close()  # the connection ends with it
        await asyncio.wait((connection,), timeout=1.0)
        if connection.done() and not connection.cancelled():
            connection.exception()  # how the closed connection ended is of no interest now
        log.info("stopped")
    finally:
        stopped.cancel()
        if not connection.done():
            connection.cancel()
        if not received:  # else kept until the loop closes: a second signal exits at once
            for signum in STOP_SIGNALS:
                loop.remove_signal_handler(signum)
