"""Property tests: random legal and illegal play for every player count."""

from __future__ import annotations

import dataclasses
import json
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.resistance.rules import (
    MAX_REJECTIONS,
    SPY_COUNT,
    GameError,
    MissingVote,
    Options,
    Phase,
    Resistance,
    ResistanceEvent,
    Role,
    apply_action,
    can_apply,
    verify_action,
)

from .helpers import make_players

PROPS = settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)

player_counts = st.integers(min_value=5, max_value=10)
seeds = st.integers(min_value=0, max_value=2**32 - 1)
options = st.sampled_from([Options(), Options(missing_vote=MissingVote.ACCEPT)])

PUBLIC_KINDS = {
    "game_started",
    "team_proposed",
    "team_vote_result",
    "mission_result",
    "leader_changed",
    "leader_skipped",
    "player_substituted",
    "game_over",
    "game_cancelled",
}
PRIVATE_KINDS = {"role_dealt", "vote_cast", "mission_choice_made", "sabotage_recorded_as_support"}
SECRET_KEYS = {"role", "roles", "spies", "vote", "choice", "requested", "votes", "choices"}


def _keys(value: Any) -> set[str]:
    if isinstance(value, dict):
        out = set(value)
        for v in value.values():
            out |= _keys(v)
        return out
    if isinstance(value, list):
        out = set()
        for v in value:
            out |= _keys(v)
        return out
    return set()


def check_event(game: Resistance, event: ResistanceEvent) -> None:
    assert json.loads(json.dumps(event.to_dict())) == event.to_dict()
    if event.private_to is None:
        assert event.kind in PUBLIC_KINDS, event
        if event.kind in {"game_over", "game_cancelled"}:
            assert game.phase is Phase.OVER
            return
        assert not (_keys(event.data) & SECRET_KEYS), event
        if event.kind == "team_vote_result":
            # Votes are published with the result; the proposal is then closed.
            assert game.votes == {} and game.team is None
    else:
        assert event.kind in PRIVATE_KINDS, event
        assert event.data["player"] == event.private_to


def check_public_view(game: Resistance) -> None:
    view = game.public_view()
    if game.phase is not Phase.OVER:
        assert view.roles == {}
        assert view.winner is None
    else:
        assert view.roles == game.roles
    if game.phase is Phase.VOTE:
        assert view.votes_in == len(game.votes)
        assert game.team is not None
        owing = {
            p.id
            for p in game.players
            if p.id not in game.votes or (p.id in game.team and p.id not in game.choices)
        }
        assert set(game.owing()) == owing
        # Public: missing team votes only, never a team member's pending mission choice.
        assert set(view.waiting_for) == {p.id for p in game.players if p.id not in game.votes}
    else:
        assert view.waiting_for == ()
        assert game.owing() == ()
    # The view does not depend on anyone's role, vote or choice: flip them all in a twin.
    if game.phase is not Phase.OVER:
        twin = game.to_dict()
        roles = list(twin["roles"].values())
        twin["roles"] = dict(zip(twin["roles"], reversed(roles), strict=True))
        flip = {
            "accept": "reject",
            "reject": "accept",
            "support": "sabotage",
            "sabotage": "support",
        }
        twin["votes"] = {k: flip[v] for k, v in twin["votes"].items()}
        twin["choices"] = {k: flip[v] for k, v in twin["choices"].items()}
        assert Resistance.from_dict(twin).public_view() == view
        # Nor on which team members have chosen yet: drop every mission choice.
        unchosen = game.to_dict()
        unchosen["choices"] = {}
        assert Resistance.from_dict(unchosen).public_view() == view
    for f in dataclasses.fields(view):
        assert f.name not in {"votes", "choices", "spies"}


def check_roundtrip(game: Resistance) -> None:
    d = game.to_dict()
    assert Resistance.from_dict(json.loads(json.dumps(d))).to_dict() == d


def legal_action(game: Resistance, rng: random.Random, new_id: int) -> dict[str, Any]:
    """A random legal action. Votes lean towards accept by a per-game mood drawn from ``rng``
    so that games end in every way (successes, failures, rejections)."""
    ids = [p.id for p in game.players]
    if game.phase is Phase.DEBATE:
        r = rng.random()
        if r < 0.05:
            return {"action": "skip_leader"}
        if r < 0.08:
            return {
                "action": "substitute",
                "old": rng.choice(ids),
                "new": {"id": new_id, "name": f"sub{new_id}"},
            }
        return {"action": "propose", "leader": game.leader, "team": rng.sample(ids, game.team_size)}
    assert game.team is not None
    r = rng.random()
    all_voted = len(game.votes) == len(ids)
    if r < (0.4 if all_voted else 0.03):
        return {"action": "resolve"}
    if r < 0.6:
        pending = [pid for pid in ids if pid not in game.votes]
        player = rng.choice(pending if pending and rng.random() < 0.8 else ids)
        mood = (game.proposal_number * 2654435761 + len(game.results)) % 100 / 100
        vote = "accept" if rng.random() < 0.35 + 0.6 * mood else "reject"
        return {"action": "vote", "player": player, "vote": vote}
    choice = rng.choice(["support", "sabotage"])
    return {"action": "choose", "player": rng.choice(game.team), "choice": choice}


