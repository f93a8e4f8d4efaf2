"""Group commit (bot/batch.py): batching, answers only after the write, errors per request."""

from __future__ import annotations

import asyncio

import pytest

from bot.batch import GroupCommit


async def settle() -> None:
    """Let every ready task run (a few turns of the loop)."""
    for _ in range(10):
        await asyncio.sleep(0)


class Writer:
    """A write that the test releases by hand: it records the batches it was given."""

    def __init__(self) -> None:
        self.batches: list[list[int]] = []
        self.gate = asyncio.Event()
        self.committed: list[int] = []

    async def __call__(self, batch: list[int]) -> list[int | BaseException]:
        self.batches.append(list(batch))
        await self.gate.wait()
        self.committed += batch
        return [ValueError(f"refused {r}") if r < 0 else r * 10 for r in batch]


async def test_requests_queued_during_a_write_go_together_in_the_next() -> None:
    writer = Writer()
    group: GroupCommit[int, int] = GroupCommit(writer)
    first = asyncio.create_task(group.submit(1))
    await settle()  # the first batch starts alone: no waiting for a batch to fill
    assert writer.batches == [[1]]
    later = [asyncio.create_task(group.submit(n)) for n in (2, 3, 4)]
    await settle()
    assert not first.done() and not any(t.done() for t in later)  # nothing before the commit
    writer.gate.set()
    assert await first == 10
    assert await asyncio.gather(*later) == [20, 30, 40]
    assert writer.batches == [[1], [2, 3, 4]]
    assert (group.batches, group.requests) == (2, 4)


async def test_an_answer_comes_only_once_its_batch_is_written() -> None:
    writer = Writer()
    group: GroupCommit[int, int] = GroupCommit(writer)
    task = asyncio.create_task(group.submit(7))
    await settle()
    assert not task.done() and writer.committed == []
    writer.gate.set()
    assert await task == 70
    assert writer.committed == [7]


async def test_a_refused_request_does_not_refuse_its_batch() -> None:
    writer = Writer()
    writer.gate.set()
    group: GroupCommit[int, int] = GroupCommit(writer)
    results = await asyncio.gather(
        group.submit(1), group.submit(-2), group.submit(3), return_exceptions=True
    )
    assert results[0] == 10 and results[2] == 30
    assert isinstance(results[1], ValueError) and "refused -2" in str(results[1])


async def test_a_failed_transaction_is_written_again_request_by_request() -> None:
    """One bad request (a forged click, a value the database refuses) does not spoil its batch:
    the batch is written again one request at a time, and only the bad one is refused."""
    calls: list[list[int]] = []

    async def write(batch: list[int]) -> list[int | BaseException]:
        calls.append(batch)
        await asyncio.sleep(0)
        if 2 in batch:
            raise OverflowError("Python int too large to convert to SQLite INTEGER")
        return [r for r in batch]

    group: GroupCommit[int, int] = GroupCommit(write)
    one = asyncio.create_task(group.submit(1))
    await settle()
    bad, good = (asyncio.create_task(group.submit(n)) for n in (2, 3))
    assert await one == 1
    with pytest.raises(OverflowError, match="too large"):
        await bad
    assert await good == 3
    # The writer goes on with what comes next.
    assert await group.submit(4) == 4
    assert calls == [[1], [2, 3], [2], [3], [4]]


async def test_batches_are_bounded() -> None:
    writer = Writer()
    group: GroupCommit[int, int] = GroupCommit(writer, max_batch=2)
    tasks = [asyncio.create_task(group.submit(n)) for n in range(5)]
    await settle()
    writer.gate.set()
    assert await asyncio.gather(*tasks) == [0, 10, 20, 30, 40]
    assert writer.batches == [[0, 1], [2, 3], [4]]


async def test_lanes_write_at_once_each_in_order() -> None:
    """Requests of different lanes (by game, here the number's parity) are written at once,
    each lane's in the order they came and in batches of its own requests only."""
    writer = Writer()
    group: GroupCommit[int, int] = GroupCommit(writer, lanes=2, lane=lambda r: r)
    assert group.lanes == 2
    first = [asyncio.create_task(group.submit(n)) for n in (1, 2)]
    await settle()
    assert writer.batches == [[1], [2]]  # both lanes' first batches under way together
    later = [asyncio.create_task(group.submit(n)) for n in (3, 4, 5, 6)]
    await settle()
    assert not any(t.done() for t in [*first, *later])
    writer.gate.set()
    assert await asyncio.gather(*first, *later) == [10, 20, 30, 40, 50, 60]
    assert writer.batches == [[1], [2], [3, 5], [4, 6]]


async def test_a_failed_lane_fails_only_its_own_batch() -> None:
    gate = asyncio.Event()

    async def write(batch: list[int]) -> list[int | BaseException]:
        await gate.wait()
        if any(r % 2 for r in batch):
            raise RuntimeError("connection lost")
        return list(batch)

    group: GroupCommit[int, int] = GroupCommit(write, lanes=2, lane=lambda r: r)
    odd, even = asyncio.create_task(group.submit(1)), asyncio.create_task(group.submit(2))
    await settle()
    gate.set()
    assert await even == 2
    with pytest.raises(RuntimeError, match="lost"):
        await odd
    assert await group.submit(4) == 4


async def test_lanes_are_set_before_the_first_request() -> None:
    with pytest.raises(ValueError, match="lane"):
        GroupCommit(Writer(), lanes=2)  # no lane() to spread them by
    with pytest.raises(ValueError, match="at least 1"):
        GroupCommit(Writer(), lanes=0, lane=lambda r: r)
    writer = Writer()
    group: GroupCommit[int, int] = GroupCommit(writer, lane=lambda r: r)
    task = asyncio.create_task(group.submit(1))
    await settle()
    with pytest.raises(RuntimeError, match="before the first request"):
        group.set_lanes(2)
    writer.gate.set()
    assert await task == 10
    group.set_lanes(3)
    assert group.lanes == 3


async def test_the_time_spent_writing_is_counted_also_when_a_write_fails() -> None:
    from bot import metrics

    async def slow(batch: list[int]) -> list[int | BaseException]:
        await asyncio.sleep(0.02)
        if batch == [-1]:
            raise RuntimeError("the transaction failed")
        return list(batch)

    group: GroupCommit[int, int] = GroupCommit(slow)
    before = metrics.REGISTRY.get_sample_value("pbp_group_commit_busy_seconds_total") or 0.0
    assert await group.submit(1) == 1
    with pytest.raises(RuntimeError):
        await group.submit(-1)
    assert group.busy_seconds >= 0.04  # both writes, the failed one too
    after = metrics.REGISTRY.get_sample_value("pbp_group_commit_busy_seconds_total") or 0.0
    assert after - before == pytest.approx(group.busy_seconds)
