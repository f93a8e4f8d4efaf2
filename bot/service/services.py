"""What the services need from the application (the Bot subclass builds one ``Services``)."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import Clock
from bot.config import ModerationSettings
from bot.courier import Courier
from bot.locks import GameLocks
from bot.options import OptionsSchema

if TYPE_CHECKING:
    from bot.activity import Activity
    from bot.choice import SecretMenu
    from bot.dispatcher import Dispatcher
    from bot.plugins import Registry
    from bot.scheduler import DeadlineScheduler


class Services:
    """What services need from the application; the Bot subclass builds one."""

    def __init__(
        self,
        *,
        sessions: async_sessionmaker[AsyncSession],
        courier: Courier,
        clock: Clock,
        rng: random.Random,
        defaults: dict[str, dict[str, Any]],
        options: dict[str, OptionsSchema] | None = None,
        busy_wait: float = 600.0,
        limits: ModerationSettings | None = None,
        vote_lanes: int = 1,
        registry: Registry | None = None,
        sections: dict[str, Any] | None = None,
    ) -> None:
        self.sessions = sessions
        #: the games this bot runs (bot.plugins): their hooks (record, stats, rules text)
        self.registry = registry
        #: the config sections the games read (``Settings.sections``), by name
        self.sections = sections or {}
        self.limits = limits or ModerationSettings()
        #: seconds an action waits for a database kept busy by another process
        self.busy_wait = busy_wait
        #: PostgreSQL: vote batches of different games under way at once (bot/batch.py)
        self.vote_lanes = vote_lanes
        self.courier = courier
        self.clock = clock
        self.rng = rng
        self.defaults = defaults
        #: each registered game's options schema, by kind (bot.plugins)
        self.options = options or {}
        self.locks = GameLocks()
        self.scheduler: DeadlineScheduler | None = None
        self.dispatcher: Dispatcher | None = None
        #: the games' secret choices by DM, by name (bot/choice.py): what a menu's click finds
        self.choices: dict[str, SecretMenu] = {}
        #: the posts counted in the games' places (bot/activity.py), once the bot runs
        self.activity: Activity | None = None

    def schema(self, kind: str) -> OptionsSchema:
        """The options schema of a game (an empty one for a game that has none)."""
        return self.options.get(kind) or OptionsSchema(kind, ())
