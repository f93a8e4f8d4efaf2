"""The rest of /resistance: join and leave by command, add/remove, role, status, history,
leader timeouts, moderators who see roles, cancel."""

from __future__ import annotations

import re
from typing import Any

import pytest

from db import repo
from games.resistance.players import Game
from playtest.players import text_of, until

pytestmark = pytest.mark.timeout(120)


async def test_lobby_by_commands_and_live_count(table: Any, bot: Any) -> None:
    game = Game(table, table.users[:5])
    await game.slash(table.mod, "resistance new")
    lobby = await until(
        lambda: next((m for m in table.sb.channel_messages(table.channel) if m.labels), None)
    )
    assert await game.slash(table.users[0], "resistance join") == "You are in, alice!"
    assert "already signed up" in await game.slash(table.users[0], "resistance join")
    await until(lambda: "Players (1," in text_of(table.sb.message(lobby.id)), what="live count")
    assert "no longer" not in await game.slash(table.users[0], "resistance leave")
    await until(lambda: "Players (0," in text_of(table.sb.message(lobby.id)), what="live count")
    assert "Only moderators" in await game.slash(
        table.users[1], "resistance add", user=table.users[2]
    )
    for user in table.users[:5]:
        assert "signed up" in await game.slash(table.mod, "resistance add", user=user)
    assert "no longer" in await game.slash(table.mod, "resistance remove", user=table.users[4])
    await until(lambda: "Players (4," in text_of(table.sb.message(lobby.id)), what="live count")
    assert "there are 4" in await game.slash(table.mod, "resistance start")


async def test_role_status_history_and_cancel(table: Any, bot: Any) -> None:
    game = Game(table, table.users[:5])
    await game.open()
    await game.start()
    english = [u for u in game.players if u.locale == "en-US"]
    for user in english:
        role = await game.slash(user, "resistance role")
        assert ("Spy" in role) == (game.roles[user.id] == "spy")
        if "Spy" in role:
            others = [s.name for s in game.spies() if s is not user]
            assert all(name in role for name in others)
    outsider = table.users[9]
    assert "aren't a player" in await game.slash(outsider, "resistance role")
    status = await game.slash(outsider, "resistance status")
    assert "debate" in status and game.leader().name in status
    await game.round(game.resistance()[:2], accepted=False)
    history = await game.slash(outsider, "resistance history")
    assert "Proposal 1" in history and "rejected" in history
    assert "Only moderators" in await game.slash(english[0], "resistance cancel")
    assert "cancelled" in await game.slash(table.mod, "resistance cancel")
    end = await game.new_public(0, "cancelled by a moderator")
    assert all(u.name in end for u in game.players)  # roles revealed
    async with bot.sessions() as s:
        assert await repo.active_game_in_channel(s, table.channel.id) is None
    # The channel is free again.
    since = len(table.sb.channel_messages(table.channel))
    assert "open" in await game.slash(table.mod, "resistance new")
    await until(lambda: any(m.labels for m in table.sb.channel_messages(table.channel)[since:]))
    (record,) = [m for m in table.sb.channel_messages(table.channel) if m.attachments]
    assert [n.rsplit(".", 1)[1] for n in record.filenames] == ["png", "md"]  # matrix, record


async def test_a_leader_who_does_not_propose_in_time_is_skipped(table: Any, bot: Any) -> None:
    game = Game(table, table.users[:5])
    await game.open(leader_hours=2 / 3600)
    await game.start()
    first = game.leader()
    skipped = await game.new_public(0, "did not propose a team in time", timeout=15)
    assert first.name in skipped
    await until(lambda: game.leader() is not first, what="the next leader in bold")
    assert "rejected teams 1/5" in text_of(table.sb.pins(table.channel)[-1])


async def test_moderators_see_roles_only_when_allowed(table: Any, bot: Any) -> None:
    game = Game(table, table.users[:5])
    await game.slash(table.mod, "settings resistance", moderators_see_roles=True)
    await game.open()
    await game.start()
    reply = await game.slash(table.mod, "resistance role")
    assert all(s.name in reply for s in game.spies())
    await game.slash(table.mod, "resistance cancel")
    await game.slash(table.mod, "settings resistance", moderators_see_roles=False)
    await game.open()
    await game.start()
    assert "aren't a player" in await game.slash(table.mod, "resistance role")


async def test_dms_follow_the_language_a_player_clicks_with(table: Any, bot: Any) -> None:
    game = Game(table, table.users[:5])
    await game.slash(table.mod, "resistance new")
    for user in game.players:
        await game.slash(table.mod, "resistance add", user=user)
    await game.start()
    chloe = next(u for u in game.players if u.locale == "fr")
    # Signed up by a moderator: DMs in the guild's language until she acts herself.
    assert "You are" in (game.role_dm(chloe) or "")
    leader = game.leader()
    await game.propose([leader, next(u for u in game.players if u is not leader)])
    assert "Pour" in await game.click(chloe, "accept")  # her client is French
    await game.resolve()
    leader = game.leader()
    await game.propose([leader, next(u for u in game.players if u is not leader)])
    assert "Pour" in game.vote_dm(chloe).labels


async def test_status_gives_the_leaders_deadline_during_the_debate(table: Any, bot: Any) -> None:
    """With ``leader_hours`` the debate has a deadline (the leader is skipped at it): everyone
    reads it in /resistance status, as a Discord timestamp."""
    game = Game(table, table.users[:5])
    await game.open(leader_hours=3.0)
    await game.start()
    status = await game.slash(table.users[0], "resistance status")
    assert "Phase: debate" in status
    assert re.search(r"^Deadline: <t:\d+:F> \(<t:\d+:R>\)$", status, re.M), status
    # Without leader_hours the debate has no deadline, and status gives none.
    await game.slash(table.mod, "resistance cancel")
    await game.open()
    await game.start()
    assert "Deadline" not in await game.slash(table.users[0], "resistance status")


async def test_remind_with_nothing_open_says_so_not_that_nothing_can_be_closed(
    table: Any, bot: Any
) -> None:
    """During the debate nobody owes a vote: /resistance remind says there is no one to remind
    (it used to answer resolve's "no team vote to close"), and DMs nobody."""
    game = Game(table, table.users[:5])
    await game.open()
    await game.start()
    dms = {u.id: len(table.sb.dms(u)) for u in game.players}
    reply = await game.slash(table.mod, "resistance remind")
    assert reply == "No vote or private choice is waiting right now: there is no one to remind."
    assert {u.id: len(table.sb.dms(u)) for u in game.players} == dms


async def test_history_before_the_first_proposal_says_there_is_none(table: Any, bot: Any) -> None:
    game = Game(table, table.users[:5])
    await game.open()
    await game.start()
    history = await game.slash(table.users[0], "resistance history")
    assert history.splitlines() == ["📚 **History of the game**", "No proposal yet."]


async def test_extend_during_the_debate_speaks_of_the_leader_not_of_a_vote(
    table: Any, bot: Any
) -> None:
    """With ``leader_hours`` a moderator may extend the leader's deadline: the channel reads
    that the leader has longer to propose (it read "the vote now closes", with no vote open)."""
    game = Game(table, table.users[:5])
    await game.open(leader_hours=3.0)
    await game.start()
    since = len(game.public())
    assert "Deadline moved to" in await game.slash(table.mod, "resistance extend", hours=1.0)
    notice = await game.new_public(since, "extended the deadline")
    assert re.fullmatch(
        r"⏳ A moderator extended the deadline: the leader now has until <t:\d+:F> \(<t:\d+:R>\)"
        r" to propose a team\.",
        notice,
    ), notice
