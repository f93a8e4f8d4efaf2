"""A round of The Resistance: proposal, votes, mission, leader rotation, the end."""

from __future__ import annotations

import random

import pytest

from games.resistance.rules import (
    EndReason,
    MissingVote,
    MissionChoice,
    Options,
    Phase,
    Player,
    Resistance,
    Role,
    TeamVote,
    Winner,
)

from .helpers import (
    by_kind,
    kinds,
    make_game,
    make_players,
    play_round,
    propose_any,
    resistance_ids,
    team_with_spies,
)

A, R = TeamVote.ACCEPT, TeamVote.REJECT


def test_setup_events_and_initial_state() -> None:
    players = make_players(7)
    game, events = Resistance.setup(players, random.Random(42))
    assert game.phase is Phase.DEBATE
    assert (game.mission, game.rejections, game.proposal_number) == (1, 0, 0)
    assert game.results == () and game.team is None and game.winner is None
    assert game.players == tuple(players)
    assert sorted(game.leader_order) == sorted(p.id for p in players)
    assert game.leader == game.leader_order[0]

    started = events[0]
    assert started.kind == "game_started" and started.private_to is None
    assert started.data == {
        "players": [p.id for p in players],
        "leader_order": list(game.leader_order),
    }
    dealt = events[1:]
    assert kinds(dealt) == ["role_dealt"] * 7
    for event, player in zip(dealt, players, strict=True):
        assert event.private_to == player.id
        assert event.data["player"] == player.id
        role = game.roles[player.id]
        assert event.data["role"] == role.value
        if role is Role.SPY:
            assert sorted(event.data["spies"]) == sorted(set(game.spies) - {player.id})
        else:
            assert event.data["spies"] == []


def test_setup_is_deterministic_per_seed_and_varies() -> None:
    players = make_players(10)
    a, _ = Resistance.setup(players, random.Random(1))
    b, _ = Resistance.setup(players, random.Random(1))
    assert a == b
    deals = {(Resistance.setup(players, random.Random(s))[0].spies, s % 1) for s in range(30)}
    orders = {Resistance.setup(players, random.Random(s))[0].leader_order for s in range(30)}
    assert len(deals) > 1 and len(orders) > 1


def test_propose_event_and_state() -> None:
    game = make_game(5)
    events = game.propose(game.leader, [103, 100])
    assert game.phase is Phase.VOTE
    assert game.team == (103, 100)
    assert game.proposal_number == 1
    assert events == [
        by_kind(events, "team_proposed"),
    ]
    assert events[0].private_to is None
    assert events[0].data == {
        "proposal": 1,
        "mission": 1,
        "attempt": 1,
        "leader": 100,
        "team": [103, 100],
    }


def test_leader_may_propose_themselves_or_not() -> None:
    game = make_game(5)
    assert game.can_propose(100, [100, 101])
    assert game.can_propose(100, [101, 102])


@pytest.mark.parametrize("n", range(5, 11))
def test_absolute_majority_over_all_players(n: int) -> None:
    """Accepted iff accepts > n/2; a tie rejects; non-voters never help (default option)."""
    majority = n // 2 + 1
    ids = [p.id for p in make_players(n)]
    for accepts in range(n + 1):
        game = make_game(n)
        propose_any(game)
        for pid in ids[:accepts]:
            game.vote(pid, A)
        events = game.resolve()
        assert by_kind(events, "team_vote_result").data["accepted"] is (accepts >= majority)


def test_tie_rejects() -> None:
    game = make_game(6)
    play_round(game, votes=dict.fromkeys([100, 101, 102], A) | dict.fromkeys([103, 104, 105], R))
    assert game.rejections == 1 and game.results == ()


def test_majority_of_votes_cast_is_not_enough() -> None:
    """3 accept, 0 reject, 4 silent out of 7: a majority of the votes cast, not of the players."""
    game = make_game(7)
    events = play_round(game, votes=dict.fromkeys([100, 101, 102], A))
    result = by_kind(events, "team_vote_result").data
    assert result["accepted"] is False
    assert result["no_vote"] == [103, 104, 105, 106]
    assert game.rejections == 1


