"""The record (Markdown archive) and the history lines of an Avalon game: every role by name,
the Lady of the Lake, the assassination and the outcome, in both languages."""

from __future__ import annotations

import pytest

from bot import archive
from games.resistance import records as rs_records
from games.resistance import render as render
from games.resistance.rules import (
    Character,
    EndReason,
    MissionChoice,
    Resistance,
    ResistanceEvent,
    Role,
    TeamProposed,
    TeamVote,
)
from games.resistance.tests.rules.helpers import good_team, make_avalon, team_with_spies
from tests.rows import a_game

SEVEN = [
    Character.MERLIN,
    Character.PERCIVAL,
    Character.SERVANT,
    Character.SERVANT,
    Character.ASSASSIN,
    Character.MORGANA,
    Character.MORDRED,
]


def played(target: int) -> tuple[Resistance, list[ResistanceEvent]]:
    """S, F (the Lady: grace examines alice), S (the Lady passes on), S, then the Assassin
    (eve, 104) names ``target``. The public events, as the log keeps them."""
    game = make_avalon(SEVEN, lady=True)
    log: list[ResistanceEvent] = []

    def keep(events: list[ResistanceEvent]) -> None:
        log.extend(e for e in events if e.private_to is None)

    def round_(team: list[int], sabotages: int = 0) -> None:
        keep(game.propose(game.leader, team))
        for p in game.players:
            game.vote(p.id, TeamVote.ACCEPT)
        spies = [m for m in team if game.roles[m] is Role.SPY][:sabotages]
        for m in team:
            game.choose(m, MissionChoice.SABOTAGE if m in spies else MissionChoice.SUPPORT)
        keep(game.resolve())

    round_(good_team(game))
    round_(team_with_spies(game, 1), 1)
    keep(game.examine(106, 100))
    round_(good_team(game))
    keep(game.resolve())
    round_(good_team(game))
    keep(game.assassinate(104, target))
    return game, log


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_record_names_every_role_the_lady_and_the_assassination(lang: str) -> None:
    game, events = played(100)
    assert game.win_reason is EndReason.MERLIN_ASSASSINATED
    record = a_game("resistance")
    text = rs_records.markdown(record, game, events, lang)
    assert ("Evil wins" if lang == "en" else "Le Mal gagne") in text
    for pid, character in game.characters.items():
        name = archive.role_name("resistance", character.value, lang)
        assert f"| {game.player(pid).name} | {name} |" in text
    examined = "examined" if lang == "en" else "a examiné"
    assert f"grace {examined} alice" in text
    passed = "passed to" if lang == "en" else "est passée à"
    assert passed in text
    assert "Merlin" in text.split("eve", 1)[1]  # the assassination line names its target


@pytest.mark.parametrize(
    ("target", "reason"),
    [(100, "the Assassin found Merlin"), (101, "the Assassin did not find Merlin")],
)
def test_outcome_and_history_lines(target: int, reason: str) -> None:
    game, events = played(target)
    assert reason in render.outcome_head(game, "en")
    assert reason in rs_records.outcome(game, "en")

    def name(pid: int) -> str:
        return game.player(pid).name

    lines = [render.history_line(e, name, "en") for e in events]
    shown = [line for line in lines if line]
    assert shown[0] == "• Lady of the Lake: grace examined alice"
    assert shown[1].startswith("• Lady of the Lake: ") and "did not choose" in shown[1]
    assert shown[2] == "• Three missions succeeded: the assassination"
    expected = "Merlin" if target == 100 else "not Merlin (alice)"
    assert shown[3].startswith(f"• The Assassin eve named {name(target)}") and expected in shown[3]
    proposed = TeamProposed(proposal=1, mission=1, attempt=1, leader=100, team=(100, 101))
    assert render.history_line(proposed, name, "en") is None
