"""``/games`` names what Werewolf waits for from a player, privately and in the reader's
language: a wolf's pick at night (a villager owes nothing then), then everyone's day vote."""

from __future__ import annotations

from typing import Any

import pytest

from bot.i18n import t
from games.werewolf.players import Game

pytestmark = pytest.mark.timeout(120)


@pytest.mark.parametrize("lang", ["en", "fr"])
async def test_games_names_the_wolves_pick_then_the_day_vote(
    table: Any, bot: Any, lang: str
) -> None:
    game = Game(table, table.users[:8])
    await game.open(seer=False, witch=False)
    await game.start()
    wolves, villagers = game.having("werewolf"), game.having("villager")
    pick = t("werewolf.waiting.werewolf", lang)
    listed = await game.my_games(wolves[0], lang)
    assert pick in listed and "<t:" in listed
    assert pick not in await game.my_games(villagers[0], lang)  # nothing owed, nothing said

    for wolf in wolves:
        await game.kill(wolf, villagers[0])
    await game.new_public(0, "Dawn after night 1")
    vote = t("werewolf.waiting.day", lang)
    assert vote in await game.my_games(villagers[1], lang)
    await game.vote(villagers[1], villagers[2])
    assert vote not in await game.my_games(villagers[1], lang)
