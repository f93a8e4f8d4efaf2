"""The Resistance's renderers (games/resistance/render.py): pure functions of real states from
the rules engine (seeded Random), its events and a language. No database, no Discord, no
service."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest

from games.resistance import render as rs_render
from games.resistance.rules import (
    Character,
    MissionChoice,
    Options,
    Phase,
    Player,
    Resistance,
    ResistanceEvent,
    Role,
    TeamVote,
    Variant,
)
from games.resistance.tests.matrix_fixture import fixed_game
from games.resistance.tests.rules.helpers import make_avalon

LANGS = ["en", "fr"]
DUE = datetime(2026, 11, 30, 18, 0, tzinfo=UTC)
NAMES = ["Zoé", "amélie", "Bob_*x*", "Chloé", "david", "Émile", "Fatou"]


def table(n: int = 7, seed: int = 5, options: Options = Options()) -> Resistance:
    players = [Player(100 + i, name) for i, name in enumerate(NAMES[:n])]
    game, _ = Resistance.setup(players, random.Random(seed), options)
    return game


def no_placeholder(text: str) -> None:
    assert text and "{" not in text and "}" not in text, text


# -- The Resistance ------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
def test_a_vote_result_names_each_voter_once_in_the_right_list(lang: str) -> None:
    game = table()
    game.propose(game.leader, [p.id for p in game.players[: game.team_size]])
    voters = [p.id for p in game.players]
    accept, reject = voters[:3], voters[3:5]  # the last two do not vote
    for pid in accept:
        game.vote(pid, TeamVote.ACCEPT)
    for pid in reject:
        game.vote(pid, TeamVote.REJECT)
    for member in game.team or ():
        game.choose(member, MissionChoice.SUPPORT)
    events = game.resolve()
    text = rs_render.result_text(game, events, lang)
    no_placeholder(text)
    lines = text.splitlines()
    assert lines[-1] == rs_render.track_text(game, lang)
    for ids, line in zip((accept, reject, voters[5:]), lines[1:4], strict=True):
        assert f"({len(ids)})" in line
        for pid in ids:
            assert rs_render.name(game, pid) in line
    assert "Bob\\_\\*x\\*" in text  # names are escaped
    assert "Bob_*x*" not in text


@pytest.mark.parametrize("lang", LANGS)
def test_the_leader_list_marks_the_leader_until_the_end(lang: str) -> None:
    game = table()
    text = rs_render.leader_list_text(game, lang)
    no_placeholder(text)
    leader_line = [line for line in text.splitlines() if "**" in line and line[:2] != "**"]
    assert any(rs_render.name(game, game.leader) in line for line in leader_line)
    game.cancel()
    over = rs_render.leader_list_text(game, lang)
    assert rs_render.name(game, game.leader_order[0]) in over
    assert sum("**" in line for line in over.splitlines()[1:]) == 0


@pytest.mark.parametrize("lang", LANGS)
def test_role_texts_show_a_spy_the_other_spies_and_nothing_to_the_resistance(lang: str) -> None:
    game = table()
    spy, *others = game.spies
    loyal = next(p.id for p in game.players if game.roles[p.id] is Role.RESISTANCE)
    spy_text = rs_render.role_text(game, spy, lang)
    no_placeholder(spy_text)
    assert all(rs_render.name(game, o) in spy_text for o in others)
    assert rs_render.name(game, spy) not in spy_text
    loyal_text = rs_render.role_text(game, loyal, lang)
    assert not any(rs_render.name(game, s) in loyal_text for s in game.spies)


@pytest.mark.parametrize("lang", LANGS)
def test_merlin_sees_evil_but_not_mordred(lang: str) -> None:
    characters = [
        Character.MERLIN,
        Character.PERCIVAL,
        Character.SERVANT,
        Character.ASSASSIN,
        Character.MORGANA,
        Character.MORDRED,
        Character.SERVANT,
    ]
    game = make_avalon(characters)
    text = rs_render.role_text(game, 100, lang)  # Merlin
    no_placeholder(text)
    assert rs_render.name(game, 103) in text and rs_render.name(game, 104) in text
    assert rs_render.name(game, 105) not in text  # Mordred hides from Merlin


@pytest.mark.parametrize("lang", LANGS)
def test_the_history_has_every_proposal_and_the_substitution(lang: str) -> None:
    events, _, _ = fixed_game()
    from games.resistance.tests import matrix_fixture

    state = matrix_fixture.last_state
    assert state is not None
    text = rs_render.history_text(state, events, lang)
    no_placeholder(text)
    proposals = [e for e in events if e.kind == "team_proposed"]
    assert len([line for line in text.splitlines() if line.startswith("• P")]) == len(proposals)
    assert "Zoé-Marie Longuenomdefamille" in text  # the newcomer, replacing the leaver
    empty = rs_render.history_text(table(), [], lang)
    assert len(empty.splitlines()) == 2  # the title and "no proposal yet"


@pytest.mark.parametrize("lang", LANGS)
def test_an_avalon_history_reveals_the_roles_only_at_the_end(lang: str) -> None:
    options = Options(variant=Variant.AVALON, percival=True, morgana=True)
    game = table(options=options)
    running = rs_render.history_text(game, [], lang)
    merlin = rs_render.roles_text(game, lang).splitlines()[0]
    assert merlin not in running
    events: list[ResistanceEvent] = list(game.cancel())
    ended = rs_render.history_text(game, events, lang)
    no_placeholder(ended)
    assert merlin in ended
    end = rs_render.end_text(game, lang)
    assert all(rs_render.name(game, p.id) in end for p in game.players)


@pytest.mark.parametrize("lang", LANGS)
def test_the_status_during_a_vote_names_who_has_not_voted(lang: str) -> None:
    game = table()
    game.propose(game.leader, [p.id for p in game.players[: game.team_size]])
    team = game.team or ()
    voted = [p.id for p in game.players[:4]]
    for pid in voted:
        game.vote(pid, TeamVote.ACCEPT)
    text = rs_render.status_text(game, lang, team_votes=dict.fromkeys(voted, "accept"), due=DUE)
    no_placeholder(text)
    waiting = [p.id for p in game.players[4:]]
    line = next(line for line in text.splitlines() if rs_render.names(game, waiting, lang) in line)
    assert not any(rs_render.name(game, pid) in line for pid in voted)
    assert "4/7" in text and f"<t:{int(DUE.timestamp())}:F>" in text
    assert game.phase is Phase.VOTE and team  # no mission choice was asked about
