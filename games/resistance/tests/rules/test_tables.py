"""Every cell of the tables of the rules (roles, and team sizes in each team table: the forum's,
the box's, Avalon's), and the two-sabotage rule, the same in every table."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping

import pytest

from games.resistance.rules import (
    AVALON_TABLE,
    MAX_PLAYERS,
    MAX_REJECTIONS,
    MIN_PLAYERS,
    MISSION_SIZES,
    RESISTANCE_COUNT,
    SPY_COUNT,
    TEAM_SIZES,
    Character,
    Options,
    Resistance,
    Role,
    TeamTable,
    Variant,
    WrongTeamSize,
    sabotages_needed,
    team_size,
)

from .helpers import by_kind, make_avalon, make_game, make_players, play_round, team_with_spies

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
#: The published game's table (the box of The Resistance; Avalon's rules print the same one).
BOX_TABLE = {  # mission: sizes for 5, 6, 7, 8, 9, 10 players
    1: (2, 2, 2, 3, 3, 3),
    2: (3, 3, 3, 4, 4, 4),
    3: (2, 4, 3, 4, 4, 4),
    4: (3, 3, 4, 5, 5, 5),
    5: (3, 4, 4, 5, 5, 5),
}
BOX = TeamTable.BOX
TABLES = {TeamTable.FORUM: MISSION_TABLE, BOX: BOX_TABLE}
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
    assert team_size(n, mission, TeamTable.FORUM) == expected
    box = BOX_TABLE[mission][n - 5]
    assert TEAM_SIZES[TeamTable.BOX][n][mission - 1] == box
    assert team_size(n, mission, "box") == box


def test_the_tables_differ_at_five_and_six_players_only() -> None:
    assert set(TEAM_SIZES) == set(TeamTable) == set(TABLES)
    assert AVALON_TABLE is TeamTable.BOX
    forum, box = TEAM_SIZES[TeamTable.FORUM], TEAM_SIZES[TeamTable.BOX]
    differ = {n for n in range(5, 11) if forum[n] != box[n]}
    assert differ == {5, 6}
    assert TEAM_SIZES[TeamTable.BOX][5] == (2, 3, 2, 3, 3)
    assert TEAM_SIZES[TeamTable.BOX][6] == (2, 3, 4, 3, 4)


def test_which_table_a_game_plays() -> None:
    assert Options().table is TeamTable.FORUM  # The Resistance: the forum's by default
    assert Options(team_table=TeamTable.BOX).table is TeamTable.BOX
    assert Options(variant=Variant.AVALON).table is TeamTable.BOX  # Avalon: its own
    assert Options(variant=Variant.AVALON) == Options(variant=Variant.AVALON, team_table=BOX)
    # Written only when it is not the forum's: a classic game keeps its original shape.
    assert Options().to_dict() == {"missing_vote": "reject"}
    assert Options(team_table=BOX).to_dict() == {"missing_vote": "reject", "team_table": "box"}
    for options in (Options(team_table=BOX), Options(variant=Variant.AVALON), Options()):
        assert Options.from_dict(json.loads(json.dumps(options.to_dict()))) == options
    # Saved before the tables could be chosen (no key): the forum's, Avalon's games included.
    assert Options.from_dict({"missing_vote": "reject"}).table is TeamTable.FORUM
    old_avalon = {"missing_vote": "reject", "variant": "avalon", "percival": False}
    assert Options.from_dict(old_avalon).table is TeamTable.FORUM


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


def avalon_game(n: int) -> Resistance:
    """An Avalon game of ``n`` (Merlin, servants, then the Assassin and minions last)."""
    spies = SPY_COUNT[n]
    good = [Character.MERLIN] + [Character.SERVANT] * (n - spies - 1)
    return make_avalon(good + [Character.ASSASSIN] + [Character.MINION] * (spies - 1))


def box_game(n: int) -> Resistance:
    return make_game(n, options=Options(team_table=BOX))


#: How a game is made, and the table it must play.
GAMES: dict[str, tuple[Callable[[int], Resistance], Mapping[int, tuple[int, ...]]]] = {
    "forum": (make_game, MISSION_TABLE),
    "box": (box_game, BOX_TABLE),
    "avalon": (avalon_game, BOX_TABLE),
}


@pytest.mark.parametrize("kind", sorted(GAMES))
@pytest.mark.parametrize(("n", "mission"), CELLS)
def test_game_uses_the_tables(kind: str, n: int, mission: int) -> None:
    """In a real game, at each mission: the team size of its table (the forum's, the box's,
    Avalon's) and the one-or-two-sabotage rule (the same in all)."""
    make, table = GAMES[kind]
    game = make(n)
    assert game.team_sizes == tuple(table[m][n - 5] for m in range(1, 6))
    assert game.public_view().team_table is game.team_table
    advance_to(game, mission)
    size = table[mission][n - 5]
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
    one = make(n)
    advance_to(one, mission)
    events = play_round(one, team=team_with_spies(one, 1), sabotages=1)
    result = by_kind(events, "mission_result").data
    two_needed = mission == 4 and n >= 7
    assert result["sabotages_needed"] == (2 if two_needed else 1)
    assert result["sabotages"] == 1
    assert result["supports"] == size - 1
    assert result["success"] is two_needed

    # Two sabotages always fail.
    two = make(n)
    advance_to(two, mission)
    events = play_round(two, team=team_with_spies(two, 2), sabotages=2)
    assert by_kind(events, "mission_result").data["success"] is False


@pytest.mark.parametrize("kind", sorted(GAMES))
@pytest.mark.parametrize("n", [5, 6])
def test_a_saved_game_keeps_its_table(kind: str, n: int) -> None:
    """The state, its setup record and a replay remember the table."""
    make, table = GAMES[kind]
    game = make(n)
    play_round(game, team=team_with_spies(game, 0))
    saved = json.loads(json.dumps(game.to_dict()))
    again = Resistance.from_dict(saved)
    assert again == game and again.team_table is game.team_table
    assert again.team_size == table[2][n - 5]
    replayed = Resistance.replay(game.setup_record(), game.actions)
    assert replayed == game and replayed.team_size == table[2][n - 5]


def test_an_avalon_state_saved_before_the_tables_plays_the_forums() -> None:
    """An Avalon game saved by the engine before ``team_table`` existed (its options without
    the key) goes on with the forum's table it started with, and saves as it was."""
    game = avalon_game(5)
    state = game.to_dict()
    del state["setup"]["options"]["team_table"]
    old = Resistance.from_dict(json.loads(json.dumps(state)))
    assert old.options.is_avalon and old.team_table is TeamTable.FORUM
    assert old.team_sizes == (2, 2, 3, 3, 3)
    assert old.to_dict() == state
