"""Avalon: the roles, the knowledge matrix, the assassination and the Lady of the Lake."""

from __future__ import annotations

import itertools
import json
import random

import pytest

from games.resistance.rules import (
    AvalonOnly,
    BadAssassinationTarget,
    Character,
    EndReason,
    GameError,
    LadyIneligible,
    MissionChoice,
    MorganaNeedsPercival,
    NotAssassin,
    NotLadyHolder,
    Options,
    Phase,
    Player,
    Resistance,
    Role,
    TeamVote,
    TooManyEvilRoles,
    UnknownPlayer,
    Variant,
    Winner,
    WrongPhase,
    apply_action,
    min_players,
    verify_options,
)

from .helpers import (
    by_kind,
    good_team,
    holding,
    kinds,
    make_avalon,
    make_game,
    make_players,
    play_round,
    team_with_spies,
)

M, P, S = Character.MERLIN, Character.PERCIVAL, Character.SERVANT
A, MG, MD, O, MI = (  # noqa: E741 (O: Oberon)
    Character.ASSASSIN,
    Character.MORGANA,
    Character.MORDRED,
    Character.OBERON,
    Character.MINION,
)

# Written by hand from the rules, independent of the engine: whom each role sees as evil, and
# whom Percival sees as "Merlin or Morgana".
EVIL_SEEN: dict[Character, set[Character]] = {
    M: {A, MG, O, MI},  # every evil player but Mordred, Oberon included
    P: set(),
    S: set(),
    A: {A, MG, MD, MI},  # evil other than Oberon see each other, without Oberon
    MG: {A, MG, MD, MI},
    MD: {A, MG, MD, MI},
    MI: {A, MG, MD, MI},
    O: set(),  # Oberon sees no one
}
MERLIN_SEEN: dict[Character, set[Character]] = {P: {M, MG}}
SPIES = {5: 2, 6: 2, 7: 3, 8: 3, 9: 3, 10: 4}
FLAGS = ("percival", "morgana", "mordred", "oberon")


def _combos() -> list[tuple[int, dict[str, bool]]]:
    """Every player count with every legal choice of optional roles."""
    out = []
    for n in range(5, 11):
        for bits in itertools.product([False, True], repeat=4):
            flags = dict(zip(FLAGS, bits, strict=True))
            if flags["morgana"] and not flags["percival"]:
                continue
            if 1 + flags["morgana"] + flags["mordred"] + flags["oberon"] > SPIES[n]:
                continue
            out.append((n, flags))
    return out


COMBOS = _combos()


def _deal(n: int, flags: dict[str, bool], seed: int) -> list[Character]:
    good = [M] + ([P] if flags["percival"] else [])
    evil = [A] + [c for c, f in ((MG, "morgana"), (MD, "mordred"), (O, "oberon")) if flags[f]]
    good += [S] * (n - SPIES[n] - len(good))
    evil += [MI] * (SPIES[n] - len(evil))
    seats = good + evil
    random.Random(seed).shuffle(seats)
    return seats


def _avalon(
    *,
    percival: bool = False,
    morgana: bool = False,
    mordred: bool = False,
    oberon: bool = False,
    lady_of_the_lake: bool = False,
) -> Options:
    return Options(
        variant=Variant.AVALON,
        percival=percival,
        morgana=morgana,
        mordred=mordred,
        oberon=oberon,
        lady_of_the_lake=lady_of_the_lake,
    )


# ---------------------------------------------------------------------- knowledge


