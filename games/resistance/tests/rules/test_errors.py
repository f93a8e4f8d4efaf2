"""Every error key: raised where expected, present in both catalogues with the same
placeholders, and refused actions change nothing."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from bot.i18n import catalogue, placeholders, t
from games.resistance.rules import (
    ERROR_KEYS,
    Character,
    GameError,
    MissionChoice,
    NoTableFits,
    Options,
    Player,
    Resistance,
    TeamVote,
    Variant,
    apply_action,
    can_apply,
    verify_action,
)
from games.resistance.rules.tables import SPY_COUNT

from .helpers import good_team, make_avalon, make_game, make_players, play_round, propose_any

AVALON_SEVEN = [
    Character.MERLIN,
    Character.PERCIVAL,
    Character.SERVANT,
    Character.SERVANT,
    Character.ASSASSIN,
    Character.MORGANA,
    Character.OBERON,
]


def _debate() -> Resistance:
    return make_game(5)


def _vote() -> Resistance:
    game = make_game(5)
    propose_any(game, [100, 103])
    return game


def _lady() -> Resistance:
    """Avalon with the Lady, after mission 2: grace (106, last on the leader list) holds it."""
    game = make_avalon(AVALON_SEVEN, lady=True)
    play_round(game, team=good_team(game))
    play_round(game, team=good_team(game))
    return game


def _assassination() -> Resistance:
    """Avalon after three successes: eve (104) is the Assassin, Frank (105) Morgana."""
    game = make_avalon(AVALON_SEVEN)
    for _ in range(3):
        play_round(game, team=good_team(game))
    return game


def _over() -> Resistance:
    game = make_game(5)
    game.cancel()
    return game


# (key, params or None, build a game, the action as (method name, args))
CASES: list[tuple[str, dict[str, Any] | None, Callable[[], Resistance], str, tuple[Any, ...]]] = [
    ("not_leader", {"leader": "alice", "leader_id": 100}, _debate, "propose", (101, [100, 101])),
    ("wrong_team_size", {"expected": 2, "given": 3}, _debate, "propose", (100, [100, 101, 102])),
    ("wrong_team_size", {"expected": 2, "given": 0}, _debate, "propose", (100, [])),
    ("duplicate_player", {"name": "Bob", "player": 101}, _debate, "propose", (100, [101, 101])),
    ("unknown_player", {"player": 7}, _debate, "propose", (100, [100, 7])),
    ("not_a_player", {"player": 7}, _debate, "propose", (7, [100, 101])),
    ("not_a_player", {"player": 7}, _vote, "vote", (7, TeamVote.ACCEPT)),
    ("not_a_player", {"player": 7}, _vote, "choose", (7, MissionChoice.SUPPORT)),
    (
        "wrong_phase_debate",
        {"phase": "vote", "expected": "debate"},
        _vote,
        "propose",
        (100, [100, 101]),
    ),
    ("wrong_phase_vote", {"phase": "debate", "expected": "vote"}, _debate, "vote", (100, "accept")),
    (
        "wrong_phase_vote",
        {"phase": "debate", "expected": "vote"},
        _debate,
        "choose",
        (100, "support"),
    ),
    ("wrong_phase_debate", {"phase": "vote", "expected": "debate"}, _vote, "skip_leader", ()),
    ("not_on_team", {"name": "Bob", "player": 101}, _vote, "choose", (101, "support")),
    ("no_vote_to_resolve", {}, _debate, "resolve", ()),
    ("game_over", {}, _over, "propose", (100, [100, 101])),
    ("game_over", {}, _over, "vote", (100, "accept")),
    ("game_over", {}, _over, "choose", (100, "support")),
    ("game_over", {}, _over, "resolve", ()),
    ("game_over", {}, _over, "skip_leader", ()),
    ("game_over", {}, _over, "cancel", ()),
    ("game_over", {}, _over, "substitute", (100, Player(1, "x"))),
    (
        "already_a_player",
        {"name": "y", "player": 102},
        _vote,
        "substitute",
        (100, Player(102, "y")),
    ),
    ("unknown_player", {"player": 5}, _vote, "substitute", (5, Player(1, "x"))),
    ("invalid_vote", {"value": "maybe"}, _vote, "vote", (100, "maybe")),
    ("invalid_choice", {"value": "steal"}, _vote, "choose", (100, "steal")),
    ("wrong_phase_lady", {"phase": "debate", "expected": "lady"}, _debate, "examine", (100, 101)),
    (
        "wrong_phase_assassination",
        {"phase": "debate", "expected": "assassination"},
        _debate,
        "assassinate",
        (100, 101),
    ),
    (
        "wrong_phase_during_lady",
        {"phase": "lady", "expected": "debate"},
        _lady,
        "propose",
        (102, [100, 101, 102]),
    ),
    (
        "wrong_phase_during_assassination",
        {"phase": "assassination", "expected": "vote"},
        _assassination,
        "vote",
        (100, "accept"),
    ),
    ("not_lady_holder", {"holder": "grace", "holder_id": 106}, _lady, "examine", (100, 101)),
    ("lady_ineligible", {"name": "grace", "player": 106}, _lady, "examine", (106, 106)),
    ("unknown_player", {"player": 7}, _lady, "examine", (106, 7)),
    ("not_assassin", {}, _assassination, "assassinate", (105, 100)),
    (
        "bad_assassination_target",
        {"name": "Frank", "player": 105},
        _assassination,
        "assassinate",
        (104, 105),
    ),
    ("unknown_player", {"player": 7}, _assassination, "assassinate", (104, 7)),
    ("game_over", {}, _over, "examine", (100, 101)),
    ("game_over", {}, _over, "assassinate", (100, 101)),
]


@pytest.mark.parametrize(("key", "params", "build", "method", "args"), CASES)
def test_error_raised_and_state_unchanged(
    key: str,
    params: dict[str, Any] | None,
    build: Callable[[], Resistance],
    method: str,
    args: tuple[Any, ...],
) -> None:
    game = build()
    before = game.to_dict()
    with pytest.raises(GameError) as verified:
        getattr(game, "verify_" + method)(*args)
    assert getattr(game, "can_" + method)(*args) is False
    with pytest.raises(GameError) as done:
        getattr(game, method)(*args)
    for error in (verified.value, done.value):
        assert error.key == "resistance.error." + key
        if params is not None:
            assert error.params == params
        assert key in str(error)
    assert game.to_dict() == before


@pytest.mark.parametrize(
    ("players", "key", "params"),
    [
        (make_players(4), "bad_player_count", {"min": 5, "max": 10, "count": 4}),
        (make_players(5)[:0], "bad_player_count", {"min": 5, "max": 10, "count": 0}),
        (
            [*make_players(10), Player(1, "x")],
            "bad_player_count",
            {"min": 5, "max": 10, "count": 11},
        ),
        ([*make_players(5), Player(100, "twin")], "duplicate_player", None),
    ],
)
def test_setup_errors(players: list[Player], key: str, params: dict[str, Any] | None) -> None:
    with pytest.raises(GameError) as info:
        Resistance.setup(players, random.Random(0))
    assert info.value.key == "resistance.error." + key
    if params is not None:
        assert info.value.params == params


def test_private_view_of_stranger() -> None:
    with pytest.raises(GameError) as info:
        make_game(5).private_view(1)
    assert info.value.key == "resistance.error.not_a_player"


@pytest.mark.parametrize(
    "action",
    [
        {"action": "dance"},
        {},
        {"action": "propose", "leader": 100},
        {"action": "propose", "leader": "100", "team": [100, 101]},
        {"action": "propose", "leader": 100, "team": "ab"},
        {"action": "propose", "leader": 100, "team": [100, True]},
        {"action": "vote", "vote": "accept"},
        {"action": "substitute", "old": 100, "new": {"id": 1}},
        {"action": "substitute", "old": 100, "new": 5},
    ],
)
def test_invalid_action_records(action: dict[str, Any]) -> None:
    game = make_game(5)
    before = game.to_dict()
    assert not can_apply(game, action)
    with pytest.raises(GameError) as verified:
        verify_action(game, action)
    with pytest.raises(GameError) as applied:
        apply_action(game, action)
    assert verified.value.key == applied.value.key == "resistance.error.invalid_action"
    assert game.to_dict() == before


# Avalon choices of roles the rules refuse: (options, players, key, params).
SETUP_CASES: list[tuple[str, dict[str, Any], Options, int]] = [
    ("avalon_only", {"option": "oberon"}, Options(oberon=True), 7),
    (
        "morgana_needs_percival",
        {},
        Options(variant=Variant.AVALON, morgana=True),
        7,
    ),
    (
        "too_many_evil_roles",
        {"roles": 3, "spies": 2, "count": 6, "needed": 7},
        Options(variant=Variant.AVALON, mordred=True, oberon=True),
        6,
    ),
]


@pytest.mark.parametrize(("key", "params", "options", "count"), SETUP_CASES)
def test_avalon_setup_errors(
    key: str, params: dict[str, Any], options: Options, count: int
) -> None:
    with pytest.raises(GameError) as info:
        Resistance.setup(make_players(count), random.Random(0), options)
    assert info.value.key == "resistance.error." + key
    assert info.value.params == params
    for lang in ("en", "fr"):
        t(info.value.key, lang, **info.value.params)  # plural forms and all


def test_roles_that_fit_no_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """Special evil roles that outnumber the spies of the largest table are refused without a
    player count (the config, /settings, /resistance new). Today's roles all fit ten players'
    four spies: a table of at most three spies shows the refusal."""
    from games.resistance.rules import avalon

    options = Options(
        variant=Variant.AVALON, percival=True, morgana=True, mordred=True, oberon=True
    )
    avalon.verify_options(options)
    monkeypatch.setattr(avalon, "SPY_COUNT", {n: min(spies, 3) for n, spies in SPY_COUNT.items()})
    assert avalon.min_players(options) == 0
    with pytest.raises(NoTableFits) as info:
        avalon.verify_options(options)
    assert info.value.params == {"roles": 4, "spies": 3, "count": 10}
    for lang in ("en", "fr"):
        assert "10" in t(info.value.key, lang, **info.value.params)


def test_error_keys_are_all_exercised() -> None:
    raised = {"resistance.error." + case[0] for case in CASES}
    raised |= {NoTableFits.KEY}  # test_roles_that_fit_no_table
    raised |= {"resistance.error.bad_player_count", "resistance.error.duplicate_player"}
    raised |= {"resistance.error.invalid_action"}
    raised |= {"resistance.error." + case[0] for case in SETUP_CASES}
    assert raised == set(ERROR_KEYS)


@pytest.mark.parametrize("key", ERROR_KEYS)
def test_error_key_in_both_catalogues(key: str) -> None:
    en, fr = catalogue("en"), catalogue("fr")
    assert key in en and key in fr
    assert en[key].strip() and fr[key].strip() and en[key] != fr[key]
    assert placeholders(en[key]) == placeholders(fr[key])


def test_catalogue_placeholders_are_filled_by_params() -> None:
    """Every placeholder of a message is a parameter the engine gives for that key."""
    en = catalogue("en")
    for key, _params, build, method, args in CASES:
        game = build()
        with pytest.raises(GameError) as info:
            getattr(game, method)(*args)
        full = "resistance.error." + key
        assert placeholders(en[full]) <= set(info.value.params), key
        t(full, "en", **info.value.params)
    with pytest.raises(GameError) as setup:
        Resistance.setup(make_players(3), random.Random(0))
    t(setup.value.key, "en", **setup.value.params)


def test_resistance_catalogues_have_same_keys() -> None:
    en = {k for k in catalogue("en") if k.startswith("resistance.")}
    fr = {k for k in catalogue("fr") if k.startswith("resistance.")}
    assert en == fr
    for key in en:
        assert placeholders(catalogue("en")[key]) == placeholders(catalogue("fr")[key])


def test_refused_actions_after_real_play_leave_state() -> None:
    game = make_game(6)
    play_round(game, accept=False)
    propose_any(game)
    before = game.to_dict()
    for action in (
        {"action": "propose", "leader": game.leader, "team": [100, 101]},
        {"action": "choose", "player": 105, "choice": "sabotage"},
        {"action": "skip_leader"},
    ):
        with pytest.raises(GameError):
            apply_action(game, action)
        assert game.to_dict() == before


def test_names_in_the_engines_errors_are_escaped_once() -> None:
    from bot.errors import describe
    from games.resistance.rules import DuplicatePlayer

    text = describe(DuplicatePlayer(name="**x** ← leader", player=1), "en")
    assert text is not None and r"\*\*x\*\* ← leader is on the list twice" in text
