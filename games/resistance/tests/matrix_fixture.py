"""A fixed game of The Resistance, as its public event log: the vote matrix's golden input."""

from __future__ import annotations

import dataclasses
import random

from games.resistance.rules import (
    MissionChoice,
    PlayerSubstituted,
    Resistance,
    ResistanceEvent,
    TeamVote,
)
from games.resistance.rules import Player as EnginePlayer

last_state: Resistance | None = None  # the state the last fixed_game() ended with

NAMES = ["Amélie", "Bob", "Chloé", "Œdipe", "Émile", "Fatou", "Gus"]


def fixed_game() -> tuple[list[ResistanceEvent], dict[int, str], list[int]]:
    """Seven players, a substitution, a skipped leader, rejected teams, two sabotages."""
    players = [EnginePlayer(100 + i, n) for i, n in enumerate(NAMES)]
    state, events = Resistance.setup(players, random.Random(7))
    log: list[ResistanceEvent] = list(events)
    spies = set(state.spies)

    def play(accept: bool, sabotage: int = 0, absent: int = 0) -> None:
        leader = state.leader
        order = list(state.leader_order)
        others = sorted((p for p in order if p != leader), key=lambda p: (p not in spies, p))
        team = [leader, *others[: state.team_size - 1]]
        log.extend(state.propose(leader, team))
        for i, p in enumerate(order):
            if i < absent:
                continue
            accepts = (i % 3 != 0) if accept else (i % 3 == 0)
            vote = TeamVote.ACCEPT if accepts else TeamVote.REJECT
            log.extend(state.vote(p, vote))
        saboteurs = [p for p in team if p in spies][:sabotage]
        for p in team:
            choice = MissionChoice.SABOTAGE if p in saboteurs else MissionChoice.SUPPORT
            log.extend(state.choose(p, choice))
        log.extend(state.resolve())

    play(True)
    play(False, absent=2)
    log.extend(state.skip_leader())
    play(True, sabotage=1)
    new = EnginePlayer(200, "Zoé-Marie Longuenomdefamille")
    old = state.leader_order[2]
    old_name = next(p.name for p in players if p.id == old)
    log.extend(  # as the service records it
        dataclasses.replace(e, old_name=old_name) if isinstance(e, PlayerSubstituted) else e
        for e in state.substitute(old, new)
    )
    play(False)
    play(True, sabotage=2)
    play(True)
    global last_state
    last_state = state
    public = [e for e in log if e.private_to is None]
    names = {p.id: p.name for p in state.players}
    return public, names, list(state.leader_order)
