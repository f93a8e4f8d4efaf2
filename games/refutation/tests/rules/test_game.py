"""Each rule of The Refutation Game, on the synthetic deck."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import pytest

from bot.i18n import t
from games.refutation.rules import (
    GameError,
    Options,
    Phase,
    Player,
    Refutation,
    RefutationEvent,
    Result,
    parse_deck,
)
from games.refutation.rules.events import (
    CardChosen,
    CardsRevealed,
    RefutationStarted,
    TurnPassed,
    TurnSkipped,
    VoteRecorded,
)

from .helpers import (
    DECK,
    arrange,
    assert_renders,
    check_zones,
    disinfo,
    ints_in,
    new_game,
    players,
    refutation,
    synthetic_deck_text,
    technique,
)

P1, P2, P3 = 100001, 100002, 100003
D_A0, D_A1, D_B0 = disinfo(0, 0), disinfo(0, 1), disinfo(1, 0)
# Against D_A0: R_A0 and R_A1 have 3 stars, R_A2 1 star, R_A7 is not listed.
R_A0, R_A1, R_A2, R_A7 = (refutation(0, j) for j in (0, 1, 2, 7))
R_B0 = refutation(1, 0)


def illegal(game: Refutation, action: Callable[[], Any], key: str) -> GameError:
    """``action`` raises the error ``key`` and changes nothing."""
    before = json.dumps(game.to_dict(), sort_keys=True)
    with pytest.raises(GameError) as info:
        action()
    assert info.value.key == f"refutation.error.{key}", info.value
    assert json.dumps(game.to_dict(), sort_keys=True) == before
    assert_renders(info.value)
    return info.value


def kinds(events: list[RefutationEvent]) -> list[str]:
    return [e.kind for e in events]


def in_choice(game: Refutation | None = None, *, target: int = P2, card: int = D_A0) -> Refutation:
    """A 3-player game where P1 starts refuting ``card`` in front of ``target``."""
    game = game or new_game(3)
    arrange(
        game,
        active=P1,
        in_front={target: card},
        hands={P1: [R_A0, R_B0], P2: [R_A1, R_A7], P3: [R_A2]},
    )
    game.refute(P1, target)
    return game


def in_vote(choices: dict[int, int | None]) -> Refutation:
    game = in_choice()
    for pid, card in choices.items():
        game.choose(pid, card)
    game.reveal()
    assert game.phase is Phase.VOTE
    return game


# ----------------------------------------------------------------------------------------------
# Setup


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_setup_deals_the_table(n: int) -> None:
    game, events = Refutation.setup(players(n), DECK, random.Random(n), Options())
    assert game.phase is Phase.TURN
    assert len(game.feed) == 3 and len(game.draw) == 15 - 3
    assert all(len(hand) == 4 for hand in game.hands.values())
    assert all(DECK.card(c).kind == "refutation" for h in game.hands.values() for c in h)
    assert game.in_front == dict.fromkeys(game.player_ids)
    assert game.active_player in game.player_ids
    assert game.deck_id == "synthetic"
    check_zones(game)
    assert events[0].kind == "game_started" and events[0].private_to is None
    assert events[0].data["feed"] == game.feed
    dealt = [e for e in events if e.kind == "hand_dealt"]
    assert [e.private_to for e in dealt] == game.player_ids
    assert all(e.data["hand"] == game.hands[e.data["player"]] for e in dealt)


def test_setup_with_the_technique_variant() -> None:
    game = new_game(6, techniques=True)
    for hand in game.hands.values():
        assert len(hand) == 5
        assert sum(DECK.card(c).kind == "technique" for c in hand) == 1
    check_zones(game)


def test_setup_is_random_but_reproducible() -> None:
    a, b = new_game(4, seed=7), new_game(4, seed=7)
    assert a.to_dict() == b.to_dict()
    actives = {new_game(4, seed=s).active_player for s in range(30)}
    feeds = {tuple(new_game(4, seed=s).feed) for s in range(30)}
    assert len(actives) == 4 and len(feeds) > 20


@pytest.mark.parametrize(
    ("count", "options", "key"),
    [
        (1, Options(), "bad_player_count"),
        (7, Options(), "bad_player_count"),
        (3, Options(target=6), "bad_target"),
    ],
)
def test_setup_errors(count: int, options: Options, key: str) -> None:
    assert not Refutation.can_setup(players(count), DECK, options)
    with pytest.raises(GameError) as info:
        Refutation.setup(players(count), DECK, random.Random(0), options)
    assert info.value.key == f"refutation.error.{key}"
    assert_renders(info.value)


def test_a_goal_larger_than_the_cards_dealt_is_refused_with_the_largest_possible() -> None:
    # 2 players without the variant hold 8 cards: 9 refutations can never happen.
    with pytest.raises(GameError) as info:
        Refutation.setup(players(2), DECK, random.Random(0), Options(target=9))
    assert info.value.key == "refutation.error.target_unreachable"
    assert info.value.params == {"target": 9, "players": 2, "dealt": 8, "largest": 7}
    assert_renders(info.value)
    assert "is 7." in t(info.value.key, "en", **info.value.params)
    assert "est 7." in t(info.value.key, "fr", **info.value.params)
    # With the variant they hold 10; with 3 players, 12: both can aim at 9.
    Refutation.setup(players(2), DECK, random.Random(0), Options(target=9, techniques=True))
    Refutation.setup(players(3), DECK, random.Random(0), Options(target=9))


@pytest.mark.parametrize("techniques", [False, True])
@pytest.mark.parametrize("target", [5, 7, 9])
@pytest.mark.parametrize("count", [2, 3, 4, 5, 6])
def test_every_table_can_start_exactly_when_its_hands_can_reach_the_goal(
    count: int, target: int, techniques: bool
) -> None:
    dealt = (4 + (1 if techniques else 0)) * count
    options = Options(target=target, techniques=techniques)
    assert Refutation.can_setup(players(count), DECK, options) == (target <= dealt)
    assert Refutation.cards_dealt(count, techniques) == dealt
    largest = Refutation.largest_target(count, DECK, techniques)
    assert largest == max(t for t in (5, 7, 9) if t <= dealt)
    assert Refutation.can_setup(players(count), DECK, Options(largest, techniques))


def test_setup_refuses_duplicates_and_small_decks() -> None:
    with pytest.raises(GameError) as info:
        Refutation.setup([Player(1, "A"), Player(1, "B")], DECK, random.Random(0))
    assert info.value.key == "refutation.error.duplicate_player"
    assert_renders(info.value)

    five_techniques = parse_deck(synthetic_deck_text(exclude=frozenset({technique(5)})))
    Refutation.setup(players(5), five_techniques, random.Random(0), Options(techniques=True))
    with pytest.raises(GameError) as info:
        Refutation.setup(players(6), five_techniques, random.Random(0), Options(techniques=True))
    assert info.value.key == "refutation.error.not_enough_techniques"
    assert info.value.params == {"needed": 6, "available": 5}
    assert_renders(info.value)
    # Without the variant, technique cards are not needed.
    Refutation.setup(players(6), five_techniques, random.Random(0), Options())


def test_setup_needs_enough_disinformation_and_refutations() -> None:
    from .helpers import VALID

    mini = parse_deck(VALID)  # 3 disinformation, 2 refutations
    with pytest.raises(GameError) as info:
        Refutation.setup(players(2), mini, random.Random(0), Options(target=5))
    assert info.value.key == "refutation.error.not_enough_disinformation"
    assert info.value.params == {"needed": 5, "available": 3}
    assert_renders(info.value)
    unlisted = frozenset(refutation(f, j) for f in range(3) for j in (7, 8))
    smaller = parse_deck(synthetic_deck_text(exclude=unlisted))  # 21 refutations
    Refutation.setup(players(5), smaller, random.Random(0), Options(target=9))
    with pytest.raises(GameError) as info:
        Refutation.setup(players(6), smaller, random.Random(0), Options(target=9))
    assert info.value.key == "refutation.error.not_enough_refutations"
    assert info.value.params == {"needed": 24, "available": 21}
    assert_renders(info.value)


# ----------------------------------------------------------------------------------------------
# Watch


def test_watch_places_a_feed_card_and_refills_its_slot() -> None:
    game = new_game(3)
    arrange(game, active=P1)
    feed, top = list(game.feed), game.draw[0]
    card = feed[1]
    events = game.watch(P1, card)
    assert game.in_front[P1] == card
    assert game.feed == [feed[0], top, feed[2]]
    assert kinds(events) == ["card_watched", "turn_passed"]
    assert events[0].data == {
        "player": P1,
        "card": card,
        "feed": game.feed,
        "drawn": top,
        "draw_count": len(game.draw),
    }
    assert events[1].data["active"] == P2 and game.active_player == P2
    assert game.actions[-1] == {
        "action": "watch",
        "player": P1,
        "card": card,
        "refresh": False,
        "return_current": False,
    }
    check_zones(game)


def test_only_the_active_player_watches() -> None:
    game = new_game(3)
    arrange(game, active=P1)
    card = game.feed[0]
    illegal(game, lambda: game.watch(P2, card), "not_your_turn")
    illegal(game, lambda: game.watch(4242, card), "not_a_player")
    illegal(game, lambda: game.watch(P1, 999), "card_not_in_feed")
    illegal(game, lambda: game.watch(P1, game.draw[0]), "card_not_in_feed")
    illegal(game, lambda: game.watch(P1), "card_required")
    illegal(game, lambda: game.watch(P1, card, return_current=True), "nothing_to_return")
    assert not game.can_watch(P2, card) and game.can_watch(P1, card)


def test_one_card_in_front_at_most_unless_returned() -> None:
    game = new_game(3)
    arrange(game, active=P1, in_front={P1: D_A0}, feed=[D_A1, D_B0, disinfo(2, 0)])
    illegal(game, lambda: game.watch(P1, D_A1), "already_has_card")
    events = game.watch(P1, D_A1, return_current=True)
    assert kinds(events) == ["card_returned", "card_watched", "turn_passed"]
    assert events[0].data == {"player": P1, "card": D_A0}
    assert game.in_front[P1] == D_A1
    assert game.draw[-1] == D_A0  # under the deck
    check_zones(game)


def test_feed_shrinks_when_the_deck_is_empty() -> None:
    game = new_game(3)
    arrange(game, active=P1)
    game.reserve += game.draw  # (test only) empty the deck
    game.draw = []
    feed = list(game.feed)
    events = game.watch(P1, feed[0])
    assert events[0].data["drawn"] is None
    assert game.feed == feed[1:]


def test_refresh_then_must_place_a_new_card() -> None:
    game = new_game(3)
    arrange(game, active=P1, in_front={P2: D_B0})
    old_feed, top3 = list(game.feed), game.draw[:3]
    events = game.refresh_feed(P1)
    assert kinds(events) == ["feed_refreshed"]
    assert events[0].data["feed"] == top3 == game.feed
    assert game.draw[-3:] == old_feed
    assert game.must_place and game.active_player == P1
    illegal(game, lambda: game.refute(P1, P2), "must_place")
    illegal(game, lambda: game.refresh_feed(P1), "already_refreshed")
    illegal(game, lambda: game.watch(P1, None, refresh=True), "already_refreshed")
    illegal(game, lambda: game.watch(P1, old_feed[0]), "card_not_in_feed")
    assert game.actions[-1] == {"action": "refresh_feed", "player": P1}
    events = game.watch(P1, top3[2])
    assert kinds(events) == ["card_watched", "turn_passed"]
    assert not game.must_place and not game.refreshed
    check_zones(game)


def test_watch_with_refresh_only_refreshes_when_no_card() -> None:
    game = new_game(3)
    arrange(game, active=P1)
    top3 = game.draw[:3]
    events = game.watch(P1, None, refresh=True)
    assert kinds(events) == ["feed_refreshed"]
    assert game.feed == top3 and game.must_place
    game.watch(P1, top3[0])
    assert game.in_front[P1] == top3[0]


def test_watch_with_refresh_and_a_card_of_the_new_feed() -> None:
    game = new_game(3)
    arrange(game, active=P1, in_front={P1: D_A0})
    old_feed, top3 = list(game.feed), game.draw[:3]
    illegal(
        game,
        lambda: game.watch(P1, old_feed[0], refresh=True, return_current=True),
        "card_not_in_feed",
    )
    illegal(game, lambda: game.watch(P1, top3[1], refresh=True), "already_has_card")
    events = game.watch(P1, top3[1], refresh=True, return_current=True)
    assert kinds(events) == ["card_returned", "feed_refreshed", "card_watched", "turn_passed"]
    assert game.in_front[P1] == top3[1]
    check_zones(game)


def test_nothing_to_refresh_and_empty_feed() -> None:
    game = new_game(3)
    arrange(game, active=P1, in_front={P2: D_A0})
    game.reserve += game.draw + game.feed  # (test only) no disinformation left to watch
    game.draw, game.feed = [], []
    illegal(game, lambda: game.refresh_feed(P1), "nothing_to_refresh")
    illegal(game, lambda: game.watch(P1, D_A1), "feed_empty")
    assert game.can_refute(P1, P2)


def test_turn_actions_wait_for_the_refutation() -> None:
    game = in_choice()
    illegal(game, lambda: game.watch(P2, game.feed[0]), "refutation_in_progress")
    illegal(game, lambda: game.refute(P2, P2), "refutation_in_progress")
    illegal(game, lambda: game.refresh_feed(P1), "refutation_in_progress")


# ----------------------------------------------------------------------------------------------
# A turn not taken


def test_a_skipped_turn_passes_to_the_next_seat_with_no_card_played() -> None:
    game = new_game(3)
    arrange(game, active=P3, in_front={P1: D_A0})
    zones, turn = game.zones(), game.turn
    events = game.skip_turn()
    assert kinds(events) == ["turn_skipped", "turn_passed"]
    assert events[0] == TurnSkipped(player=P3, turn=turn, by_moderator=False)
    assert events[1] == TurnPassed(active=P1, turn=turn + 1)  # round the table to seat 0
    assert game.active_player == P1 and game.turn == turn + 1 and game.phase is Phase.TURN
    assert game.zones() == zones  # nothing placed, returned, drawn or discarded
    assert game.actions[-1] == {"action": "skip_turn", "by_moderator": False}
    assert game.skip_turn(by_moderator=True)[0].data == {
        "player": P1,
        "turn": turn + 1,
        "by_moderator": True,
    }
    assert game.active_player == P2
    check_zones(game)


def test_a_turn_skipped_after_a_refresh_keeps_the_new_feed() -> None:
    game = new_game(3)
    arrange(game, active=P1)
    game.refresh_feed(P1)
    feed = list(game.feed)
    assert game.must_place
    game.skip_turn()
    assert game.feed == feed and game.active_player == P2
    assert not game.must_place and not game.refreshed  # P2's turn is a whole new turn
    game.refresh_feed(P2)  # which may refresh again


def test_no_turn_to_skip_during_a_refutation_or_after_the_end() -> None:
    game = in_choice()
    illegal(game, game.skip_turn, "no_turn_open")
    assert not game.can_skip_turn()
    game.choose(P2, R_A1)
    game.reveal()
    illegal(game, lambda: game.skip_turn(by_moderator=True), "no_turn_open")
    game.end()
    illegal(game, game.skip_turn, "game_over")


def test_a_skipped_turn_replays_and_round_trips() -> None:
    game = new_game(3)
    arrange(game, active=P2, in_front={P3: D_A0})
    game.skip_turn()
    game.skip_turn(by_moderator=True)
    saved = json.loads(json.dumps(game.to_dict()))
    assert Refutation.from_dict(saved, DECK).to_dict() == game.to_dict()
    assert Refutation.replay(game.setup_record, game.actions, DECK).to_dict() == game.to_dict()


# ----------------------------------------------------------------------------------------------
# Refute and choose


def test_refute_a_card_in_front_of_any_player() -> None:
    game = new_game(3)
    arrange(game, active=P1, in_front={P1: D_A0})
    illegal(game, lambda: game.refute(P1, P2), "nothing_to_refute")  # feed cards cannot be
    illegal(game, lambda: game.refute(P1, 4242), "not_a_player")
    illegal(game, lambda: game.refute(P2, P1), "not_your_turn")
    events = game.refute(P1, P1)  # one's own card
    assert game.phase is Phase.CHOICE
    assert events == [
        RefutationStarted(
            refutation=1,
            player=P1,
            target_player=P1,
            card=D_A0,
            family="alpha",
        )
    ]


def test_choose_a_card_of_the_family_in_secret() -> None:
    game = in_choice()
    assert game.eligible_cards(P1) == [R_A0]
    assert game.eligible_cards(P2) == [R_A1, R_A7]
    illegal(game, lambda: game.choose(P1, R_B0), "not_eligible")
    illegal(game, lambda: game.choose(P1, R_A1), "not_in_hand")
    illegal(game, lambda: game.choose(4242, None), "not_a_player")
    events = game.choose(P1, R_A0)
    assert events == [CardChosen(player=P1, card=R_A0, private_to=P1)]
    game.choose(P1, None)  # changeable
    game.choose(P1, R_A0)
    assert game.choices == {P1: R_A0}
    assert not game.everyone_chosen()
    game.choose(P2, None)
    game.choose(P3, R_A2)
    assert game.everyone_chosen()
    assert R_A0 in game.hands[P1]  # still in hand until the reveal


def test_technique_cards_only_with_the_variant() -> None:
    game = in_choice()
    arrange(game, hands={P3: [R_A2, technique(1)]})
    illegal(game, lambda: game.choose(P3, technique(1)), "not_eligible")
    variant = in_choice(new_game(3, techniques=True))
    arrange(variant, hands={P3: [R_A2, technique(1)]})
    assert variant.eligible_cards(P3) == [R_A2, technique(1)]
    variant.choose(P3, technique(1))


def test_no_choice_outside_a_refutation() -> None:
    game = new_game(3)
    card = game.hands[P1][0]
    illegal(game, lambda: game.choose(P1, card), "no_choice_open")
    illegal(game, game.reveal, "no_choice_open")
    assert game.eligible_cards(P1) == []
    assert not game.everyone_chosen()


def test_reveal_moves_the_chosen_cards() -> None:
    game = in_choice()
    game.choose(P1, R_A0)
    game.choose(P3, R_A2)  # P2 does not choose: passes
    events = game.reveal()
    assert events == [CardsRevealed(refutation=1, disinformation=D_A0, cards={R_A0: P1, R_A2: P3})]
    assert game.phase is Phase.VOTE
    assert game.revealed == {R_A0: P1, R_A2: P3}
    assert R_A0 not in game.hands[P1] and R_A2 not in game.hands[P3]
    check_zones(game)


def test_nothing_revealed_ends_the_refutation() -> None:
    game = in_choice()
    game.choose(P1, None)
    events = game.reveal()
    assert kinds(events) == ["cards_revealed", "refutation_failed", "turn_passed"]
    assert events[1].data == {
        "disinformation": D_A0,
        "target_player": P2,
        "votes": {},
        "reason": "no_cards",
    }
    assert game.phase is Phase.TURN and game.active_player == P2
    assert game.in_front[P2] == D_A0  # stays where it is
    check_zones(game)


# ----------------------------------------------------------------------------------------------
# Vote


def test_vote_and_majority_of_votes_cast_wins() -> None:
    game = in_vote({P1: R_A0, P2: R_A7})
    illegal(game, lambda: game.vote(P1, R_A2), "not_revealed")
    illegal(game, lambda: game.vote(4242, R_A0), "not_a_player")
    events = game.vote(P1, R_A7)
    assert events == [VoteRecorded(player=P1, card=R_A7, private_to=P1)]
    game.vote(P1, R_A0)  # changeable
    game.vote(P2, R_A0)
    assert not game.everyone_voted()
    game.vote(P3, None)  # abstains: not a vote cast
    assert game.everyone_voted()
    events = game.close_vote()
    assert kinds(events) == ["refutation_succeeded", "turn_passed"]
    assert events[0].data == {
        "disinformation": D_A0,
        "card": R_A0,
        "player": P1,
        "by_reference": False,
        "target_player": P2,
        "votes": {R_A0: 2, R_A7: 0},
    }
    assert game.discard == [R_A0] and game.refuted == [D_A0]
    assert game.in_front[P2] is None
    assert game.credits[P1] == [R_A0]
    assert R_A7 in game.hands[P2]  # the other revealed card goes back
    assert game.revealed == {} and game.phase is Phase.TURN and game.active_player == P2
    check_zones(game)


@pytest.mark.parametrize(
    ("votes", "winner"),
    [
        ({P1: R_A0, P2: R_A7, P3: None}, None),  # 1 of 2 cast: not more than half
        ({P1: None, P2: None, P3: None}, None),  # nothing cast
        ({}, None),  # nobody voted
        ({P1: R_A0, P2: None, P3: None}, R_A0),  # 1 of 1 cast
        ({P1: R_A7, P2: R_A7, P3: R_A0}, R_A7),
    ],
)
def test_close_vote_majority(votes: dict[int, int | None], winner: int | None) -> None:
    game = in_vote({P1: R_A0, P2: R_A7})
    for pid, card in votes.items():
        game.vote(pid, card)
    events = game.close_vote()
    if winner is None:
        assert kinds(events) == ["refutation_failed", "turn_passed"]
        assert events[0].data["reason"] == "no_majority"
        assert game.in_front[P2] == D_A0 and game.refuted == []
        assert R_A0 in game.hands[P1] and R_A7 in game.hands[P2]
    else:
        assert events[0].kind == "refutation_succeeded" and events[0].data["card"] == winner
    check_zones(game)


def test_no_vote_outside_the_vote() -> None:
    game = in_choice()
    illegal(game, lambda: game.vote(P1, None), "no_vote_open")
    illegal(game, game.close_vote, "no_vote_open")
    illegal(game, lambda: game.consult_reference(P1), "no_vote_open")
    assert not game.everyone_voted()


# ----------------------------------------------------------------------------------------------
# Reference page


def test_reference_elects_the_card_with_most_stars_at_once() -> None:
    game = in_vote({P1: R_A0, P2: R_A7, P3: R_A2})  # stars: 3, none, 1
    game.vote(P1, R_A7)
    game.vote(P2, R_A7)
    events = game.consult_reference(P3)
    assert kinds(events) == ["reference_consulted", "refutation_succeeded", "turn_passed"]
    assert events[0].data == {
        "player": P3,
        "disinformation": D_A0,
        "relevant": {R_A0: 3, R_A2: 1},
        "elected": R_A0,
        "restricted_to": [],
    }
    assert events[1].data["by_reference"] is True
    assert events[1].data["votes"] == {R_A0: 0, R_A7: 2, R_A2: 0}
    assert game.refuted == [D_A0] and game.credits[P1] == [R_A0]
    assert game.actions[-1] == {"action": "consult_reference", "player": P3}
    check_zones(game)


def test_reference_tie_restricts_the_vote() -> None:
    game = in_vote({P1: R_A0, P2: R_A1, P3: R_A2})  # stars: 3, 3, 1
    game.vote(P1, R_A2)
    game.vote(P2, R_A1)
    game.vote(P3, None)
    events = game.consult_reference(P1)
    assert kinds(events) == ["reference_consulted"]
    assert events[0].data["elected"] is None
    assert events[0].data["restricted_to"] == [R_A0, R_A1]
    assert game.restricted_to == [R_A0, R_A1]
    assert game.votes == {P2: R_A1, P3: None}  # the vote for R_A2 is dropped
    illegal(game, lambda: game.vote(P1, R_A2), "not_in_runoff")
    illegal(game, lambda: game.consult_reference(P2), "reference_already_consulted")
    game.vote(P1, R_A0)
    events = game.close_vote()  # 1 - 1
    assert events[0].kind == "refutation_failed"
    assert events[0].data["votes"] == {R_A0: 1, R_A1: 1}
    check_zones(game)


def test_reference_tie_then_majority() -> None:
    game = in_vote({P1: R_A0, P2: R_A1})
    game.consult_reference(P2)
    game.vote(P1, R_A1)
    game.vote(P2, R_A1)
    events = game.close_vote()
    assert events[0].kind == "refutation_succeeded"
    assert events[0].data["card"] == R_A1 and events[0].data["player"] == P2


def test_reference_with_no_relevant_card_changes_nothing() -> None:
    game = in_vote({P2: R_A7})
    game.vote(P1, R_A7)
    events = game.consult_reference(P1)
    assert events[0].data == {
        "player": P1,
        "disinformation": D_A0,
        "relevant": {},
        "elected": None,
        "restricted_to": [],
    }
    assert game.phase is Phase.VOTE and game.restricted_to is None
    assert game.votes == {P1: R_A7}
    assert game.close_vote()[0].kind == "refutation_succeeded"


# ----------------------------------------------------------------------------------------------
# End


def test_table_wins_at_the_target() -> None:
    game = new_game(3, target=5)
    arrange(game, active=P1, in_front={P2: D_A0}, hands={P1: [R_A0]})
    game.refuted += [disinfo(2, i) for i in range(4)]  # (test only) four already refuted
    for card in game.refuted:
        game.draw.remove(card) if card in game.draw else game.feed.remove(card)
    check_zones(game)
    game.refute(P1, P2)
    game.choose(P1, R_A0)
    game.reveal()
    game.vote(P1, R_A0)
    events = game.close_vote()
    assert kinds(events) == ["refutation_succeeded", "game_over"]
    assert events[1].data == {
        "result": "won",
        "by_moderator": False,
        "refuted": game.refuted,
        "credits": {P1: [R_A0], P2: [], P3: []},
        "refutations": [
            {"disinformation": D_A0, "card": R_A0, "player": P1, "by_reference": False}
        ],
    }
    assert game.phase is Phase.OVER and game.result is Result.WON
    illegal(game, lambda: game.watch(P2, game.feed[0]), "game_over")
    illegal(game, lambda: game.end(), "game_over")


def test_table_loses_when_no_hand_can_refute() -> None:
    game = new_game(2)
    arrange(game, active=P1, in_front={P2: D_A0}, hands={P1: [R_A0], P2: []})
    game.refute(P1, P2)
    game.choose(P1, R_A0)
    game.reveal()
    events = game.consult_reference(P2)
    assert kinds(events) == ["reference_consulted", "refutation_succeeded", "game_over"]
    assert events[-1].data["result"] == "lost"
    assert game.result is Result.LOST


def test_cards_of_fully_refuted_families_cannot_refute() -> None:
    game = new_game(2, target=7)
    beta = [disinfo(1, i) for i in range(5)]
    arrange(game, active=P1, in_front={P2: beta[0]}, hands={P1: [R_B0], P2: [refutation(1, 1)]})
    for card in beta[1:]:
        game.draw.remove(card) if card in game.draw else game.feed.remove(card)
        game.refuted.append(card)
    # (the feed may now be short; that is fine for this test)
    assert game.table_can_refute()
    game.refute(P1, P2)
    game.choose(P1, R_B0)
    game.reveal()
    game.vote(P2, R_B0)
    events = game.close_vote()
    assert events[-1].kind == "game_over" and events[-1].data["result"] == "lost"
    assert game.hands[P2] == [refutation(1, 1)]  # a card is left, but beta is all refuted


def test_technique_cards_count_with_the_variant() -> None:
    game = new_game(2, techniques=True)
    arrange(game, hands={P1: [technique(3)], P2: []})
    assert game.table_can_refute()
    plain = new_game(2)
    arrange(plain, hands={P1: [technique(3)], P2: []})
    assert not plain.table_can_refute()


def test_moderator_ends_the_game_during_a_vote() -> None:
    game = in_vote({P1: R_A0, P3: R_A2})
    events = game.end()
    assert kinds(events) == ["game_over"]
    assert events[0].data["result"] == "ended" and events[0].data["by_moderator"] is True
    assert R_A0 in game.hands[P1] and R_A2 in game.hands[P3]  # back to their owners
    assert game.result is Result.ENDED and game.phase is Phase.OVER
    check_zones(game)


# ----------------------------------------------------------------------------------------------
# Substitution and views


def test_substitute_takes_hand_seat_and_card() -> None:
    game = in_choice(target=P2)
    game.choose(P2, R_A1)
    hand = list(game.hands[P2])
    newcomer = Player(200001, "New")
    illegal(game, lambda: game.substitute(P2, Player(P3, "P3")), "already_playing")
    illegal(game, lambda: game.substitute(4242, newcomer), "not_a_player")
    events = game.substitute(P2, newcomer)
    assert kinds(events) == ["player_substituted", "hand_dealt"]
    assert events[1].private_to == 200001
    assert game.player_ids == [P1, 200001, P3]
    assert game.hands[200001] == hand and P2 not in game.hands
    assert game.in_front[200001] == D_A0 and game.target_player == 200001
    assert game.choices == {200001: R_A1}
    game.reveal()
    assert game.revealed == {R_A1: 200001}
    check_zones(game)


def test_public_view_hides_hands_choices_and_votes() -> None:
    game = in_choice()
    game.choose(P1, R_A0)
    game.choose(P3, None)
    view = game.public_view()
    hands = {c for hand in game.hands.values() for c in hand}
    assert not hands & set(ints_in(view))
    assert view["refutation"]["chosen"] == [P1, P3]
    assert view["refutation"]["revealed"] == {}
    assert [p["hand_size"] for p in view["players"]] == [2, 2, 1]
    assert view["players"][1]["in_front"] == D_A0
    assert view["phase"] == "choice" and view["active"] == P1
    private = game.private_view(P1)
    assert private["hand"] == [R_A0, R_B0] and private["choice"] == R_A0
    assert private["has_chosen"] and not private["has_voted"]
    game.reveal()
    game.vote(P2, R_A0)
    view = game.public_view()
    assert view["refutation"]["revealed"] == {R_A0: P1}
    assert view["refutation"]["voted"] == [P2]
    assert "votes" not in json.dumps(view)
    assert game.private_view(P2)["vote"] == R_A0
    with pytest.raises(GameError):
        game.private_view(4242)


# ----------------------------------------------------------------------------------------------
# Serialisation and replay


def test_round_trip_and_replay() -> None:
    game = in_vote({P1: R_A0, P2: R_A1})
    game.consult_reference(P3)
    game.vote(P1, R_A0)
    data = json.loads(json.dumps(game.to_dict()))
    again = Refutation.from_dict(data, DECK)
    assert again.to_dict() == game.to_dict()
    again.vote(P2, R_A0)
    game.vote(P2, R_A0)
    assert again.close_vote() == game.close_vote()
    replayed = Refutation.replay(game.setup_record, game.actions, DECK)
    assert replayed.to_dict() == game.to_dict()


def test_from_dict_needs_the_same_deck() -> None:
    from .helpers import VALID

    game = new_game(3)
    with pytest.raises(GameError) as info:
        Refutation.from_dict(game.to_dict(), parse_deck(VALID))
    assert info.value.key == "refutation.error.wrong_deck"
    assert_renders(info.value)


def test_apply_rejects_unknown_actions() -> None:
    game = new_game(3)
    illegal(game, lambda: game.apply({"action": "cheat"}), "invalid_action")
    illegal(game, lambda: game.apply({"action": "watch"}), "invalid_action")


def test_events_round_trip_through_json() -> None:
    game = in_vote({P1: R_A0, P2: R_A1, P3: R_A2})
    for event in game.consult_reference(P1) + game.vote(P1, R_A0) + game.close_vote():
        again = RefutationEvent.from_dict(json.loads(json.dumps(event.to_dict())))
        assert again == event
