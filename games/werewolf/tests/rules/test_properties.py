"""Property tests: random legal play at every player count, with every mix of options.

After each action: no dead player has acted or can act (the dead hunter's shot and the dead
captain's successor aside, their last acts); the living only fall; the end is exactly the
win conditions; no public event holds a secret; every event reads back as it was written;
and at the end the game is the replay of its log."""

from __future__ import annotations

import dataclasses
import json
import random
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from games.werewolf.rules import (
    AUDIENCES,
    Audience,
    EndReason,
    Options,
    Phase,
    Player,
    Role,
    Side,
    Werewolf,
    WerewolfEvent,
    Winner,
    apply_action,
    can_apply,
    tables,
    wolves_for,
)

from .helpers import Action, legal_actions, make_game, make_players

PROPS = settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)

#: The field naming who acts, for each action a player makes.
ACTOR = {
    "elect": "voter",
    "vote": "voter",
    "pick": "wolf",
    "look": "seer",
    "brew": "witch",
    "link": "cupid",
    "shoot": "hunter",
    "name_successor": "captain",
}
#: Keys no public event may hold: the night's secrets.
SECRET_KEYS = {"picks", "victim", "healed", "poisoned", "life_potion", "death_potion", "seen"}
SECRET_KEYS |= {"lover", "lovers", "role", "roles", "wolves_known"}
ROLE_VALUES = {role.value for role in Role}


@st.composite
def games(draw: st.DrawFn) -> tuple[Werewolf, random.Random]:
    count = draw(st.integers(tables.MIN_PLAYERS, tables.MAX_PLAYERS))
    flags = {name: draw(st.booleans()) for name in ("seer", "witch", "hunter", "cupid")}
    flags |= {name: draw(st.booleans()) for name in ("captain", "early_close", "reveal_roles")}
    flags["majority_ends_day"] = draw(st.booleans())
    wolves = draw(st.one_of(st.none(), st.integers(tables.MIN_WOLVES, tables.max_wolves(count))))
    options = Options(**flags, wolves=wolves)
    assume(count >= tables.players_for(wolves_for(count, options), len(options.specials())))
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    game, _ = Werewolf.setup(make_players(count), rng, options)
    return game, rng


def expected_end(game: Werewolf) -> tuple[Winner, EndReason] | None:
    """The win conditions, read off the living and the roles."""
    alive = set(game.alive)
    wolves = sum(1 for pid in alive if game.roles[pid] is Role.WEREWOLF)
    lovers = game.lovers
    mixed = lovers is not None and len({game.roles[pid].side for pid in lovers}) == 2
    if not alive:
        return Winner.NOBODY, EndReason.ALL_DEAD
    if mixed and lovers is not None and alive == set(lovers):
        return Winner.LOVERS, EndReason.LOVERS_LAST
    if wolves == 0:
        return Winner.VILLAGE, EndReason.NO_WOLVES
    if 2 * wolves >= len(alive):
        return Winner.WOLVES, EndReason.WOLVES_PARITY
    return None


def check_end(game: Werewolf) -> None:
    if not game.is_over:
        # only the dead hunter's shot may hold a decided game open
        assert expected_end(game) is None or game.phase is Phase.HUNTER
        return
    assert (game.winner, game.win_reason) == expected_end(game)
    lovers = set(game.lovers or ()) if game.winner is not Winner.LOVERS else set()
    mixed = bool(lovers) and len({game.roles[pid].side for pid in lovers}) == 2
    side = {Winner.VILLAGE: Side.VILLAGE, Winner.WOLVES: Side.WOLVES}.get(
        game.winner or Winner.NOBODY
    )
    expected = [
        p.id
        for p in game.players
        if (game.winner is Winner.LOVERS and p.id in (game.lovers or ()))
        or (side is not None and game.roles[p.id].side is side and not (mixed and p.id in lovers))
    ]
    assert list(game.winners()) == expected


def public_secrets(value: Any, game: Werewolf, key: str = "") -> list[str]:
    """What a public payload says that it must not: a secret key, a role that is neither a
    revealed death's nor the list of roles in play."""
    if isinstance(value, dict):
        if "cause" in value:  # a death: its role only if the roles are revealed
            dead = value["player"] not in game.alive
            ok = value.get("role") is None or (dead and game.options.reveal_roles)
            rest = {k: v for k, v in value.items() if k not in ("role", "cause")}
            return ([] if ok else [f"death role {value}"]) + public_secrets(rest, game)
        found = [k for k in value if k in SECRET_KEYS]
        return found + [s for k, v in value.items() for s in public_secrets(v, game, k)]
    if isinstance(value, list):
        return [s for v in value for s in public_secrets(v, game, key)]
    if isinstance(value, str) and value in ROLE_VALUES and key != "specials":
        return [f"{key}={value}"]
    return []


def check_event(game: Werewolf, event: WerewolfEvent, wolves: tuple[int, ...]) -> None:
    stored = json.loads(json.dumps(event.to_dict()))
    assert WerewolfEvent.from_dict(stored) == event
    audience = AUDIENCES[event.kind]
    if audience is Audience.PUBLIC:
        assert event.private_to is None
        if event.kind not in ("game_over", "game_cancelled"):
            assert public_secrets(event.payload(), game) == [], event
        else:
            assert game.is_over
    elif audience is Audience.PLAYER:
        assert event.private_to == event.payload()["player"]
    else:
        den = tuple(event.payload()["den"])
        assert den == wolves and event.private_to in den
        assert all(game.roles[w] is Role.WEREWOLF for w in den)


