from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db import repo
from db.models import Game, GuildSettings
from tests.db import queries

Sessions = async_sessionmaker[AsyncSession]
T0 = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)


async def new_game(
    sessions: Sessions,
    *,
    channel_id: int = 100,
    guild_id: int = 1,
    thread_id: int | None = None,
    options: dict[str, Any] | None = None,
) -> int:
    async with sessions.begin() as s:
        game = await repo.create_game(
            s,
            kind="poll",
            guild_id=guild_id,
            channel_id=channel_id,
            created_by=42,
            thread_id=thread_id,
            options=options,
            at=T0,
        )
        return game.id


# -- guild settings --------------------------------------------------------------------------


async def test_guild_settings_default_then_saved(sessions: Sessions) -> None:
    async with sessions.begin() as s:
        settings = await repo.get_guild_settings(s, 7)
        assert settings.language == "en"
        assert settings.moderator_role_id is None
        assert settings.game_defaults == {} and settings.defaults_for("poll") == {}
        assert await queries.count_rows(s, GuildSettings) == 0  # not saved by a read
        settings.language = "fr"
        settings.set_defaults_for("poll", {"vote_hours": 48})
        await repo.save_guild_settings(s, settings, at=T0)
    async with sessions.begin() as s:
        settings = await repo.get_guild_settings(s, 7)
        assert (settings.language, settings.defaults_for("poll")) == (
            "fr",
            {"vote_hours": 48},
        )
        assert settings.game_defaults == {"poll": {"vote_hours": 48}}
        assert settings.updated_at == T0
        settings.moderator_role_id = 2**62
        await repo.save_guild_settings(s, settings, at=T0 + timedelta(hours=1))
    async with sessions.begin() as s:
        settings = await repo.get_guild_settings(s, 7)
        assert settings.moderator_role_id == 2**62
        assert settings.updated_at == T0 + timedelta(hours=1)
        # the game's language is copied from the guild's at creation
        game = await repo.create_game(s, kind="quiz", guild_id=7, channel_id=5, created_by=1)
        assert game.lang == "fr"


# -- games -----------------------------------------------------------------------------------


async def test_create_game_and_find_it_in_its_channel(sessions: Sessions) -> None:
    big = 1_234_567_890_123_456_789  # Discord ids need 64 bits
    game_id = await new_game(sessions, channel_id=big, options={"vote_hours": 24})
    async with sessions.begin() as s:
        game = await repo.active_game_in_channel(s, big)
        assert game is not None and game.id == game_id
        assert (game.status, game.version, game.state, game.lang) == ("lobby", 0, None, "en")
        assert game.options == {"vote_hours": 24}
        assert game.created_at == T0 and game.created_at.tzinfo is not None
        assert await repo.active_game_in_channel(s, 999) is None


async def test_one_active_game_per_channel_or_thread(sessions: Sessions) -> None:
    first = await new_game(sessions, channel_id=100)
    with pytest.raises(repo.ChannelBusy) as info:
        await new_game(sessions, channel_id=100)
    assert info.value.game_id == first
    # a forum: one game per post, several posts in the same forum channel
    post_a = await new_game(sessions, channel_id=500, thread_id=501)
    post_b = await new_game(sessions, channel_id=500, thread_id=502)
    with pytest.raises(repo.ChannelBusy):
        await new_game(sessions, channel_id=500, thread_id=501)
    async with sessions.begin() as s:
        game_a = await repo.active_game_in_channel(s, 501)
        game_b = await repo.active_game_in_channel(s, 502)
        assert game_a is not None and game_a.id == post_a
        assert game_b is not None and game_b.id == post_b
        assert await repo.active_game_in_channel(s, 500) is None
        # once the game ends, the channel is free again
        game = await repo.get_game(s, first, for_update=True)
        assert game is not None
        await repo.set_status(s, game, "ended", at=T0 + timedelta(days=1))
        assert game.ended_at == T0 + timedelta(days=1)
    second = await new_game(sessions, channel_id=100)
    assert second != first


