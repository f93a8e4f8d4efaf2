"""The interactions in flight when the bot stops: the tasks an INTERACTION_CREATE's parse
starts are waited for, no other, and the loop's task factory is left as it was."""

from __future__ import annotations

import asyncio

from bot.stopping import InFlight


async def test_the_tasks_an_interaction_starts_are_in_flight_until_they_end() -> None:
    in_flight = InFlight()
    gate = asyncio.Event()
    loop = asyncio.get_running_loop()
    unrelated = loop.create_task(gate.wait())
    in_flight.receive(lambda data: loop.create_task(gate.wait(), name=data), "answer")
    assert [t.get_name() for t in in_flight.tasks] == ["answer"]
    assert loop.get_task_factory() is None
    waiting = loop.create_task(in_flight.answered(timeout=30))
    await asyncio.sleep(0)  # one turn: it waits for the answer's task
    assert in_flight.closed and not waiting.done()
    gate.set()
    assert await waiting == 0
    assert in_flight.tasks == set()
    await unrelated


async def test_past_the_grace_time_what_is_left_is_counted() -> None:
    in_flight = InFlight()
    loop = asyncio.get_running_loop()
    stuck = asyncio.Event()
    in_flight.receive(lambda data: loop.create_task(stuck.wait()), None)
    assert await in_flight.answered(timeout=0) == 1
    stuck.set()