def test_missing_vote_accept_option() -> None:
    game = make_game(7, options=Options(missing_vote=MissingVote.ACCEPT))
    events = play_round(game, votes={100: A, 101: R, 102: R})
    result = by_kind(events, "team_vote_result").data
    assert result["accepted"] is True  # 1 + 4 silent = 5 > 3.5
    assert result["missing_vote"] == "accept"
    assert result["accept"] == [100] and result["no_vote"] == [103, 104, 105, 106]
    assert game.results == (True,)

    game = make_game(7, options=Options(missing_vote=MissingVote.ACCEPT))
    events = play_round(game, votes={100: R, 101: R, 102: R, 103: R})
    assert by_kind(events, "team_vote_result").data["accepted"] is False  # 3 of 7


def test_missing_vote_reject_is_default() -> None:
    assert Options().missing_vote is MissingVote.REJECT
    game = make_game(5)
    events = play_round(game, votes={100: A, 101: A})
    result = by_kind(events, "team_vote_result").data
    assert result["accepted"] is False and result["missing_vote"] == "reject"


def test_vote_result_lists_sorted_by_name_casefold_then_id() -> None:
    players = [
        Player(1, "bob"),
        Player(2, "Alice"),
        Player(3, "alice"),
        Player(4, "Zed"),
        Player(5, "carl"),
        Player(6, "BOB"),
    ]
    roles = {1: Role.SPY, 2: Role.SPY, 3: Role.RESISTANCE, 4: Role.RESISTANCE}
    roles |= {5: Role.RESISTANCE, 6: Role.RESISTANCE}
    game = Resistance(players, roles, [1, 2, 3, 4, 5, 6])
    game.propose(1, [1, 2])
    for pid in (6, 1, 4, 2):
        game.vote(pid, A)
    game.vote(3, R)
    view = game.public_view()
    assert view.waiting_for == (5,)  # carl: the only missing team vote
    assert game.owing() == (2, 1, 5)  # Alice(2, not chosen), bob(1, not chosen), carl
    events = game.resolve()
    result = by_kind(events, "team_vote_result").data
    assert result["accept"] == [2, 1, 6, 4]
    assert result["reject"] == [3]
    assert result["no_vote"] == [5]
    assert result["accepted"] is True
    assert result["team"] == [1, 2] and result["leader"] == 1 and result["proposal"] == 1


def test_votes_can_change_last_counts() -> None:
    game = make_game(5)
    propose_any(game)
    first = game.vote(100, A)
    assert first[0].data == {"player": 100, "vote": "accept", "changed": False}
    assert first[0].private_to == 100
    again = game.vote(100, A)
    assert again[0].data["changed"] is False
    changed = game.vote(100, R)
    assert changed[0].data == {"player": 100, "vote": "reject", "changed": True}
    assert game.votes[100] is R
    for pid in (101, 102):
        game.vote(pid, A)
    # 100 changed to reject: 2 accepts out of 5 -> rejected.
    assert by_kind(game.resolve(), "team_vote_result").data["reject"] == [100]


def test_votes_given_as_strings_are_accepted() -> None:
    game = make_game(5)
    propose_any(game)
    game.vote(100, "accept")  # type: ignore[arg-type]  # a str on purpose: what is tested
    assert game.votes[100] is A


def test_choices_can_change_last_counts() -> None:
    game = make_game(5)  # spies 103, 104
    propose_any(game, [103, 100])
    game.choose(103, MissionChoice.SABOTAGE)
    events = game.choose(103, MissionChoice.SUPPORT)
    assert events[0].data == {
        "player": 103,
        "choice": "support",
        "requested": "support",
        "changed": True,
    }
    for p in game.players:
        game.vote(p.id, A)
    result = by_kind(game.resolve(), "mission_result").data
    assert result["success"] is True and result["sabotages"] == 0


