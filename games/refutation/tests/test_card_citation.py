"""A card that cites a report shows the paragraph, table or figure it names, on the card and on
its reference page, in both languages; a card citing a page shows only its link."""

from __future__ import annotations

import discord
import pytest

from games.refutation import render
from games.refutation.rules import Options, Player, Refutation, default_deck_path, load_deck
from games.refutation.rules.events import ReferenceConsulted

DECK = load_deck(default_deck_path())
SPM = "https://www.ipcc.ch/report/ar6/wg1/chapter/summary-for-policymakers/"


def source_field(embed: discord.Embed) -> str:
    (value,) = [f.value for f in embed.fields if f.name == "Source"]  # the same word in French
    return str(value)


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_card_and_its_reference_page_name_the_paragraph(lang: str) -> None:
    card = DECK.card(31)
    assert (card.source, card.locator(lang)) == (SPM, "SPM A.1.3")
    assert source_field(render.card_embed(DECK, 31, lang)) == f"SPM A.1.3\n{SPM}"
    page = render.reference_embed(DECK, 31, lang)
    assert source_field(page) == f"SPM A.1.3\n{SPM}"
    assert page.url == SPM  # the title still links the page itself


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_card_citing_a_page_shows_its_link_only(lang: str) -> None:
    card = DECK.card(49)
    assert card.locator(lang) is None
    assert source_field(render.card_embed(DECK, 49, lang)) == card.source


@pytest.mark.parametrize(("lang", "opens"), [("en", "(source: "), ("fr", "(source\u00a0: ")])
def test_the_public_reference_page_names_the_paragraph(lang: str, opens: str) -> None:
    state = Refutation(DECK, Options(), [Player(1, "Ada"), Player(2, "Bo")])
    consulted = ReferenceConsulted(
        player=1, disinformation=1, relevant={26: 3}, elected=26, restricted_to=()
    )
    text = render.reference_text(state, 1, 1, [26], consulted, lang)
    assert f"{opens}<{SPM}>, SPM A.1.2)" in text


def test_a_locator_in_words_is_in_the_readers_language() -> None:
    assert source_field(render.card_embed(DECK, 26, "fr")).startswith("Messages clés\n")
    assert source_field(render.card_embed(DECK, 26, "en")).startswith("Key messages\n")
