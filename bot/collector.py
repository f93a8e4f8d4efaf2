"""The cyclic garbage collector's full collections, run when the process is quiet.

Once the bot is ready its start-up heap is frozen (``gc.freeze``, bot/app.py): the collector no
longer walks it. CPython still runs a full collection by itself once ten collections of the
middle generation have happened since the last one and what they promoted is a quarter of what
the last one kept. Under a steady load of clicks that is every two or three seconds: on the
bench's 1,000 games × 10 burst, 12 to 25 ms each, every click in flight stopped meanwhile, and
those stalls were the burst's p99 (docs/performance.md, "Decisions"). Nearly everything a full
collection walks then is alive (the games' parsed states, the vote path's caches): its cost is
the live heap's, whenever it runs.

:class:`FullCollections` turns CPython's own full collections off and runs them from one sleeper
instead: once a second it looks whether one is due, as CPython would count it (``gc.get_count()``'s
third figure: the middle generation's collections since the last full one, against the threshold
CPython had). A due collection runs at once if the process used less than :attr:`QUIET` of a core
over the last second; otherwise it waits, at most until :attr:`AT_MOST` middle-generation
collections (about two minutes at 1,300 clicks a second), so that a process never quiet still
frees its cycles. The young generations are left to CPython: their collections are short.

Python 3.14's collector is incremental (it collects the old generation a slice at a time, and
ignores the third threshold): there this does nothing; nor does it with the bypass off
(``[internals] bypasses``, adapters/switch.py): CPython keeps its own full collections.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import sys
import time
from collections.abc import Callable

log = logging.getLogger(__name__)

#: A third threshold that CPython's collector never reaches (its count is a C ``int``).
NEVER = 2**31 - 1

#: Whether the collector is generational, with a full collection decided by the third threshold.
GENERATIONAL = sys.version_info < (3, 14)


class FullCollections:
    """The process's full collections, from one sleeper (:meth:`start`, :meth:`stop`)."""

    #: seconds between two looks
    EVERY = 1.0
    #: the share of a core under which the last second counts as quiet
    QUIET = 0.25
    #: middle-generation collections after which a due full collection runs, quiet or not
    AT_MOST = 600

    def __init__(
        self,
        *,
        on: bool = True,
        cpu: Callable[[], float] = time.process_time,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._on, self._cpu, self._clock = on, cpu, clock
        self._task: asyncio.Task[None] | None = None
        self._threshold: tuple[int, int, int] | None = None
        self._last = (cpu(), clock())
        #: CPython's third threshold before :meth:`start` (when a full collection is due)
        self.due = gc.get_threshold()[2]
        #: full collections run, and of those, the ones run although the process was busy
        self.collections = self.forced = 0

    def start(self) -> None:
        """Turn CPython's full collections off and look once a second (in the running loop)."""
        if not (GENERATIONAL and self._on) or self._threshold is not None:
            return
        self._threshold = gc.get_threshold()
        self.due = self._threshold[2]
        gc.set_threshold(self._threshold[0], self._threshold[1], NEVER)
        self._last = (self._cpu(), self._clock())
        self._task = asyncio.get_running_loop().create_task(self._sleeper())

    async def stop(self) -> None:
        """Give CPython its full collections back."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if self._threshold is not None:
            gc.set_threshold(*self._threshold)
            self._threshold = None

    def busy(self) -> float:
        """The share of a core the process used since the last look (and starts the next)."""
        cpu, now = self._cpu(), self._clock()
        (cpu0, then), self._last = self._last, (cpu, now)
        return (cpu - cpu0) / (now - then) if now > then else 1.0

    def look(self) -> bool:
        """One look: run the full collection if it is due and the process was quiet, or if it
        has waited :attr:`AT_MOST` middle-generation collections. Whether it ran."""
        pending = gc.get_count()[2]
        busy = self.busy()
        if pending < self.due:
            return False
        if busy >= self.QUIET and pending < self.AT_MOST:
            return False
        gc.collect(2)
        self.collections += 1
        if busy >= self.QUIET:
            self.forced += 1
            log.debug("full collection after %d younger ones, the process busy", pending)
        return True

    async def _sleeper(self) -> None:
        while True:
            await asyncio.sleep(self.EVERY)
            self.look()
