"""The one timing assertion the issue asks for: while a hostile deck is being checked, the
bot's event loop keeps ticking (lag under 100 ms).

Why this threshold: the check runs in a separate process, so the loop only spawns it and waits
on a pipe; its ticks normally come within a few milliseconds. 100 ms is the issue's figure and
is deliberately generous so that a shared, loaded test machine (two cores, several test runs at
once) does not make the test flaky, while parsing the same deck on the loop would stall every
guild for as long as the parse takes (seconds for the files of the issue)."""

from __future__ import annotations

import asyncio
import gc

import pytest

from games.refutation.decks.registry import check_off_loop
from games.refutation.rules.deck import DECK_MAX_BYTES

LAG_MAX = 0.100
TICK = 0.005

# 20,000 dotted keys under [deck] (about 250 KB): the TOML parser works on it for a while, then
# the deck is refused for its first unknown field.
HOSTILE = b'[deck]\nid = "x"\n' + b"".join(b"k%d.x = 1\n" % i for i in range(20_000))


@pytest.mark.timeout(120)
async def test_event_loop_keeps_ticking_while_a_hostile_deck_is_checked() -> None:
    assert len(HOSTILE) <= DECK_MAX_BYTES
    loop = asyncio.get_running_loop()
    lags: list[float] = []
    stop = asyncio.Event()

    async def ticker() -> None:
        while not stop.is_set():
            before = loop.time()
            await asyncio.sleep(TICK)
            lags.append(loop.time() - before - TICK)

    # As the bot does once ready (bot/app.py on_ready): what the test run loaded so far stays
    # out of the cyclic GC's full collections, whose pauses are not the check's doing.
    gc.collect()
    gc.freeze()
    try:
        ticking = asyncio.create_task(ticker())
        await asyncio.sleep(0.05)
        verdict = await check_off_loop(HOSTILE, 60.0, DECK_MAX_BYTES)
        stop.set()
        await ticking
    finally:
        gc.unfreeze()
    assert verdict["ok"] is False
    assert verdict["key"] == "refutation.deck_error.deck_unknown_field"
    assert len(lags) > 20  # it ticked all along (the check takes well over 0.1 s)
    assert max(lags) < LAG_MAX, f"worst lag {max(lags) * 1000:.0f} ms"
