"""``/refutation rules``: the rules, condensed, in the reader's language. Every number comes from
the engine (games/refutation/rules/model.py): players, the feed, the hand, the targets. What the
reference page elects is asked of the engine itself, by a rehearsal of one refutation on a
deck of a few cards (the engine is pure): the fewest stars a lone revealed card needs on the
page to be elected, 1 when any listed card is (a card not listed has none)."""

from __future__ import annotations

import random
from collections.abc import Mapping
from functools import cache
from typing import Any

from bot.i18n import t
from games.refutation.rules import Card, CardKind, Deck, Family, Player, Refutation, model
from games.refutation.rules.deck import STARS_MAX
from games.refutation.rules.events import ReferenceConsulted

SECTIONS = ("setup", "turn", "end")


def targets(lang: str) -> str:
    """``5, 7 or 9`` (French: ``5, 7 ou 9``)."""
    *rest, last = (str(n) for n in model.TARGETS)
    return t("refutation.rules.targets", lang, some=", ".join(rest), last=last)


def rehearsal_deck(stars: int) -> Deck:
    """One family: just enough disinformation cards for the largest feed and the first target,
    and refutation cards for the fewest players' hands, each listed with ``stars`` on every
    disinformation card's page (not listed when 0)."""
    count = max(model.FEED_SIZE, model.TARGETS[0])
    disinformation = range(1, count + 1)
    refutations = range(count + 1, count + 1 + model.HAND_REFUTATIONS * model.MIN_PLAYERS)

    def card(number: int, kind: CardKind) -> Card:
        words = {"en": f"card {number}"}
        return Card(number, kind, "f", words, words, "https://example.org")

    cards = [card(n, CardKind.DISINFORMATION) for n in disinformation]
    cards += [card(n, CardKind.REFUTATION) for n in refutations]
    page = {r: stars for r in refutations} if stars else {}
    return Deck(
        id="rehearsal",
        version=1,
        names={"en": "rehearsal"},
        families={"f": Family("f", "#000000", {"en": "f"})},
        cards={c.number: c for c in cards},
        relevance={d: dict(page) for d in disinformation},
    )


def page_elects(stars: int) -> bool:
    """Whether the reference page elects a lone revealed card that has ``stars`` on it: a
    player places a disinformation card, the next refutes it with one card, and opens the page."""
    players = [Player(seat, f"seat {seat}") for seat in range(1, model.MIN_PLAYERS + 1)]
    game, _ = Refutation.setup(players, rehearsal_deck(stars), random.Random(0))
    placed_by = game.active_player
    game.watch(placed_by, game.feed[0])
    player = game.active_player
    game.refute(player, placed_by)
    game.choose(player, game.hands[player][0])
    game.reveal()
    events = game.consult_reference(player)
    return any(isinstance(e, ReferenceConsulted) and e.elected is not None for e in events)


@cache
def fewest_stars() -> int:
    """The fewest stars that get a lone revealed card elected by the reference page."""
    return next(stars for stars in range(STARS_MAX + 1) if page_elects(stars))


def facts(lang: str) -> dict[str, Any]:
    return {
        "min": model.MIN_PLAYERS,
        "max": model.MAX_PLAYERS,
        "feed": model.FEED_SIZE,
        "hand": model.HAND_REFUTATIONS,
        "techniques": model.HAND_TECHNIQUES,
        "targets": targets(lang),
        "fewest_stars": fewest_stars(),
    }


def rules(lang: str, options: Mapping[str, Any]) -> list[str]:
    """The sections of ``/refutation rules``."""
    found = facts(lang)
    return [t(f"refutation.rules.{section}", lang, **found) for section in SECTIONS]