@pytest.mark.parametrize(("n", "flags"), COMBOS, ids=lambda v: str(v))
def test_knowledge_matrix(n: int, flags: dict[str, bool]) -> None:
    """For every ordered pair of players: what the first one's role DM and private view tell
    about the second, in two different seatings."""
    for seed in (n, n + 100):
        chars = _deal(n, flags, seed)
        game = make_avalon(chars)
        seats = [p.id for p in game.players]
        start = game.start_events()
        dealt = {e.private_to: e for e in start if e.kind == "role_dealt"}
        for viewer in seats:
            view = game.private_view(viewer)
            me = game.characters[viewer]
            assert view.character is me and view.role is me.side
            event = dealt[viewer].data
            assert event["character"] == me.value and event["role"] == me.side.value
            assert event["spies"] == list(view.spies)
            assert event["merlin_candidates"] == list(view.merlin_candidates)
            for target in seats:
                if target == viewer:
                    assert target not in view.spies and target not in view.merlin_candidates
                    continue
                other = game.characters[target]
                assert (target in view.spies) is (other in EVIL_SEEN[me]), (me, other)
                assert (target in view.merlin_candidates) is (
                    other in MERLIN_SEEN.get(me, set())
                ), (me, other)
            # Seat order: the order of Percival's two names tells nothing.
            assert list(view.spies) == sorted(view.spies, key=seats.index)
            assert list(view.merlin_candidates) == sorted(view.merlin_candidates, key=seats.index)
        percival = holding(game, P)
        if percival:
            expected = 2 if flags["morgana"] else 1
            assert len(game.private_view(percival[0]).merlin_candidates) == expected


def test_knowledge_matrix_covers_every_role_pair() -> None:
    pairs = set()
    for n, flags in COMBOS:
        chars = _deal(n, flags, 0)
        pairs |= {(a, b) for i, a in enumerate(chars) for j, b in enumerate(chars) if i != j}
    twice = {S, MI}  # the only roles more than one player holds
    assert pairs == {(a, b) for a in Character for b in Character if a != b or a in twice}


@pytest.mark.parametrize(("n", "flags"), COMBOS, ids=lambda v: str(v))
def test_setup_deals_the_chosen_roles(n: int, flags: dict[str, bool]) -> None:
    options = _avalon(**flags)
    for seed in range(3):
        game, events = Resistance.setup(make_players(n), random.Random(seed), options)
        values = list(game.characters.values())
        assert sorted(values) == sorted(_deal(n, flags, 0))
        assert all(game.roles[pid] is c.side for pid, c in game.characters.items())
        assert len(game.spies) == SPIES[n]
        assert events[0].data["variant"] == "avalon" and events[0].data["lady_holder"] is None
        for event in events[1:]:
            assert event.private_to is not None
            assert event.data["character"] == game.characters[event.private_to].value


def test_setup_varies_the_roles() -> None:
    options = _avalon(percival=True, morgana=True)
    merlins = {
        Resistance.setup(make_players(7), random.Random(s), options)[0].merlin for s in range(30)
    }
    assert len(merlins) > 3


# ---------------------------------------------------------------------- validation


@pytest.mark.parametrize("n", range(5, 11))
def test_every_illegal_choice_of_roles_is_refused(n: int) -> None:
    for bits in itertools.product([False, True], repeat=4):
        flags = dict(zip(FLAGS, bits, strict=True))
        options = _avalon(**flags)
        legal = (n, flags) in COMBOS
        if legal:
            verify_options(options, n)
            Resistance.setup(make_players(n), random.Random(0), options)
            continue
        with pytest.raises(GameError) as info:
            Resistance.setup(make_players(n), random.Random(0), options)
        if flags["morgana"] and not flags["percival"]:
            assert isinstance(info.value, MorganaNeedsPercival)
        else:
            assert isinstance(info.value, TooManyEvilRoles)
            roles = 1 + flags["morgana"] + flags["mordred"] + flags["oberon"]
            needed = min(k for k, v in SPIES.items() if v >= roles)
            assert info.value.params == {
                "roles": roles,
                "spies": SPIES[n],
                "count": n,
                "needed": needed,
            }
            assert min_players(options) == needed


def test_morgana_needs_percival_without_a_count() -> None:
    with pytest.raises(MorganaNeedsPercival):
        verify_options(_avalon(morgana=True))
    verify_options(_avalon(percival=True, morgana=True, mordred=True, oberon=True))


@pytest.mark.parametrize("flag", [*FLAGS, "lady_of_the_lake"])
def test_avalon_options_refused_in_a_classic_game(flag: str) -> None:
    options = Options.from_dict({flag: True})
    with pytest.raises(AvalonOnly) as info:
        Resistance.setup(make_players(5), random.Random(0), options)
    assert info.value.params == {"option": flag}