async def test_the_database_refuses_two_active_games_in_a_channel(sessions: Sessions) -> None:
    """Even when the repository's check is bypassed (a race): the partial unique index."""
    await new_game(sessions, channel_id=100)
    async with sessions.begin() as s:
        s.add(Game(kind="poll", guild_id=1, channel_id=100, created_by=1, created_at=T0))
        with pytest.raises(Exception, match=r"(?i)unique"):
            await s.flush()


async def test_concurrent_creations_in_one_channel_make_one_game(sessions: Sessions) -> None:
    async def attempt() -> int | None:
        try:
            return await new_game(sessions, channel_id=300)
        except repo.ChannelBusy:
            return None

    results = await asyncio.gather(*(attempt() for _ in range(8)))
    assert sum(r is not None for r in results) == 1
    async with sessions.begin() as s:
        assert len(await repo.running_games(s, statuses=("lobby",))) == 1


async def test_save_state_bumps_the_version_and_detects_stale_copies(sessions: Sessions) -> None:
    game_id = await new_game(sessions)
    async with sessions.begin() as s:
        game = await repo.get_game(s, game_id, for_update=True)
        assert game is not None
        assert await repo.save_state(s, game, {"phase": "debate"}) == 1
        assert game.version == 1
    async with sessions.begin() as s:
        stale = await repo.get_game(s, game_id)  # a copy at version 1
    assert stale is not None
    async with sessions.begin() as s:
        fresh = await repo.get_game(s, game_id, for_update=True)
        assert fresh is not None
        await repo.save_state(s, fresh, {"phase": "vote"})
    with pytest.raises(repo.StaleState):
        async with sessions.begin() as s:
            await repo.save_state(s, stale, {"phase": "lost update"})
    async with sessions.begin() as s:
        game = await repo.get_game(s, game_id)
        assert game is not None
        assert (game.version, game.state) == (2, {"phase": "vote"})


async def test_running_games_by_guild(sessions: Sessions) -> None:
    ids = [
        await new_game(sessions, channel_id=c, guild_id=g) for c, g in [(1, 10), (2, 20), (3, 10)]
    ]
    async with sessions.begin() as s:
        for game_id in ids[:2]:
            game = await repo.get_game(s, game_id)
            assert game is not None
            await repo.set_status(s, game, "running", at=T0)
            assert game.started_at == T0
    async with sessions.begin() as s:
        assert [g.id for g in await repo.running_games(s)] == ids[:2]
        assert [g.id for g in await repo.running_games(s, [10])] == ids[:1]
        assert await repo.running_games(s, []) == []


# -- players ---------------------------------------------------------------------------------


async def test_players(sessions: Sessions) -> None:
    game_id = await new_game(sessions)
    other_id = await new_game(sessions, channel_id=200)
    async with sessions.begin() as s:
        await repo.add_player(s, game_id, 11, "Bea", at=T0)
        await repo.add_player(s, game_id, 12, "Al", locale="fr", at=T0 + timedelta(seconds=1))
        await repo.add_player(s, game_id, 13, "Cy", at=T0 + timedelta(seconds=2))
        await repo.add_player(s, other_id, 11, "Bea", at=T0)
        assert [p.user_id for p in await repo.players(s, game_id)] == [11, 12, 13]
        p12 = await repo.player(s, game_id, 12)
        assert p12 is not None and (p12.locale, p12.active, p12.dm_failed) == ("fr", True, False)
        for seat, uid in enumerate([13, 11, 12]):
            player = await repo.player(s, game_id, uid)
            assert player is not None
            player.seat = seat
    async with sessions.begin() as s:
        assert [p.user_id for p in await repo.players(s, game_id)] == [13, 11, 12]
        assert await repo.remove_player(s, game_id, 13)
        assert not await repo.remove_player(s, game_id, 13)
        assert await repo.deactivate_player(s, game_id, 12)
        assert [p.user_id for p in await repo.players(s, game_id)] == [11]
        assert [p.user_id for p in await repo.players(s, game_id, active_only=False)] == [11, 12]
        assert [g.id for g in await repo.games_of_user(s, 11)] == [game_id, other_id]
        assert await repo.games_of_user(s, 12) == []
        # joining again reactivates the same row (unique per game and user)
        back = await repo.add_player(s, game_id, 12, "Al2", at=T0)
        assert back.active and back.display_name == "Al2" and back.seat == 2


