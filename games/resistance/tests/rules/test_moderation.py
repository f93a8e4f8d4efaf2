"""Moderator and timeout actions: substitute, skip_leader, cancel."""

from __future__ import annotations

import pytest

from games.resistance.rules import (
    AlreadyAPlayer,
    EndReason,
    GameIsOver,
    MissionChoice,
    NotAPlayer,
    Phase,
    Player,
    Role,
    TeamVote,
    UnknownPlayer,
    Winner,
    WrongPhase,
)

from .helpers import kinds, make_game, play_round, propose_any

NEW = Player(999, "Newcomer")


def test_substitute_carries_seat_role_and_leader_place() -> None:
    game = make_game(5, order=[102, 103, 104, 100, 101])  # spies 103, 104
    events = game.substitute(103, NEW)
    assert kinds(events) == ["player_substituted", "role_dealt"]
    assert events[0].private_to is None
    assert events[0].data == {"old": 103, "new": 999, "name": "Newcomer"}
    assert events[1].private_to == 999
    assert events[1].data == {"player": 999, "role": "spy", "spies": [104]}
    assert [p.id for p in game.players] == [100, 101, 102, 999, 104]
    assert game.players[3] == NEW and game.player(999) == NEW
    assert game.roles == {
        100: Role.RESISTANCE,
        101: Role.RESISTANCE,
        102: Role.RESISTANCE,
        999: Role.SPY,
        104: Role.SPY,
    }
    assert game.leader_order == (102, 999, 104, 100, 101)
    assert game.spies == (999, 104)
    assert game.private_view(104).spies == (999,)
    assert not game.is_player(103)
    with pytest.raises(NotAPlayer):
        game.private_view(103)
    with pytest.raises(UnknownPlayer):
        game.player(103)


def test_substituted_leader_leads() -> None:
    game = make_game(5)
    game.substitute(100, NEW)
    assert game.leader == 999
    assert not game.can_propose(100, [101, 102])
    assert game.can_propose(999, [999, 101])


def test_substitute_during_vote_drops_pending_vote_and_choice() -> None:
    game = make_game(5)
    propose_any(game, [103, 101])
    game.vote(103, TeamVote.ACCEPT)
    game.vote(101, TeamVote.ACCEPT)
    game.choose(103, MissionChoice.SABOTAGE)
    game.substitute(103, NEW)
    assert game.team == (999, 101)
    assert 103 not in game.votes and 999 not in game.votes
    assert 103 not in game.choices and 999 not in game.choices
    assert game.votes == {101: TeamVote.ACCEPT}
    view = game.public_view()
    assert 999 in view.waiting_for and view.votes_in == 1
    with pytest.raises(NotAPlayer):
        game.vote(103, TeamVote.ACCEPT)
    game.choose(999, MissionChoice.SUPPORT)
    assert game.private_view(999).on_team


def test_substitute_errors() -> None:
    game = make_game(5)
    with pytest.raises(UnknownPlayer) as unknown:
        game.substitute(555, NEW)
    assert unknown.value.params == {"player": 555}
    with pytest.raises(AlreadyAPlayer) as already:
        game.substitute(100, Player(101, "Bob again"))
    assert already.value.key == "resistance.error.already_a_player"
    assert already.value.params["name"] == "Bob again"
    assert not game.can_substitute(100, Player(100, "same"))
    game.cancel()
    with pytest.raises(GameIsOver):
        game.substitute(100, NEW)


def test_skip_leader_counts_as_rejection_and_passes_lead() -> None:
    game = make_game(5)
    events = game.skip_leader()
    assert kinds(events) == ["leader_skipped", "leader_changed"]
    assert events[0].data == {"leader": 100, "mission": 1, "rejections": 1}
    assert events[1].data == {"leader": 101, "previous": 100}
    assert game.rejections == 1 and game.leader == 101 and game.phase is Phase.DEBATE
    assert game.proposal_number == 0


def test_skip_leader_only_in_debate() -> None:
    game = make_game(5)
    propose_any(game)
    assert not game.can_skip_leader()
    with pytest.raises(WrongPhase) as info:
        game.skip_leader()
    assert info.value.params == {"phase": "vote", "expected": "debate"}


def test_fifth_rejection_by_skips_and_votes() -> None:
    game = make_game(5)
    play_round(game, accept=False)
    game.skip_leader()
    play_round(game, accept=False)
    game.skip_leader()
    assert game.rejections == 4 and game.winner is None
    events = game.skip_leader()
    assert kinds(events) == ["leader_skipped", "game_over"]
    assert events[1].data["reason"] == "five_rejections"
    assert game.winner is Winner.SPIES and game.win_reason is EndReason.FIVE_REJECTIONS


@pytest.mark.parametrize("during_vote", [False, True])
def test_cancel(during_vote: bool) -> None:
    game = make_game(5)
    if during_vote:
        propose_any(game)
        game.vote(100, TeamVote.ACCEPT)
    events = game.cancel()
    assert kinds(events) == ["game_cancelled"]
    assert events[0].private_to is None
    assert events[0].data == {"roles": {str(k): v.value for k, v in game.roles.items()}}
    assert game.phase is Phase.OVER
    assert game.winner is None and game.win_reason is EndReason.CANCELLED
    assert game.team is None and game.votes == {}
    view = game.public_view()
    assert view.roles == game.roles and view.winner is None
    for action in (game.cancel, game.skip_leader, game.resolve):
        with pytest.raises(GameIsOver):
            action()
