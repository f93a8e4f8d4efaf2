"""A synthetic deck and helpers for the engine tests (no dependence on the default deck)."""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from typing import Any

from bot.i18n import t
from games.refutation.rules import Deck, GameError, Options, Player, Refutation, parse_deck

FAMILIES = ("alpha", "beta", "gamma")
DISINFO_PER_FAMILY = 5
REFUTATIONS_PER_FAMILY = 9
TECHNIQUES = 6


def disinfo(family: int, i: int) -> int:
    """Disinformation ``i`` (0..4) of family index ``family``: 1..5, 11..15, 21..25."""
    return family * 10 + i + 1


def refutation(family: int, j: int) -> int:
    """Refutation ``j`` (0..8) of family index ``family``: 5001.., 5101.., 5201.."""
    return 5000 + family * 100 + j + 1


def technique(k: int) -> int:
    """Technique ``k`` (0..5): 7001..7006."""
    return 7001 + k


def _card(number: int, kind: str, family: str | None) -> str:
    lines = ["[[cards]]", f"number = {number}", f'kind = "{kind}"']
    if family is not None:
        lines.append(f'family = "{family}"')
    lines += [
        f'title.en = "Card {number}"',
        f'title.fr = "Carte {number}"',
        f'text.en = "Text of card {number}."',
        f'text.fr = "Texte de la carte {number}."',
        f'source = "https://example.org/cards/{number}"',
        "",
    ]
    return "\n".join(lines)


def _relevance(d: int, card: int, stars: int) -> str:
    return f"[[relevance]]\ndisinformation = {d}\ncard = {card}\nstars = {stars}\n"


def synthetic_deck_text(exclude: frozenset[int] = frozenset()) -> str:
    """3 families x (5 disinformation + 9 refutations) and 6 techniques.

    Reference page of disinformation ``i`` of a family: refutation ``i`` and ``i+1`` with 3
    stars (a tie), refutation ``i+2`` with 1 star; refutations 7 and 8 are never listed.
    Technique 0 has 2 stars against every disinformation; the others are never listed.
    ``exclude``: card numbers to leave out (not listed cards only, or the deck is invalid)."""
    parts = [
        '[deck]\nid = "synthetic"\nversion = 1\nname.en = "Synthetic"\nname.fr = "Synthétique"\n'
    ]
    colours = ("#aa0000", "#00aa00", "#0000aa")
    for key, colour in zip(FAMILIES, colours, strict=True):
        parts.append(
            f'[[families]]\nkey = "{key}"\ncolour = "{colour}"\n'
            f'name.en = "Family {key}"\nname.fr = "Famille {key}"\n'
        )
    for f, key in enumerate(FAMILIES):
        parts += [_card(disinfo(f, i), "disinformation", key) for i in range(DISINFO_PER_FAMILY)]
        parts += [
            _card(refutation(f, j), "refutation", key)
            for j in range(REFUTATIONS_PER_FAMILY)
            if refutation(f, j) not in exclude
        ]
    parts += [
        _card(technique(k), "technique", None)
        for k in range(TECHNIQUES)
        if technique(k) not in exclude
    ]
    for f in range(len(FAMILIES)):
        for i in range(DISINFO_PER_FAMILY):
            d = disinfo(f, i)
            parts += [
                _relevance(d, refutation(f, i), 3),
                _relevance(d, refutation(f, i + 1), 3),
                _relevance(d, refutation(f, i + 2), 1),
                _relevance(d, technique(0), 2),
            ]
    return "\n".join(parts)


DECK: Deck = parse_deck(synthetic_deck_text())
ALL_CARDS: frozenset[int] = frozenset(DECK.cards)


def players(n: int) -> list[Player]:
    return [Player(100001 + i, f"P{i + 1}") for i in range(n)]


def new_game(n: int = 3, *, seed: int = 1, target: int = 5, techniques: bool = False) -> Refutation:
    game, _ = Refutation.setup(
        players(n), DECK, random.Random(seed), Options(target=target, techniques=techniques)
    )
    return game


def _take(game: Refutation, card: int) -> None:
    """Remove ``card`` from wherever it is."""
    for pile in (game.draw, game.feed, game.reserve, game.discard, game.refuted):
        if card in pile:
            pile.remove(card)
            return
    for hand in game.hands.values():
        if card in hand:
            hand.remove(card)
            return
    for pid, front in game.in_front.items():
        if front == card:
            game.in_front[pid] = None
            return
    raise AssertionError(f"card {card} is nowhere")


