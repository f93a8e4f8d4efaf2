"""The core's vote path (bot/ballots.py's BallotBox) on the test-only poll game: a batch of
ballots checked one by one by the game's rules, each refusal its own, the accepted ones written
together and answered with what is on record; the round closed early on its last ballot; the
click's own time against the deadline; each state parsed once per saved version; the read-ahead
at start; and the direct path, on rules that do not close early."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from bot import i18n
from bot.ballots import BallotBox
from bot.errors import UserError
from bot.plugins import Registry
from bot.service import Actor, Outcome
from db import repo
from db.direct import PostgresVotes, SqliteVotes
from rulebase import GameError
from rulebase import Player as EnginePlayer
from tests.bot.services import TakenLocks, quiet_services
from tests.clock import FakeClock
from tests.e2e.poll_game.plugin import PLUGIN
from tests.e2e.poll_game.rules import Poll
from tests.e2e.poll_game.service import ANSWER, ROUND, VOTE, Answer, Answers, PollService

NOW = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)
AT = NOW + timedelta(minutes=1)
DUE = NOW + timedelta(hours=1)
PLAYERS = (11, 12, 13)


class NoEarlyClose(Answers):
    """The poll's rules, its round never closed early: its batches may go direct."""

    def closes_early(self, head: Any) -> bool:
        return False


async def a_poll(sessions: Any, status: str = "running") -> int:
    """A poll of PLAYERS asking "Tea or coffee?", its answers due at DUE."""
    async with sessions.begin() as s:
        game = await repo.create_game(
            s,
            kind="poll",
            guild_id=1,
            channel_id=2,
            created_by=3,
            options={"question": "?", "first": "Tea", "second": "Coffee"},
            at=NOW,
        )
        for uid in PLAYERS:
            await repo.add_player(s, game.id, uid, f"p{uid}", at=NOW)
        if status != "lobby":
            state, _ = Poll.setup([EnginePlayer(uid, f"p{uid}") for uid in PLAYERS])
            await repo.set_status(s, game, status, at=NOW)
            await repo.save_state(s, game, state.to_dict())
            await repo.add_deadline(s, game_id=game.id, guild_id=1, kind=VOTE, due_at=DUE)
        return game.id


@pytest.fixture(autouse=True)
def poll_catalogue() -> Iterator[None]:
    """The poll's catalogue, registered for these tests only (the core's catalogue tests
    check every loaded message: the poll's test-only one is not theirs)."""
    before = dict(i18n._PLUGIN_LOCALES)
    yield
    i18n._PLUGIN_LOCALES.clear()
    i18n._PLUGIN_LOCALES.update(before)
    i18n.catalogue.cache_clear()


def service(sessions: Any, clock: FakeClock | None = None) -> PollService:
    """The poll's service, the poll registered (its catalogue)."""
    app = quiet_services(sessions, clock or FakeClock(NOW))
    app.registry = Registry([PLUGIN])
    return PollService(app)


def answer(uid: int, game_id: int, choice: str, lang: str = "en", at: datetime = AT) -> Answer:
    return Answer(Actor(uid, f"p{uid}", lang, at=at), game_id, choice)  # type: ignore[arg-type]


def key(result: Outcome | BaseException) -> str:
    assert isinstance(result, UserError | GameError), result
    return result.key


async def on_record(sessions: Any, game_id: int) -> dict[int, str]:
    async with sessions() as s:
        return await repo.votes_for(s, game_id, ROUND, ANSWER)


async def test_a_batch_refuses_only_its_bad_ballots_and_closes_on_its_last(
    sessions: Any,
) -> None:
    game_id = await a_poll(sessions)
    poll = service(sessions)
    try:
        results = await poll.ballot_box.record(
            [
                answer(11, game_id, "first"),
                answer(99, game_id, "first"),  # not a player
                answer(12, game_id, "third"),  # not a choice
                answer(11, game_id, "second"),  # changed in the same batch
                answer(12, game_id, "first"),
                answer(13, game_id, "second"),  # the last one in: the poll closes
            ]
        )
        assert key(results[1]) == "poll.error.not_a_player"
        assert key(results[2]) == "poll.error.bad_choice"
        replies = [r for r in results if isinstance(r, Outcome)]
        assert [r.reply for r in replies] == [
            "Your answer is on record: **Tea**.",
            "Your answer is changed: **Coffee**.",
            "Your answer is on record: **Tea**.",
            "Your answer is on record: **Coffee**.",
        ]
        assert [len(r.effects) for r in replies] == [0, 0, 0, 1]  # the close, once
        assert await on_record(sessions, game_id) == {11: "second", 12: "first", 13: "second"}
        again = await poll.ballot_box.record([answer(12, game_id, "second")])
        assert isinstance(again[0], Outcome)
        assert again[0].reply == "Your answer is changed: **Coffee**."
    finally:
        await poll.shutdown()


