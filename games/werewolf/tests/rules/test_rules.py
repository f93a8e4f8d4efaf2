"""Each rule of Werewolf on a known deal (seat n holds the n-th card: helpers.make_game)."""

from __future__ import annotations

import random

import pytest

from games.werewolf.rules import (
    Audience,
    Cause,
    Death,
    EndReason,
    GameError,
    Options,
    Phase,
    Player,
    Role,
    Seen,
    Tally,
    TooFewWolves,
    TooManyRoles,
    TooManyWolves,
    Werewolf,
    Winner,
    tables,
    verify_setup,
)
from games.werewolf.rules.events import (
    CaptainElected,
    CaptainNamed,
    Dawn,
    DayEnded,
    HunterShot,
    HunterTurn,
    InLove,
    RoleDealt,
    SeerSaw,
    SuccessionOpened,
    VictimChosen,
    VoteCast,
    WitchTurn,
    WolfPicked,
)

from .helpers import make_game, make_players

# "WWSTVV": 1, 2 wolves; 3 the seer; 4 the witch; 5, 6 villagers.


def quiet_night(game: Werewolf, victim: int | None = None) -> list[object]:
    """The wolves agree on ``victim`` (or no one, at their deadline); everyone else passes."""
    events: list[object] = []
    if victim is None:
        events += game.close_wolves()
    else:
        for wolf in game.living_wolves:
            events += game.pick(wolf, victim)
    return events + (game.resolve() if phase(game) is Phase.NIGHT else [])


def phase(game: Werewolf) -> Phase:
    """The phase now (a call: the type checker does not keep it across actions)."""
    return game.phase


def vote_out(game: Werewolf, target: int) -> list[object]:
    """Every living player votes for ``target`` until the day ends (a majority ends it)."""
    events: list[object] = []
    for voter in game.alive:
        if phase(game) is not Phase.DAY:
            break
        events += game.vote(voter, target)
    return events


def test_the_wolf_table_covers_every_player_count() -> None:
    assert sorted(tables.WOLF_COUNT) == list(range(6, 19))
    assert [tables.WOLF_COUNT[n] for n in (6, 11, 12, 17, 18)] == [2, 2, 3, 3, 4]
    assert all(2 * w < n for n, w in tables.WOLF_COUNT.items())
    assert tables.MAX_WOLVES == 8 and tables.max_wolves(6) == 2


def test_a_setup_that_cannot_be_played_is_refused_naming_what_to_change() -> None:
    with pytest.raises(TooManyWolves) as wolves:
        verify_setup(6, Options(wolves=3))
    assert wolves.value.params == {"value": 3, "count": 6, "max": 2, "needed": 7}
    with pytest.raises(TooManyRoles) as roles:
        verify_setup(6, Options(hunter=True, cupid=True))
    assert roles.value.params == {"roles": 4, "others": 0, "count": 6, "needed": 10}
    with pytest.raises(TooFewWolves):
        verify_setup(8, Options(wolves=0))
    for count in (5, 19):
        with pytest.raises(GameError, match="bad_player_count"):
            verify_setup(count, Options())
    verify_setup(10, Options(hunter=True, cupid=True))  # 2 wolves, 4 roles, 4 villagers


def test_setup_deals_the_table_and_the_wolves_know_each_other() -> None:
    game, events = Werewolf.setup(make_players(12), random.Random(3), Options(cupid=True))
    assert sorted(game.roles.values()).count(Role.WEREWOLF) == 3
    dealt = [e for e in events if isinstance(e, RoleDealt)]
    assert [e.private_to for e in dealt] == [p.id for p in game.players]
    for event in dealt:
        expected = tuple(w for w in game.wolves if w != event.player)
        assert event.wolves == (expected if event.role is Role.WEREWOLF else ())
    assert phase(game) is Phase.NIGHT and game.night == 1


