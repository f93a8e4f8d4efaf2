"""Property tests for Avalon: random legal games end, no public event or view holds a secret,
JSON round-trip and replay."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from games.resistance.rules import (
    SPY_COUNT,
    MissingVote,
    Options,
    Phase,
    Resistance,
    ResistanceEvent,
    Variant,
    apply_action,
    can_apply,
    min_players,
)

from .helpers import make_players
from .test_properties import (
    PRIVATE_KINDS,
    PROPS,
    PUBLIC_KINDS,
    SECRET_KEYS,
    _keys,
    legal_action,
    player_counts,
    seeds,
)

AT_THE_END = {"assassination", "game_over", "game_cancelled"}
AVALON_PUBLIC = (PUBLIC_KINDS - AT_THE_END) | {
    "lady_turn",
    "lady_examined",
    "lady_passed",
    "assassination_started",
}
AVALON_PRIVATE = PRIVATE_KINDS | {"lady_result", "assassin_turn"}
AVALON_SECRETS = SECRET_KEYS | {
    "character",
    "characters",
    "merlin_candidates",
    "merlin",
    "side",
    "targets",
    "assassin",
}


@st.composite
def avalon_options(draw: st.DrawFn) -> tuple[int, Options]:
    """A player count and a legal choice of Avalon options for it."""
    percival = draw(st.booleans())
    options = Options(
        variant=Variant.AVALON,
        missing_vote=draw(st.sampled_from(list(MissingVote))),
        percival=percival,
        morgana=percival and draw(st.booleans()),
        mordred=draw(st.booleans()),
        oberon=draw(st.booleans()),
        lady_of_the_lake=draw(st.booleans()),
    )
    n = draw(st.integers(min_value=min_players(options), max_value=10))
    return n, options


def check_avalon_event(game: Resistance, event: ResistanceEvent) -> None:
    assert json.loads(json.dumps(event.to_dict())) == event.to_dict()
    if event.private_to is not None:
        assert event.kind in AVALON_PRIVATE, event
        assert event.data["player"] == event.private_to
        return
    if event.kind in AT_THE_END:
        assert game.is_over
        return
    assert event.kind in AVALON_PUBLIC, event
    assert not (_keys(event.data) & AVALON_SECRETS), event


def check_avalon_view(game: Resistance) -> None:
    """The public view holds no secret: the same for any other deal of the same roles."""
    view = game.public_view()
    if game.is_over:
        assert view.characters == game.characters and view.roles == game.roles
        return
    assert view.roles == {} and view.characters == {} and view.winner is None
    assert view.lady_holder == game.lady_holder
    twin = game.to_dict()
    ids = list(twin["roles"])
    # Rotate the deal by one seat (sides and roles together): nothing public may change.
    rotated = ids[1:] + ids[:1]
    twin["roles"] = {pid: twin["roles"][src] for pid, src in zip(ids, rotated, strict=True)}
    twin["characters"] = {
        pid: twin["characters"][src] for pid, src in zip(ids, rotated, strict=True)
    }
    flip = {"accept": "reject", "reject": "accept", "support": "sabotage", "sabotage": "support"}
    twin["votes"] = {k: flip[v] for k, v in twin["votes"].items()}
    twin["choices"] = {k: flip[v] for k, v in twin["choices"].items()}
    assert Resistance.from_dict(twin).public_view() == view


def avalon_action(game: Resistance, rng: random.Random, new_id: int) -> dict[str, Any]:
    """A random legal action, Lady and assassination included."""
    if game.phase is Phase.LADY:
        holder = game.lady_holder
        if rng.random() < 0.25:
            return {"action": "resolve"}
        return {"action": "examine", "holder": holder, "target": rng.choice(game.lady_eligible)}
    if game.phase is Phase.ASSASSINATION:
        if rng.random() < 0.2:
            return {"action": "resolve"}
        target = rng.choice(game.assassination_targets)
        return {"action": "assassinate", "player": game.assassin, "target": target}
    return legal_action(game, rng, new_id)


@PROPS
@given(setup=avalon_options(), setup_seed=seeds, play_seed=seeds)
def test_random_legal_avalon_games_end(
    setup: tuple[int, Options], setup_seed: int, play_seed: int
) -> None:
    n, options = setup
    game, events = Resistance.setup(make_players(n), random.Random(setup_seed), options)
    assert len(game.spies) == SPY_COUNT[n]
    for event in events:
        check_avalon_event(game, event)
    rng = random.Random(play_seed)
    new_id = 10_000
    seen: set[str] = set()
    for _ in range(3000):
        if game.is_over:
            break
        action = avalon_action(game, rng, new_id)
        assert can_apply(game, action), action
        new_id += action["action"] == "substitute"
        for event in apply_action(game, action):
            seen.add(event.kind)
            check_avalon_event(game, event)
        check_avalon_view(game)
        d = game.to_dict()
        assert Resistance.from_dict(json.loads(json.dumps(d))).to_dict() == d
        # Four holders at most: the Lady never runs out of players to examine.
        assert len(game.lady_holders) == len(set(game.lady_holders)) <= 4
    assert game.is_over and game.winner is not None and game.win_reason is not None
    successes = sum(game.results)
    if successes == 3:
        assert "assassination_started" in seen
        assert game.win_reason.value in {
            "merlin_assassinated",
            "assassin_missed",
            "no_assassination",
        }
    replayed = Resistance.replay(json.loads(json.dumps(game.setup_record())), game.actions)
    assert replayed == game


@PROPS
@given(n=player_counts, seed=seeds)
def test_classic_deals_unchanged_by_avalon(n: int, seed: int) -> None:
    """A classic game draws the same deal and leader order as before Avalon existed (the same
    random calls): the roles are those of the spies sample."""
    game, _ = Resistance.setup(make_players(n), random.Random(seed))
    rng = random.Random(seed)
    ids = [p.id for p in make_players(n)]
    spies = set(rng.sample(ids, SPY_COUNT[n]))
    order = list(ids)
    rng.shuffle(order)
    assert set(game.spies) == spies and list(game.leader_order) == order
    assert game.characters == {}