def test_resistance_sabotage_recorded_as_support() -> None:
    game = make_game(5)
    propose_any(game, [100, 103])
    events = game.choose(100, MissionChoice.SABOTAGE)
    assert kinds(events) == ["mission_choice_made", "sabotage_recorded_as_support"]
    assert all(e.private_to == 100 for e in events)
    assert events[0].data == {
        "player": 100,
        "choice": "support",
        "requested": "sabotage",
        "changed": False,
    }
    assert events[1].data == {"player": 100}
    assert game.choices[100] is MissionChoice.SUPPORT
    assert game.private_view(100).choice is MissionChoice.SUPPORT
    # A spy's sabotage is recorded as such, with no extra event.
    spy_events = game.choose(103, MissionChoice.SABOTAGE)
    assert kinds(spy_events) == ["mission_choice_made"]
    assert spy_events[0].data["choice"] == "sabotage"
    for p in game.players:
        game.vote(p.id, A)
    result = by_kind(game.resolve(), "mission_result").data
    assert (result["supports"], result["sabotages"], result["success"]) == (1, 1, False)


def test_missing_mission_choice_counts_as_support() -> None:
    game = make_game(5)
    propose_any(game, [103, 104])  # both spies, neither chooses
    for p in game.players:
        game.vote(p.id, A)
    assert not game.everyone_in()
    result = by_kind(game.resolve(), "mission_result").data
    assert result == {
        "mission": 1,
        "team": [103, 104],
        "success": True,
        "supports": 2,
        "sabotages": 0,
        "sabotages_needed": 1,
    }


def test_choices_ignored_when_team_rejected() -> None:
    game = make_game(5)
    propose_any(game, [103, 104])
    game.choose(103, MissionChoice.SABOTAGE)
    events = game.resolve()  # nobody voted
    assert kinds(events) == ["team_vote_result", "leader_changed"]
    assert game.results == () and game.choices == {} and game.votes == {}
    assert game.phase is Phase.DEBATE and game.team is None


def test_everyone_in() -> None:
    game = make_game(5)
    assert not game.everyone_in()
    propose_any(game, [100, 103])
    for p in game.players:
        game.vote(p.id, R)
    assert not game.everyone_in()
    game.choose(100, MissionChoice.SUPPORT)
    assert not game.everyone_in()
    game.choose(103, MissionChoice.SABOTAGE)
    assert game.everyone_in()
    assert game.public_view().waiting_for == ()
    assert game.public_view().votes_in == 5


def test_leader_rotation_wraps_after_every_result() -> None:
    order = [102, 100, 104, 101, 103]
    game = make_game(5, order=order)
    seen = [game.leader]
    # Rejected (R), accepted-success (S) and accepted-failure (F) teams: the leader moves after
    # each result, wrapping to the first of the list.
    for step in "RRSRRFRRS":
        previous = game.leader
        if step == "F":
            events = play_round(game, team=team_with_spies(game, 1), sabotages=1)
        else:
            events = play_round(game, accept=step != "R")
        changed = by_kind(events, "leader_changed").data
        assert changed == {"leader": game.leader, "previous": previous}
        seen.append(game.leader)
    assert game.winner is None and game.results == (True, False, True)
    assert seen == (order * 2)[:10]


def test_leader_changes_after_rejection_same_mission() -> None:
    game = make_game(5, order=[104, 103, 102, 101, 100])
    play_round(game, accept=False)
    assert game.leader == 103 and game.mission == 1 and game.rejections == 1
    events = propose_any(game)
    assert events[0].data["attempt"] == 2 and events[0].data["proposal"] == 2


def test_same_team_may_be_proposed_again() -> None:
    game = make_game(5)
    play_round(game, team=[100, 101], accept=False)
    assert game.can_propose(game.leader, [100, 101])


def test_fifth_rejection_spies_win() -> None:
    game = make_game(5)
    for i in range(4):
        play_round(game, accept=False)
        assert game.rejections == i + 1 and game.winner is None
    events = play_round(game, accept=False)
    assert kinds(events) == ["team_vote_result", "game_over"]
    over = events[-1]
    assert over.private_to is None
    assert over.data == {
        "winner": "spies",
        "reason": "five_rejections",
        "roles": {str(pid): role.value for pid, role in game.roles.items()},
    }
    assert game.phase is Phase.OVER
    assert game.winner is Winner.SPIES and game.win_reason is EndReason.FIVE_REJECTIONS


