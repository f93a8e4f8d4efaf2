"""The deck format: a valid deck, its helpers, and every error naming the card and the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from games.refutation.rules import (
    DECK_ERRORS,
    CardKind,
    DeckError,
    Reference,
    default_deck_path,
    load_deck,
    parse_deck,
)
from games.refutation.rules.deck import is_report
from games.refutation.rules.errors import UnknownCard
from tests.paths import ROOT

from .helpers import DECK, VALID, assert_renders, disinfo, refutation, technique


def test_valid_deck_parses() -> None:
    deck = parse_deck(VALID)
    assert (deck.id, deck.version) == ("mini", 2)
    assert deck.name("fr") == "Petit paquet"
    assert list(deck.families) == ["not_happening", "not_us"]
    assert deck.families["not_happening"].colour == "#d94f3d"
    assert deck.families["not_us"].name("en") == "It's not us"
    assert [c.number for c in deck.disinformation()] == [1, 2, 3]
    assert [c.number for c in deck.refutations()] == [26, 27]
    assert [c.number for c in deck.techniques()] == [51]
    assert deck.card(51).family is None and deck.card(51).kind is CardKind.TECHNIQUE
    assert deck.card(26).family == "not_happening"
    assert deck.title(3, "fr") == "Soleil"
    assert deck.text(26, "en") == "One cold day says nothing about a trend."
    assert deck.title(3, "de") == "Sun"  # unknown language falls back to English
    assert deck.relevance == {1: {26: 3, 51: 1}, 2: {26: 2, 51: 2}, 3: {27: 3}}
    assert deck.stars(1, 26) == 3 and deck.stars(3, 26) == 0


def test_a_disinformation_card_may_link_to_a_record_of_its_claim() -> None:
    deck = parse_deck(
        VALID.replace(
            'source = "http://example.org/3"',
            'source = "http://example.org/3"\nclaim = "https://example.org/where-it-circulates"',
        )
    )
    assert deck.card(3).claim == "https://example.org/where-it-circulates"
    assert deck.card(1).claim is None  # optional


def test_a_card_citing_a_report_names_the_paragraph() -> None:
    report = "https://www.ipcc.ch/report/ar6/wg1/chapter/summary-for-policymakers/"
    deck = parse_deck(
        VALID.replace(
            'source = "https://example.org/26"',
            f'source = "{report}"\nlocator = " SPM A.1.2 "',
        )
    )
    assert deck.card(26).locator("fr") == "SPM A.1.2" and deck.card(26).source == report
    assert deck.card(27).locator("en") is None  # a page, not a report: optional
    by_language = 'locator.en = "Key messages"\nlocator.fr = "Messages clés"'
    deck = parse_deck(
        VALID.replace('source = "https://example.org/26"', f'source = "{report}"\n{by_language}')
    )
    assert (deck.card(26).locator("en"), deck.card(26).locator("fr")) == (
        "Key messages",
        "Messages clés",
    )


def test_every_default_card_citing_a_report_names_the_paragraph() -> None:
    deck = load_deck(default_deck_path())
    reports = [card for card in deck.cards.values() if is_report(card.source)]
    assert len(reports) >= 20
    assert all(card.locator("en") and card.locator("fr") for card in reports)


def test_the_default_deck_holds_issue_42s_corrections() -> None:
    deck = load_deck(default_deck_path())
    # a teacher's stars
    assert (deck.stars(2, 54), deck.stars(19, 57), deck.stars(15, 58)) == (3, 3, 3)
    assert (deck.stars(19, 41), deck.stars(24, 49), deck.stars(22, 60)) == (2, 2, 2)
    # what the sources say
    assert "C3" in deck.text(36, "en") and "maize and sorghum" in deck.text(36, "en")
    assert "forcings" in deck.text(47, "en") and "emissions are taken" not in deck.text(47, "en")
    assert "every year since 2015 beat it" in deck.text(26, "en")
    assert "forçages" in deck.text(47, "fr") and "îlot de chaleur urbain" in deck.text(30, "fr")
    # the page, not a landing page
    landing = (
        "https://data.giss.nasa.gov/gistemp/",
        "https://science.nasa.gov/climate-change/causes/",
    )
    assert not [c.number for c in deck.cards.values() if c.source in landing]
    assert "skepticalscience.com" not in deck.card(34).source


def test_every_default_disinformation_card_links_to_its_claim_and_the_science() -> None:
    deck = load_deck(default_deck_path())
    for card in deck.disinformation():
        assert card.claim and card.claim != card.source, card.number
    assert all(card.claim is None for card in [*deck.refutations(), *deck.techniques()])
    # Issue 12: relevance corrections.
    assert deck.stars(1, 60) == 2 and deck.stars(21, 51) == 3


def test_reference_pages_best_first() -> None:
    deck = parse_deck(VALID)
    assert deck.reference_page(1) == [Reference(26, 3), Reference(51, 1)]
    assert deck.reference_page(2) == [Reference(26, 2), Reference(51, 2)]
    assert deck.reference_page(26) == [Reference(1, 3), Reference(2, 2)]
    assert deck.reference_page(51) == [Reference(2, 2), Reference(1, 1)]
    assert deck.reference_page(27) == [(3, 3)]
    with pytest.raises(UnknownCard) as info:
        deck.reference_page(999)
    assert info.value.params == {"card": 999}
    assert_renders(info.value)


def test_synthetic_deck() -> None:
    assert len(DECK.disinformation()) == 15
    assert len(DECK.refutations()) == 27
    assert len(DECK.techniques()) == 6
    page = DECK.reference_page(disinfo(0, 0))
    assert page[:2] == [(refutation(0, 0), 3), (refutation(0, 1), 3)]
    assert (technique(0), 2) in page


def test_load_deck_reads_a_file(tmp_path: Path) -> None:
    path = tmp_path / "mini.toml"
    path.write_text(VALID, encoding="utf-8")
    assert load_deck(path) == parse_deck(VALID)


def test_default_deck_path_points_into_the_package() -> None:
    path = default_deck_path()
    assert path.name == "default.toml"
    assert path.parent.name == "decks"
    assert path.parent.parent == ROOT / "games" / "refutation"


def test_default_deck_is_valid_when_present() -> None:
    path = default_deck_path()
    if not path.exists():
        pytest.skip("the default deck is not written yet")
    deck = load_deck(path)
    assert len(deck.families) == 5
    assert len(deck.disinformation()) == 25
    assert len(deck.refutations()) == 25
    assert len(deck.techniques()) == 10


def _replace(old: str, new: str, count: int = 1) -> str:
    assert old in VALID, old
    return VALID.replace(old, new, count)


CARD_27 = VALID[VALID.index("[[cards]]\nnumber = 27") : VALID.index("[[cards]]\nnumber = 51")]

# (test id, deck text, key, expected params (a subset))
CASES: list[tuple[str, str, str | None, dict[str, str | int]]] = [
    ("syntax", VALID + "\n[[cards]\n", "syntax", {"line": VALID.count("\n") + 2}),
    ("missing_deck", VALID.replace("[deck]", "[extra_deck]"), "unknown_section", {}),
    ("no_deck_table", VALID[VALID.index("[[families]]") :], "missing_deck", {"field": "deck"}),
    (
        "deck_not_table",
        "deck = 3\n" + VALID[VALID.index("[[families]]") :],
        "bad_section",
        {"section": "deck"},
    ),
    ("deck_id", _replace('id = "mini"', 'id = ""'), "deck_field", {"field": "id"}),
    ("deck_version", _replace("version = 2", "version = 0"), "deck_field", {"field": "version"}),
    (
        "deck_name_fr",
        _replace('name.fr = "Petit paquet"\n', ""),
        "deck_language",
        {"field": "name.fr", "lang": "fr"},
    ),
    (
        "deck_unknown",
        _replace("version = 2", "version = 2\nauthor = 'x'"),
        "deck_unknown_field",
        {"field": "author"},
    ),
    (
        "no_families",
        "\n".join(line for line in VALID.splitlines() if "[[families]]" not in line)
        .replace('key = "not_happening"', "")
        .replace('key = "not_us"', ""),
        None,
        {},
    ),
    (
        "family_key",
        _replace('key = "not_us"', 'key = "Not-Us"'),
        "family_key",
        {"index": 2, "field": "key"},
    ),
    (
        "duplicate_family",
        _replace('key = "not_us"', 'key = "not_happening"'),
        "duplicate_family",
        {"family": "not_happening", "field": "key"},
    ),
    (
        "bad_colour",
        _replace('colour = "#3d7fd9"', 'colour = "blue"'),
        "bad_colour",
        {"family": "not_us", "field": "colour", "value": "blue"},
    ),
    (
        "family_name",
        _replace('name.fr = "Ce n\'est pas nous"\n', ""),
        "family_language",
        {"family": "not_us", "field": "name.fr", "lang": "fr"},
    ),
    (
        "family_unknown_field",
        _replace('colour = "#3d7fd9"', 'colour = "#3d7fd9"\nicon = "x"'),
        "family_unknown_field",
        {"family": "not_us", "field": "icon"},
    ),
    (
        "card_number",
        _replace("number = 27", "number = -4"),
        "card_number",
        {"index": 5, "field": "number"},
    ),
    (
        "card_number_missing",
        _replace("number = 27\n", ""),
        "card_number",
        {"index": 5, "field": "number"},
    ),
    (
        "duplicate_number",
        _replace("number = 27", "number = 26"),
        "duplicate_number",
        {"number": 26, "field": "number"},
    ),
    (
        "unknown_kind",
        _replace('number = 27\nkind = "refutation"', 'number = 27\nkind = "joker"'),
        "unknown_kind",
        {"number": 27, "field": "kind", "value": "joker"},
    ),
    (
        "missing_family",
        _replace('family = "not_us"\n', ""),
        "missing_family",
        {"number": 3, "field": "family"},
    ),
    (
        "unknown_family",
        _replace(
            'number = 27\nkind = "refutation"\nfamily = "not_us"',
            'number = 27\nkind = "refutation"\nfamily = "not_them"',
        ),
        "unknown_family",
        {"number": 27, "field": "family", "value": "not_them"},
    ),
    (
        "family_on_technique",
        _replace(
            'number = 51\nkind = "technique"', 'number = 51\nkind = "technique"\nfamily = "not_us"'
        ),
        "family_on_technique",
        {"number": 51, "field": "family"},
    ),
    (
        "missing_title_fr",
        _replace('title.fr = "Soleil"\n', ""),
        "missing_language",
        {"number": 3, "field": "title.fr", "lang": "fr"},
    ),
    (
        "missing_text_en",
        _replace('text.en = "It\'s the sun."\n', ""),
        "missing_language",
        {"number": 3, "field": "text.en", "lang": "en"},
    ),
    (
        "missing_title",
        _replace('title.en = "Sun"\ntitle.fr = "Soleil"\n', ""),
        "missing_language",
        {"number": 3, "field": "title.en", "lang": "en"},
    ),
    (
        "empty_text",
        _replace('text.fr = "C\'est le soleil."', 'text.fr = "  "'),
        "bad_text",
        {"number": 3, "field": "text.fr", "lang": "fr"},
    ),
    (
        "text_not_string",
        _replace('text.fr = "C\'est le soleil."', "text.fr = 7"),
        "bad_text",
        {"number": 3, "field": "text.fr", "lang": "fr"},
    ),
    (
        "title_too_long",
        _replace('title.en = "Sun"', f'title.en = "{"S" * 81}"'),
        "title_too_long",
        {"number": 3, "field": "title.en", "length": 81, "max": 80},
    ),
    (
        "text_too_long",
        _replace('text.en = "It\'s the sun."', f'text.en = "{"s" * 1001}"'),
        "text_too_long",
        {"number": 3, "field": "text.en", "length": 1001, "max": 1000},
    ),
    (
        "missing_source",
        _replace('source = "http://example.org/3"\n', ""),
        "missing_source",
        {"number": 3, "field": "source"},
    ),
    (
        "bad_source",
        _replace('source = "http://example.org/3"', 'source = "ftp://example.org/3"'),
        "bad_source",
        {"number": 3, "field": "source", "value": "ftp://example.org/3"},
    ),
    (
        "source_no_host",
        _replace('source = "http://example.org/3"', 'source = "https://"'),
        "bad_source",
        {"number": 3, "field": "source"},
    ),
    (
        "report_without_locator",
        _replace(
            'source = "https://example.org/26"',
            'source = "https://www.ipcc.ch/report/ar6/wg1/chapter/summary-for-policymakers/"',
        ),
        "missing_locator",
        {"number": 26, "field": "locator"},
    ),
    (
        "empty_locator",
        _replace(
            'source = "https://example.org/26"', 'source = "https://example.org/26"\nlocator = " "'
        ),
        "bad_locator",
        {"number": 26, "field": "locator", "max": 80},
    ),
    (
        "locator_without_french",
        _replace(
            'source = "https://example.org/26"',
            'source = "https://example.org/26"\nlocator.en = "Table 1"',
        ),
        "missing_language",
        {"number": 26, "field": "locator.fr", "lang": "fr"},
    ),
    (
        "long_locator",
        _replace(
            'source = "https://example.org/26"',
            'source = "https://example.org/26"\nlocator = "' + "x" * 81 + '"',
        ),
        "bad_locator",
        {"number": 26, "field": "locator"},
    ),
    (
        "claim_on_a_refutation",
        _replace(
            'source = "https://example.org/26"',
            'source = "https://example.org/26"\nclaim = "https://example.org/myth"',
        ),
        "claim_not_disinformation",
        {"number": 26, "field": "claim"},
    ),
    (
        "bad_claim",
        _replace(
            'source = "http://example.org/3"', 'source = "http://example.org/3"\nclaim = "a blog"'
        ),
        "bad_source",
        {"number": 3, "field": "claim", "value": "a blog"},
    ),
    (
        "card_unknown_field",
        _replace("number = 27", "number = 27\nimage = 'x.png'"),
        "card_unknown_field",
        {"number": 27, "field": "image"},
    ),
    (
        "relevance_field",
        _replace("card = 27\nstars = 3", 'card = 27\nstars = "3"'),
        "relevance_field",
        {"index": 5, "field": "stars"},
    ),
    (
        "relevance_unknown_field",
        _replace("card = 27\nstars = 3", "card = 27\nstars = 3\nnote = 1"),
        "relevance_unknown_field",
        {"index": 5, "field": "note"},
    ),
    (
        "relevance_missing_disinformation",
        _replace("disinformation = 3", "disinformation = 9"),
        "relevance_missing_card",
        {"index": 5, "number": 9, "field": "disinformation"},
    ),
    (
        "relevance_missing_card",
        _replace("card = 27\nstars = 3", "card = 99\nstars = 3"),
        "relevance_missing_card",
        {"index": 5, "number": 99, "field": "card"},
    ),
    (
        "relevance_not_disinformation",
        _replace("disinformation = 3", "disinformation = 27"),
        "relevance_not_disinformation",
        {"index": 5, "number": 27, "field": "disinformation"},
    ),
    (
        "relevance_to_disinformation",
        _replace("card = 27\nstars = 3", "card = 2\nstars = 3"),
        "relevance_to_disinformation",
        {"index": 5, "number": 3, "card": 2, "field": "card"},
    ),
    (
        "relevance_wrong_family",
        _replace("card = 27\nstars = 3", "card = 26\nstars = 3"),
        "relevance_wrong_family",
        {
            "index": 5,
            "number": 3,
            "card": 26,
            "field": "card",
            "family": "not_happening",
            "expected": "not_us",
        },
    ),
    (
        "bad_stars",
        _replace("card = 27\nstars = 3", "card = 27\nstars = 4"),
        "bad_stars",
        {"index": 5, "number": 3, "card": 27, "field": "stars", "stars": 4},
    ),
    (
        "bad_stars_zero",
        _replace("card = 27\nstars = 3", "card = 27\nstars = 0"),
        "bad_stars",
        {"number": 3, "card": 27, "field": "stars", "stars": 0},
    ),
    (
        "duplicate_relevance",
        VALID + "\n[[relevance]]\ndisinformation = 1\ncard = 26\nstars = 1\n",
        "duplicate_relevance",
        {"index": 6, "number": 1, "card": 26, "field": "card"},
    ),
    (
        "no_refutation",
        _replace("[[relevance]]\ndisinformation = 1\ncard = 26\nstars = 3\n", ""),
        "no_refutation",
        {"number": 1, "field": "relevance"},
    ),
    (
        "technique_only_is_not_enough",
        _replace("[[relevance]]\ndisinformation = 2\ncard = 26\nstars = 2\n", ""),
        "no_refutation",
        {"number": 2, "field": "relevance"},
    ),
    (
        "too_few_disinformation",
        VALID.replace(CARD_27, "")
        .replace("[[relevance]]\ndisinformation = 3\ncard = 27\nstars = 3\n", "")
        .replace(
            'number = 3\nkind = "disinformation"\nfamily = "not_us"',
            'number = 3\nkind = "technique"',
        ),
        "too_few_disinformation",
        {"field": "cards", "count": 2, "needed": 3},
    ),
    (
        "relevance_not_tables",
        "relevance = [1, 2]\n" + VALID[: VALID.index("[[relevance]]")],
        "bad_section",
        {"section": "relevance", "field": "relevance"},
    ),
]


@pytest.mark.parametrize(
    ("text", "name", "expected"),
    [pytest.param(text, name, expected, id=case) for case, text, name, expected in CASES],
)
def test_deck_errors(text: str, name: str | None, expected: dict[str, str | int]) -> None:
    with pytest.raises(DeckError) as info:
        parse_deck(text)
    error = info.value
    if name is None:  # the test only needs some error
        name = error.key.removeprefix("refutation.deck_error.")
    assert error.key == f"refutation.deck_error.{name}", error
    assert set(error.params) == set(DECK_ERRORS[name]), error
    for param, value in expected.items():
        assert error.params[param] == value, error
    if "number" in DECK_ERRORS[name] or name.startswith("card"):
        assert "field" in error.params
    assert_renders(error)


def test_no_families_error() -> None:
    text = VALID[: VALID.index("[[families]]")] + VALID[VALID.index("[[cards]]") :]
    with pytest.raises(DeckError) as info:
        parse_deck(text)
    assert info.value.key == "refutation.deck_error.no_families"


def test_every_deck_error_is_covered() -> None:
    from .test_deck_hostile import HOSTILE

    covered = {name for _, _, name, _ in CASES if name} | {"no_families"}
    covered |= {name for _, _, name, _ in HOSTILE}
    assert covered == set(DECK_ERRORS)
