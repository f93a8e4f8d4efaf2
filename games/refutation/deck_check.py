"""A deck's check: parsed (``games.refutation.rules.deck.parse_deck_bytes``, which refuses
hostile files) and rendered the way the game renders every card, its page, its reference page,
the largest hand and the vote message, each measured against Discord's limits (``bot.limits``).

It runs in the worker process (``python -m games.refutation.deck_worker``, killed after
``check_seconds``: the bot's event loop never parses an untrusted deck) and in tests.
"""

from __future__ import annotations

from typing import Any

from bot import limits
from bot.i18n import LANGS
from games.refutation import render
from games.refutation.components import choice_view, vote_view
from games.refutation.decks.registry import DeckRefused, sha256_of
from games.refutation.render import m, option_data
from games.refutation.rules import Deck, DeckError
from games.refutation.rules.deck import DECK_MAX_BYTES, parse_deck_bytes
from games.refutation.rules.model import HAND_REFUTATIONS, HAND_TECHNIQUES, MAX_PLAYERS


def check_deck(data: bytes, max_bytes: int = DECK_MAX_BYTES) -> Deck:
    """Parse ``data`` and measure everything it renders to. Raises ``DeckError`` or
    ``DeckRefused`` naming the first problem."""
    if len(data) > max_bytes:
        raise DeckError("too_large", size=len(data), max=max_bytes)
    deck = parse_deck_bytes(data)
    check_rendering(deck)
    return deck


def _refuse(breaches: list[limits.Breach], page: str, number: int | None, lang: str) -> None:
    if not breaches:
        return
    b = breaches[0]
    key = "refutation.decks.limit.count" if b.count else "refutation.decks.limit.chars"
    if b.part == "url":
        key = "refutation.decks.limit.url"
    raise DeckRefused(
        key, page=page, number=number or 0, lang=lang, part=b.part, size=b.size, max=b.limit
    )


def check_rendering(deck: Deck) -> None:
    """Render what the game shows of every card, in every language, with the game's own code,
    and refuse the first page that breaks one of Discord's limits: a card's embed, its reference
    page, the select option of the secret choice, the vote buttons, a hand of the largest size
    (4 refutation cards and a technique card: one message), and the vote message."""
    big_id = 2**63 - 1  # the longest custom_id a game can have
    for lang in LANGS:
        sizes: dict[int, int] = {}
        for number in deck.cards:
            embed = render.card_embed(deck, number, lang)
            _refuse(limits.embed_breaches(embed), "card", number, lang)
            sizes[number] = len(embed)
            page = render.reference_embed(deck, number, lang)
            _refuse(limits.embed_breaches(page), "reference", number, lang)
            option = option_data(render.card_option(deck, number, lang))
            view = choice_view(big_id, big_id, [option], lang)
            _refuse(limits.components_breaches(view.to_components()), "choice", number, lang)
        # The largest hand: its embeds go in one message (a DM, or /refutation hand).
        refutations = sorted((sizes[c.number], c.number) for c in deck.refutations())
        techniques = sorted((sizes[c.number], c.number) for c in deck.techniques())
        hand = [n for _, n in refutations[-HAND_REFUTATIONS:]]
        hand += [n for _, n in techniques[-HAND_TECHNIQUES:]] if techniques else []
        head = m("hand.dm", lang, where=f"<#{big_id}>", count=len(hand))
        embeds = [render.card_embed(deck, c, lang) for c in hand]
        _refuse(limits.message_breaches(head, embeds), "hand", None, lang)
        options = [option_data(render.card_option(deck, c, lang)) for c in hand]
        options.append(option_data(render.pass_option(lang)))
        view = choice_view(big_id, big_id, options, lang)
        _refuse(limits.components_breaches(view.to_components()), "choice", None, lang)
        # The vote message: a button for each revealed card (one per player), Abstain and
        # Reference page; its content names no card title.
        revealed = [n for _, n in sorted(refutations + techniques)[-MAX_PLAYERS:]]
        buttons: list[list[Any]] = [[c, render.label(deck, c, lang)] for c in revealed]
        vote = vote_view(big_id, big_id, buttons, True, lang)
        _refuse(limits.components_breaches(vote.to_components()), "vote", None, lang)


def result_of(data: bytes, max_bytes: int = DECK_MAX_BYTES) -> dict[str, Any]:
    """The check's verdict as JSON-ready data (what the worker prints)."""
    try:
        deck = check_deck(data, max_bytes)
    except (DeckError, DeckRefused) as exc:
        return {"ok": False, "key": exc.key, "params": exc.params}
    return {
        "ok": True,
        "sha256": sha256_of(data),
        "id": deck.id,
        "version": deck.version,
        "families": len(deck.families),
        "disinformation": len(deck.disinformation()),
        "refutation": len(deck.refutations()),
        "technique": len(deck.techniques()),
        "relevance": sum(len(page) for page in deck.relevance.values()),
    }
