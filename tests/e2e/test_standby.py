"""The replacement list, through the sandbox with the real bot and SQLite: members volunteer with
``/<game> standby``; a player who lets ``replace_after`` deadlines pass in a row has their seat
offered to the first volunteer by DM (Accept / Decline, a deadline of its own); on Accept the
seat, its role and its place pass as ``substitute`` does. Nothing secret reaches a volunteer
before they accept."""

from __future__ import annotations

from datetime import timedelta
from functools import partial
from typing import Any

import pytest

from bot.i18n import t
from db import repo
from games.resistance.players import RESULT_MARKERS, Game
from playtest.players import text_of, until
from tests.clock import FakeClock
from tests.harness import running_bot

pytestmark = pytest.mark.timeout(120)


def offer_dm(table: Any, user: Any, since: int = 0) -> Any:
    """The volunteer's latest DM offering a seat (its two buttons)."""
    for message in reversed(table.sb.dms(user)[since:]):
        if any(str(c.get("custom_id", "")).startswith("standby:") for c in message.all_components):
            return message
    return None


async def answer(table: Any, user: Any, message: Any, yes: bool) -> str:
    custom_id = next(
        str(c["custom_id"])
        for c in message.all_components
        if str(c.get("custom_id", "")).endswith(":yes" if yes else ":no")
    )
    ix = await table.sb.click(user, message, custom_id=custom_id)
    reply = await ix.reply_message(10.0)
    return text_of(reply) if reply is not None else ""


async def miss_a_vote(game: Game, absent: Any) -> str:
    """A round whose vote everyone but ``absent`` answers, closed by the moderator."""
    team = [u for u in game.players if u is not absent][:2]
    await game.propose(team)
    others = [u for u in game.players if u is not absent]
    await game.vote(accept=others, support=[u for u in team if u in others])
    return await game.resolve()


def dealt(game: Game, user: Any) -> bool:
    return any("You are" in text_of(m) or "Vous êtes" in text_of(m) for m in game.sb.dms(user))


async def test_an_absent_player_is_replaced_from_the_list_after_two_missed_votes(
    table: Any, bot: Any
) -> None:
    players, volunteer = table.users[:5], table.users[7]
    game = Game(table, players)
    await game.open(replace_after=2, reminder_hours=0.0)
    joined = await game.slash(volunteer, "resistance standby")
    assert joined == t("common.standby.joined", "en", position=1)
    assert "Replacement list (1): hana" in (await game.slash(table.mod, "resistance status"))
    await game.start()
    absent = next(u for u in players if u is not game.leader())
    assert await game.slash(absent, "resistance standby") == t("common.standby.playing", "en")
    await miss_a_vote(game, absent)
    assert offer_dm(table, volunteer) is None  # one missed deadline: not yet
    await miss_a_vote(game, absent)
    offer = await until(partial(offer_dm, table, volunteer), what="the offer")
    # Nothing secret before the answer: the offer names the seat, not its role.
    assert absent.name in text_of(offer) and "Spy" not in text_of(offer)
    assert not dealt(game, volunteer)
    since = len(game.public())
    reply = await answer(table, volunteer, offer, yes=True)
    assert volunteer.name in reply and absent.name in reply
    await until(partial(dealt, game, volunteer), what="the volunteer's role DM")
    announced = await game.new_public(since, volunteer.name)
    assert (
        absent.name in announced and "Spy" not in announced and "Resistance member" not in announced
    )
    # The game goes on with the volunteer in the seat, and the list is empty again.
    game.players = [volunteer if u is absent else u for u in players]
    game.by_name[volunteer.name] = volunteer
    status = await game.slash(table.mod, "resistance status")
    assert "Replacement list" not in status
    async with bot.sessions() as s:
        row = await repo.active_game_in_channel(s, table.channel.id)
        assert row is not None
        active = {p.user_id for p in await repo.players(s, row.id)}
    assert volunteer.id in active and absent.id not in active
    # The offer cannot be taken twice.
    assert await answer(table, volunteer, offer, yes=True) == t("common.standby.stale", "en")
    result = await game.round(game.players[: game.team_size(3)])
    assert any(m in result for m in RESULT_MARKERS)


async def offered_to_the_first_of_two(table: Any, game: Game, first: Any, second: Any) -> Any:
    """A game with ``replace_after = 1`` and two volunteers, ``first`` then ``second``: a
    player misses a vote and the seat is offered to ``first``. The offer."""
    await game.open(replace_after=1, reminder_hours=0.0)
    await game.slash(first, "resistance standby")
    await game.slash(second, "resistance standby")
    await game.start()
    absent = next(u for u in game.players if u is not game.leader())
    await miss_a_vote(game, absent)
    offer = await until(partial(offer_dm, table, first), what="the first volunteer's offer")
    return offer


async def test_a_decline_passes_the_seat_to_the_next_volunteer(table: Any, bot: Any) -> None:
    players, first, second = table.users[:5], table.users[7], table.users[8]
    game = Game(table, players)
    offer = await offered_to_the_first_of_two(table, game, first, second)
    assert offer_dm(table, second) is None
    assert await answer(table, first, offer, yes=False) == t("common.standby.declined", "en")
    await until(partial(offer_dm, table, second), what="the second volunteer's offer")
    assert not dealt(game, first)