def test_min_players() -> None:
    assert min_players(Options()) == 5
    assert min_players(_avalon()) == 5
    assert min_players(_avalon(mordred=True, oberon=True)) == 7
    assert min_players(_avalon(percival=True, morgana=True, mordred=True, oberon=True)) == 10


def test_constructor_checks_the_avalon_deal() -> None:
    players = make_players(5)
    ids = [p.id for p in players]
    chars = dict(zip(ids, [M, S, S, A, MI], strict=True))
    roles = {pid: c.side for pid, c in chars.items()}
    options = _avalon()
    assert Resistance(players, roles, ids, options, chars).merlin == 100
    with pytest.raises(ValueError):
        Resistance(players, roles, ids, options)  # no roles
    with pytest.raises(ValueError):
        Resistance(players, roles, ids, options, chars | {100: S})  # no Merlin
    with pytest.raises(ValueError):
        Resistance(players, roles, ids, options, chars | {104: MG})  # Morgana not chosen
    with pytest.raises(ValueError):
        Resistance(players, roles, ids, options, chars | {101: MI})  # a minion on the good side
    with pytest.raises(ValueError):
        Resistance(players, roles, ids, Options(), chars)  # classic game with Avalon roles


# ---------------------------------------------------------------------- assassination

SEVEN = [M, P, S, S, A, MG, O]  # ids 100..106: Merlin 100, Assassin 104, Morgana 105, Oberon 106


def _to_assassination(chars: list[Character] = SEVEN) -> Resistance:
    game = make_avalon(chars)
    for _ in range(3):
        events = play_round(game, team=good_team(game))
    assert game.phase is Phase.ASSASSINATION
    assert game.winner is None and not game.is_over
    assert kinds(events)[-2:] == ["assassination_started", "assassin_turn"]
    return game


def test_three_successes_open_the_assassination() -> None:
    game = make_avalon(SEVEN)
    play_round(game, team=good_team(game))
    play_round(game, team=good_team(game))
    events = play_round(game, team=good_team(game))
    assert kinds(events) == [
        "team_vote_result",
        "mission_result",
        "assassination_started",
        "assassin_turn",
    ]
    started, turn = events[2], events[3]
    assert started.private_to is None and started.data == {"mission": 3}
    assert turn.private_to == 104
    # Everyone but the Assassin and Morgana (Oberon is unknown to the Assassin).
    assert turn.data == {"player": 104, "targets": [100, 101, 102, 103, 106]}
    assert game.assassination_targets == (100, 101, 102, 103, 106)
    view = game.public_view()
    assert view.phase is Phase.ASSASSINATION and view.winner is None
    assert view.roles == {} and view.characters == {} and view.waiting_for == ()
    assert "assassination_started" in kinds(game.history)
    # The missions are over: no team action.
    for method, args in (
        ("propose", (game.leader, [100, 101])),
        ("vote", (100, TeamVote.ACCEPT)),
        ("choose", (100, MissionChoice.SUPPORT)),
        ("skip_leader", ()),
    ):
        with pytest.raises(WrongPhase) as info:
            getattr(game, method)(*args)
        assert info.value.key == "resistance.error.wrong_phase_during_assassination"


def test_assassin_names_merlin_evil_wins() -> None:
    game = _to_assassination()
    events = game.assassinate(104, 100)
    assert kinds(events) == ["assassination", "game_over"]
    assert events[0].data == {"assassin": 104, "target": 100, "merlin": 100, "hit": True}
    over = events[1].data
    assert over["winner"] == "spies" and over["reason"] == "merlin_assassinated"
    assert over["characters"] == {str(100 + i): c.value for i, c in enumerate(SEVEN)}
    assert over["roles"] == {str(100 + i): c.side.value for i, c in enumerate(SEVEN)}
    assert game.winner is Winner.SPIES and game.win_reason is EndReason.MERLIN_ASSASSINATED
    assert game.public_view().characters == game.characters


