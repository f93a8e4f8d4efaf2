"""Werewolf's numbers: the player counts, the wolves by player count, the special roles."""

from __future__ import annotations

MIN_PLAYERS = 6
MAX_PLAYERS = 18

#: The wolves by player count, written once: (fewest players, most players, wolves).
WOLF_TABLE: tuple[tuple[int, int, int], ...] = ((6, 11, 2), (12, 17, 3), (18, 18, 4))

#: Player count -> the wolves a game of that size plays unless ``wolves`` says otherwise.
WOLF_COUNT: dict[int, int] = {
    count: wolves for low, high, wolves in WOLF_TABLE for count in range(low, high + 1)
}

#: The fewest wolves a game may play (the ``wolves`` option's lower bound).
MIN_WOLVES = 1


def max_wolves(players: int) -> int:
    """The most wolves a game of ``players`` may play: fewer wolves than the others, or the
    wolves would have won before the first night."""
    return (players - 1) // 2


#: The most wolves any game may play (the ``wolves`` option's upper bound).
MAX_WOLVES = max_wolves(MAX_PLAYERS)


def players_for(wolves: int, specials: int) -> int:
    """The fewest players for ``wolves`` wolves and ``specials`` special roles: more players
    than twice the wolves, and at least as many plain villagers as special roles."""
    return max(MIN_PLAYERS, 2 * wolves + 1, wolves + 2 * specials)