async def test_a_ballot_at_its_deadline_is_too_late_by_the_click_time(sessions: Any) -> None:
    game_id = await a_poll(sessions)
    clock = FakeClock(NOW)
    poll = service(sessions, clock)
    clock.advance(hours=30)  # the service's clock past it: the click's own time counts
    try:
        late, early = await poll.ballot_box.record(
            [
                answer(11, game_id, "first", at=DUE),
                answer(12, game_id, "first", at=DUE - timedelta(milliseconds=1)),
            ]
        )
        assert key(late) == "common.error.too_late"
        assert isinstance(early, Outcome)
        assert await on_record(sessions, game_id) == {12: "first"}
    finally:
        await poll.shutdown()


@pytest.mark.parametrize(
    ("status", "refusal"),
    [("lobby", "common.error.not_started"), ("ended", "poll.error.closed")],
)
async def test_a_game_not_running_refuses_as_its_rules_say(
    sessions: Any, status: str, refusal: str
) -> None:
    game_id = await a_poll(sessions, status)
    poll = service(sessions)
    try:
        mine, none = await poll.ballot_box.record(
            [answer(11, game_id, "first"), answer(11, game_id + 1, "first")]
        )
        assert (key(mine), key(none)) == (refusal, "common.error.no_game")
        assert await on_record(sessions, game_id) == {}
    finally:
        await poll.shutdown()


async def test_a_state_is_parsed_once_per_saved_version(sessions: Any) -> None:
    game_id = await a_poll(sessions)
    poll = service(sessions)
    box = poll.ballot_box
    try:
        await poll.vote(Actor(11, "p", "en", at=AT), game_id, "first")
        async with sessions() as s:
            head = (await repo.lock_games(s, [game_id], VOTE))[game_id]
        assert box.cached(game_id, head) is not None
        async with sessions.begin() as s:  # the poll closes meanwhile: a new saved version
            game = await repo.get_game(s, game_id)
            assert game is not None
            state = poll.load(game)
            state.close()
            await repo.save_state(s, game, state.to_dict())
        async with sessions() as s:
            changed = (await repo.lock_games(s, [game_id], VOTE))[game_id]
        assert box.cached(game_id, changed) is None
        with pytest.raises(GameError) as refused:  # checked against the new state
            await poll.vote(Actor(12, "p", "en", at=AT), game_id, "first")
        assert refused.value.key == "poll.error.closed"
    finally:
        await poll.shutdown()


async def test_a_ballot_sets_its_players_locale(sessions: Any) -> None:
    game_id = await a_poll(sessions)
    poll = service(sessions)
    try:
        reply = await poll.vote(Actor(11, "p", "fr", at=AT), game_id, "second")
        assert "Coffee" in reply
        async with sessions() as s:
            player = await repo.player(s, game_id, 11)
        assert player is not None and player.locale == "fr"
    finally:
        await poll.shutdown()


async def test_the_direct_path_reads_ahead_and_writes_at_once(sessions: Any) -> None:
    """Rules that never close early: the games waiting for ballots are read ahead at start,
    and a batch goes straight through the driver (on SQLite at once, no game lock taken)."""
    game_id = await a_poll(sessions)
    poll = service(sessions)
    poll.app.locks = locks = TakenLocks()
    box = BallotBox(poll.app, NoEarlyClose(poll), poll.actions.transaction)
    try:
        await box.warm()
        async with sessions() as s:
            head = (await repo.lock_games(s, [game_id], VOTE))[game_id]
        assert box.cached(game_id, head) is not None
        direct = box.direct_votes()
        assert isinstance(direct, SqliteVotes | PostgresVotes)
        results = await asyncio.gather(
            *(box.submit(answer(uid, game_id, "first")) for uid in PLAYERS)
        )
        assert [r.reply for r in results] == ["Your answer is on record: **Tea**."] * 3
        assert all(r.effects == [] for r in results)  # not closed early
        if isinstance(direct, SqliteVotes):
            assert locks.taken == []  # written at once
        assert await on_record(sessions, game_id) == dict.fromkeys(PLAYERS, "first")
    finally:
        await box.shutdown()
