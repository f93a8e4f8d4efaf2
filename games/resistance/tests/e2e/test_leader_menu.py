"""The leader proposes from a menu: the call DM (and ``/resistance propose`` alone, privately)
carries a select of the players, exactly the mission's size to pick, then a Propose button.
The pick is kept server-side (``bot_state``, by the core's pick: bot/choice.py), so the button
reads it, in another process too; the proposal is checked as the command's is, in its
transaction. A DM of earlier versions (``rs:team:``, ``rs:propose:``) works on the same pick."""

from __future__ import annotations

import json
from functools import partial
from typing import Any

import pytest

from cogs.interaction import service_of
from db import repo
from games.resistance.components import team_view
from games.resistance.players import TEAM_SELECTS, Game
from games.resistance.service import ResistanceService
from games.resistance.tests.e2e.test_resistance_flow import snapshot
from games.resistance.tests.e2e.test_team_tables import started
from playtest.players import text_of, until
from tests.harness import running_bot

pytestmark = pytest.mark.timeout(120)


async def game_id(bot: Any, table: Any) -> int:
    async with bot.sessions() as s:
        game = await repo.active_game_in_channel(s, table.channel.id)
        assert game is not None
        return game.id


def the_select(message: Any) -> dict[str, Any]:
    (select,) = [s for s in message.selects if str(s["custom_id"]).startswith(TEAM_SELECTS)]
    return dict(select)


def pick_key(bot: Any, game_id: int, user: Any) -> str:
    """Where the core keeps the team ``user`` picked in the menu (bot/choice.py)."""
    return service_of(bot, ResistanceService).leader_menu.pick.key(game_id, user.id)


def has_vote_dm(game: Game, user: Any, since: int) -> bool:
    return any(m.labels and "Accept" in m.labels for m in game.sb.dms(user)[since:])


async def all_asked(game: Game, before: dict[int, int]) -> None:
    for user in game.players:
        await until(partial(has_vote_dm, game, user, before[user.id]), what=f"{user.name}'s vote")


