"""Werewolf's share of /stats: by side and by role, from the game_over events."""

from __future__ import annotations

import pytest

from games.werewolf.rules import EndReason, Role, Winner
from games.werewolf.rules.events import GameOver
from games.werewolf.stats import tally

pytestmark = pytest.mark.usefixtures("werewolf_catalogue")

ROLES = {1: Role.WEREWOLF, 2: Role.WEREWOLF, 3: Role.SEER, 4: Role.WITCH, 5: Role.VILLAGER}


def over(winner: Winner, winners: tuple[int, ...], roles: dict[int, Role] = ROLES) -> GameOver:
    reason = EndReason.NO_WOLVES if winner is Winner.VILLAGE else EndReason.WOLVES_PARITY
    return GameOver(
        winner=winner, reason=reason, winners=winners, roles=roles, lovers=(), nights=()
    )


def test_each_player_counts_by_side_and_role() -> None:
    events = [over(Winner.VILLAGE, (3, 4, 5)), over(Winner.WOLVES, (1, 2))]
    figures = tally(events)
    assert (figures[1].played, figures[1].won) == (2, 1)
    assert (figures[3].played, figures[3].won) == (2, 1)
    assert figures[1].sides["wolves"].won == 1 and figures[3].roles["seer"].played == 2
    assert figures[1].lines("en") == [
        "**Werewolf**: 2 games, 1 won (50%)",
        "• By side (won/played): the werewolves 1/2",
        "• By role (won/played): werewolf 1/2",
    ]
    assert figures[1].top_extra("en") == "as a werewolf 50%"
    assert figures[4].lines("fr")[1] == "• Par camp (gagnées/jouées)\u00a0: le village 1/2"


def test_a_mixed_couple_wins_only_as_the_lovers() -> None:
    figures = tally([over(Winner.LOVERS, (1, 3))])
    assert figures[1].won == 1 and figures[3].won == 1 and figures[2].won == 0