def test_rejection_count_resets_at_new_mission() -> None:
    game = make_game(5)
    for _ in range(4):
        play_round(game, accept=False)
    assert game.rejections == 4
    play_round(game)  # accepted, mission 1 succeeds
    assert game.mission == 2 and game.rejections == 0 and game.results == (True,)
    for _ in range(4):
        play_round(game, accept=False)
    assert game.winner is None and game.rejections == 4
    play_round(game, accept=False)
    assert game.winner is Winner.SPIES and game.win_reason is EndReason.FIVE_REJECTIONS


def test_rejections_across_missions_do_not_add_up() -> None:
    game = make_game(6)
    for _ in range(3):
        for _ in range(4):
            play_round(game, accept=False)
        play_round(game)
    assert game.winner is Winner.RESISTANCE


def test_three_successes_resistance_wins() -> None:
    game = make_game(5)
    play_round(game)
    play_round(game, team=team_with_spies(game, 1), sabotages=1)
    play_round(game)
    assert game.winner is None and game.results == (True, False, True)
    events = play_round(game)
    assert kinds(events) == ["team_vote_result", "mission_result", "game_over"]
    assert events[-1].data["winner"] == "resistance"
    assert events[-1].data["reason"] == "three_successes"
    assert game.winner is Winner.RESISTANCE and game.win_reason is EndReason.THREE_SUCCESSES
    assert game.mission == 4 and game.phase is Phase.OVER
    assert game.public_view().roles == game.roles


def test_three_failures_spies_win() -> None:
    game = make_game(8)
    for _ in range(3):
        play_round(game, team=team_with_spies(game, 1), sabotages=1)
    assert game.results == (False, False, False)
    assert game.winner is Winner.SPIES and game.win_reason is EndReason.THREE_FAILURES


def test_mission_result_reveals_counts_only() -> None:
    game = make_game(10)
    events = play_round(game, team=team_with_spies(game, 2), sabotages=1)
    result = by_kind(events, "mission_result")
    assert result.private_to is None
    assert set(result.data) == {
        "mission",
        "team",
        "success",
        "supports",
        "sabotages",
        "sabotages_needed",
    }
    assert (result.data["supports"], result.data["sabotages"]) == (2, 1)


def test_private_view() -> None:
    game = make_game(7)  # spies 104, 105, 106
    propose_any(game, [100, 104])
    game.vote(104, R)
    game.choose(104, MissionChoice.SABOTAGE)
    spy = game.private_view(104)
    assert spy.role is Role.SPY and spy.spies == (105, 106)
    assert spy.vote is R and spy.choice is MissionChoice.SABOTAGE and spy.on_team
    res = game.private_view(101)
    assert res.role is Role.RESISTANCE and res.spies == ()
    assert res.vote is None and res.choice is None and not res.on_team


def test_public_view_during_vote() -> None:
    game = make_game(5)
    propose_any(game, [100, 103])
    game.vote(101, A)
    game.vote(100, R)
    game.choose(103, MissionChoice.SABOTAGE)
    view = game.public_view()
    assert view.phase is Phase.VOTE and view.team == (100, 103)
    assert view.votes_in == 2
    # Public: the missing team votes only; 100 voted but has not chosen, which stays private.
    assert view.waiting_for == (102, 103, 104)  # carol, Dave, eve
    assert game.owing() == (100, 102, 103, 104)  # alice (not chosen), carol, Dave, eve
    assert view.roles == {} and view.winner is None
    assert view.leader == 100 and view.leader_order == game.leader_order


def test_history_records_public_results() -> None:
    game = make_game(5)
    play_round(game, accept=False)
    play_round(game)
    game.skip_leader()
    assert kinds(game.history) == [
        "team_vote_result",
        "team_vote_result",
        "mission_result",
        "leader_skipped",
    ]
    assert all(e.private_to is None for e in game.history)


def test_resistance_ids_helper_sanity() -> None:
    game = make_game(5)
    assert resistance_ids(game) == [100, 101, 102]
