"""Every cell of the two tables of the rules, and the two-sabotage rule."""

from __future__ import annotations

import random

import pytest

from games.resistance.rules import (
    MAX_PLAYERS,
    MAX_REJECTIONS,
    MIN_PLAYERS,
    MISSION_SIZES,
    RESISTANCE_COUNT,
    SPY_COUNT,
    Resistance,
    Role,
    WrongTeamSize,
    sabotages_needed,
    team_size,
)

from .helpers import by_kind, make_game, make_players, play_round, team_with_spies

# Copied by hand from RULES.md / the French seed, independent of the engine's own tables.
ROLES_TABLE = {  # players: (resistance, spies)
    5: (3, 2),
    6: (4, 2),
    7: (4, 3),
    8: (5, 3),
    9: (6, 3),
    10: (6, 4),
}
MISSION_TABLE = {  # mission: sizes for 5, 6, 7, 8, 9, 10 players
    1: (2, 2, 2, 3, 3, 3),
    2: (2, 3, 3, 4, 4, 4),
    3: (3, 3, 3, 4, 4, 4),
    4: (3, 4, 4, 5, 5, 5),
    5: (3, 4, 4, 5, 5, 5),
}
CELLS = [(n, m) for n in range(5, 11) for m in range(1, 6)]


def test_constants() -> None:
    assert (MIN_PLAYERS, MAX_PLAYERS, MAX_REJECTIONS) == (5, 10, 5)
    assert set(MISSION_SIZES) == set(SPY_COUNT) == set(RESISTANCE_COUNT) == set(range(5, 11))


@pytest.mark.parametrize("n", range(5, 11))
def test_role_table(n: int) -> None:
    resistance, spies = ROLES_TABLE[n]
    assert RESISTANCE_COUNT[n] == resistance
    assert SPY_COUNT[n] == spies
    assert resistance + spies == n


@pytest.mark.parametrize("n", range(5, 11))
@pytest.mark.parametrize("seed", range(3))
def test_setup_deals_the_table(n: int, seed: int) -> None:
    game, _ = Resistance.setup(make_players(n), random.Random(seed))
    values = list(game.roles.values())
    assert values.count(Role.SPY) == ROLES_TABLE[n][1]
    assert values.count(Role.RESISTANCE) == ROLES_TABLE[n][0]
    assert len(game.spies) == ROLES_TABLE[n][1]


@pytest.mark.parametrize(("n", "mission"), CELLS)
def test_mission_size_cell(n: int, mission: int) -> None:
    expected = MISSION_TABLE[mission][n - 5]
    assert MISSION_SIZES[n][mission - 1] == expected
    assert team_size(n, mission) == expected


@pytest.mark.parametrize(("n", "mission"), CELLS)
def test_sabotages_needed_cell(n: int, mission: int) -> None:
    assert sabotages_needed(n, mission) == (2 if mission == 4 and n >= 7 else 1)


@pytest.mark.parametrize("bad", [(4, 1), (11, 1), (5, 0), (5, 6)])
def test_table_functions_reject_out_of_range(bad: tuple[int, int]) -> None:
    with pytest.raises(ValueError):
        sabotages_needed(*bad)
    with pytest.raises(ValueError):
        team_size(*bad)


def advance_to(game: Resistance, mission: int) -> None:
    """Play successes and failures alternately (S, F, S, F) until ``mission`` is current."""
    while game.mission < mission:
        fail = game.mission % 2 == 0
        needed = game.sabotages_needed if fail else 0
        play_round(game, team=team_with_spies(game, needed), sabotages=needed)
    assert game.mission == mission
    assert game.winner is None


@pytest.mark.parametrize(("n", "mission"), CELLS)
def test_game_uses_the_tables(n: int, mission: int) -> None:
    """In a real game, at each mission: the team size and the one-or-two-sabotage rule."""
    game = make_game(n)
    advance_to(game, mission)
    size = MISSION_TABLE[mission][n - 5]
    assert game.team_size == size
    assert game.public_view().team_size == size
    assert game.public_view().sabotages_needed == sabotages_needed(n, mission)
    ids = [p.id for p in game.players]
    for wrong in (size - 1, size + 1):
        assert not game.can_propose(game.leader, ids[:wrong])
        with pytest.raises(WrongTeamSize) as info:
            game.propose(game.leader, ids[:wrong])
        assert info.value.params == {"expected": size, "given": wrong}

    # Exactly one sabotage: fails the mission unless it is mission 4 with 7+ players.
    one = make_game(n)
    advance_to(one, mission)
    events = play_round(one, team=team_with_spies(one, 1), sabotages=1)
    result = by_kind(events, "mission_result").data
    two_needed = mission == 4 and n >= 7
    assert result["sabotages_needed"] == (2 if two_needed else 1)
    assert result["sabotages"] == 1
    assert result["supports"] == size - 1
    assert result["success"] is two_needed

    # Two sabotages always fail.
    two = make_game(n)
    advance_to(two, mission)
    events = play_round(two, team=team_with_spies(two, 2), sabotages=2)
    assert by_kind(events, "mission_result").data["success"] is False
