"""One asyncio lock per game: the actions of one game run one at a time in this process.

Across processes the database row lock (``SELECT ... FOR UPDATE`` on PostgreSQL) does the same.
"""

from __future__ import annotations

import asyncio
import weakref


class GameLocks:
    def __init__(self) -> None:
        self._locks: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()

    def __call__(self, game_id: int) -> asyncio.Lock:
        lock = self._locks.get(game_id)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[game_id] = lock
        return lock

    def held(self, game_id: int) -> bool:
        """Whether an action of this game holds its lock or waits for it."""
        lock = self._locks.get(game_id)
        return lock is not None and (lock.locked() or bool(getattr(lock, "_waiters", None)))
