"""``/werewolf rules`` says the rules the engine applies, in both languages: the wolf table is
the engine's, the ties come from a rehearsal of the engine, the options are named as the
reader's commands name them."""

from __future__ import annotations

import pytest

from games.werewolf import rulebook
from games.werewolf.options import WEREWOLF_OPTIONS
from games.werewolf.rules import tables
from rulebase.engine import groups

pytestmark = pytest.mark.usefixtures("werewolf_catalogue")

NBSP = "\u00a0"


def whole(lang: str, options: dict[str, object] | None = None) -> str:
    return "\n".join(rulebook.rules(lang, options or {}))


def test_the_engine_kills_nobody_on_a_tie() -> None:
    assert rulebook.wolves_tie_kills() is False
    assert rulebook.day_tie_eliminates() is False


def test_the_wolf_table_is_the_engines() -> None:
    assert groups(tables.WOLF_COUNT) == list(tables.WOLF_TABLE)
    assert "**Werewolves**: 2 (6–11 players), 3 (12–17), 4 (18)." in whole("en")
    assert f"**Loups-garous**{NBSP}: 2 (6 à 11 joueurs), 3 (12 à 17), 4 (18)." in whole("fr")


@pytest.mark.parametrize(
    ("lang", "night", "day"),
    [
        ("en", "(`night_hours`, 24 hours by default)", "and a tie gives no victim."),
        ("fr", "(`heures_nuit`, 24 heures par défaut)", "et une égalité ne donne aucune victime."),
    ],
)
def test_the_rules_say_what_the_engine_does(lang: str, night: str, day: str) -> None:
    text = whole(lang)
    assert night in text and day in text


def test_a_different_engine_would_read_differently(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rulebook, "wolves_tie_kills", lambda: True)
    monkeypatch.setattr(rulebook, "day_tie_eliminates", lambda: True)
    assert "a tie gives the first-picked." in whole("en")
    assert "a tie eliminates the first to reach the most votes." in whole("en")
    assert "une égalité donne le premier désigné." in whole("fr")


def test_every_role_is_told_with_its_option_and_a_game_here_tells_its_own() -> None:
    text = whole("fr")
    for name, option in (
        ("voyante", "voyante"),
        ("Cupidon", "cupidon"),
        ("capitaine", "capitaine"),
    ):
        assert f"• **{name}** (option `{option}`){NBSP}:" in text
    here = whole("en", {**WEREWOLF_OPTIONS.defaults(), "wolves": 3, "seer": False})
    assert "**Werewolves** in this game: 3." in here
    assert "**seer**" not in here and "**witch**: You have one life potion" in here
    assert "(option `" not in here
