"""Avalon: which roles a game holds, the deal, and what each role knows at the start.

See ``docs/rules.md``, "The Avalon variant". Pure functions over a mapping of player id to
:class:`Character`; the game state lives in :class:`games.resistance.rules.Resistance`.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from .errors import AvalonOnly, MorganaNeedsPercival, NoTableFits, TooManyEvilRoles
from .model import AVALON_OPTIONS, Character, Options, Role
from .tables import MAX_PLAYERS, SPY_COUNT

#: Missions after whose result the holder of the Lady of the Lake examines a player.
LADY_MISSIONS: tuple[int, ...] = (2, 3, 4)


def good_characters(options: Options) -> list[Character]:
    """The named good roles of the game (the other good players are loyal servants)."""
    return [Character.MERLIN] + ([Character.PERCIVAL] if options.percival else [])


def evil_characters(options: Options) -> list[Character]:
    """The named evil roles of the game (the other spies are minions of Mordred)."""
    chosen = [
        character
        for character, on in (
            (Character.MORGANA, options.morgana),
            (Character.MORDRED, options.mordred),
            (Character.OBERON, options.oberon),
        )
        if on
    ]
    return [Character.ASSASSIN, *chosen]


def min_players(options: Options) -> int:
    """The fewest players whose spy count holds the special evil roles; 0 if no count does."""
    needed = len(evil_characters(options)) if options.is_avalon else 0
    return min((n for n, spies in SPY_COUNT.items() if spies >= needed), default=0)


def verify_options(options: Options, player_count: int | None = None) -> None:
    """Raise the GameError that makes ``options`` unplayable (with ``player_count`` players,
    when given: it must be a valid count; without it, roles that fit no table at all)."""
    if not options.is_avalon:
        for name in AVALON_OPTIONS:
            if getattr(options, name):
                raise AvalonOnly(option=name)
        return
    if options.morgana and not options.percival:
        raise MorganaNeedsPercival()
    roles = len(evil_characters(options))
    if min_players(options) == 0:
        raise NoTableFits(roles=roles, spies=SPY_COUNT[MAX_PLAYERS], count=MAX_PLAYERS)
    if player_count is not None:
        spies = SPY_COUNT[player_count]
        if roles > spies:
            raise TooManyEvilRoles(
                roles=roles, spies=spies, count=player_count, needed=min_players(options)
            )


def deal(
    ids: Sequence[int], spies: set[int], options: Options, rng: random.Random
) -> dict[int, Character]:
    """Give each good player and each spy an Avalon role, at random within their side."""
    good = [pid for pid in ids if pid not in spies]
    evil = [pid for pid in ids if pid in spies]
    characters: dict[int, Character] = {}
    for side, named, filler in (
        (good, good_characters(options), Character.SERVANT),
        (evil, evil_characters(options), Character.MINION),
    ):
        shuffled = rng.sample(side, len(side))
        for n, pid in enumerate(shuffled):
            characters[pid] = named[n] if n < len(named) else filler
    return characters


def verify_deal(characters: Mapping[int, Character], options: Options) -> None:
    """Raise ValueError unless ``characters`` holds exactly the roles ``options`` asks for."""
    values = sorted(characters.values())
    expected = good_characters(options) + evil_characters(options)
    for character in expected:
        if values.count(character) != 1:
            raise ValueError(f"an Avalon game needs exactly one {character.value}")
    for character in set(Character) - set(expected) - {Character.SERVANT, Character.MINION}:
        if character in values:
            raise ValueError(f"{character.value} is not in this game")


def known_evil(
    characters: Mapping[int, Character], player: int, seats: Sequence[int]
) -> tuple[int, ...]:
    """The players ``player`` knows to be evil, in seat order.

    Merlin: every evil player except Mordred (Oberon included). Evil players other than
    Oberon: the other evil players except Oberon. Everyone else: no one."""
    me = characters[player]
    evil = [pid for pid in seats if characters[pid].side is Role.SPY and pid != player]
    if me is Character.MERLIN:
        return tuple(pid for pid in evil if characters[pid] is not Character.MORDRED)
    if me.side is Role.SPY and me is not Character.OBERON:
        return tuple(pid for pid in evil if characters[pid] is not Character.OBERON)
    return ()


def merlin_candidates(
    characters: Mapping[int, Character], player: int, seats: Sequence[int]
) -> tuple[int, ...]:
    """Percival's two names, Merlin and Morgana, in seat order so that the order tells nothing
    (Merlin's name alone without Morgana); empty for every other role."""
    if characters[player] is not Character.PERCIVAL:
        return ()
    return tuple(pid for pid in seats if characters[pid] in (Character.MERLIN, Character.MORGANA))


def assassination_targets(
    characters: Mapping[int, Character], assassin: int, seats: Sequence[int]
) -> tuple[int, ...]:
    """Whom the Assassin may name: everyone but the Assassin and the evil players they know."""
    known = set(known_evil(characters, assassin, seats))
    return tuple(pid for pid in seats if pid != assassin and pid not in known)
