"""Group commit: the requests that arrive while one transaction runs are written in the next.

Under load every click used to open its own transaction, and on SQLite every transaction
queues for the one write lock, held across each statement's trip to the database thread: the
clicks drained at the rate of those trips, whatever the offered rate. Here one writer task
takes everything queued, writes it in one short transaction, and only once that transaction
has committed answers each request (so a confirmed vote is a committed vote). Alone, a
request is written at once: there is no waiting for a batch to fill.

With ``lanes`` > 1 the requests are spread over that many writers by ``lane(request)`` (a game
id: each game always in the same lane, so the lanes' batches hold disjoint games): one lane's
batch waiting for the database does not hold up the requests of the others. A lane's requests
are still written in the order they came.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Generic, TypeVar

from bot import metrics

log = logging.getLogger(__name__)

R = TypeVar("R")
T = TypeVar("T")

# ``write`` returns one result per request, in order: a value, or the exception to raise in the
# requester (a refused click); an exception raised by ``write`` itself (the transaction failed)
# goes to every request of the batch.
Writer = Callable[[list[R]], Awaitable[Sequence[T | BaseException]]]


class GroupCommit(Generic[R, T]):
    def __init__(
        self,
        write: Writer[R, T],
        *,
        max_batch: int = 256,
        lanes: int = 1,
        lane: Callable[[R], int] | None = None,
    ) -> None:
        self._write = write
        self.max_batch = max_batch
        self._lane = lane
        self._queues: list[list[tuple[R, asyncio.Future[T]]]] = []
        self._tasks: list[asyncio.Task[None] | None] = []
        self.set_lanes(lanes)
        #: batches written and requests in them, and the seconds spent writing them (for the
        #: metrics and the tests)
        self.batches = 0
        self.requests = 0
        self.busy_seconds = 0.0

    @property
    def lanes(self) -> int:
        return len(self._queues)

    def set_lanes(self, lanes: int) -> None:
        """Spread the requests over ``lanes`` writers (before the first request)."""
        if lanes < 1 or (lanes > 1 and self._lane is None):
            raise ValueError("lanes: at least 1, and more than 1 needs lane()")
        if any(self._queues) or any(t is not None and not t.done() for t in self._tasks):
            raise RuntimeError("lanes are set before the first request")
        self._queues = [[] for _ in range(lanes)]
        self._tasks = [None] * lanes

    async def submit(self, request: R) -> T:
        """Queue ``request``; its result once the batch that holds it has committed."""
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        i = self._lane(request) % len(self._queues) if self._lane is not None else 0
        self._queues[i].append((request, future))
        task = self._tasks[i]
        if task is None or task.done():
            self._tasks[i] = asyncio.get_running_loop().create_task(self._drain(self._queues[i]))
        return await future

    async def _drain(self, queue: list[tuple[R, asyncio.Future[T]]]) -> None:
        while queue:
            batch = queue[: self.max_batch]
            del queue[: len(batch)]
            futures = [f for _, f in batch]
            self.batches += 1
            self.requests += len(batch)
            began = time.perf_counter()
            try:
                results = await self._write_batch(batch, futures)
            finally:
                elapsed = time.perf_counter() - began
                self.busy_seconds += elapsed
                metrics.WRITER_BUSY.inc(elapsed)
            if results is None:
                continue
            if len(results) != len(batch):  # a bug in ``write``: refuse rather than guess
                error = RuntimeError(f"group commit: {len(results)} results for {len(batch)}")
                results = [error] * len(batch)
            for f, result in zip(futures, results, strict=True):
                if f.done():
                    continue
                if isinstance(result, BaseException):
                    f.set_exception(result)
                else:
                    f.set_result(result)

    async def _write_batch(
        self, batch: list[tuple[R, asyncio.Future[T]]], futures: list[asyncio.Future[T]]
    ) -> Sequence[T | BaseException] | None:
        """The batch's results (None: a lone request's failure, already given to it)."""
        try:
            return await self._write([r for r, _ in batch])
        except asyncio.CancelledError:
            for f in futures:
                f.cancel()
            raise
        except Exception as exc:
            if len(batch) == 1:
                if not futures[0].done():
                    futures[0].set_exception(exc)
                return None
            # One bad request must not spoil the others: each is written alone, and only
            # the ones that fail by themselves are refused (this costs a transaction per
            # request, and only when a batch fails).
            log.warning("a batch of %d failed (%s): writing each alone", len(batch), exc)
            each: list[T | BaseException] = []
            for request, _ in batch:
                try:
                    each += list(await self._write([request]))
                except asyncio.CancelledError:
                    for f in futures:
                        f.cancel()
                    raise
                except Exception as alone:
                    each.append(alone)
            return each
