"""Rows the record tests build by hand: a game as the database holds it once it is over."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from db.models import Game


def a_game(kind: str, **kw: Any) -> Game:
    return Game(
        id=42,
        kind=kind,
        guild_id=1,
        channel_id=2,
        status="ended",
        options={"vote_hours": 24},
        created_by=3,
        created_at=datetime(2026, 11, 1, 9, tzinfo=UTC),
        started_at=datetime(2026, 11, 1, 10, tzinfo=UTC),
        ended_at=datetime(2026, 11, 8, 21, tzinfo=UTC),
        lang="en",
        **kw,
    )
