"""Typed events: one frozen dataclass per kind, and the event log's JSON round-trip.

Old rows (``event_rows/``, written before events were typed) read back as typed events and
re-encode to the same JSON, byte for byte; random games' logs round-trip too."""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.refutation.rules import Options as RefutationOptions
from games.refutation.rules import Phase as RefutationPhase
from games.refutation.rules import Refutation, RefutationEvent
from games.refutation.rules import events as rf
from games.refutation.tests.rules.helpers import DECK
from games.refutation.tests.rules.helpers import players as refutation_players
from games.refutation.tests.rules.test_properties import can, candidates
from games.resistance.rules import (
    GameOver,
    GameStarted,
    LeaderChanged,
    MissingVote,
    MissionResult,
    Options,
    Resistance,
    ResistanceEvent,
    Role,
    TeamTable,
    TeamVote,
    TeamVoteResult,
    Variant,
    VoteCast,
    Winner,
    apply_action,
)
from games.resistance.tests.rules.helpers import make_players
from games.resistance.tests.rules.test_avalon_properties import avalon_action
from games.resistance.tests.rules.test_properties import legal_action
from rulebase import Event

ROWS = Path(__file__).parent / "event_rows"
FAMILIES: dict[str, type[Event]] = {
    "resistance": ResistanceEvent,
    "avalon": ResistanceEvent,
    "refutation": RefutationEvent,
}


def rows(name: str) -> list[dict[str, Any]]:
    doc = json.loads((ROWS / f"{name}.json").read_text())
    found: list[dict[str, Any]] = doc["demo_rows"] + doc["engine_rows"]
    return found


def same_json(a: Any, b: Any) -> bool:
    """Equal as the database would write them: same keys in the same order, same values."""
    return json.dumps(a, ensure_ascii=False) == json.dumps(b, ensure_ascii=False)


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_old_rows_decode_to_typed_events_and_encode_identically(name: str) -> None:
    family = FAMILIES[name]
    for row in rows(name):
        event = family.decode(row["kind"], row["payload"], row["private_to"])
        assert type(event) is family.KINDS[row["kind"]] and event.kind == row["kind"]
        assert same_json(event.payload(), row["payload"]), row
        assert event.private_to == row["private_to"]
        # and again through the saved state's form
        assert family.from_dict(event.to_dict()) == event


#: Kinds added after the old rows were written (there are no old rows of them to read; the
#: random games below write and read them back).
NEWER_KINDS = {"refutation": {"turn_skipped"}}


def test_the_old_rows_cover_every_kind() -> None:
    resistance = {r["kind"] for name in ("resistance", "avalon") for r in rows(name)}
    assert resistance == set(ResistanceEvent.KINDS)
    old = {r["kind"] for r in rows("refutation")}
    assert not old & NEWER_KINDS["refutation"]
    assert old | NEWER_KINDS["refutation"] == set(RefutationEvent.KINDS)


def test_a_skipped_turn_is_stored_as_plain_values() -> None:
    """The newer kind's row: the keys its fields declare, in order, read back as it was."""
    row = {"player": 100002, "turn": 4, "by_moderator": False}
    event = RefutationEvent.decode("turn_skipped", row)
    assert event == rf.TurnSkipped(player=100002, turn=4, by_moderator=False)
    assert same_json(event.payload(), row) and event.private_to is None
    with pytest.raises(ValueError, match="missing key 'by_moderator'"):
        RefutationEvent.decode("turn_skipped", {"player": 1, "turn": 1})


def test_old_saved_states_keep_their_history_unchanged() -> None:
    for name in ("resistance", "avalon"):
        for state in json.loads((ROWS / f"{name}.json").read_text())["demo_states"]:
            game = Resistance.from_dict(state)
            assert all(isinstance(e, ResistanceEvent) for e in game.history)
            assert same_json(game.to_dict(), state)
            # saved before the team tables could be chosen: the forum's, Avalon's games too
            assert game.team_table is TeamTable.FORUM


def test_old_rows_read_as_typed_values() -> None:
    """Enums, tuples and int keys, as the fields declare (the JSON has strings and lists)."""
    (over,) = [r for r in rows("avalon") if r["kind"] == "game_over"][:1]
    event = ResistanceEvent.decode(over["kind"], over["payload"])
    assert isinstance(event, GameOver) and isinstance(event.winner, Winner)
    assert event.characters is not None and set(event.roles) == set(event.characters)
    assert all(isinstance(side, Role) for side in event.roles.values())
    revealed = next(r for r in rows("refutation") if r["kind"] == "cards_revealed")
    cards = RefutationEvent.decode(revealed["kind"], revealed["payload"])
    assert isinstance(cards, rf.CardsRevealed)
    assert all(isinstance(card, int) for card in cards.cards)
    started = next(r for r in rows("resistance") if r["kind"] == "game_started")
    classic = ResistanceEvent.decode("game_started", started["payload"])
    assert isinstance(classic, GameStarted) and classic.variant is None
    assert "variant" not in classic.payload() and isinstance(classic.players, tuple)


def test_events_are_read_with_match() -> None:
    events: list[ResistanceEvent] = [
        LeaderChanged(leader=2, previous=1),
        VoteCast(player=1, vote=TeamVote.ACCEPT, changed=False, private_to=1),
    ]
    seen: list[tuple[int, int | None]] = []
    for event in events:
        match event:
            case LeaderChanged(leader=leader, previous=previous):
                seen.append((leader, previous))
            case VoteCast(player=player, private_to=to):
                seen.append((player, to))
    assert seen == [(2, 1), (1, 1)]