@pytest.mark.parametrize("target", [101, 102, 106])
def test_assassin_misses_good_wins(target: int) -> None:
    game = _to_assassination()
    events = game.assassinate(104, target)
    assert events[0].data["hit"] is False and events[0].data["merlin"] == 100
    assert game.winner is Winner.RESISTANCE and game.win_reason is EndReason.ASSASSIN_MISSED


def test_no_name_by_the_deadline_good_wins() -> None:
    game = _to_assassination()
    assert game.can_resolve()
    events = game.resolve()
    assert kinds(events) == ["game_over"]
    assert events[0].data["reason"] == "no_assassination"
    assert game.winner is Winner.RESISTANCE and game.win_reason is EndReason.NO_ASSASSINATION
    assert game.actions[-1] == {"action": "resolve"}


def test_who_may_name_whom() -> None:
    game = _to_assassination()
    before = game.to_dict()
    targets = set(game.assassination_targets)
    for player in game.leader_order:
        for target in [*game.leader_order, 7]:
            allowed = player == 104 and target in targets
            assert game.can_assassinate(player, target) is allowed
            if allowed:
                continue
            with pytest.raises(GameError) as info:
                game.assassinate(player, target)
            if player != 104:
                assert isinstance(info.value, NotAssassin)
            elif target == 7:
                assert isinstance(info.value, UnknownPlayer)
            else:
                assert isinstance(info.value, BadAssassinationTarget)
                assert info.value.params == {
                    "name": game.player(target).name,
                    "player": target,
                }
            assert game.to_dict() == before


def test_assassin_with_mordred_may_name_oberon_not_mordred() -> None:
    chars = [M, P, S, S, S, S, A, MG, MD, O]
    game = _to_assassination(chars)
    assert game.assassination_targets == (100, 101, 102, 103, 104, 105, 109)
    assert not game.can_assassinate(106, 108)  # Mordred is known to the Assassin
    game.assassinate(106, 109)
    assert game.winner is Winner.RESISTANCE


def test_three_failures_end_an_avalon_game_at_once() -> None:
    game = make_avalon(SEVEN)
    for _ in range(3):
        needed = game.sabotages_needed
        play_round(game, team=team_with_spies(game, needed), sabotages=needed)
    assert game.winner is Winner.SPIES and game.win_reason is EndReason.THREE_FAILURES


def test_assassination_outside_its_phase() -> None:
    game = make_avalon(SEVEN)
    with pytest.raises(WrongPhase) as info:
        game.assassinate(104, 100)
    assert info.value.key == "resistance.error.wrong_phase_assassination"
    classic = make_game(5)
    assert not classic.can_assassinate(103, 100)
    assert classic.assassination_targets == () and classic.merlin is None


def test_cancel_during_the_assassination_reveals_the_roles() -> None:
    game = _to_assassination()
    (event,) = game.cancel()
    assert event.data["characters"]["100"] == "merlin"
    assert game.winner is None and game.win_reason is EndReason.CANCELLED


# ---------------------------------------------------------------------- Lady of the Lake


def now(game: Resistance) -> Resistance:
    """``game`` read afresh: mypy keeps ``game.phase`` or ``game.lady_eligible`` narrowed by
    an earlier assert across the calls (``play_round``, ``examine``) that change them."""
    return game


def _lady_game() -> Resistance:
    game = make_avalon(SEVEN, lady=True, order=[102, 104, 100, 106, 101, 103, 105])
    assert game.lady_holder == 105  # the last on the leader list
    assert game.lady_holders == (105,)
    return game


