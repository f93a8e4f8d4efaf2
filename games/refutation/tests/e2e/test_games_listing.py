"""``/games`` names what the Refutation Game waits for from a player, privately and in the
reader's language: the active player's turn, then each player's secret choice."""

from __future__ import annotations

from typing import Any

import pytest

from bot.i18n import t
from games.refutation.tests.e2e.test_refutation_turns import started

pytestmark = pytest.mark.timeout(120)


@pytest.mark.parametrize("lang", ["en", "fr"])
async def test_games_names_the_turn_then_the_secret_choice(table: Any, bot: Any, lang: str) -> None:
    game = await started(table, [table.users[i] for i in (0, 1, 3)])
    turn, active = game.turn()
    others = [u for u in game.players if u is not active]
    assert t("refutation.waiting.turn", lang, turn=turn) in await game.my_games(active, lang)
    assert t("refutation.waiting.turn", lang, turn=turn) not in await game.my_games(others[0], lang)

    await game.watch_then_refute()
    choice = t("refutation.waiting.rf_choice", lang, n=1)
    for user in game.players:
        assert choice in await game.my_games(user, lang)
    chooser = game.players[0]
    await game.choose(chooser, "pass")
    assert choice not in await game.my_games(chooser, lang)
