"""A game's service is put together from the core's parts (bot/service/), each one concern
and small, and what a game writes is the protocol of bot/service/protocol.py: the moderation
the shared commands call is written once, never in a game."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from bot.service import GameService
from bot.service.protocol import GameRules
from games.builtin import builtin_plugins
from tests.e2e.poll_game.service import PollService

ROOT = Path(__file__).resolve().parents[2]
PARTS = sorted((ROOT / "bot" / "service").glob("*.py"))
MAX_PART_LINES = 400
#: written once in the core's parts: a game that defines one of these copies the core
ONCE = ("extend", "close_now", "remind", "cancel", "running", "start", "join", "leave")

SERVICES = [PollService, *(p.service for p in builtin_plugins())]


@pytest.mark.parametrize("path", PARTS, ids=lambda p: p.name)
def test_each_part_of_the_service_is_small(path: Path) -> None:
    assert len(path.read_text().splitlines()) <= MAX_PART_LINES


def protocol_methods() -> set[str]:
    return {
        name
        for name, value in vars(GameRules).items()
        if inspect.isfunction(value) and not name.startswith("_")
    }


def test_a_game_writes_the_protocol_s_own_methods_and_no_more() -> None:
    own = set(GameService.__abstractmethods__)
    assert own <= protocol_methods()  # each one documented in the protocol
    assert len(own) <= 12
    # every other method of the protocol has its default in GameService
    for name in protocol_methods() - own:
        assert callable(getattr(GameService, name)), name


@pytest.mark.parametrize("service", SERVICES, ids=lambda s: s.kind)
def test_no_game_writes_the_moderation_again(service: type[GameService]) -> None:
    assert not service.__abstractmethods__
    for name in ONCE:
        assert name not in vars(service), f"{service.kind} defines {name}: the core has it"
    for name in protocol_methods():
        assert callable(getattr(service, name)), name
