"""The Resistance's numbers: roles and mission sizes by player count, in each team table."""

from __future__ import annotations

from enum import StrEnum

MIN_PLAYERS = 5
MAX_PLAYERS = 10
MISSIONS = 5
MISSIONS_TO_WIN = 3
MAX_REJECTIONS = 5

#: Player count -> number of spies.
SPY_COUNT: dict[int, int] = {5: 2, 6: 2, 7: 3, 8: 3, 9: 3, 10: 4}

#: Player count -> number of Resistance members.
RESISTANCE_COUNT: dict[int, int] = {5: 3, 6: 4, 7: 4, 8: 5, 9: 6, 10: 6}


class TeamTable(StrEnum):
    """Which table of team sizes a game plays (option ``team_table``)."""

    FORUM = "forum"
    """The forum adaptation's table: The Resistance's default, and every game saved before
    the tables could be chosen."""
    BOX = "box"
    """The table printed in the published game: the box of The Resistance, and Avalon's."""


Sizes = tuple[int, int, int, int, int]

_FORUM: dict[int, Sizes] = {
    5: (2, 2, 3, 3, 3),
    6: (2, 3, 3, 4, 4),
    7: (2, 3, 3, 4, 4),
    8: (3, 4, 4, 5, 5),
    9: (3, 4, 4, 5, 5),
    10: (3, 4, 4, 5, 5),
}

#: Team table -> player count -> team size of missions 1..5. The published game's table is
#: the forum's but at 5 and 6 players.
TEAM_SIZES: dict[TeamTable, dict[int, Sizes]] = {
    TeamTable.FORUM: _FORUM,
    TeamTable.BOX: {**_FORUM, 5: (2, 3, 2, 3, 3), 6: (2, 3, 4, 3, 4)},
}

#: The table Avalon plays (its rules print the box's table).
AVALON_TABLE = TeamTable.BOX

#: Player count -> team size of missions 1..5 in the forum table (The Resistance's default).
MISSION_SIZES: dict[int, Sizes] = TEAM_SIZES[TeamTable.FORUM]


def _check(player_count: int, mission: int) -> None:
    if player_count not in SPY_COUNT:
        raise ValueError(f"player count must be {MIN_PLAYERS}..{MAX_PLAYERS}, not {player_count}")
    if not 1 <= mission <= MISSIONS:
        raise ValueError(f"mission must be 1..{MISSIONS}, not {mission}")


def team_size(player_count: int, mission: int, table: TeamTable | str = TeamTable.FORUM) -> int:
    """How many players go on ``mission`` (1..5) in a game of ``player_count`` players, in
    ``table`` (the forum's unless given)."""
    _check(player_count, mission)
    return TEAM_SIZES[TeamTable(table)][player_count][mission - 1]


def sabotages_needed(player_count: int, mission: int) -> int:
    """Sabotages that fail ``mission``: 2 for mission 4 with 7 or more players, else 1 (the
    same in every team table)."""
    _check(player_count, mission)
    return 2 if mission == 4 and player_count >= 7 else 1