async def test_the_leader_proposes_from_the_menu_of_the_call_dm(table: Any, bot: Any) -> None:
    sb = table.sb
    game = await started(table)
    leader = game.leader()
    others = [u for u in game.players if u is not leader]
    menu = await game.wait_team_menu(leader)
    # A select of every player, exactly the mission's size (2 at 5 players), then Propose.
    select = the_select(menu)
    assert select["min_values"] == select["max_values"] == 2
    assert sorted(o["label"] for o in select["options"]) == sorted(u.name for u in game.players)
    assert {o["value"] for o in select["options"]} == {str(u.id) for u in game.players}
    assert len(select["custom_id"]) <= 100 and "Propose" in menu.labels
    text = text_of(menu)
    assert "team of 2" in text and "Team sizes: 2-2-3-3-3 (the forum adaptation's table)" in text
    before = await snapshot(bot, table.channel.id)

    # Someone else using the leader's menu (a forwarded DM): refused privately, nothing kept.
    where = sb.dm_channel(others[0])
    reply = await game.pick_team(others[0], menu, [others[0], others[1]], channel=where)
    assert "Only the Leader" in reply, reply
    reply = await game.press_propose(others[0], menu, channel=where)
    assert "Only the Leader" in reply, reply
    # Propose before any pick.
    assert "Choose the team in the menu first" in await game.press_propose(leader, menu)
    number = await game_id(bot, table)
    async with bot.sessions() as s:
        for user in (leader, others[0]):
            assert await repo.get_bot_state(s, pick_key(bot, number, user)) is None
    assert await snapshot(bot, table.channel.id) == before

    # The pick: the message shows the team chosen (the menu too), the state is unchanged.
    reply = await game.pick_team(leader, menu, [leader, others[1]])
    assert "Chosen: " in reply and f"**{others[1].name}**" in reply, reply
    updated = sb.messages[menu.id]
    assert text_of(updated) == reply and "It is your turn" in reply
    picked = {o["value"] for o in the_select(updated)["options"] if o.get("default")}
    assert picked == {str(leader.id), str(others[1].id)}
    assert await snapshot(bot, table.channel.id) == before
    # A pick of the wrong size cannot be sent by Discord's client; one on record is refused
    # all the same, by the rules the command follows.
    async with bot.sessions.begin() as s:
        raw = await repo.get_bot_state(s, pick_key(bot, number, leader))
        assert raw is not None
        pick = json.loads(raw)
        pick["values"] = [str(leader.id), str(others[1].id), str(others[2].id)]
        await repo.set_bot_state(s, pick_key(bot, number, leader), json.dumps(pick))
    reply = await game.press_propose(leader, menu)
    assert "exactly 2 players, not 3" in reply, reply
    assert await snapshot(bot, table.channel.id) == before

    # The good one: proposed exactly as the command proposes, every vote DM sent.
    await game.pick_team(leader, menu, [leader, others[1]])
    since = len(game.public())
    dms = {u.id: len(sb.dms(u)) for u in game.players}
    assert "Your team is proposed" in await game.press_propose(leader, menu)
    announced = await game.new_public(since, "proposes for mission 1")
    assert f"**{leader.name}**" in announced and f"**{others[1].name}**" in announced
    await all_asked(game, dms)
    async with bot.sessions() as s:
        row = await repo.active_game_in_channel(s, table.channel.id)
        assert row is not None and row.state is not None
        assert row.state["team"] == [leader.id, others[1].id]
        assert await repo.get_bot_state(s, pick_key(bot, number, leader)) is None  # used up
    # Pressed again, or picked again: that attempt is over.
    assert "earlier attempt" in await game.press_propose(leader, menu)
    assert "earlier attempt" in await game.pick_team(leader, menu, [leader, others[0]])

    # The team is rejected: the next leader's call has a menu of its own; the old one is stale.
    await game.vote(reject=game.players)
    await game.resolve()
    following = game.leader()
    fresh = await game.wait_team_menu(following)
    assert fresh.id != menu.id and the_select(fresh)["custom_id"] != the_select(menu)["custom_id"]
    assert "attempt 2/5" in text_of(fresh)
    before = await snapshot(bot, table.channel.id)
    where = sb.dm_channel(following)
    reply = await game.pick_team(following, menu, [following, leader], channel=where)
    assert "earlier attempt" in reply, reply
    assert "earlier attempt" in await game.press_propose(leader, menu)
    assert await snapshot(bot, table.channel.id) == before


async def test_propose_alone_opens_the_menu_privately(table: Any, bot: Any) -> None:
    sb = table.sb
    game = await started(table, 6)
    leader = game.leader()
    others = [u for u in game.players if u is not leader]
    outsider = next(u for u in table.users if u not in game.players and u.locale != "fr")
    # Not the leader, not a player: refused privately, with no menu.
    assert "Only the Leader" in await game.slash(others[0], "resistance propose")
    assert "aren't a player" in await game.slash(outsider, "resistance propose")
    # The leader: the call's text and the menu, privately in the channel.
    ix = await sb.slash(leader, "resistance propose", channel=table.channel)
    private = await ix.reply_message(10.0)
    assert private is not None and private.ephemeral
    assert the_select(private)["min_values"] == the_select(private)["max_values"] == 2
    assert "It is your turn" in text_of(private)
    reply = await game.pick_team(leader, private, others[:2])
    assert "Chosen: " in reply and text_of(sb.messages[private.id]) == reply
    # The pick is the game's, not the message's: the DM's button proposes it too.
    dms = {u.id: len(sb.dms(u)) for u in game.players}
    call = await game.wait_team_menu(leader)
    assert "Your team is proposed" in await game.press_propose(leader, call)
    await all_asked(game, dms)
    async with bot.sessions() as s:
        row = await repo.active_game_in_channel(s, table.channel.id)
        assert row is not None and row.state is not None
        assert row.state["team"] == [others[0].id, others[1].id]
    # Once proposed, the menu is refused; the command with players still works as it did.
    assert "earlier attempt" in await game.press_propose(leader, private)
    reply = await game.slash(game.leader(), "resistance propose", player1=others[0])
    assert "already proposed" in reply, reply