def arrange(
    game: Refutation,
    *,
    hands: Mapping[int, list[int]] | None = None,
    in_front: Mapping[int, int | None] | None = None,
    feed: list[int] | None = None,
    active: int | None = None,
) -> None:
    """Put chosen cards where a test wants them (keeps every card in exactly one place).

    Replaced hand cards go to the reserve; a replaced card in front or feed goes under the deck."""
    for pid, hand in (hands or {}).items():
        game.reserve += [c for c in game.hands[pid] if c not in hand]
        game.hands[pid] = [c for c in game.hands[pid] if c in hand]
        for card in hand:
            if card not in game.hands[pid]:
                _take(game, card)
                game.hands[pid].append(card)
    for pid, front in (in_front or {}).items():
        old = game.in_front[pid]
        if old is not None:
            game.in_front[pid] = None
            game.draw.append(old)
        if front is not None:
            _take(game, front)
            game.in_front[pid] = front
    if feed is not None:
        game.draw += game.feed
        game.feed = []
        for card in feed:
            _take(game, card)
        game.feed = list(feed)
    if active is not None:
        game.active_seat = game.player_ids.index(active)
    check_zones(game)
    if not game.actions:  # the arranged table becomes the starting point of ``replay``
        state = game.to_dict()
        game.setup_record = {k: v for k, v in state.items() if k not in ("actions", "setup")}


def check_zones(game: Refutation) -> None:
    """Every card of the deck is in exactly one place."""
    seen: list[int] = [card for pile in game.zones().values() for card in pile]
    assert len(seen) == len(set(seen)), "a card is in two places"
    assert set(seen) == ALL_CARDS, "a card is missing or foreign"


def ints_in(value: Any) -> Iterator[int]:
    """Every int anywhere in JSON-like data (keys included)."""
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        yield value
    elif isinstance(value, Mapping):
        for k, v in value.items():
            yield from ints_in(k)
            yield from ints_in(v)
    elif isinstance(value, list | tuple | set | frozenset):
        for v in value:
            yield from ints_in(v)


def assert_renders(error: GameError) -> None:
    """The error's message exists in both languages and its placeholders are all filled."""
    for lang in ("en", "fr"):
        text = t(error.key, lang, **error.params)
        assert "{" not in text, text


#: A small deck that breaks no rule (the deck tests change one thing of it at a time).
VALID = """\
[deck]
id = "mini"
version = 2
name.en = "Mini deck"
name.fr = "Petit paquet"

[[families]]
key = "not_happening"
colour = "#D94F3D"
name.en = "It's not happening"
name.fr = "Ça n'arrive pas"

[[families]]
key = "not_us"
colour = "#3d7fd9"
name.en = "It's not us"
name.fr = "Ce n'est pas nous"

[[cards]]
number = 1
kind = "disinformation"
family = "not_happening"
title.en = "Cold winter"
title.fr = "Hiver froid"
text.en = "It snowed, so there is no warming."
text.fr = "Il a neigé, donc pas de réchauffement."
source = "https://example.org/1"

[[cards]]
number = 2
kind = "disinformation"
family = "not_happening"
title.en = "Pause"
title.fr = "Pause"
text.en = "Warming stopped in 1998."
text.fr = "Le réchauffement s'est arrêté en 1998."
source = "https://example.org/2"

[[cards]]
number = 3
kind = "disinformation"
family = "not_us"
title.en = "Sun"
title.fr = "Soleil"
text.en = "It's the sun."
text.fr = "C'est le soleil."
source = "http://example.org/3"

[[cards]]
number = 26
kind = "refutation"
family = "not_happening"
title.en = "Weather is not climate"
title.fr = "La météo n'est pas le climat"
text.en = \"\"\"
One cold day says nothing about a trend.
\"\"\"
text.fr = "Un jour froid ne dit rien d'une tendance."
source = "https://example.org/26"

[[cards]]
number = 27
kind = "refutation"
family = "not_us"
title.en = "Solar activity fell"
title.fr = "L'activité solaire a baissé"
text.en = "The sun's output has been flat since 1980."
text.fr = "L'activité solaire stagne depuis 1980."
source = "https://example.org/27"

[[cards]]
number = 51
kind = "technique"
title.en = "Cherry picking"
title.fr = "Cueillette de cerises"
text.en = "Picking the data that suits."
text.fr = "Choisir les données qui arrangent."
source = "https://example.org/51"

[[relevance]]
disinformation = 1
card = 26
stars = 3

[[relevance]]
disinformation = 1
card = 51
stars = 1

[[relevance]]
disinformation = 2
card = 26
stars = 2

[[relevance]]
disinformation = 2
card = 51
stars = 2

[[relevance]]
disinformation = 3
card = 27
stars = 3
"""