def test_lady_after_missions_two_three_and_four_only() -> None:
    game = _lady_game()
    events = play_round(game, team=good_team(game))  # mission 1
    assert "lady_turn" not in kinds(events) and game.phase is Phase.DEBATE
    play_round(game, accept=False)  # a rejected team: no Lady
    assert game.phase is Phase.DEBATE
    events = play_round(game, team=team_with_spies(game, 1), sabotages=1)  # mission 2 fails
    assert kinds(events) == ["team_vote_result", "mission_result", "leader_changed", "lady_turn"]
    turn = events[-1]
    assert turn.private_to is None
    # Eligible: never held it, in leader order starting after the holder.
    assert turn.data == {
        "holder": 105,
        "mission": 2,
        "eligible": [102, 104, 100, 106, 101, 103],
    }
    assert now(game).phase is Phase.LADY
    assert game.public_view().lady_holder == 105
    with pytest.raises(WrongPhase) as info:
        game.propose(game.leader, good_team(game))
    assert info.value.key == "resistance.error.wrong_phase_during_lady"

    events = game.examine(105, 104)  # Morgana examines the Assassin
    assert kinds(events) == ["lady_examined", "lady_result"]
    public, secret = events
    assert public.private_to is None
    assert public.data == {"holder": 105, "target": 104, "mission": 2}
    assert secret.private_to == 105
    assert secret.data == {"player": 105, "target": 104, "side": "spy"}
    assert game.phase is Phase.DEBATE and game.lady_holder == 104
    assert game.private_view(105).lady_results == ((104, Role.SPY),)
    assert game.private_view(104).lady_results == ()

    play_round(game, team=good_team(game))  # mission 3 succeeds
    assert now(game).phase is Phase.LADY and game.lady_holder == 104
    assert game.lady_eligible == (100, 106, 101, 103, 102)
    with pytest.raises(LadyIneligible):
        game.examine(104, 105)  # held it before
    with pytest.raises(LadyIneligible):
        game.examine(104, 104)
    events = game.resolve()  # the deadline: passes on, unexamined
    assert kinds(events) == ["lady_passed"]
    assert events[0].private_to is None
    assert events[0].data == {"holder": 104, "to": 100, "mission": 3}
    assert game.lady_holder == 100 and game.phase is Phase.DEBATE
    assert game.private_view(104).lady_results == ()

    needed = game.sabotages_needed  # mission 4: two sabotages with 7 players
    play_round(game, team=team_with_spies(game, needed), sabotages=needed)
    assert now(game).phase is Phase.LADY and now(game).lady_eligible == (106, 101, 103, 102)
    events = game.examine(100, 101)
    assert events[1].data["side"] == "resistance"
    assert game.private_view(100).lady_results == ((101, Role.RESISTANCE),)

    events = play_round(game, team=good_team(game))  # mission 5: three successes
    assert "lady_turn" not in kinds(events)
    assert now(game).phase is Phase.ASSASSINATION and game.lady_holder == 101
    assert game.lady_holders == (105, 104, 100, 101)
    assert game.lady_examinations == ((105, 104), (100, 101))
    assert [e.kind for e in game.history if e.kind.startswith("lady")] == [
        "lady_examined",
        "lady_passed",
        "lady_examined",
    ]


def test_no_lady_when_mission_four_decides_the_missions() -> None:
    game = make_avalon(SEVEN, lady=True)
    play_round(game, team=team_with_spies(game, 1), sabotages=1)  # F
    play_round(game, team=good_team(game))  # S, Lady
    game.resolve()
    play_round(game, team=good_team(game))  # S, Lady
    game.resolve()
    events = play_round(game, team=good_team(game))  # S: assassination, no Lady
    assert "lady_turn" not in kinds(events) and game.phase is Phase.ASSASSINATION


def test_no_lady_without_the_option() -> None:
    game = make_avalon(SEVEN)
    assert game.lady_holder is None and game.lady_eligible == ()
    play_round(game, team=good_team(game))
    play_round(game, team=team_with_spies(game, 1), sabotages=1)
    assert game.phase is Phase.DEBATE
    with pytest.raises(WrongPhase) as info:
        game.examine(106, 100)
    assert info.value.key == "resistance.error.wrong_phase_lady"


def test_who_may_examine_whom() -> None:
    game = _lady_game()
    play_round(game, team=good_team(game))
    play_round(game, team=good_team(game))
    before = game.to_dict()
    for holder in game.leader_order:
        for target in [*game.leader_order, 7]:
            allowed = holder == 105 and target != 105 and target != 7
            assert game.can_examine(holder, target) is allowed
            if allowed:
                continue
            with pytest.raises(GameError) as info:
                game.examine(holder, target)
            if holder != 105:
                assert isinstance(info.value, NotLadyHolder)
                assert info.value.params == {"holder": "Frank", "holder_id": 105}
            elif target == 7:
                assert isinstance(info.value, UnknownPlayer)
            else:
                assert isinstance(info.value, LadyIneligible)
            assert game.to_dict() == before