def test_the_wolves_settle_when_they_agree_and_only_they_see_the_picks() -> None:
    game = make_game("WWSTVV")
    first = game.pick(1, 5)
    assert [type(e) for e in first] == [WolfPicked, WolfPicked]
    assert [e.private_to for e in first] == [1, 2] and all(
        e.for_den is (e.private_to == 1) for e in first
    )
    assert not game.victim_settled and not game.can_brew(4, False, None)
    game.pick(2, 6)
    changed = game.pick(2, 5)
    assert game.victim_settled and game.victim == 5
    chosen = [e for e in changed if isinstance(e, VictimChosen)]
    assert [e.private_to for e in chosen] == [1, 2] and chosen[0].agreed
    (turn,) = [e for e in changed if isinstance(e, WitchTurn)]
    assert turn.private_to == 4 and turn.victim == 5 and turn.life_potion and turn.death_potion
    assert not game.can_pick(1, 6)  # settled: picks no longer change


@pytest.mark.parametrize(("picks", "victim"), [({1: 5, 2: 5}, 5), ({1: 5, 2: 6}, None), ({}, None)])
def test_at_the_wolves_deadline_the_most_picked_or_no_victim(
    picks: dict[int, int], victim: int | None
) -> None:
    game = make_game("WWWSVVVV")
    for wolf, target in picks.items():
        game.pick(wolf, target)
    game.close_wolves()
    assert game.victim_settled and game.victim == victim


def test_the_seer_sees_one_role_a_night_privately() -> None:
    game = make_game("WWSTVV")
    (saw,) = game.look(3, 1)
    assert isinstance(saw, SeerSaw) and saw.private_to == 3 and saw.role is Role.WEREWOLF
    assert not game.can_look(3, 2) and not make_game("WWSTVV").can_look(3, 3)
    assert game.private_view(3).seen == (Seen(night=1, target=1, role=Role.WEREWOLF),)


def test_the_witch_saves_once_and_poisons_once() -> None:
    game = make_game("WWSTVV", early_close=False)
    game.pick(1, 5), game.pick(2, 5)
    game.brew(4, True, None)
    (dawn, _day) = game.resolve()
    assert isinstance(dawn, Dawn) and dawn.deaths == ()
    assert phase(game) is Phase.DAY and not game.life_potion and game.death_potion
    game.resolve()  # nobody voted: nobody eliminated, night 2
    game.pick(1, 6), game.pick(2, 6)
    assert not game.can_brew(4, True, None)
    game.brew(4, False, 1)
    (dawn, *_) = game.resolve()
    assert isinstance(dawn, Dawn)
    assert dawn.deaths == (
        Death(player=6, cause=Cause.NIGHT, role=Role.VILLAGER),
        Death(player=1, cause=Cause.NIGHT, role=Role.WEREWOLF),
    )


def test_the_witch_may_not_heal_when_there_is_no_victim_nor_poison_herself() -> None:
    game = make_game("WWSTVV")
    game.close_wolves()
    assert not game.can_brew(4, True, None) and not game.can_brew(4, False, 4)
    assert game.can_brew(4, False, 5)


def test_the_night_ends_when_every_night_role_has_acted() -> None:
    game = make_game("WWSTVV")
    game.look(3, 5)
    game.pick(1, 6), game.pick(2, 6)
    assert phase(game) is Phase.NIGHT  # the witch has not chosen
    events = game.brew(4, False, None)
    assert phase(game) is Phase.DAY and any(isinstance(e, Dawn) for e in events)
    late = make_game("WWSTVV", early_close=False)
    late.look(3, 5), late.pick(1, 6), late.pick(2, 6), late.brew(4, False, None)
    assert phase(late) is Phase.NIGHT and late.night_done()


def test_cupids_lovers_know_each_other_and_die_of_grief() -> None:
    game = make_game("WWSCVVVVVV", early_close=False)
    events = game.link(4, 5, 1)
    loves = [e for e in events if isinstance(e, InLove)]
    assert [(e.private_to, e.lover) for e in loves] == [(5, 1), (1, 5)]
    game.pick(1, 5), game.pick(2, 5)
    (dawn, _) = game.resolve()
    assert isinstance(dawn, Dawn)
    assert [(d.player, d.cause) for d in dawn.deaths] == [(5, Cause.NIGHT), (1, Cause.GRIEF)]
    game.resolve()
    assert not game.can_link(4, 6, 7)  # the first night only


def test_a_wolf_and_a_villager_in_love_win_alone_as_the_last_two() -> None:
    game = make_game("WWSCVVVVVV", early_close=False)
    game.link(4, 1, 5)  # wolf 1 and villager 5
    for victim, eliminated in ((3, 2), (6, 7), (8, 9), (10, 4)):
        quiet_night(game, victim)
        assert not game.is_over
        vote_out(game, eliminated)
    assert game.winner is Winner.LOVERS and game.win_reason is EndReason.LOVERS_LAST
    assert game.alive == (1, 5) and game.winners() == (1, 5)


