"""Shared builders for the Resistance engine tests."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence

from games.resistance.rules import (
    SPY_COUNT,
    Character,
    MissingVote,
    MissionChoice,
    Options,
    Player,
    Resistance,
    ResistanceEvent,
    Role,
    TeamVote,
    Variant,
)

NAMES = ["alice", "Bob", "carol", "Dave", "eve", "Frank", "grace", "Heidi", "ivan", "Judy"]


def make_players(n: int) -> list[Player]:
    return [Player(id=100 + i, name=NAMES[i]) for i in range(n)]


def make_game(
    n: int,
    spies: Iterable[int] | None = None,
    order: Sequence[int] | None = None,
    options: Options = Options(),
) -> Resistance:
    """A game with a known deal: ids 100.., spies the last ones unless given, leader order the
    seat order unless given."""
    players = make_players(n)
    ids = [p.id for p in players]
    spy_ids = set(spies) if spies is not None else set(ids[-SPY_COUNT[n] :])
    roles = {pid: Role.SPY if pid in spy_ids else Role.RESISTANCE for pid in ids}
    return Resistance(players, roles, order if order is not None else ids, options)


def resistance_ids(game: Resistance) -> list[int]:
    return [p.id for p in game.players if game.roles[p.id] is Role.RESISTANCE]


def propose_any(game: Resistance, team: Sequence[int] | None = None) -> list[ResistanceEvent]:
    """The leader proposes ``team`` or the first team_size players in seat order."""
    if team is None:
        team = [p.id for p in game.players[: game.team_size]]
    return game.propose(game.leader, team)


def play_round(
    game: Resistance,
    *,
    team: Sequence[int] | None = None,
    accept: bool = True,
    sabotages: int = 0,
    votes: Mapping[int, TeamVote] | None = None,
) -> list[ResistanceEvent]:
    """Propose, vote (everyone accepts or rejects unless ``votes``), the first ``sabotages``
    spies on the team sabotage, resolve. Returns the resolve events."""
    propose_any(game, team)
    assert game.team is not None
    if votes is None:
        value = TeamVote.ACCEPT if accept else TeamVote.REJECT
        votes = {p.id: value for p in game.players}
    for pid, vote in votes.items():
        game.vote(pid, vote)
    spies_on_team = [m for m in game.team if game.roles[m] is Role.SPY]
    assert len(spies_on_team) >= sabotages, "not enough spies on the team"
    for member in game.team:
        sab = member in spies_on_team[:sabotages]
        game.choose(member, MissionChoice.SABOTAGE if sab else MissionChoice.SUPPORT)
    return game.resolve()


def team_with_spies(game: Resistance, spies: int) -> list[int]:
    """A team of the current size holding exactly ``spies`` spies (filled with Resistance)."""
    spy_ids = list(game.spies)[:spies]
    others = resistance_ids(game)[: game.team_size - len(spy_ids)]
    return spy_ids + others


def kinds(events: Iterable[ResistanceEvent]) -> list[str]:
    return [e.kind for e in events]


def by_kind(events: Iterable[ResistanceEvent], kind: str) -> ResistanceEvent:
    found = [e for e in events if e.kind == kind]
    assert len(found) == 1, f"expected one {kind}, got {found}"
    return found[0]


def avalon_options(characters: Iterable[Character], *, lady: bool = False) -> Options:
    """The Avalon options that deal exactly ``characters``."""
    chosen = set(characters)
    return Options(
        variant=Variant.AVALON,
        percival=Character.PERCIVAL in chosen,
        morgana=Character.MORGANA in chosen,
        mordred=Character.MORDRED in chosen,
        oberon=Character.OBERON in chosen,
        lady_of_the_lake=lady,
    )


def make_avalon(
    characters: Sequence[Character],
    *,
    order: Sequence[int] | None = None,
    lady: bool = False,
    missing_vote: MissingVote = MissingVote.REJECT,
) -> Resistance:
    """An Avalon game whose seat i (id 100 + i) holds ``characters[i]``; leader order the seat
    order unless given."""
    players = make_players(len(characters))
    ids = [p.id for p in players]
    chars = dict(zip(ids, characters, strict=True))
    roles = {pid: c.side for pid, c in chars.items()}
    options = dataclasses.replace(avalon_options(characters, lady=lady), missing_vote=missing_vote)
    return Resistance(players, roles, order if order is not None else ids, options, chars)


def holding(game: Resistance, character: Character) -> list[int]:
    """The players (seat order) who hold ``character``."""
    return [p.id for p in game.players if game.characters[p.id] is character]


def good_team(game: Resistance) -> list[int]:
    """A team of the current size with no spy on it."""
    good = [p.id for p in game.players if game.roles[p.id] is Role.RESISTANCE]
    return good[: game.team_size]