@PROPS
@given(n=player_counts, setup_seed=seeds, play_seed=seeds, opts=options)
def test_random_legal_play_ends_with_a_winner(
    n: int, setup_seed: int, play_seed: int, opts: Options
) -> None:
    game, events = Resistance.setup(make_players(n), random.Random(setup_seed), opts)
    assert [e.private_to for e in events[1:]] == [p.id for p in game.players]
    for event in events:
        check_event(game, event)
    assert sum(1 for r in game.roles.values() if r is Role.SPY) == SPY_COUNT[n]
    rng = random.Random(play_seed)
    skips = 0
    new_id = 10_000
    for _ in range(3000):
        if game.phase is Phase.OVER:
            break
        action = legal_action(game, rng, new_id)
        assert can_apply(game, action), action
        verify_action(game, action)
        if action["action"] == "substitute":
            new_id += 1
        skips += action["action"] == "skip_leader"
        mission, rejections = game.mission, game.rejections
        events = apply_action(game, action)
        for event in events:
            check_event(game, event)
        check_public_view(game)
        check_roundtrip(game)
        # Rejections count per mission and never reach the limit without ending the game.
        if not game.is_over:
            assert game.rejections < MAX_REJECTIONS
            if game.mission != mission:
                assert game.rejections == 0
            elif action["action"] in ("resolve", "skip_leader"):
                assert game.rejections == rejections + 1
        assert len(game.results) <= 5 and game.proposal_number <= 25
    assert game.phase is Phase.OVER
    assert game.winner is not None and game.win_reason is not None
    assert game.proposal_number + skips <= 25
    successes = sum(game.results)
    failures = len(game.results) - successes
    assert successes == 3 or failures == 3 or game.rejections == MAX_REJECTIONS
    replayed = Resistance.replay(json.loads(json.dumps(game.setup_record())), game.actions)
    assert replayed == game


def random_action(game: Resistance, rng: random.Random) -> dict[str, Any]:
    """Anything: legal or not, well-formed or not (about half of them legal)."""
    if game.phase is not Phase.OVER and rng.random() < 0.5:
        return legal_action(game, rng, 20_000 + len(game.actions))
    ids = [p.id for p in game.players]
    anyone = [*ids, 1, 2, 3, -5]
    kind = rng.choice(
        ["propose"] * 4 + ["vote"] * 4 + ["choose"] * 4 + ["resolve"] + ["skip_leader"]
        + ["substitute", "cancel", "bogus"]
    )  # fmt: skip
    if kind == "propose":
        size = game.team_size + rng.choice([-1, 0, 0, 0, 1])
        team = [rng.choice(anyone if rng.random() < 0.2 else ids) for _ in range(max(size, 0))]
        if rng.random() < 0.5:
            team = rng.sample(ids, max(0, min(size, len(ids))))
        leader = game.leader if rng.random() < 0.6 else rng.choice(anyone)
        return {"action": "propose", "leader": leader, "team": team}
    if kind == "vote":
        vote = rng.choice(["accept", "reject", "maybe", 3, None])
        return {"action": "vote", "player": rng.choice(anyone), "vote": vote}
    if kind == "choose":
        choice = rng.choice(["support", "sabotage", "nope", None])
        return {"action": "choose", "player": rng.choice(anyone), "choice": choice}
    if kind == "substitute":
        new = rng.choice([*ids, 77, 78, 79])
        return {"action": "substitute", "old": rng.choice(anyone), "new": {"id": new, "name": "n"}}
    if kind == "cancel":
        return {"action": "cancel"} if rng.random() < 0.05 else {"action": "cancel ", "x": 1}
    if kind == "resolve" and game.phase is Phase.VOTE and len(game.votes) < len(ids):
        return {"action": "resolve "}  # not yet: keep games going
    return {"action": kind}


@PROPS
@given(n=player_counts, setup_seed=seeds, play_seed=seeds)
def test_illegal_actions_raise_and_change_nothing(n: int, setup_seed: int, play_seed: int) -> None:
    game, _ = Resistance.setup(make_players(n), random.Random(setup_seed))
    rng = random.Random(play_seed)
    refused = 0
    for _ in range(150):
        action = random_action(game, rng)
        before = game.to_dict()
        if can_apply(game, action):
            events = apply_action(game, action)
            for event in events:
                check_event(game, event)
            check_public_view(game)
        else:
            refused += 1
            try:
                verify_action(game, action)
            except GameError as verified:
                key = verified.key
            else:  # pragma: no cover - can_apply said no
                raise AssertionError(action)
            try:
                apply_action(game, action)
            except GameError as error:
                assert error.key == key
                assert error.key.startswith("resistance.error.")
            else:  # pragma: no cover
                raise AssertionError(f"{action} was applied")
            assert game.to_dict() == before
    assert refused > 0
    replayed = Resistance.replay(game.setup_record(), game.actions)
    assert replayed == game


@settings(max_examples=60, deadline=None, derandomize=True)
@given(n=player_counts, seed=seeds)
def test_setup_deal_is_valid(n: int, seed: int) -> None:
    game, events = Resistance.setup(make_players(n), random.Random(seed))
    assert len(game.spies) == SPY_COUNT[n]
    assert sorted(game.leader_order) == sorted(p.id for p in game.players)
    assert game.phase is Phase.DEBATE and game.mission == 1
    spies = set(game.spies)
    for event in events[1:]:
        pid = event.private_to
        assert pid is not None
        expected = sorted(spies - {pid}) if pid in spies else []
        assert sorted(event.data["spies"]) == expected
    assert Resistance.replay(game.setup_record(), []) == game