def test_the_hunter_shoots_when_he_dies_by_night_or_by_day() -> None:
    game = make_game("WWSHVVVV")
    events = quiet_night(game, 4)
    assert isinstance(events[-1], HunterTurn) and phase(game) is Phase.HUNTER
    assert not game.can_vote(5, 1) and game.owing() == (4,)
    (shot, _day) = game.shoot(4, 1)
    assert isinstance(shot, HunterShot) and shot.deaths[0].player == 1
    assert phase(game) is Phase.DAY
    by_day = make_game("WWSHVVVV")
    quiet_night(by_day)
    vote_out(by_day, 4)
    assert phase(by_day) is Phase.HUNTER
    (missed, *_) = by_day.resolve()
    assert isinstance(missed, HunterShot) and missed.target is None


def test_the_captain_is_elected_first_and_the_first_to_lead_wins_a_tie() -> None:
    game = make_game("WWSTVVVV", captain=True)
    assert phase(game) is Phase.ELECTION
    game.elect(1, 5), game.elect(2, 6), game.elect(3, 6), game.elect(4, 5)
    (elected, *_) = game.resolve()
    assert isinstance(elected, CaptainElected) and elected.captain == 6  # 6 reached 2 first
    assert phase(game) is Phase.NIGHT and game.night == 1


def test_the_captains_vote_counts_twice_and_the_successor_follows() -> None:
    game = make_game("WWSTVVVV", captain=True, early_close=False)
    for voter in game.alive:
        game.elect(voter, 5)
    game.resolve()
    quiet_night(game)
    game.vote(5, 1)
    assert game.vote_count() == (Tally(target=1, voters=(5,), votes=2),)
    game.vote(6, 1), game.vote(7, 1)  # 4 of the 9 possible votes: no majority
    assert phase(game) is Phase.DAY
    events = game.vote(3, 5)
    assert phase(game) is Phase.DAY and events[-1].kind == "vote_cast"
    events = game.vote(8, 1)  # 5 of 9
    assert any(isinstance(e, DayEnded) and e.eliminated == 1 and e.majority for e in events)
    quiet_night(game, 5)
    assert isinstance(game.history[-1], SuccessionOpened) and phase(game) is Phase.SUCCESSION
    (named, *_) = game.name_successor(5, 7)
    assert isinstance(named, CaptainNamed) and game.captain == 7


def test_a_captain_who_names_no_one_leaves_the_village_without() -> None:
    game = make_game("WWSTVVVV", captain=True)
    for voter in game.alive:
        game.elect(voter, 5)
    quiet_night(game, 5)
    (named, *_) = game.resolve()
    assert isinstance(named, CaptainNamed) and named.captain is None and game.captain is None


@pytest.mark.parametrize(
    ("votes", "eliminated"),
    [
        ({5: 1, 6: 1, 3: 2}, 1),
        ({5: 1, 6: 2}, None),  # a tie
        ({5: None, 6: None, 3: 1}, None),  # no elimination has the most votes
        ({}, None),
    ],
)
def test_at_the_deadline_the_most_votes_or_nobody(
    votes: dict[int, int | None], eliminated: int | None
) -> None:
    game = make_game("WWSTVVVV")
    quiet_night(game)
    for voter, target in votes.items():
        game.vote(voter, target)
    (ended, *_) = game.resolve()
    assert isinstance(ended, DayEnded) and ended.eliminated == eliminated


def test_votes_change_and_a_majority_ends_the_day_only_if_asked() -> None:
    game = make_game("WWSTVVVV", majority_ends_day=False)
    quiet_night(game)
    game.vote(5, 1)
    (changed,) = game.vote(5, 2)
    assert isinstance(changed, VoteCast) and changed.changed and game.votes == {5: 2}
    for voter in game.alive:
        game.vote(voter, 1)
    assert phase(game) is Phase.DAY
    assert game.resolve()[0].eliminated == 1  # type: ignore[attr-defined]


