"""What the Refutation Game posts respects Discord's limits whatever the deck: long texts are
split between lines, cards are grouped by 10 embeds and 6,000 characters."""

from __future__ import annotations

from typing import Any

import discord

from bot import limits
from bot.refutation import RefutationService
from db.models import Game
from games.refutation import default_deck_path
from games.refutation.deck import parse_deck_bytes


class Recorder:
    """A courier that keeps what would be sent (the post's shape is what is tested)."""

    def __init__(self) -> None:
        self.sent: list[tuple[int, str | None, list[discord.Embed]]] = []

    async def post(self, where: int, content: str | None = None, **kw: Any) -> None:
        self.sent.append((where, content, list(kw.get("embeds", []))))


class App:
    def __init__(self) -> None:
        self.courier = Recorder()


async def test_a_long_end_text_and_many_cards_are_split_within_the_limits() -> None:
    app = App()
    service = RefutationService(app)  # type: ignore[arg-type]
    game = Game(channel_id=42, thread_id=None, lang="en")
    deck = parse_deck_bytes(default_deck_path().read_bytes())
    # An end-of-game text as long as nine refuted cards with 512-character sources make it.
    lines = [f"• Card {n} — {'T' * 80}: <https://example.org/{'s' * 490}>" for n in range(9)]
    text = "The table wins!\n\nRefuted disinformation (9):\n" + "\n".join(lines)
    assert len(text) > 5000
    embeds = [service.card_embed(deck, n, "fr") for n in list(deck.cards)[:25]]
    await service.post(game, text, embeds)()
    sent = app.courier.sent
    assert all(where == 42 for where, _, _ in sent)
    for _, content, cards in sent:
        assert limits.message_breaches(content, cards) == []
    texts = [content for _, content, _ in sent if content]
    assert "\n".join(texts).replace("\n\n", "\n") == text.replace("\n\n", "\n")
    posted = [e.title for _, _, cards in sent for e in cards]
    assert posted == [e.title for e in embeds]  # every card, in order


async def test_a_short_post_is_one_message() -> None:
    app = App()
    service = RefutationService(app)  # type: ignore[arg-type]
    game = Game(channel_id=7, thread_id=9, lang="en")
    await service.post(game, "Hello")()
    assert app.courier.sent == [(9, "Hello", [])]
