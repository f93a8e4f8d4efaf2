"""The outbox and saved-overwrite repositories, on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db import repo
from tests.db import queries
from tests.db.test_repo import T0, new_game

Sessions = async_sessionmaker[AsyncSession]


async def test_effects_are_numbered_per_game_with_unique_keys(sessions: Sessions) -> None:
    a, b = await new_game(sessions, channel_id=1), await new_game(sessions, channel_id=2)
    async with sessions.begin() as s:
        await repo.add_effects(s, a, 1, [("post", {"n": 1}), ("post", {"n": 2})], at=T0)
        await repo.add_effects(s, b, 1, [("dm", {"n": 1})], at=T0)
        await repo.add_effects(s, a, 1, [("edit", {"n": 3})], at=T0)
    async with sessions() as s:
        rows = await repo.effects_of(s, a)
        assert [(r.seq, r.kind, r.payload["n"]) for r in rows] == [
            (1, "post", 1),
            (2, "post", 2),
            (3, "edit", 3),
        ]
        assert [r.seq for r in await repo.effects_of(s, b)] == [1]
        keys = [r.key for r in rows + await repo.effects_of(s, b)]
        assert len(set(keys)) == 4
        effect = await queries.next_effect(s, a)
        assert effect is not None and effect.seq == 1
        assert sorted(await repo.pending_effect_games(s)) == [(a, 1), (b, 1)]


async def test_a_claim_holds_off_other_processes_until_it_expires(sessions: Sessions) -> None:
    game = await new_game(sessions)
    async with sessions.begin() as s:
        (row,) = await repo.add_effects(s, game, 1, [("post", {})], at=T0)
    lease = T0 + timedelta(seconds=120)
    minute = timedelta(seconds=60)

    async def claim(owner: str, now: datetime, until: datetime) -> bool:
        return await repo.claim_effects(s, [row.id], owner, now, until) == {row.id}

    async with sessions.begin() as s:
        assert await claim("one", T0, lease)
        assert not await claim("two", T0 + minute, lease)
        assert await claim("one", T0 + minute, lease)
        assert await claim("two", lease, lease + minute)
        await repo.release_claims(s, [game])
        assert await claim("three", T0, lease)
        await repo.update_effect(s, row.id, status="done")
        assert not await claim("three", T0, lease)
        assert await queries.next_effect(s, game) is None


async def test_drop_pending_effects_leaves_what_was_delivered(sessions: Sessions) -> None:
    game = await new_game(sessions)
    async with sessions.begin() as s:
        rows = await repo.add_effects(s, game, 1, [("post", {})] * 3, at=T0)
        await repo.update_effect(s, rows[0].id, status="done")
        assert await repo.drop_pending_effects(s, game, at=T0) == 2
    async with sessions() as s:
        assert [r.status for r in await repo.effects_of(s, game)] == ["done", "dropped", "dropped"]
        assert await repo.pending_effect_games(s) == []


async def test_the_first_saved_overwrite_is_kept_until_forgotten(sessions: Sessions) -> None:
    game = await new_game(sessions)
    async with sessions.begin() as s:
        assert await repo.save_overwrite(s, game, 5, 7, present=True, allow=1024, deny=0)
        # A retried close sees its own deny: it must not replace what was there before.
        assert not await repo.save_overwrite(s, game, 5, 7, present=True, allow=0, deny=2048)
        assert await repo.save_overwrite(s, game, 5, 8, present=False, allow=0, deny=0)
    async with sessions.begin() as s:
        saved = await repo.saved_overwrites(s, game, 5)
        assert [(o.user_id, o.present, o.allow, o.deny) for o in saved] == [
            (7, True, 1024, 0),
            (8, False, 0, 0),
        ]
        await repo.forget_overwrite(s, saved[0].id)
    async with sessions() as s:
        assert [o.user_id for o in await repo.saved_overwrites(s, game)] == [8]
