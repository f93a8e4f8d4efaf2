"""The team tables through the bot: The Resistance keeps the forum's table by default,
``team_table:box`` plays the published game's, Avalon always its own (the box's); the leader's
call and ``/resistance status`` show the table in force, at 5 and 6 players, where they differ."""

from __future__ import annotations

from functools import partial
from typing import Any

import pytest

from db import repo
from games.resistance.players import AvalonGame, Game
from games.resistance.rules import TEAM_SIZES, TeamTable
from playtest.players import text_of, until

pytestmark = pytest.mark.timeout(120)


def english(table: Any, n: int) -> list[Any]:
    """``n`` players whose client speaks English (the texts below are checked in English)."""
    return [u for u in table.users if u.locale != "fr"][:n]


async def started(table: Any, n: int = 5, **options: Any) -> Game:
    game = Game(table, english(table, n))
    await game.open(**options)
    await game.start()
    return game


def call_of(game: Game, leader: Any, mission: int) -> Any:
    """The leader's call DM (with its menu) for ``mission``, once it is there."""
    calls = [m for m in game.sb.dms(leader) if m.selects and f"mission {mission} " in text_of(m)]
    return calls[-1] if calls else None


async def play_and_check_sizes(game: Game, n: int, table_in_force: TeamTable, name: str) -> None:
    """Missions 1 to 3: each leader's call and the status show the table's size and name."""
    good = game.resistance()
    for mission in (1, 2, 3):
        size = TEAM_SIZES[table_in_force][n][mission - 1]
        assert game.team_size(mission) == size
        menu = await until(
            partial(call_of, game, game.leader(), mission), what=f"the call of mission {mission}"
        )
        sizes = "-".join(str(k) for k in TEAM_SIZES[table_in_force][n])
        assert f"team of {size} " in text_of(menu), text_of(menu)
        assert f"Team sizes: {sizes} ({name})" in text_of(menu)
        (select,) = menu.selects  # the leader's menu: exactly the mission's size to pick
        assert select["min_values"] == select["max_values"] == size
        status = await game.slash(game.players[0], "resistance status")
        assert f"Team sizes: {sizes} ({name})" in status, status
        assert f"Mission {mission} needs a team of {size}." in status, status
        if mission < 3:
            team = good[:size] if len(good) >= size else [*good, *game.spies()][:size]
            await game.round(team)


@pytest.mark.parametrize("n", [5, 6])
async def test_the_box_table(table: Any, bot: Any, n: int) -> None:
    game = await started(table, n, team_table="box", vote_hours=1.0)
    await play_and_check_sizes(game, n, TeamTable.BOX, "the published game's table")


@pytest.mark.parametrize("n", [5, 6])
async def test_avalon_plays_its_own_table(table: Any, bot: Any, n: int) -> None:
    game = AvalonGame(table, english(table, n))
    await game.open_avalon(vote_hours=1.0)
    await game.start()
    await play_and_check_sizes(game, n, TeamTable.BOX, "Avalon's table")


async def test_the_forum_table_stays_the_default(table: Any, bot: Any) -> None:
    game = await started(table, 6, vote_hours=1.0)
    await play_and_check_sizes(game, 6, TeamTable.FORUM, "the forum adaptation's table")


async def test_avalon_with_the_forum_table_is_refused(table: Any, bot: Any) -> None:
    game = AvalonGame(table, english(table, 5))
    reply = await game.slash(table.mod, "resistance new", variant="avalon", team_table="forum")
    assert "Avalon plays its own table" in reply and "`team_table`" in reply, reply
    async with bot.sessions() as s:
        assert await repo.active_game_in_channel(s, table.channel.id) is None
    # Left out, Avalon plays its own table whatever the defaults (the forum's here).
    await game.open(variant="avalon")
    async with bot.sessions() as s:
        row = await repo.active_game_in_channel(s, table.channel.id)
        assert row is not None and row.options["team_table"] == "box"
    rules = await game.slash(game.players[0], "resistance rules")
    assert "Avalon's table" in rules, rules
