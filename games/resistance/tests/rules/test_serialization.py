"""to_dict / from_dict, replay, and the value types' own round-trips."""

from __future__ import annotations

import json
import random

import pytest

from games.resistance.rules import (
    LeaderChanged,
    MissingVote,
    MissionChoice,
    Options,
    Player,
    Resistance,
    ResistanceEvent,
    TeamVote,
    VoteCast,
    apply_action,
)

from .helpers import make_game, make_players, play_round, propose_any


def _json_roundtrip(game: Resistance) -> Resistance:
    return Resistance.from_dict(json.loads(json.dumps(game.to_dict())))


def _mid_vote_game() -> Resistance:
    game, _ = Resistance.setup(
        make_players(7), random.Random(3), Options(missing_vote=MissingVote.ACCEPT)
    )
    play_round(game, accept=False)
    play_round(game)
    game.skip_leader()
    propose_any(game)
    assert game.team is not None
    game.vote(game.players[0].id, TeamVote.REJECT)
    game.vote(game.players[1].id, TeamVote.ACCEPT)
    game.choose(game.team[0], MissionChoice.SABOTAGE)
    game.substitute(game.players[2].id, Player(4242, "Sub"))
    return game


def test_round_trip_exact_mid_game() -> None:
    game = _mid_vote_game()
    d = game.to_dict()
    again = Resistance.from_dict(d)
    assert again.to_dict() == d
    assert again == game
    assert _json_roundtrip(game) == game
    assert json.loads(json.dumps(d)) == d
    assert again.public_view() == game.public_view()
    assert again.votes == game.votes and again.choices == game.choices
    assert again.options == game.options
    assert again.history == game.history


def test_round_trip_fresh_and_over() -> None:
    game = make_game(10)
    assert _json_roundtrip(game) == game
    game.cancel()
    assert _json_roundtrip(game) == game


def test_replay_reproduces_state() -> None:
    game = _mid_vote_game()
    setup = json.loads(json.dumps(game.setup_record()))
    actions = json.loads(json.dumps(game.actions))
    replayed = Resistance.replay(setup, actions)
    assert replayed == game
    assert replayed.actions == game.actions
    # Continuing both in lockstep keeps them equal.
    for g in (game, replayed):
        g.resolve()
    assert replayed == game


def test_setup_record_is_the_initial_deal() -> None:
    game, _ = Resistance.setup(make_players(6), random.Random(9))
    record = game.setup_record()
    game.substitute(100, Player(1, "one"))
    assert game.setup_record() == record
    assert Resistance.from_setup_record(record).players == tuple(make_players(6))


def test_actions_log_shapes() -> None:
    game = make_game(5)
    propose_any(game, [103, 100])
    game.vote(100, TeamVote.ACCEPT)
    game.choose(100, MissionChoice.SABOTAGE)
    game.resolve()
    game.skip_leader()
    game.substitute(101, Player(7, "Sept"))
    game.cancel()
    assert game.actions == [
        {"action": "propose", "leader": 100, "team": [103, 100]},
        {"action": "vote", "player": 100, "vote": "accept"},
        {"action": "choose", "player": 100, "choice": "sabotage"},
        {"action": "resolve"},
        {"action": "skip_leader"},
        {"action": "substitute", "old": 101, "new": {"id": 7, "name": "Sept"}},
        {"action": "cancel"},
    ]
    fresh = make_game(5)
    for action in game.actions:
        apply_action(fresh, action)
    assert fresh == game


def test_returned_collections_are_copies() -> None:
    game = make_game(5)
    events = propose_any(game)
    game.vote(100, TeamVote.ACCEPT)
    before = game.to_dict()
    game.actions.clear()
    game.roles.clear()
    game.votes.clear()
    game.choices[100] = MissionChoice.SABOTAGE
    game.setup_record()["players"].clear()
    events[0].data["team"].append(1)
    game.to_dict()["actions"].clear()
    assert game.to_dict() == before
    game.resolve()
    snapshot = game.to_dict()
    game.history[0].data["accept"].append(1)
    assert game.to_dict() == snapshot


def test_from_dict_rejects_unknown_version() -> None:
    d = make_game(5).to_dict()
    d["version"] = 99
    with pytest.raises(ValueError):
        Resistance.from_dict(d)


def test_constructor_validates_the_deal() -> None:
    players = make_players(5)
    ids = [p.id for p in players]
    with pytest.raises(ValueError):
        Resistance(players, dict.fromkeys(ids, "resistance"), ids)  # no spies
    roles = {pid: "spy" if pid in ids[:2] else "resistance" for pid in ids}
    with pytest.raises(ValueError):
        Resistance(players, roles, ids[:4])
    with pytest.raises(ValueError):
        Resistance(players, {1: "spy"}, ids)
    assert Resistance(players, roles, ids).spies == tuple(ids[:2])


def test_equality() -> None:
    a, b = make_game(5), make_game(5)
    assert a == b
    propose_any(a)
    assert a != b
    assert a != "not a game"


def test_value_types_round_trip() -> None:
    event = VoteCast(player=1, vote=TeamVote.ACCEPT, changed=False, private_to=1)
    assert ResistanceEvent.from_dict(json.loads(json.dumps(event.to_dict()))) == event
    public = LeaderChanged(leader=2, previous=1)
    assert ResistanceEvent.from_dict(public.to_dict()) == public and not public.is_private
    for options in (Options(), Options(missing_vote=MissingVote.ACCEPT)):
        assert Options.from_dict(json.loads(json.dumps(options.to_dict()))) == options
    assert Options.from_dict({}) == Options()
    assert Options.from_dict({"missing_vote": "accept", "vote_hours": 24}).missing_vote is (
        MissingVote.ACCEPT
    )
    assert Player.from_dict(Player(5, "x").to_dict()) == Player(5, "x")
