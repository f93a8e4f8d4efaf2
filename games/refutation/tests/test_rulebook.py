"""``/refutation rules`` says what the reference page elects as the engine does it, in both
languages: a revealed card elected only if it is listed on the target's page."""

from __future__ import annotations

import pytest

from games.refutation import rulebook

NBSP, NNBSP = "\u00a0", "\u202f"


def test_the_engine_elects_only_a_listed_card() -> None:
    assert not rulebook.page_elects(0)  # not listed: the vote goes on
    assert all(rulebook.page_elects(stars) for stars in (1, 2, 3))
    assert rulebook.fewest_stars() == 1


@pytest.mark.parametrize(
    ("lang", "sentence"),
    [
        (
            "en",
            "**reference page**: if a revealed card is listed on it, the one with the most stars "
            "is elected at once (a tie on stars restricts the vote to the tied cards); if none "
            "is, the vote goes on.",
        ),
        (
            "fr",
            f"**page de référence** de la cible{NBSP}: si une carte révélée y figure, la mieux "
            "notée est élue aussitôt (à égalité d’étoiles, le vote se limite aux cartes à "
            f"égalité){NNBSP}; sinon, le vote continue.",
        ),
    ],
)
def test_the_rules_give_the_pages_condition(lang: str, sentence: str) -> None:
    assert sentence in "\n".join(rulebook.rules(lang, {}))


def test_a_different_engine_would_read_differently(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rulebook, "fewest_stars", lambda: 2)
    assert "if a revealed card has 2 stars or more on it" in "\n".join(rulebook.rules("en", {}))
    assert "y a au moins 2 étoiles" in "\n".join(rulebook.rules("fr", {}))
