"""Shared builders for the Werewolf engine tests: known deals, the legal actions of a state,
and random legal play."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from games.werewolf.rules import Options, Phase, Player, Role, Werewolf, apply_action

NAMES = ["alice", "Bob", "carol", "Dave", "eve", "Frank", "grace", "Heidi", "ivan"]
NAMES += ["Judy", "kim", "Léo", "mallory", "Ned", "olivia", "Pat", "quinn", "Rémi"]

#: One letter per card, for deals written as text: "WWSTVV".
CARDS = {
    "W": Role.WEREWOLF,
    "V": Role.VILLAGER,
    "S": Role.SEER,
    "T": Role.WITCH,
    "H": Role.HUNTER,
    "C": Role.CUPID,
}

Action = dict[str, Any]


def make_players(n: int) -> list[Player]:
    return [Player(id=seat, name=NAMES[seat - 1]) for seat in range(1, n + 1)]


def options_for(deal: str, **flags: Any) -> Options:
    """The options that a deal's special cards need (and the wolves it holds), plus ``flags``."""
    specials = {role.value: letter in deal for letter, role in CARDS.items() if letter in "STHC"}
    wolves = deal.count("W")
    return Options(**{**specials, "wolves": wolves, **flags})


def make_game(deal: str, **flags: Any) -> Werewolf:
    """A game whose seat ``n`` (ids from 1) holds the ``n``-th card of ``deal``."""
    players = make_players(len(deal))
    roles = {p.id: CARDS[letter] for p, letter in zip(players, deal, strict=True)}
    return Werewolf(players, roles, options_for(deal, **flags))


def seat(game: Werewolf, role: Role) -> int:
    found = game.holder(role)
    assert found is not None
    return found


def legal_actions(game: Werewolf) -> Iterator[Action]:
    """Every action of the state's open phase worth trying (each one checked legal)."""
    alive = list(game.alive)
    phase = game.phase
    if phase is Phase.OVER:
        return
    yield {"action": "resolve"}
    if phase is Phase.ELECTION:
        yield from ({"action": "elect", "voter": v, "candidate": c} for v in alive for c in alive)
    elif phase is Phase.DAY:
        targets: list[int | None] = [*alive, None]
        yield from ({"action": "vote", "voter": v, "target": t} for v in alive for t in targets)
    elif phase is Phase.HUNTER:
        yield from ({"action": "shoot", "hunter": game.shooter, "target": t} for t in alive)
    elif phase is Phase.SUCCESSION:
        captain = game.successor_of
        yield from ({"action": "name_successor", "captain": captain, "successor": t} for t in alive)
    else:
        yield from _night_actions(game, alive)


def _night_actions(game: Werewolf, alive: list[int]) -> Iterator[Action]:
    if not game.victim_settled:
        yield {"action": "close_wolves"}
        for wolf in game.living_wolves:
            yield from ({"action": "pick", "wolf": wolf, "target": t} for t in alive)
    seer, witch, cupid = (game.holder(r) for r in (Role.SEER, Role.WITCH, Role.CUPID))
    if seer is not None:
        yield from ({"action": "look", "seer": seer, "target": t} for t in alive)
    if witch is not None:
        for heal in (False, True):
            for poison in [None, *alive]:
                yield {"action": "brew", "witch": witch, "heal": heal, "poison": poison}
    if cupid is not None and game.night == 1:
        for first in alive:
            yield from (
                {"action": "link", "cupid": cupid, "first": first, "second": s} for s in alive
            )


def play_randomly(game: Werewolf, rng: random.Random, max_actions: int = 3000) -> list[Action]:
    """Random legal play until the end (a kind of action first, then one of that kind); the
    actions applied, in order."""
    from games.werewolf.rules import can_apply

    played: list[Action] = []
    while not game.is_over and len(played) < max_actions:
        actions = [a for a in legal_actions(game) if can_apply(game, a)]
        kinds = sorted({a["action"] for a in actions})
        kind = rng.choice(kinds)
        action = rng.choice([a for a in actions if a["action"] == kind])
        apply_action(game, action)
        played.append(action)
    return played
