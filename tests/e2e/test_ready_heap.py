"""What the bot loads once ready is loaded before the heap is frozen (bot/app.py on_ready)."""

from __future__ import annotations

import asyncio
import gc

from bot import names
from tests.e2e.support import Table
from tests.harness import running_bot


async def test_the_collation_table_is_loaded_before_the_heap_is_frozen(table: Table) -> None:
    # Loaded by the first sorted list instead, its hundred thousand objects stayed in the GC's
    # oldest generation: every full collection under load walked them (30-60 ms stalls).
    names._collator.cache_clear()
    async with running_bot(table.sb, table.url()):
        for _ in range(200):  # on_ready runs just after wait_until_ready
            if names._collator.cache_info().currsize:
                break
            await asyncio.sleep(0.05)
        assert names._collator.cache_info().currsize == 1, "on_ready did not load it"
        collator = names._collator()
        assert not any(o is collator for o in gc.get_objects()), "loaded after gc.freeze()"
