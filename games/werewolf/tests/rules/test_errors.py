"""Every error key of the engine is raised where expected, and a refused action changes
nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from games.werewolf.rules import (
    ERROR_KEYS,
    GameError,
    Options,
    Player,
    Werewolf,
    apply_action,
    verify_setup,
)

from .helpers import make_game, make_players


def night() -> Werewolf:
    return make_game("WWSTCVVVVV", early_close=False)


def settled() -> Werewolf:
    game = night()
    game.pick(1, 6), game.pick(2, 6)
    return game


def day() -> Werewolf:
    game = night()
    game.close_wolves()
    game.resolve()
    return game


def dead_seer() -> Werewolf:
    game = night()
    game.pick(1, 3), game.pick(2, 3)
    game.resolve()
    return game


def hunting() -> Werewolf:
    game = make_game("WWSHVVVV")
    game.pick(1, 4), game.pick(2, 4)
    game.resolve()
    return game


def succession() -> Werewolf:
    game = make_game("WWSTVVVV", captain=True)
    for voter in game.alive:
        game.elect(voter, 5)
    game.pick(1, 5), game.pick(2, 5)
    game.resolve()
    return game


def potions_used() -> Werewolf:
    game = settled()
    game.brew(4, True, 8)
    game.resolve()
    game.resolve()  # the day, nobody eliminated
    game.pick(1, 7), game.pick(2, 7)
    return game


#: error key -> (a state, the refused action on it)
CASES: dict[str, tuple[Callable[[], Werewolf], Callable[[Werewolf], Any]]] = {
    "bad_player_count": (night, lambda g: verify_setup(5, Options())),
    "duplicate_player": (night, lambda g: Werewolf.setup([Player(1, "a")] * 6, None)),  # type: ignore[arg-type]
    "too_many_wolves": (night, lambda g: verify_setup(6, Options(wolves=3))),
    "too_few_wolves": (night, lambda g: verify_setup(6, Options(wolves=0))),
    "too_many_roles": (night, lambda g: verify_setup(6, Options(hunter=True))),
    "unknown_player": (night, lambda g: g.pick(1, 99)),
    "not_a_player": (night, lambda g: g.pick(99, 5)),
    "already_a_player": (night, lambda g: g.substitute(1, Player(2, "Bob"))),
    "player_is_dead": (dead_seer, lambda g: g.vote(3, 1)),
    "target_is_dead": (dead_seer, lambda g: g.vote(5, 3)),
    "target_is_self": (night, lambda g: g.look(3, 3)),
    "target_is_wolf": (night, lambda g: g.pick(1, 2)),
    "wrong_phase_election": (night, lambda g: g.elect(5, 6)),
    "wrong_phase_night": (day, lambda g: g.pick(1, 5)),
    "wrong_phase_day": (night, lambda g: g.vote(5, 1)),
    "wrong_phase_hunter": (night, lambda g: g.shoot(4, 1)),
    "wrong_phase_succession": (night, lambda g: g.name_successor(5, 6)),
    "game_over": (night, lambda g: (g.cancel(), g.resolve())),
    "not_a_wolf": (night, lambda g: g.pick(5, 6)),
    "not_the_seer": (night, lambda g: g.look(5, 6)),
    "not_the_witch": (settled, lambda g: g.brew(5, False, None)),
    "not_cupid": (night, lambda g: g.link(6, 7, 8)),
    "not_the_hunter": (hunting, lambda g: g.shoot(5, 1)),
    "not_the_captain": (succession, lambda g: g.name_successor(6, 7)),
    "already_acted": (night, lambda g: (g.look(3, 1), g.look(3, 2))),
    "victim_settled": (settled, lambda g: g.pick(1, 7)),
    "victim_not_settled": (night, lambda g: g.brew(4, False, None)),
    "no_life_potion": (potions_used, lambda g: g.brew(4, True, None)),
    "no_death_potion": (potions_used, lambda g: g.brew(4, False, 5)),
    "no_victim": (night, lambda g: (g.close_wolves(), g.brew(4, True, None))),
    "first_night_only": (potions_used, lambda g: g.link(5, 6, 7)),
    "same_lover": (night, lambda g: g.link(5, 6, 6)),
    "invalid_action": (night, lambda g: apply_action(g, {"action": "pick", "wolf": "1"})),
}


def test_every_key_has_a_case() -> None:
    assert sorted(f"werewolf.error.{key}" for key in CASES) == sorted(ERROR_KEYS)


@pytest.mark.parametrize("key", sorted(CASES))
def test_the_error_is_raised_and_the_state_unchanged(key: str) -> None:
    make, act = CASES[key]
    game = make()
    with pytest.raises(GameError) as raised:
        act(game)
    assert raised.value.key == f"werewolf.error.{key}"
    if key not in ("game_over", "already_acted", "no_victim"):  # those act first, then refuse
        assert game == make()


def test_malformed_action_records_are_refused() -> None:
    game = make_game("WWSTVV")
    for record in (
        {"action": "nope"},
        {"action": "brew", "witch": 4, "heal": "yes", "poison": None},
        {"action": "substitute", "old": 1, "new": {"id": "x", "name": "y"}},
        {"action": "vote", "voter": True, "target": None},
        "pick",
    ):
        with pytest.raises(GameError, match="invalid_action"):
            apply_action(game, record)  # type: ignore[arg-type]
    assert game == make_game("WWSTVV")


def test_a_deal_no_caller_should_build_is_a_value_error() -> None:
    players = make_players(6)
    with pytest.raises(ValueError, match="wolves"):
        Werewolf(players, {p.id: "villager" for p in players}, Options(seer=False, witch=False))
