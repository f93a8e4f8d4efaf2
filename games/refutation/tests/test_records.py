"""The Refutation Game's Markdown record (games/refutation/records.py): every refutation, card
and vote. Built from the real engine's event log."""

from __future__ import annotations

import random

import pytest

from games.refutation import records as rf_records
from games.refutation.rules import Player as RfPlayer
from games.refutation.rules import Refutation, RefutationEvent, default_deck_path, load_deck
from tests.rows import a_game


def refutation_game() -> tuple[Refutation, list[RefutationEvent]]:
    """Three players; one watches a card, the next refutes it, the table votes a card in."""
    deck = load_deck(default_deck_path())
    for seed in range(200):
        players = [RfPlayer(10, "Amélie"), RfPlayer(11, "Bob | *bold*"), RfPlayer(12, "Œdipe")]
        state, log = Refutation.setup(players, deck, random.Random(seed))
        active = state.active_player
        for card in list(state.feed):
            family = deck.card(card).family
            holders = [
                (pid, c)
                for pid, hand in state.hands.items()
                for c in hand
                if deck.card(c).family == family
            ]
            if holders:
                break
        else:
            continue
        log += state.watch(active, card)
        log += state.refute(state.active_player, active)  # the next player refutes it
        pid, chosen = holders[0]
        log += state.choose(pid, chosen)
        log += state.reveal()
        for p in players:
            log += state.vote(p.id, chosen)
        log += state.close_vote()
        log += state.end(by_moderator=True)
        public = [e for e in log if e.private_to is None]
        return state, public
    raise AssertionError("no seed gives a refutable feed")


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_refutation_record_has_every_refutation_card_and_vote(lang: str) -> None:
    state, events = refutation_game()
    text = rf_records.markdown(a_game("refutation"), state, events, lang)
    (success,) = [e.data for e in events if e.kind == "refutation_succeeded"]
    card = success["card"]
    assert f"{card} (" in text
    assert "Bob \\| \\*bold\\*" in text  # escaped, never a table cell break
    assert ("votes: card" in text) or ("votes\u00a0: carte" in text)
    refuted = "**Refuted**" if lang == "en" else "**Réfutée**"
    assert refuted in text
    credited = [p for p in state.players if state.credits[p.id]]
    assert len(credited) == 1