async def test_with_an_empty_list_a_missed_deadline_changes_nothing(table: Any, bot: Any) -> None:
    players = table.users[:5]
    game = Game(table, players)
    await game.open(replace_after=1, reminder_hours=0.0)
    await game.start()
    absent = next(u for u in players if u is not game.leader())
    dms = {u.id: len(table.sb.dms(u)) for u in table.users}
    since = len(game.public())
    await miss_a_vote(game, absent)
    assert not [x for x in game.public()[since:] if "takes" in x or "seat" in x.lower()]
    async with bot.sessions() as s:
        row = await repo.active_game_in_channel(s, table.channel.id)
        assert row is not None
        seated = {p.user_id for p in await repo.players(s, row.id)}
        missed = {p.user_id: p.missed for p in await repo.players(s, row.id)}
    assert seated == {u.id for u in players} and missed[absent.id] == 1
    assert all(n == 0 for uid, n in missed.items() if uid != absent.id)
    outsiders = [u for u in table.users if u not in players]
    assert all(len(table.sb.dms(u)) == dms[u.id] for u in outsiders)


async def test_an_unanswered_offer_goes_to_the_next_volunteer_at_its_deadline(
    table: Any,
) -> None:
    clock = FakeClock()
    players, first, second = table.users[:5], table.users[7], table.users[8]
    async with running_bot(table.sb, table.url(), clock=clock) as bot:
        game = Game(table, players)
        offer = await offered_to_the_first_of_two(table, game, first, second)
        clock.advance(timedelta(hours=25))
        await bot.scheduler.sweep()
        await until(partial(offer_dm, table, second), what="the second offer")
        # Too late for the first one.
        assert await answer(table, first, offer, yes=True) == t("common.standby.stale", "en")


async def test_substitute_takes_a_volunteer_by_autocomplete(table: Any, bot: Any) -> None:
    players, volunteer = table.users[:5], table.users[7]
    game = Game(table, players)
    await game.open()
    await game.slash(volunteer, "resistance standby")
    await game.start()
    choices = await table.sb.autocomplete(
        table.mod,
        "resistance substitute",
        channel=table.channel,
        focused="volunteer",
        old=players[1],
        volunteer="",
    )
    assert [c["name"] for c in choices] == [volunteer.name]
    reply = await game.slash(
        table.mod, "resistance substitute", old=players[1], volunteer=choices[0]["value"]
    )
    assert volunteer.name in reply
    await until(partial(dealt, game, volunteer), what="the volunteer's role DM")
    both = await game.slash(table.mod, "resistance substitute", old=players[2])
    assert both == t("common.standby.new_or_volunteer", "en")
    assert "Replacement list" not in await game.slash(table.mod, "resistance status")


async def test_the_refutation_game_replaces_a_player_who_lets_the_secret_choice_pass(
    table: Any, bot: Any
) -> None:
    """The same list in the other game: a player who does not choose (nor pass) before the
    secret choice closes has missed it; with ``replace_after = 1`` the volunteer is offered the
    seat, and on Accept gets the hand by DM (never shown before)."""
    from games.refutation.players import RfGame

    players, volunteer = table.users[:3], table.users[7]
    game = RfGame(table, players)
    await game.open(replace_after=1)
    await game.slash(volunteer, "refutation standby")
    await game.start()
    _, refuter, _ = await game.watch_then_refute()
    absent = next(u for u in players if u is not refuter)
    for user in players:
        if user is not absent:
            await game.choose(user, "pass")
    await game.slash(table.mod, "refutation resolve")
    offer = await until(partial(offer_dm, table, volunteer), what="the offer")
    assert not any("Your hand" in text_of(m) for m in table.sb.dms(volunteer))
    await answer(table, volunteer, offer, yes=True)
    await until(
        lambda: any("Your hand" in text_of(m) for m in table.sb.dms(volunteer)),
        what="the volunteer's hand",
    )
    status = await game.slash(table.mod, "refutation status")
    assert volunteer.name in status or "hana" in status.lower()


async def test_a_turn_not_taken_counts_as_a_missed_deadline(table: Any) -> None:
    """The Refutation Game's turn deadline (turn_hours): an active player who lets their turn
    pass has missed it; with ``replace_after = 1`` the volunteer is offered the seat."""
    from games.refutation.players import RfGame

    clock = FakeClock()
    players, volunteer = table.users[:3], table.users[7]
    async with running_bot(table.sb, table.url(), clock=clock) as bot:
        game = RfGame(table, players)
        await game.open(replace_after=1, turn_hours=2.0, reminder_hours=0.0)
        await game.slash(volunteer, "refutation standby")
        await game.start()
        _, absent = game.turn()
        clock.advance(timedelta(hours=3))
        await bot.scheduler.sweep()
        offer = await until(partial(offer_dm, table, volunteer), what="the offer")
        assert absent.name in text_of(offer)
