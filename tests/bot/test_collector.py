"""The cyclic GC's full collections at quiet moments (bot/collector.py): CPython's own are off
while the sleeper runs; a due one runs when the process was quiet over the last look, waits
while it is busy, and runs anyway once it has waited AT_MOST younger collections. It really
collects: a cycle dropped before the look is freed by it."""

from __future__ import annotations

import gc
import weakref
from collections.abc import AsyncIterator, Iterator

import pytest

from bot.collector import GENERATIONAL, NEVER, FullCollections

pytestmark = pytest.mark.skipif(not GENERATIONAL, reason="Python 3.14's GC is incremental")


class Cycle:
    def __init__(self) -> None:
        self.me = self


class Process:
    """A process's CPU time and wall clock, moved by the test."""

    def __init__(self) -> None:
        self.cpu = self.wall = 0.0

    def run(self, seconds: float, *, busy: float) -> None:
        """``seconds`` pass, the process using ``busy`` of a core."""
        self.wall += seconds
        self.cpu += seconds * busy


@pytest.fixture
def thresholds() -> Iterator[None]:
    """No automatic collection meanwhile (the counts are the test's), then as before."""
    saved, enabled = gc.get_threshold(), gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.set_threshold(*saved)
        if enabled:
            gc.enable()


def younger(n: int) -> None:
    """``n`` collections of the middle generation (each counts towards a full one)."""
    for _ in range(n):
        gc.collect(1)


def collector(process: Process) -> FullCollections:
    return FullCollections(cpu=lambda: process.cpu, clock=lambda: process.wall)


@pytest.fixture
async def running(thresholds: None) -> AsyncIterator[tuple[Process, FullCollections]]:
    """The collector started on a process the test moves, from a fresh count."""
    process = Process()
    full = collector(process)
    full.start()
    gc.collect()
    try:
        yield process, full
    finally:
        await full.stop()


async def test_cpython_full_collections_are_off_while_it_runs(thresholds: None) -> None:
    before = gc.get_threshold()
    full = collector(Process())
    full.start()
    try:
        assert gc.get_threshold() == (before[0], before[1], NEVER)
        assert full.due == before[2]
        full.start()  # a second READY: nothing more
        assert gc.get_threshold()[2] == NEVER
    finally:
        await full.stop()
    assert gc.get_threshold() == before


async def test_with_the_bypass_off_cpython_keeps_its_full_collections(thresholds: None) -> None:
    before = gc.get_threshold()
    full = FullCollections(on=False)  # [internals] bypasses without quiet_collections
    full.start()
    assert gc.get_threshold() == before
    await full.stop()
    assert gc.get_threshold() == before


async def test_a_due_collection_waits_for_a_quiet_second(
    running: tuple[Process, FullCollections],
) -> None:
    process, full = running
    younger(full.due - 1)
    process.run(1, busy=0.0)
    assert not full.look()  # not due yet, however quiet
    younger(1)
    process.run(1, busy=0.9)
    assert not full.look()  # due, but the process was busy
    assert gc.get_count()[2] >= full.due
    dropped = Cycle()
    freed = weakref.ref(dropped)
    younger(2)  # the cycle now old
    del dropped  # garbage that only a full collection frees
    process.run(1, busy=0.9)
    assert not full.look()
    assert freed() is not None
    process.run(1, busy=0.1)
    assert full.look()  # quiet: collected
    assert freed() is None
    assert gc.get_count()[2] == 0
    assert (full.collections, full.forced) == (1, 0)


async def test_a_process_never_quiet_still_collects_after_at_most(
    running: tuple[Process, FullCollections],
) -> None:
    process, full = running
    younger(full.AT_MOST - 1)
    process.run(1, busy=1.0)
    assert not full.look()
    younger(1)
    process.run(1, busy=1.0)
    assert full.look()
    assert (full.collections, full.forced) == (1, 1)
