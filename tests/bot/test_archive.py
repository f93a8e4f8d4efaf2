"""A game's Markdown record: every proposal, vote by name, mission and role (The Resistance);
every refutation, card and vote (The Refutation Game). Built from real engines' event logs."""

from __future__ import annotations

import random
import re

import pytest

from bot import archive
from bot.names import sort_key
from games.refutation import records as rf_records
from games.refutation.rules import Player as RfPlayer
from games.refutation.rules import Refutation, RefutationEvent, default_deck_path, load_deck
from games.resistance import records as rs_records
from games.resistance.options import RESISTANCE_OPTIONS
from games.resistance.rules import PlayerSubstituted, Resistance, ResistanceEvent
from games.resistance.tests.matrix_fixture import NAMES, fixed_game
from tests.rows import a_game


def resistance_state() -> tuple[Resistance, list[ResistanceEvent]]:
    events, _, _ = fixed_game()
    from games.resistance.tests import matrix_fixture

    state = matrix_fixture.last_state
    assert state is not None  # set by fixed_game()
    return state, events


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_resistance_record_has_every_proposal_vote_mission_and_role(lang: str) -> None:
    state, events = resistance_state()
    text = rs_records.markdown(a_game("resistance"), state, events, lang)
    proposals = [e.data for e in events if e.kind == "team_proposed"]
    results = [e.data for e in events if e.kind == "team_vote_result"]
    missions = [e.data for e in events if e.kind == "mission_result"]
    word = "Proposal" if lang == "en" else "Proposition"
    assert text.count(f"**{word} ") == len(proposals) == 6
    names = {p.id: p.name for p in state.players}
    for e in events:
        if isinstance(e, PlayerSubstituted):
            assert e.old_name is not None  # recorded as the service records it
            names[e.old] = e.old_name
    accepted = "Accepted" if lang == "en" else "Pour"
    for d in results:  # every vote by name, in alphabetical order (bot/names.py: UCA, then id)
        accept = sorted(d["accept"], key=lambda p: sort_key(p, names[p]))
        listed = ", ".join(archive.md(names[p]) for p in accept) or "—"
        line = f"- {accepted} ({len(d['accept'])}): {listed}"
        assert line in re.sub(r"[ \u00a0\u202f]:", ":", text)
    assert len(re.findall(r"\b\d+ sabotages?\b", text)) == len(missions) == 4
    spy, good = ("Spy", "Resistance") if lang == "en" else ("Espion", "Résistant")
    for p in state.players:
        role = spy if p.id in state.spies else good
        assert f"| {archive.md(p.name)}" in text and f"| {role} |" in text
    assert "2026-11-08 21:00 UTC" in text
    assert "Bob" in text and ("replaced Bob" in text or "a remplacé Bob" in text)


def test_names_are_escaped_for_markdown() -> None:
    assert archive.md("a|b*c_d\nx") == "a\\|b\\*c\\_d x"
    assert archive.md("Œdipe") == "Œdipe"


def test_a_role_the_catalogue_does_not_know_shows_as_stored() -> None:
    assert archive.role_name("resistance", "spy", "fr") == "Espion"
    assert archive.role_name("resistance", "loyal_servant", "en") == "Loyal servant"


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


def test_an_avalon_record_names_each_role() -> None:
    from games.resistance.rules import Options, Variant
    from games.resistance.rules import Player as EnginePlayer

    players = [EnginePlayer(100 + i, n) for i, n in enumerate(NAMES)]
    state, events = Resistance.setup(
        players, random.Random(3), Options(variant=Variant.AVALON, percival=True, morgana=True)
    )
    public = [e for e in events if e.private_to is None]
    text = rs_records.markdown(a_game("resistance"), state, public, "fr")
    for role in ("Merlin", "Assassin", "Perceval", "Morgane"):
        assert f"| {role} |" in text


@pytest.mark.parametrize(
    ("lang", "line"),
    [
        ("en", "`early_close` = True, `missing_vote` = reject, `vote_hours` = 24.0"),
        # French: the names and values a French player reads in her commands, in their order
        ("fr", "`clôture_anticipée` = oui, `heures_vote` = 24, `vote_absent` = contre"),
    ],
)
def test_the_records_options_read_in_the_readers_language(lang: str, line: str) -> None:
    game = a_game("resistance")
    game.options = {"vote_hours": 24.0, "missing_vote": "reject", "early_close": True}
    header = archive.header(game, lang, "—", RESISTANCE_OPTIONS)
    options = next(row for row in header if "Options" in row)
    assert options.endswith(line), options
