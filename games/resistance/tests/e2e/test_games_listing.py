"""``/games`` names what the Resistance waits for from a player, privately and in the reader's
language: the leader's proposal, then each player's team vote and, on the team, their mission
choice."""

from __future__ import annotations

from typing import Any

import pytest

from bot.i18n import t
from games.resistance.players import Game

pytestmark = pytest.mark.timeout(120)


@pytest.mark.parametrize("lang", ["en", "fr"])
async def test_games_names_the_proposal_the_vote_and_the_mission_choice(
    table: Any, bot: Any, lang: str
) -> None:
    def waits(what: str) -> str:
        return t(f"resistance.waiting.{what}", lang)

    game = Game(table, table.users[:5])
    await game.open()
    await game.start()
    leader = game.leader()
    others = [u for u in game.players if u is not leader]
    assert waits("proposal") in await game.my_games(leader, lang)
    assert waits("proposal") not in await game.my_games(others[0], lang)

    team = [leader, *others[: game.size_asked() - 1]]
    await game.propose(team)
    for user in (leader, others[-1]):
        listed = await game.my_games(user, lang)
        assert waits("vote") in listed and "<t:" in listed
        assert (waits("mission") in listed) == (user in team)  # told to the player alone
    await game.click(leader, "accept")
    listed = await game.my_games(leader, lang)
    assert waits("vote") not in listed and waits("mission") in listed
