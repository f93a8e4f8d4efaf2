"""A fixed game of Werewolf, as its public event log: the day-votes picture's golden input."""

from __future__ import annotations

import random

from games.werewolf.rules import Phase, Player, Werewolf, WerewolfEvent, apply_action
from games.werewolf.tests.rules.helpers import make_game, play_randomly

SEED = 3


def fixed_game(seed: int = SEED) -> tuple[Werewolf, list[WerewolfEvent]]:
    """Eight players with a captain, random legal play from ``seed`` but for the days: each
    day all vote (a name, or now and then no elimination) but one, and the second day's
    morning a substitute takes a living seat. The end state and its public events."""
    game = make_game("WWSTHVVV", captain=True)
    rng = random.Random(seed)
    while not game.is_over:
        if game.phase is not Phase.DAY:
            play_randomly(game, rng, max_actions=1)
            continue
        if game.day == 2 and 42 not in game.alive:
            game.substitute(rng.choice(sorted(game.alive)), Player(id=42, name="Zoé"))
        voters = sorted(game.alive)
        absent = rng.choice(voters)
        for voter in voters:
            if voter != absent and not game.is_over and game.phase is Phase.DAY:
                target = None if rng.random() < 0.15 else rng.choice(sorted(game.alive))
                apply_action(game, {"action": "vote", "voter": voter, "target": target})
        if game.phase is Phase.DAY:
            apply_action(game, {"action": "resolve"})
    events = [e for e in game.history if isinstance(e, WerewolfEvent)]
    return game, events
