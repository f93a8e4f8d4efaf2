"""What a test that drives a service directly, without Discord, builds it with: the application's
Services, and game locks that say which were asked for."""

from __future__ import annotations

import asyncio
import random

import discord
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import Clock
from bot.courier import Courier
from bot.locks import GameLocks
from bot.plugins import Registry
from bot.service import Services
from tests.clock import FakeClock


def quiet_services(
    sessions: async_sessionmaker[AsyncSession],
    clock: Clock | None = None,
    *,
    registry: Registry | None = None,
    vote_lanes: int = 1,
) -> Services:
    """Services that send nothing: a courier whose client is never started (no DM), the given
    clock (else a FakeClock), a seeded random generator, the games of ``registry`` (the core's
    tests: the poll's, tests/bot/poll.py; a game's tests: the built-in games'; none: no game
    registered) and no server defaults."""
    return Services(
        sessions=sessions,
        courier=Courier(discord.Client(intents=discord.Intents.none())),
        clock=clock or FakeClock(),
        rng=random.Random(1),
        defaults={},
        vote_lanes=vote_lanes,
        registry=registry,
    )


class TakenLocks(GameLocks):
    """The service's game locks, saying which games' locks were asked for."""

    def __init__(self) -> None:
        super().__init__()
        self.taken: list[int] = []

    def __call__(self, game_id: int) -> asyncio.Lock:
        self.taken.append(game_id)
        return super().__call__(game_id)
