"""Property tests: random play keeps every card in one place, hides secrets, ends, replays."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from games.refutation.rules import (
    CardKind,
    GameError,
    Options,
    Phase,
    Player,
    Refutation,
    RefutationEvent,
    Result,
)
from games.refutation.rules.model import TARGETS

from .helpers import ALL_CARDS, DECK, assert_renders, check_zones, ints_in, players

STRANGER = 4242
Record = dict[str, Any]


def can(game: Refutation, r: Record) -> bool:
    """Whether the action record ``r`` is legal now (through the ``can_*`` methods)."""
    action = r["action"]
    if action == "watch":
        return game.can_watch(
            r["player"], r["card"], refresh=r["refresh"], return_current=r["return_current"]
        )
    if action == "refresh_feed":
        return game.can_refresh_feed(r["player"])
    if action == "refute":
        return game.can_refute(r["player"], r["target_player"])
    if action == "choose":
        return game.can_choose(r["player"], r["card"])
    if action == "reveal":
        return game.can_reveal()
    if action == "vote":
        return game.can_vote(r["player"], r["card"])
    if action == "consult_reference":
        return game.can_consult_reference(r["player"])
    if action == "close_vote":
        return game.can_close_vote()
    if action == "skip_turn":
        return game.can_skip_turn(r["by_moderator"])
    if action == "end":
        return game.can_end()
    if action == "substitute":
        return game.can_substitute(r["old"], Player.from_dict(r["new"]))
    raise AssertionError(action)


def watch(player: int, card: int | None, *, refresh: bool = False, back: bool = False) -> Record:
    return {
        "action": "watch",
        "player": player,
        "card": card,
        "refresh": refresh,
        "return_current": back,
    }


def candidates(game: Refutation) -> list[Record]:
    """Plausible actions for the current phase (some may be illegal)."""
    out: list[Record] = []
    ids = game.player_ids
    if game.phase is Phase.TURN:
        p = game.active_player
        back = game.in_front[p] is not None
        out += [watch(p, card, back=back) for card in game.feed]
        out += [watch(p, None, refresh=True), {"action": "refresh_feed", "player": p}]
        out += [{"action": "refute", "player": p, "target_player": t} for t in ids]
        out += [{"action": "skip_turn", "by_moderator": by} for by in (False, True)]
    elif game.phase is Phase.CHOICE:
        for p in ids:
            out += [{"action": "choose", "player": p, "card": c} for c in game.eligible_cards(p)]
            out.append({"action": "choose", "player": p, "card": None})
        out.append({"action": "reveal"})
    elif game.phase is Phase.VOTE:
        for p in ids:
            out += [{"action": "vote", "player": p, "card": c} for c in [*game.revealed, None]]
            out.append({"action": "consult_reference", "player": p})
        out.append({"action": "close_vote"})
    return out


def random_record(game: Refutation, rng: random.Random) -> Record:
    """Any action with random arguments: often illegal."""
    player = rng.choice([*game.player_ids, STRANGER])
    card = rng.choice([*rng.sample(sorted(ALL_CARDS), 3), None, 999])
    return rng.choice(
        [
            watch(player, card, refresh=rng.random() < 0.3, back=rng.random() < 0.3),
            {"action": "refresh_feed", "player": player},
            {"action": "refute", "player": player, "target_player": rng.choice(game.player_ids)},
            {"action": "choose", "player": player, "card": card},
            {"action": "reveal"},
            {"action": "vote", "player": player, "card": card},
            {"action": "consult_reference", "player": player},
            {"action": "close_vote"},
            {"action": "skip_turn", "by_moderator": rng.random() < 0.5},
            {
                "action": "substitute",
                "old": player,
                "new": {"id": rng.choice(game.player_ids), "name": "X"},
            },
        ]
    )


class Watcher:
    """Checks every invariant after each step of a game."""

    def __init__(self, game: Refutation) -> None:
        self.game = game
        self.public_cards: set[int] = set()
        """Hand cards that were revealed once (they may be named in public afterwards)."""

    def check(self, events: list[RefutationEvent]) -> None:
        game = self.game
        check_zones(game)
        for event in events:
            if event.kind == "cards_revealed":
                self.public_cards |= set(event.data["cards"])
            assert RefutationEvent.from_dict(json.loads(json.dumps(event.to_dict()))) == event
        secret = {c for hand in game.hands.values() for c in hand} - self.public_cards
        for event in events:
            if event.private_to is None:
                assert not secret & set(ints_in(event.data)), event
            else:
                assert event.private_to in game.player_ids
        view = game.public_view()
        hands = {c for hand in game.hands.values() for c in hand}
        assert not hands & set(ints_in(view)), "a hand card is public"
        assert {p["id"]: p["hand_size"] for p in view["players"]} == {
            pid: len(h) for pid, h in game.hands.items()
        }
        refutation = view["refutation"]
        if game.phase is Phase.CHOICE:
            assert refutation["revealed"] == {} and set(refutation["chosen"]) == set(game.choices)
        if game.phase is not Phase.VOTE:
            assert game.revealed == {} and game.votes == {}
        if game.phase is not Phase.CHOICE:
            assert game.choices == {}
        if game.phase in (Phase.CHOICE, Phase.VOTE):
            assert game.target_player is not None
            assert game.in_front[game.target_player] == game.target_card
        assert not game.must_place or game.refreshed
        assert len(game.feed) <= 3
        assert len(game.refuted) <= game.options.target
        for pid in game.player_ids:
            assert sum(1 for _ in [game.in_front[pid]] if _ is not None) <= 1
            for card in game.hands[pid]:
                assert DECK.card(card).kind is not CardKind.DISINFORMATION
        if game.phase is Phase.OVER:
            assert game.result is not None
            if game.result is Result.WON:
                assert len(game.refuted) == game.options.target
            if game.result is Result.LOST:
                assert not game.table_can_refute()

    def check_saved(self) -> None:
        game = self.game
        state = game.to_dict()
        assert Refutation.from_dict(json.loads(json.dumps(state)), DECK).to_dict() == state
        assert Refutation.replay(game.setup_record, game.actions, DECK).to_dict() == state


games_ = st.tuples(
    st.integers(0, 2**32 - 1),
    st.integers(2, 6),
    st.booleans(),
    st.sampled_from(TARGETS),
).filter(lambda p: p[3] <= Refutation.cards_dealt(p[1], p[2]))  # setup refuses the others


@settings(max_examples=60, deadline=None)
@given(games_)
def test_random_play_keeps_every_invariant(params: tuple[int, int, bool, int]) -> None:
    seed, n, techniques, target = params
    rng = random.Random(seed)
    game, events = Refutation.setup(
        players(n), DECK, rng, Options(target=target, techniques=techniques)
    )
    watcher = Watcher(game)
    watcher.check(events)
    newcomer = 200001
    for step in range(150):
        if game.phase is Phase.OVER:
            break
        roll = rng.random()
        if roll < 0.3:
            record = random_record(game, rng)
        elif roll < 0.31:
            record = {
                "action": "substitute",
                "old": rng.choice(game.player_ids),
                "new": {"id": newcomer, "name": f"N{newcomer}"},
            }
            newcomer += 1
        elif roll < 0.312:
            record = {"action": "end", "by_moderator": True}
        else:
            legal = [r for r in candidates(game) if can(game, r)]
            assert legal, "a live game always has a legal action"
            record = rng.choice(legal)
        legal_now = can(game, record)
        before = json.dumps(game.to_dict(), sort_keys=True)
        try:
            events = game.apply(record)
        except GameError as error:
            assert not legal_now, (record, error)
            assert json.dumps(game.to_dict(), sort_keys=True) == before, record
            assert_renders(error)
            continue
        assert legal_now, record
        watcher.check(events)
        if step % 50 == 0:
            watcher.check_saved()
    watcher.check_saved()


def directed(game: Refutation) -> Record:
    """A table that refutes whenever it can and always agrees on the first revealed card."""
    held = {c for hand in game.hands.values() for c in hand}
    techniques = game.options.techniques and any(
        DECK.card(c).kind is CardKind.TECHNIQUE for c in held
    )
    families = {DECK.card(c).family for c in held if DECK.card(c).kind is CardKind.REFUTATION}

    def useful(card: int) -> bool:
        return techniques or DECK.card(card).family in families

    if game.phase is Phase.CHOICE:
        for p in game.player_ids:
            if p not in game.choices:
                eligible = game.eligible_cards(p)
                return {"action": "choose", "player": p, "card": eligible[0] if eligible else None}
        return {"action": "reveal"}
    if game.phase is Phase.VOTE:
        first = next(iter(game.revealed))
        for p in game.player_ids:
            if p not in game.votes:
                return {"action": "vote", "player": p, "card": first}
        return {"action": "close_vote"}
    p = game.active_player
    back = game.in_front[p] is not None
    if not game.must_place:
        for t in game.player_ids:
            card = game.in_front[t]
            if card is not None and useful(card):
                return {"action": "refute", "player": p, "target_player": t}
    for card in game.feed:
        if useful(card):
            return watch(p, card, back=back)
    if not game.refreshed and game.can_refresh_feed(p):
        return {"action": "refresh_feed", "player": p}
    return watch(p, game.feed[0], back=back)


def play_directed(game: Refutation, bound: int) -> int:
    watcher = Watcher(game)
    for steps in range(bound):
        if game.phase is Phase.OVER:
            watcher.check_saved()
            return steps
        watcher.check(game.apply(directed(game)))
    raise AssertionError(f"the game did not end within {bound} actions")


@settings(max_examples=40, deadline=None)
@given(games_)
def test_a_table_that_refutes_always_ends(params: tuple[int, int, bool, int]) -> None:
    seed, n, techniques, target = params
    game, _ = Refutation.setup(
        players(n), DECK, random.Random(seed), Options(target=target, techniques=techniques)
    )
    play_directed(game, bound=3000)
    assert game.result in (Result.WON, Result.LOST)


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_the_table_loses_when_hands_run_out(seed: int) -> None:
    """2 players hold 8 refutation cards for a goal of 7 (9 is refused at setup): a table that
    does not win loses only once no hand can refute anything any more."""
    game, _ = Refutation.setup(players(2), DECK, random.Random(seed), Options(target=7))
    play_directed(game, bound=3000)
    assert len(game.refuted) <= 8
    if game.result is Result.LOST:
        assert not game.table_can_refute()
    else:
        assert game.result is Result.WON and len(game.refuted) == 7


@settings(max_examples=40, deadline=None)
@given(games_, st.integers(0, 40), st.booleans())
def test_a_skipped_turn_passes_to_the_next_seat_and_changes_nothing_else(
    params: tuple[int, int, bool, int], steps: int, by_moderator: bool
) -> None:
    """Wherever the game is: during a turn (a refresh included), a skip moves the marker to the
    next seat and the turn on by one, with nothing placed, returned or drawn; outside a turn
    it is refused and changes nothing."""
    seed, n, techniques, target = params
    rng = random.Random(seed)
    game, _ = Refutation.setup(players(n), DECK, rng, Options(target=target, techniques=techniques))
    for _ in range(steps):
        if game.phase is Phase.OVER:
            break
        game.apply(rng.choice([r for r in candidates(game) if can(game, r)]))
    before = game.to_dict()
    if game.phase is not Phase.TURN:
        assert not game.can_skip_turn(by_moderator)
        try:
            game.skip_turn(by_moderator)
        except GameError as error:
            expected = "no_turn_open" if game.phase is not Phase.OVER else "game_over"
            assert error.key == f"refutation.error.{expected}"
            assert_renders(error)
        else:
            raise AssertionError("a skip outside a turn was accepted")
        assert game.to_dict() == before
        return
    seat, turn, active = game.active_seat, game.turn, game.active_player
    events = game.skip_turn(by_moderator)
    assert [e.kind for e in events] == ["turn_skipped", "turn_passed"]
    assert events[0].data == {"player": active, "turn": turn, "by_moderator": by_moderator}
    assert events[1].data == {"active": game.active_player, "turn": turn + 1}
    assert game.active_seat == (seat + 1) % n and game.turn == turn + 1
    assert game.phase is Phase.TURN and not game.refreshed and not game.must_place
    after = game.to_dict()
    for key in ("seats", "draw", "feed", "reserve", "discard", "refuted", "successes"):
        assert after[key] == before[key], key
    assert game.actions[-1] == {"action": "skip_turn", "by_moderator": by_moderator}
    watcher = Watcher(game)
    watcher.check(events)
    watcher.check_saved()