def test_the_dead_neither_vote_nor_act() -> None:
    game = make_game("WWSTVVVV")
    quiet_night(game, 3)
    assert not game.can_vote(3, 1) and not game.can_vote(5, 3)
    with pytest.raises(GameError, match="player_is_dead"):
        game.vote(3, 1)


def test_the_village_wins_with_no_wolf_alive_and_the_wolves_at_parity() -> None:
    game = make_game("WWSTVV", early_close=False)
    game.pick(1, 5), game.pick(2, 5)
    game.brew(4, False, 1)
    game.resolve()
    vote_out(game, 2)
    assert game.winner is Winner.VILLAGE and game.winners() == (3, 4, 5, 6)
    wolves = make_game("WWSTVV")
    quiet_night(wolves, 5)
    vote_out(wolves, 6)
    assert wolves.winner is Winner.WOLVES and wolves.win_reason is EndReason.WOLVES_PARITY


def test_hidden_roles_stay_hidden_at_death() -> None:
    game = make_game("WWSTVV", reveal_roles=False)
    (dawn,) = [e for e in quiet_night(game, 5) if isinstance(e, Dawn)]
    assert dawn.deaths == (Death(5, Cause.NIGHT, None),)


def test_a_substitute_inherits_the_role_and_what_it_knew() -> None:
    game = make_game("WWSTCVVVVV", captain=True, early_close=False)
    for voter in game.alive:
        game.elect(voter, 3)
    game.resolve()
    game.link(5, 3, 6)
    game.look(3, 1)
    game.pick(1, 7), game.pick(2, 7)
    game.brew(4, True, None)
    newcomer = Player(99, "Zoé")
    announced, dealt = game.substitute(3, newcomer)
    assert announced.kind == "player_substituted" and announced.private_to is None
    assert isinstance(dealt, RoleDealt) and dealt.private_to == 99 and dealt.role is Role.SEER
    assert dealt.seen == (Seen(1, 1, Role.WEREWOLF),) and dealt.lover == 6
    assert game.captain == 99 and game.lover_of(6) == 99
    witch = game.substitute(4, Player(98, "Yann"))[1]
    assert isinstance(witch, RoleDealt) and witch.life_potion is False and witch.death_potion
    wolf = game.substitute(1, Player(97, "Xavier"))[1]
    assert isinstance(wolf, RoleDealt) and wolf.wolves == (2,) and game.picks == {97: 7, 2: 7}


def test_cancel_reveals_the_roles_and_ends() -> None:
    game = make_game("WWSTVV")
    (cancelled,) = game.cancel()
    assert cancelled.kind == "game_cancelled" and game.is_over and game.winner is None
    assert not game.can_resolve()


def test_a_saved_game_reads_back_as_the_same_game() -> None:
    game = make_game("WWSTHCVVVV", captain=True)
    for voter in game.alive:
        game.elect(voter, 5)
    game.link(6, 3, 7)
    game.look(3, 2)
    quiet_night(game, 5)
    saved = game.to_dict()
    assert Werewolf.from_dict(saved) == game
    assert Werewolf.replay(saved["setup"], saved["actions"]).public_view() == game.public_view()


def test_every_wolves_event_goes_to_each_living_wolf() -> None:
    game = make_game("WWWSVVVVVVVV")
    dawn = quiet_night(game, 5)
    assert any(isinstance(e, Dawn) for e in dawn)
    game.resolve()
    events = quiet_night(game, 6)
    den = [e for e in events if getattr(e, "AUDIENCE", None) is Audience.WOLVES]
    assert den and all(e.den == (1, 2, 3) for e in den)  # type: ignore[attr-defined]
    with pytest.raises(ValueError):
        VictimChosen(den=(1,), victim=None, agreed=False)  # a wolves' event made public


def test_the_public_view_holds_the_count_and_who_has_not_voted() -> None:
    game = make_game("WWSTVVVV", majority_ends_day=False)
    quiet_night(game)
    game.vote(5, 1), game.vote(6, None)
    view = game.public_view()
    assert view.votes == (
        Tally(target=1, voters=(5,), votes=1),
        Tally(target=None, voters=(6,), votes=1),
    )
    assert view.not_voted == (1, 2, 3, 4, 7, 8) and view.roles == {}
    game.resolve()
    assert [day.eliminated for day in game.days] == [None]
    assert game.public_view().not_voted == ()
