"""French typography in every French text of the default deck: its name, families, card titles
and texts, by the checker of the catalogue's (tests/bot/test_typography.py)."""

from __future__ import annotations

from pathlib import Path

from games.refutation.rules import default_deck_path, load_deck
from tests.bot.test_typography import violations


def french_deck_texts(path: Path) -> dict[str, str]:
    deck = load_deck(path)
    texts = {"deck.name": deck.names["fr"]}
    texts |= {f"family {k}": f.names["fr"] for k, f in deck.families.items()}
    for card in deck.cards.values():
        texts[f"card {card.number} title"] = card.titles["fr"]
        texts[f"card {card.number} text"] = card.texts["fr"]
        if card.locators:
            texts[f"card {card.number} locator"] = card.locators["fr"]
    return texts


def test_every_french_text_of_the_default_deck() -> None:
    texts = french_deck_texts(default_deck_path())
    assert len(texts) > 100
    problems = {k: v for k, text in texts.items() if (v := violations(text))}
    assert not problems, problems