def test_lady_never_runs_out_of_players_at_five() -> None:
    """Four holders at most (the first and one after missions 2, 3, 4): one is left over."""
    game = make_avalon([M, S, S, A, MI], lady=True)
    for fail in (True, False, True, False):  # F, S, F, S: the Lady after 2, 3 and 4
        team = team_with_spies(game, 1) if fail else good_team(game)
        play_round(game, team=team, sabotages=int(fail))
        if game.mission > 2:
            assert game.phase is Phase.LADY
            assert len(game.lady_eligible) == 5 - len(game.lady_holders) >= 2
            game.resolve()
    assert len(set(game.lady_holders)) == len(game.lady_holders) == 4
    play_round(game, team=good_team(game))
    assert game.phase is Phase.ASSASSINATION


def test_substitute_takes_over_the_lady_and_the_role() -> None:
    game = _lady_game()
    play_round(game, team=good_team(game))
    play_round(game, team=good_team(game))
    game.examine(105, 100)
    events = game.substitute(100, Player(999, "Newcomer"))
    dealt = by_kind(events, "role_dealt")
    assert dealt.private_to == 999 and dealt.data["character"] == "merlin"
    assert dealt.data["spies"] == [104, 105, 106]
    assert game.lady_holder == 999 and game.merlin == 999
    assert game.private_view(105).lady_results == ((999, Role.RESISTANCE),)
    assert game.private_view(101).merlin_candidates == (999, 105)


# ---------------------------------------------------------------------- serialisation


def test_avalon_round_trip_and_replay() -> None:
    game = _lady_game()
    play_round(game, team=good_team(game))
    play_round(game, team=good_team(game))
    game.examine(105, 102)
    game.substitute(103, Player(555, "Sub"))
    play_round(game, team=good_team(game))
    assert game.phase is Phase.ASSASSINATION
    d = json.loads(json.dumps(game.to_dict()))
    again = Resistance.from_dict(d)
    assert again == game and again.to_dict() == game.to_dict()
    assert again.characters == game.characters
    assert again.lady_holders == game.lady_holders
    assert again.private_view(105) == game.private_view(105)
    replayed = Resistance.replay(json.loads(json.dumps(game.setup_record())), game.actions)
    assert replayed == game
    for g in (game, replayed):
        apply_action(g, {"action": "assassinate", "player": 104, "target": 100})
    assert replayed == game and game.winner is Winner.SPIES
    assert game.actions[-1] == {"action": "assassinate", "player": 104, "target": 100}
    assert {"action": "examine", "holder": 105, "target": 102} in game.actions


def test_avalon_options_round_trip() -> None:
    options = _avalon(percival=True, morgana=True, lady_of_the_lake=True)
    assert Options.from_dict(json.loads(json.dumps(options.to_dict()))) == options
    assert Options().to_dict() == {"missing_vote": "reject"}  # classic: the original shape


def test_a_classic_state_saved_before_avalon_still_loads() -> None:
    """A state as the engine wrote it before Avalon existed: no variant, no new fields."""
    game = make_game(5)
    play_round(game)
    old = game.to_dict()
    assert set(old) == {
        "version",
        "setup",
        "players",
        "roles",
        "leader_order",
        "leader_index",
        "mission",
        "rejections",
        "results",
        "phase",
        "team",
        "proposal_number",
        "votes",
        "choices",
        "winner",
        "win_reason",
        "history",
        "actions",
    }
    assert set(old["setup"]) == {"players", "roles", "leader_order", "options"}
    assert old["setup"]["options"] == {"missing_vote": "reject"}
    loaded = Resistance.from_dict(json.loads(json.dumps(old)))
    assert loaded == game and loaded.options.variant is Variant.CLASSIC
    assert loaded.characters == {} and loaded.lady_holder is None
    play_round(loaded)
    assert loaded.mission == 3
