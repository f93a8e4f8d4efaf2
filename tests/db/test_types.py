from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from sqlalchemy import select
from sqlalchemy.exc import StatementError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db import repo
from db.models import Event

Sessions = async_sessionmaker[AsyncSession]
PARIS_SUMMER = timezone(timedelta(hours=2))


async def _game(sessions: Sessions) -> int:
    async with sessions.begin() as s:
        return (await repo.create_game(s, kind="poll", guild_id=1, channel_id=1, created_by=1)).id


async def test_aware_datetimes_come_back_aware_utc(sessions: Sessions) -> None:
    game_id = await _game(sessions)
    local = datetime(2030, 6, 1, 14, 30, 15, 123456, tzinfo=PARIS_SUMMER)
    async with sessions.begin() as s:
        await repo.append_event(s, game_id, "x", at=local)
    async with sessions() as s:
        at = (await s.scalars(select(Event.at))).one()
    assert at == local
    assert at.tzinfo is UTC or at.utcoffset() == timedelta(0)
    assert at.hour == 12 and at.microsecond == 123456


async def test_naive_datetimes_are_refused(sessions: Sessions) -> None:
    game_id = await _game(sessions)
    naive = datetime(2030, 6, 1, 12, 0)  # noqa: DTZ001 - the point of the test
    with pytest.raises(StatementError, match="naive datetime refused"):
        async with sessions.begin() as s:
            await repo.append_event(s, game_id, "x", at=naive)
    with pytest.raises(StatementError, match="naive datetime refused"):
        async with sessions() as s:
            await s.execute(select(Event).where(Event.at < naive))


async def test_comparisons_use_utc(sessions: Sessions) -> None:
    game_id = await _game(sessions)
    noon_utc = datetime(2030, 6, 1, 12, 0, tzinfo=UTC)
    async with sessions.begin() as s:
        await repo.append_event(s, game_id, "noon", at=noon_utc)
    async with sessions() as s:
        # 13:30 in Paris (summer) is 11:30 UTC: before noon UTC
        before = datetime(2030, 6, 1, 13, 30, tzinfo=PARIS_SUMMER)
        assert (await s.scalars(select(Event.kind).where(Event.at > before))).all() == ["noon"]
        after = datetime(2030, 6, 1, 14, 30, tzinfo=PARIS_SUMMER)
        assert (await s.scalars(select(Event.kind).where(Event.at > after))).all() == []