# -- votes -----------------------------------------------------------------------------------


async def test_record_vote_is_an_upsert(sessions: Sessions) -> None:
    game_id = await new_game(sessions)
    async with sessions.begin() as s:
        assert await repo.record_vote(s, game_id, "p1", "team", 11, "accept", at=T0) == 1
        assert await repo.record_vote(s, game_id, "p1", "team", 11, "reject", at=T0) == 2
        assert await repo.record_vote(s, game_id, "p1", "team", 12, "accept") == 1
        assert await repo.record_vote(s, game_id, "p1", "mission", 11, "support") == 1
        assert await repo.record_vote(s, game_id, "p2", "team", 11, "accept") == 1
    async with sessions.begin() as s:
        assert await repo.votes_for(s, game_id, "p1", "team") == {11: "reject", 12: "accept"}
        assert await repo.votes_for(s, game_id, "p1", "mission") == {11: "support"}
        rows = await queries.vote_rows(s, game_id, "p1", "team")
        assert [(r.user_id, r.seq) for r in rows] == [(11, 2), (12, 1)]
        assert await repo.delete_votes(s, game_id, "p1") == 3
        assert await repo.votes_for(s, game_id, "p1", "team") == {}
        assert await repo.votes_for(s, game_id, "p2", "team") == {11: "accept"}


async def test_record_votes_many_at_once(sessions: Sessions) -> None:
    """Group commit's writes: one executemany UPSERT, the players' locales, the heads of the
    games, the votes of some players (what the answers to their clicks show)."""
    game_id = await new_game(sessions)
    other = await new_game(sessions, channel_id=101)
    async with sessions.begin() as s:
        for gid in (game_id, other):
            for uid in (11, 12):
                await repo.add_player(s, gid, uid, f"p{uid}", locale="en", at=T0)
        await repo.record_vote(s, game_id, "p1", "team", 11, "accept", at=T0)
    async with sessions.begin() as s:
        await repo.record_votes(
            s,
            [
                (game_id, "p1", "team", 11, "reject"),  # a change: seq 2
                (game_id, "p1", "mission", 11, "support"),
                (other, "p1", "team", 12, "accept"),
            ],
            at=T0 + timedelta(minutes=1),
        )
        await repo.record_votes(s, [])
        await repo.set_player_locales(s, [(game_id, 11, "fr"), (other, 12, "en")])
        await repo.add_deadline(
            s, game_id=game_id, guild_id=1, kind="rs_vote", due_at=T0 + timedelta(hours=2)
        )
        await repo.add_deadline(
            s, game_id=game_id, guild_id=1, kind="rs_vote", due_at=T0 + timedelta(hours=1)
        )
        await repo.add_deadline(s, game_id=other, guild_id=1, kind="rs_reminder", due_at=T0)
        heads = await repo.lock_games(s, [other, game_id, 999], "rs_vote")
        assert sorted(heads) == [game_id, other]
        assert heads[game_id].status == "lobby" and heads[game_id].version == 0
        assert heads[game_id].due_at == T0 + timedelta(hours=1)  # the earliest open one
        assert heads[other].due_at is None  # no open deadline of that kind
        assert await repo.game_states(s, [game_id]) == {game_id: None}
        mine, locales = await repo.ballots_and_locales(s, [game_id, other], [11, 12])
    assert mine == {
        (game_id, "p1", "team", 11): "reject",
        (game_id, "p1", "mission", 11): "support",
        (other, "p1", "team", 12): "accept",
    }
    assert locales == {
        (game_id, 11): "fr",
        (game_id, 12): "en",
        (other, 11): "en",
        (other, 12): "en",
    }
    async with sessions.begin() as s:
        rows = await queries.vote_rows(s, game_id, "p1", "team")
        assert [(r.user_id, r.value, r.seq) for r in rows] == [(11, "reject", 2)]
        assert rows[0].updated_at == T0 + timedelta(minutes=1)
        locales = {(p.game_id, p.user_id): p.locale for p in await repo.players(s, game_id)}
        locales |= {(p.game_id, p.user_id): p.locale for p in await repo.players(s, other)}
    assert locales == {
        (game_id, 11): "fr",
        (game_id, 12): "en",
        (other, 11): "en",
        (other, 12): "en",
    }