async def test_the_pick_survives_a_restart(table: Any, sb: Any) -> None:
    async with running_bot(sb, table.url()):
        game = await started(table)
        leader = game.leader()
        menu = await game.wait_team_menu(leader)
        team = [leader, next(u for u in game.players if u is not leader)]
        assert "Chosen: " in await game.pick_team(leader, menu, team)
    async with running_bot(sb, table.url()):  # another process: the pick is in the database
        dms = {u.id: len(sb.dms(u)) for u in game.players}
        assert "Your team is proposed" in await game.press_propose(leader, menu)
        await all_asked(game, dms)


async def test_a_substitute_leader_gets_the_call_and_its_menu(table: Any, bot: Any) -> None:
    game = await started(table)
    leader = game.leader()
    old = await game.wait_team_menu(leader)
    await game.pick_team(leader, old, [leader, next(u for u in game.players if u is not leader)])
    newcomer = next(u for u in table.users if u not in game.players and u.locale != "fr")
    since = len(table.sb.dms(newcomer))
    reply = await game.slash(table.mod, "resistance substitute", old=leader, new=newcomer)
    assert "now plays in place of" in reply, reply
    menu = await game.wait_team_menu(newcomer, since)
    assert str(newcomer.id) in {o["value"] for o in the_select(menu)["options"]}
    # The leaver's pick is not the newcomer's; the leaver's menu is no longer theirs to use.
    assert "Choose the team in the menu first" in await game.press_propose(newcomer, menu)
    assert "aren't a player" in await game.press_propose(leader, old)


def as_earlier_versions_sent(message: Any, game_id: int, proposal: int, attempt: int) -> None:
    """``message``'s menu with the custom_ids an earlier version gave it (``rs:team:``,
    ``rs:propose:``), as a DM sent before the upgrade has them."""
    for row in message.components:
        for item in row["components"]:
            old = "team" if item["type"] == 3 else "propose"
            item["custom_id"] = f"rs:{old}:{game_id}:{proposal}:{attempt}"


async def test_a_menu_of_an_earlier_version_picks_and_proposes(table: Any, bot: Any) -> None:
    sb = table.sb
    game = await started(table)
    leader = game.leader()
    menu = await game.wait_team_menu(leader)
    number = await game_id(bot, table)
    as_earlier_versions_sent(sb.messages[menu.id], number, 1, 1)
    menu = sb.messages[menu.id]
    assert the_select(menu)["custom_id"] == f"rs:team:{number}:1:1"
    team = [leader, next(u for u in game.players if u is not leader)]
    reply = await game.pick_team(leader, menu, team)
    assert "Chosen: " in reply and f"**{team[1].name}**" in reply, reply
    updated = sb.messages[menu.id]  # shown again as the core's pick now builds it
    assert the_select(updated)["custom_id"].startswith("choice:rs_team:")
    as_earlier_versions_sent(updated, number, 1, 1)
    dms = {u.id: len(sb.dms(u)) for u in game.players}
    assert "Your team is proposed" in await game.press_propose(leader, updated)
    await all_asked(game, dms)
    assert "earlier attempt" in await game.press_propose(leader, updated)


def test_an_outbox_row_of_an_earlier_version_builds_the_core_pick() -> None:
    """``View("rs_team", …)`` written before the upgrade: the core's pick of the same debate."""
    options = [["Alice", 11], ["Bob", 12], ["Chloé", 13]]
    view = team_view(7, 3, 2, 2, options, [12], "Pick 2", "Propose")
    select, button = view.to_components()
    (menu,) = select["components"]
    assert menu["custom_id"] == "choice:rs_team:7:32"
    assert menu["min_values"] == menu["max_values"] == 2
    assert [o["value"] for o in menu["options"] if o.get("default")] == ["12"]
    assert button["components"][0]["custom_id"] == "choice:rs_team:7:32:ok"
    assert button["components"][0]["label"] == "Propose"
