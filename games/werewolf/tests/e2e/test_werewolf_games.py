"""Whole games of Werewolf through the sandbox: real discord.py, real SQLite."""

from __future__ import annotations

from typing import Any

import pytest

from games.werewolf.players import END_MARKERS, Game
from playtest.players import text_of, until

pytestmark = pytest.mark.timeout(180)


async def test_eight_players_the_village_wins(table: Any, bot: Any) -> None:
    game = Game(table, table.users[:8])
    await game.open()
    await game.start()
    wolves, seer, witch = game.having("werewolf"), game.one("seer"), game.one("witch")
    assert len(wolves) == 2
    villagers = game.having("villager")
    den = await until(game.den, what="the den")
    await until(lambda: den.member_ids >= {w.id for w in wolves}, what="the wolves in the den")

    # Night 1: both wolves pick the same villager; the seer looks; the witch does nothing.
    await game.kill(wolves[0], villagers[0])
    await until(lambda: any("picked" in text_of(m) for m in table.sb.messages_in(den)))
    await game.kill(wolves[1], villagers[0])
    assert "werewolf" in await game.act(seer, str(wolves[0].id))
    await game.act(witch, "skip")
    dawn = await game.new_public(0, "Dawn after night 1")
    assert villagers[0].name in dawn and "villager" in dawn

    # Day 1: a dead player cannot vote; the living eliminate a wolf by majority.
    assert "dead" in await game.vote(villagers[0], wolves[0])
    living = [u for u in game.players if u is not villagers[0]]
    for voter in living[:3]:
        await game.vote(voter, wolves[0])
    # the live count: one message, edited as the votes come, each voter in it
    await until(lambda: all(v.name in text_of(game.count_message()) for v in living[:3]))
    await game.vote(living[3], wolves[0])  # 4 of 7: a majority ends the day
    result = await game.new_public(0, "Day 1 is over")
    assert wolves[0].name in result and "werewolf" in result

    # Night 2 and day 2: the last wolf is found.
    await game.new_public(0, "Night 2")
    await game.kill(wolves[1], villagers[1])
    await game.act(seer, str(wolves[1].id), since=len(table.sb.dms(seer)) - 1)
    await game.act(witch, "skip", since=len(table.sb.dms(witch)) - 1)
    await game.new_public(0, "Dawn after night 2")
    voters = [u for u in game.players if u not in (villagers[0], villagers[1], wolves[0])]
    for voter in voters[:3]:  # 3 of 5: a majority
        await game.vote(voter, wolves[1])
    end = await game.new_public(0, *END_MARKERS)
    assert "The village wins" in end
    assert "night log" in end and wolves[1].name in end