async def test_50_concurrent_votes_by_10_players(sessions: Sessions) -> None:
    """50 clicks at once, each in its own transaction: one row per player, none lost, and the
    value on record is the one written last (the write that got the highest seq)."""
    game_id = await new_game(sessions)
    players = list(range(1000, 1010))

    async def click(i: int) -> tuple[int, str, int]:
        user_id, value = players[i % 10], f"choice-{i}"
        async with sessions.begin() as s:
            seq = await repo.record_vote(s, game_id, "p3", "team", user_id, value)
        return user_id, value, seq

    writes = await asyncio.gather(*(click(i) for i in range(50)))
    async with sessions.begin() as s:
        rows = await queries.vote_rows(s, game_id, "p3", "team")
    assert sorted(r.user_id for r in rows) == players  # exactly one row per player
    for row in rows:
        mine = [(seq, value) for uid, value, seq in writes if uid == row.user_id]
        assert sorted(seq for seq, _ in mine) == [1, 2, 3, 4, 5]  # every write counted once
        assert row.seq == 5
        assert row.value == max(mine)[1]  # the last write wins


# -- events ----------------------------------------------------------------------------------


async def test_events_in_order_and_private_ones(sessions: Sessions) -> None:
    game_id = await new_game(sessions)
    async with sessions.begin() as s:
        await repo.append_event(s, game_id, "start", {"players": 5}, at=T0)
        await repo.append_event(s, game_id, "role", {"role": "spy"}, private_to=11, at=T0)
        await repo.append_event(s, game_id, "role", {"role": "res"}, private_to=12, at=T0)
        await repo.append_event(s, game_id, "proposal", {"team": [11, 12]}, actor_id=11, at=T0)
    async with sessions.begin() as s:
        assert [e.kind for e in await repo.events(s, game_id)] == [
            "start",
            "role",
            "role",
            "proposal",
        ]
        public = await repo.events(s, game_id, public_only=True)
        assert [e.kind for e in public] == ["start", "proposal"]
        assert public[1].actor_id == 11 and public[1].payload == {"team": [11, 12]}
        mine = await repo.events(s, game_id, visible_to=11)
        assert [e.payload.get("role") for e in mine] == [None, "spy", None]
        assert [e.kind for e in await repo.events(s, game_id, kinds=["role"])] == ["role", "role"]


# -- messages --------------------------------------------------------------------------------


async def test_messages_upsert_per_purpose_and_user(sessions: Sessions) -> None:
    game_id = await new_game(sessions)
    async with sessions.begin() as s:
        await repo.set_message(s, game_id, "lobby", 100, 1)
        await repo.set_message(s, game_id, "lobby", 100, 2)  # replaces
        await repo.set_message(s, game_id, "vote_dm", 900, 3, user_id=11)
        await repo.set_message(s, game_id, "vote_dm", 901, 4, user_id=12)
        await repo.set_message(s, game_id, "vote_dm", 901, 5, user_id=12)
    async with sessions.begin() as s:
        lobby = await repo.get_message(s, game_id, "lobby")
        assert lobby is not None and (lobby.channel_id, lobby.message_id, lobby.user_id) == (
            100,
            2,
            0,
        )
        assert await repo.get_message(s, game_id, "leader_list") is None
        dms = await repo.messages_of(s, game_id, "vote_dm")
        assert [(m.user_id, m.message_id) for m in dms] == [(11, 3), (12, 5)]
        assert await repo.delete_message(s, game_id, "lobby")
        assert await repo.get_message(s, game_id, "lobby") is None


