"""``/resistance rules`` says the rules the engine applies, in both languages: the facts the
tables do not hold (a silent team member, the same team again) come from a rehearsal of the
engine, so the text follows it."""

from __future__ import annotations

import pytest

from games.resistance import rulebook
from games.resistance.rules import MAX_REJECTIONS, MissionChoice

NBSP, NNBSP = "\u00a0", "\u202f"


def whole(lang: str, options: dict[str, str] | None = None) -> str:
    return "\n".join(rulebook.rules(lang, options or {}))


def test_the_engine_counts_a_silent_member_as_support_and_allows_the_same_team() -> None:
    assert rulebook.silent_choice() is MissionChoice.SUPPORT
    # every proposal of the same team is allowed until the rejections end the game
    assert rulebook.same_team_proposals() == MAX_REJECTIONS


@pytest.mark.parametrize(
    ("lang", "silent", "same"),
    [
        (
            "en",
            "a team member who sends no choice is taken to have chosen **Support**",
            "the next leader proposes for the same mission, the same team again if they like.",
        ),
        (
            "fr",
            "un membre de l’équipe qui n’envoie aucun choix est réputé avoir choisi **Soutenir**",
            "le Leader suivant propose une équipe pour la même mission, et peut reproposer la "
            "même.",
        ),
    ],
)
def test_the_rules_say_what_the_engine_does(lang: str, silent: str, same: str) -> None:
    text = whole(lang)
    assert silent in text and same in text


def test_a_different_engine_would_read_differently(monkeypatch: pytest.MonkeyPatch) -> None:
    """The sentences are the engine's facts put in words, not fixed text."""
    monkeypatch.setattr(rulebook, "silent_choice", lambda: MissionChoice.SABOTAGE)
    monkeypatch.setattr(rulebook, "same_team_proposals", lambda: 1)
    assert "is taken to have chosen **Sabotage**" in whole("en")
    assert "the same mission, a team not proposed before." in whole("en")
    assert "réputé avoir choisi **Saboter**" in whole("fr")
    assert "une équipe qui n’a pas encore été proposée." in whole("fr")


def test_the_spies_and_the_two_sabotage_mission_in_french() -> None:
    text = whole("fr")
    assert f"Espions{NBSP}: 2 (5 ou 6 joueurs), 3 (7 à 9), 4 (10)." in text
    assert "deux sabotages pour la 4ᵉ mission à partir de 7 joueurs." in text
    assert "6 ou 7 joueurs" in text and "8 à 10 joueurs" in text
    english = whole("en")
    assert "Spies: 2 (5–6 players), 3 (7–9), 4 (10)." in english
    assert "two for mission 4 with 7 players or more" in english