def test_events_are_frozen() -> None:
    event = LeaderChanged(leader=2, previous=1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        event.leader = 3  # type: ignore[misc]  # assigning a frozen field is what is tested


PROPOSAL = dict.fromkeys(["proposal", "mission", "attempt", "leader"], 1)


@pytest.mark.parametrize(
    ("kind", "payload", "message"),
    [
        ("no_such_kind", {}, "unknown event kind"),
        ("hand_dealt", {"player": 1, "hand": []}, "unknown event kind"),  # the other game's
        ("leader_changed", {"leader": 2}, "missing key 'previous'"),
        ("leader_changed", {"leader": 2, "previous": 1, "extra": 0}, "unknown keys"),
        ("leader_changed", {"leader": "2", "previous": 1}, "expected an int"),
        ("leader_changed", {"leader": True, "previous": 1}, "expected an int"),
        ("team_proposed", {**PROPOSAL, "team": 5}, "expected a list"),
        ("vote_cast", {"player": 1, "vote": "maybe", "changed": False}, "maybe"),
    ],
)
def test_a_row_that_is_not_an_event_is_refused(
    kind: str, payload: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        ResistanceEvent.decode(kind, payload)


def test_each_game_has_its_own_registry() -> None:
    assert ResistanceEvent.KINDS["game_over"] is GameOver
    assert RefutationEvent.KINDS["game_over"] is rf.GameOver
    assert not ResistanceEvent.knows("hand_dealt") and RefutationEvent.knows("hand_dealt")
    with pytest.raises(TypeError, match="two events of kind"):

        @dataclasses.dataclass(frozen=True)
        class Twice(ResistanceEvent):
            kind = "game_over"

    assert ResistanceEvent.KINDS["game_over"] is GameOver


def test_optional_keys_are_left_out_only_while_none() -> None:
    result = TeamVoteResult(
        proposal=1,
        mission=1,
        leader=1,
        team=(1, 2),
        accepted=True,
        accept=(1, 2),
        reject=(),
        no_vote=(3,),
        missing_vote=MissingVote.REJECT,
    )
    assert list(result.payload()) == [
        "proposal", "mission", "leader", "team", "accepted", "accept", "reject", "no_vote",
        "missing_vote",
    ]  # fmt: skip
    avalon = GameStarted(players=(1,), leader_order=(1,), variant=Variant.AVALON)
    assert avalon.payload() == {
        "players": [1],
        "leader_order": [1],
        "variant": "avalon",
        "lady_holder": None,
    }
    over = MissionResult(
        mission=1, team=(1,), success=True, supports=1, sabotages=0, sabotages_needed=1
    )
    assert over.data == over.payload()  # no mapping keyed by int: the same plain values


# -- random games ---------------------------------------------------------------------------

PROPS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
seeds = st.integers(min_value=0, max_value=2**32 - 1)


def check_log(family: type[Event], events: list[Any]) -> None:
    """Each event through the database's JSON and back: equal, and the same JSON again."""
    for event in events:
        stored = json.loads(json.dumps(event.payload()))
        back = family.decode(event.kind, stored, event.private_to)
        assert back == event and type(back) is type(event)
        assert same_json(back.payload(), stored)


@PROPS
@given(n=st.integers(5, 10), setup_seed=seeds, play_seed=seeds, avalon=st.booleans())
def test_random_resistance_logs_round_trip(
    n: int, setup_seed: int, play_seed: int, avalon: bool
) -> None:
    options = Options()
    if avalon:
        n = max(n, 7)
        options = Options(variant=Variant.AVALON, percival=True, lady_of_the_lake=True)
    game, log = Resistance.setup(make_players(n), random.Random(setup_seed), options)
    rng = random.Random(play_seed)
    new_id = 10_000
    for _ in range(3000):
        if game.is_over:
            break
        action = avalon_action(game, rng, new_id) if avalon else legal_action(game, rng, new_id)
        new_id += action["action"] == "substitute"
        log += apply_action(game, action)
    check_log(ResistanceEvent, log)
    saved = json.loads(json.dumps(game.to_dict()))
    assert Resistance.from_dict(saved).history == game.history


@PROPS
@given(seed=seeds, n=st.integers(2, 6), techniques=st.booleans())
def test_random_refutation_logs_round_trip(seed: int, n: int, techniques: bool) -> None:
    rng = random.Random(seed)
    game, log = Refutation.setup(
        refutation_players(n), DECK, rng, RefutationOptions(target=5, techniques=techniques)
    )
    newcomer = 200_001
    for _ in range(300):
        if game.phase is RefutationPhase.OVER:
            break
        if rng.random() < 0.01:
            record: dict[str, Any] = {
                "action": "substitute",
                "old": rng.choice(game.player_ids),
                "new": {"id": newcomer, "name": f"N{newcomer}"},
            }
            newcomer += 1
        else:
            record = rng.choice([r for r in candidates(game) if can(game, r)])
        log += game.apply(record)
    if game.phase is not RefutationPhase.OVER:
        log += game.end(by_moderator=True)
    check_log(RefutationEvent, log)