async def test_deleting_a_game_deletes_what_belongs_to_it(sessions: Sessions) -> None:
    from db.models import Event, Message, Player, Vote

    game_id = await new_game(sessions)
    async with sessions.begin() as s:
        await repo.add_player(s, game_id, 11, "Bea")
        await repo.record_vote(s, game_id, "p1", "team", 11, "accept")
        await repo.append_event(s, game_id, "start")
        await repo.set_message(s, game_id, "lobby", 1, 2)
        await repo.add_deadline(s, game_id=game_id, guild_id=1, kind="vote", due_at=T0)
    async with sessions.begin() as s:
        assert await queries.delete_game(s, game_id)
    async with sessions.begin() as s:
        for model in (Player, Vote, Event, Message):
            assert await queries.count_rows(s, model) == 0
        assert await repo.open_deadlines(s) == []


@pytest.mark.parametrize("end", ["ended", "cancelled"])
async def test_an_end_drops_the_games_own_bot_state_keys_only(sessions: Sessions, end: str) -> None:
    game_id = await new_game(sessions)
    other = await new_game(sessions, channel_id=101)
    kept = [
        f"poll:team:{other}",
        f"poll:team:1{game_id}",  # another game whose id ends with this one's
        f"quiz:team:{game_id}",  # another kind's game of the same id
        "commands:sync",
    ]
    async with sessions.begin() as s:
        for key in [f"poll:team:{game_id}", f"poll:menu:{game_id}", *kept]:
            await repo.set_bot_state(s, key, "x", at=T0)
        game = await s.get(Game, game_id)
        assert game is not None
        await repo.set_status(s, game, end, at=T0)
    async with sessions.begin() as s:
        assert await repo.get_bot_state(s, f"poll:team:{game_id}") is None
        assert await repo.get_bot_state(s, f"poll:menu:{game_id}") is None
        for key in kept:
            assert await repo.get_bot_state(s, key) == "x", key


async def test_concurrent_saves_never_lose_an_update(sessions: Sessions) -> None:
    """Ten actions load the game and save at once: each save either lands on its own version
    or raises StaleState (PostgreSQL; SQLite serializes the transactions instead)."""
    game_id = await new_game(sessions)

    async def act(i: int) -> int | None:
        try:
            async with sessions.begin() as s:
                game = await repo.get_game(s, game_id)
                assert game is not None
                await asyncio.sleep(0.01)
                return await repo.save_state(s, game, {"by": i})
        except repo.StaleState:
            return None

    results = await asyncio.gather(*(act(i) for i in range(10)))
    landed = sorted(v for v in results if v is not None)
    assert landed == list(range(1, len(landed) + 1))
    async with sessions.begin() as s:
        game = await repo.get_game(s, game_id)
        assert game is not None and game.version == len(landed)
        assert game.state is not None and results[game.state["by"]] == game.version


async def test_player_locale_follows_the_client(sessions: Sessions) -> None:
    async with sessions.begin() as s:
        game = await repo.create_game(s, kind="poll", guild_id=1, channel_id=2, created_by=3)
        await repo.add_player(s, game.id, 10, "Zoé", locale="en")
        game_id = game.id
    async with sessions.begin() as s:
        assert await repo.set_player_locale(s, game_id, 10, "fr")
        assert not await repo.set_player_locale(s, game_id, 10, "fr")  # already French
    async with sessions() as s:
        player = await repo.player(s, game_id, 10)
        assert player is not None and player.locale == "fr"
