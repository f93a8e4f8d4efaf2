"""The Refutation Game's renderers (games/refutation/render.py): pure functions of real states
from the rules engine (seeded Random), its events and a language. No database, no Discord, no
service."""

from __future__ import annotations

import random

import pytest

from games.refutation import render as rf_render
from games.refutation.rules import Options as RefutationOptions
from games.refutation.rules import Phase as RefutationPhase
from games.refutation.rules import Player as RefutationPlayer
from games.refutation.rules import Refutation, default_deck_path, load_deck
from games.refutation.rules.events import (
    CardWatched,
    GameOver,
    RefutationEvent,
    RefutationSucceeded,
)

LANGS = ["en", "fr"]
NAMES = ["Zoé", "amélie", "Bob_*x*", "Chloé", "david", "Émile", "Fatou"]


def no_placeholder(text: str) -> None:
    assert text and "{" not in text and "}" not in text, text


# -- The Refutation Game ---------------------------------------------------------------------------

DECK = load_deck(default_deck_path())


def refutation(seed: int = 3, n: int = 3) -> tuple[Refutation, list[RefutationEvent]]:
    players = [RefutationPlayer(200 + i, NAMES[i]) for i in range(n)]
    return Refutation.setup(players, DECK, random.Random(seed), RefutationOptions())


@pytest.mark.parametrize("lang", LANGS)
def test_the_turn_post_shows_the_feed_as_cards(lang: str) -> None:
    game, _ = refutation()
    text, embeds = rf_render.turn_post(game, lang)
    no_placeholder(text)
    assert rf_render.name(game, game.active_player) in text
    assert [e.title for e in embeds] == [
        rf_render.card_embed(DECK, c, lang).title for c in game.feed
    ]
    assert all(
        e.title and e.title.startswith(f"#{c} ") for e, c in zip(embeds, game.feed, strict=True)
    )


@pytest.mark.parametrize("lang", LANGS)
def test_a_watch_and_a_refutation_are_posted_in_order(lang: str) -> None:
    game, _ = refutation()
    active, card = game.active_player, game.feed[0]
    events = game.watch(active, card)
    assert isinstance(events[0], CardWatched)
    posts = rf_render.event_posts(game, events, lang)
    assert len(posts) == 1
    text, embeds = posts[0]
    no_placeholder(text)
    assert rf_render.name(game, active) in text and str(card) in text
    assert len(embeds) == 1 and embeds[0].title is not None and f"#{card}" in embeds[0].title
    ended = game.end(by_moderator=True)
    assert isinstance(ended[-1], GameOver)
    ((end, cards),) = rf_render.event_posts(game, ended, lang)
    assert end == rf_render.end_text(game, lang) and cards == []


@pytest.mark.parametrize("lang", LANGS)
def test_a_success_shows_the_winning_card_and_the_counts(lang: str) -> None:
    from games.refutation.tests.test_records import refutation_game

    state, events = refutation_game()
    success = next(e for e in events if isinstance(e, RefutationSucceeded))
    posts = rf_render.event_posts(state, [success], lang)
    ((text, embeds),) = posts
    no_placeholder(text)
    assert str(success.card) in text and str(success.disinformation) in text
    assert [e.title for e in embeds] == [rf_render.card_embed(state.deck, success.card, lang).title]
    end = rf_render.end_text(state, lang)
    credited = next(p for p in state.players if state.credits[p.id])
    assert rf_render.label(state.deck, success.card, lang) in end
    assert credited.name.split()[0] in end


@pytest.mark.parametrize("lang", LANGS)
def test_the_status_lists_the_feed_the_pile_and_every_hand(lang: str) -> None:
    game, _ = refutation()
    text = rf_render.status_text(game, lang)
    no_placeholder(text)
    for card in game.feed:
        assert rf_render.label(DECK, card, lang) in text
    for p in game.players:
        assert f"{rf_render.name(game, p.id)} {len(game.hands[p.id])}" in text
    assert game.phase is RefutationPhase.TURN


def test_the_reference_page_hides_a_target_under_vote() -> None:
    target = DECK.disinformation()[0].number
    open_page = rf_render.reference_embed(DECK, target, "en")
    hidden = rf_render.reference_embed(DECK, target, "en", {target: (2, 777)})
    assert any("★" in f.value or "☆" in f.value for f in open_page.fields if f.value)
    assert not any("★" in (f.value or "") for f in hidden.fields)
    assert any("<#777>" in (f.value or "") for f in hidden.fields)
