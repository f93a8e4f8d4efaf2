"""What the Refutation Game posts respects Discord's limits whatever the deck: long texts are
split between lines, cards are grouped by 10 embeds and 6,000 characters."""

from __future__ import annotations

from typing import Any

import discord

from bot import limits
from bot.dispatcher import messages_of
from db.models import Game
from games.refutation import render as render
from games.refutation.rules import default_deck_path
from games.refutation.rules.deck import parse_deck_bytes
from games.refutation.service import RefutationService


def sent(record: Any) -> list[tuple[int, str | None, list[discord.Embed]]]:
    """The messages the dispatcher sends for a post record (its shape is what is tested)."""
    return [
        (record.channel_id, content or None, cards)
        for content, cards in messages_of(record.text, record.embeds)
    ]


async def test_a_long_end_text_and_many_cards_are_split_within_the_limits() -> None:
    service = RefutationService(None)
    game = Game(channel_id=42, thread_id=None, lang="en")
    deck = parse_deck_bytes(default_deck_path().read_bytes())
    # An end-of-game text as long as nine refuted cards with 512-character sources make it.
    lines = [f"• Card {n} — {'T' * 80}: <https://example.org/{'s' * 490}>" for n in range(9)]
    text = "The table wins!\n\nRefuted disinformation (9):\n" + "\n".join(lines)
    assert len(text) > 5000
    embeds = [render.card_embed(deck, n, "fr") for n in list(deck.cards)[:25]]
    sent_ = sent(service.post(game, text, embeds))
    assert all(where == 42 for where, _, _ in sent_)
    for _, content, cards in sent_:
        assert limits.message_breaches(content, cards) == []
    texts = [content for _, content, _ in sent_ if content]
    assert "\n".join(texts).replace("\n\n", "\n") == text.replace("\n\n", "\n")
    posted = [e.title for _, _, cards in sent_ for e in cards]
    assert posted == [e.title for e in embeds]  # every card, in order


async def test_a_short_post_is_one_message() -> None:
    service = RefutationService(None)
    game = Game(channel_id=7, thread_id=9, lang="en")
    assert sent(service.post(game, "Hello")) == [(9, "Hello", [])]