def check_dead_cannot_act(game: Werewolf, action: Action, alive_before: tuple[int, ...]) -> None:
    name = action["action"]
    if name in ACTOR and name not in ("shoot", "name_successor"):
        assert action[ACTOR[name]] in alive_before
    dead = [p.id for p in game.players if p.id not in game.alive]
    for pid in dead:
        for kind, field in ACTOR.items():
            if kind in ("shoot", "name_successor"):
                continue
            for target in (*game.alive[:2], None):
                tried = {"action": kind, field: pid, "target": target, "candidate": target}
                tried |= {"heal": False, "poison": None, "first": target, "second": target}
                assert not can_apply(game, tried), tried


@PROPS
@given(games())
def test_random_legal_play_keeps_every_invariant(drawn: tuple[Werewolf, random.Random]) -> None:
    game, rng = drawn
    played: list[Action] = []
    while not game.is_over:
        assert len(played) < 5000, "the game does not end"
        actions = [a for a in legal_actions(game) if can_apply(game, a)]
        assert actions  # a game that is not over always has something to do: its deadline
        kind = rng.choice(sorted({a["action"] for a in actions}))
        action = rng.choice([a for a in actions if a["action"] == kind])
        alive_before = game.alive
        events = apply_action(game, action)
        played.append(action)
        assert set(game.alive) <= set(alive_before)
        check_dead_cannot_act(game, action, alive_before)
        wolves_now = [e for e in events if AUDIENCES[e.kind] is Audience.WOLVES]
        for event in events:
            den = tuple(event.payload()["den"]) if event in wolves_now else ()
            check_event(game, event, den or game.living_wolves)
        check_end(game)
        if len(played) % 7 == 0:
            assert Werewolf.from_dict(json.loads(json.dumps(game.to_dict()))) == game
    assert game.actions == played
    again = Werewolf.replay(game.setup_record(), json.loads(json.dumps(played)))
    assert again == game
    assert Werewolf.from_dict(json.loads(json.dumps(game.to_dict()))) == game


@PROPS
@given(games())
def test_a_refused_action_changes_nothing(drawn: tuple[Werewolf, random.Random]) -> None:
    """Every action of every kind tried at random moments: refused ones leave the state."""
    game, rng = drawn
    for _ in range(60):
        if game.is_over:
            break
        before = game.snapshot()
        tried = {"action": rng.choice(list(ACTOR)), "target": rng.choice([None, 1, 2, 99])}
        tried |= {f: rng.choice([1, 2, 3, 99, None]) for f in ACTOR.values()}
        tried |= {"candidate": 3, "heal": rng.random() < 0.5, "poison": None, "first": 1}
        tried |= {"second": 2, "successor": 4}
        if not can_apply(game, tried):
            assert game.snapshot() == before
        actions = [a for a in legal_actions(game) if can_apply(game, a)]
        apply_action(game, rng.choice(actions))


def test_the_secret_checker_finds_secrets() -> None:
    """The checks above can fail: a role, a pick, a potion in a public payload are found."""
    game = make_game("WWSTVV")
    assert public_secrets({"players": [1, 2], "specials": ["seer"]}, game) == []
    assert public_secrets({"deaths": [{"player": 5, "cause": "night", "role": None}]}, game) == []
    assert public_secrets({"deaths": [{"player": 5, "cause": "night", "role": "villager"}]}, game)
    assert public_secrets({"picks": {"1": 5}}, game) == ["picks"]
    assert public_secrets({"note": "werewolf"}, game) == ["note=werewolf"]
    assert public_secrets({"life_potion": True}, game) == ["life_potion"]


def swapped(value: Any, old: int, new: int) -> Any:
    """``value`` with the id ``old`` written ``new`` (in tuples, mappings and records)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return new if value == old else value
    if isinstance(value, tuple):
        return tuple(swapped(v, old, new) for v in value)
    if isinstance(value, dict):
        return {swapped(k, old, new): swapped(v, old, new) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {
            f.name: swapped(getattr(value, f.name), old, new) for f in dataclasses.fields(value)
        }
        return type(value)(**fields)
    return value


@PROPS
@given(games(), st.integers(0, 60))
def test_a_substitute_knows_what_the_leaver_knew(
    drawn: tuple[Werewolf, random.Random], moment: int
) -> None:
    """At any moment, the newcomer's private view is the leaver's, ids swapped, and the game
    goes on (40 actions more) as its log replays it."""
    game, rng = drawn
    for _ in range(moment):
        if game.is_over:
            return
        apply_action(game, rng.choice([a for a in legal_actions(game) if can_apply(game, a)]))
    if game.is_over:
        return
    old = rng.choice([p.id for p in game.players])
    before, public = game.private_view(old), game.public_view()
    announced, dealt = game.substitute(old, Player(10_000, "Zoé"))
    assert dealt.private_to == 10_000 and announced.private_to is None
    assert game.private_view(10_000) == swapped(before, old, 10_000)
    assert game.public_view().alive == swapped(public.alive, old, 10_000)
    assert not game.is_player(old)
    for _ in range(40):
        if game.is_over:
            break
        apply_action(game, rng.choice([a for a in legal_actions(game) if can_apply(game, a)]))
        check_end(game)
    assert Werewolf.replay(game.setup_record(), game.actions) == game
