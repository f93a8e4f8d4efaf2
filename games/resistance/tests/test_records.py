"""The Resistance's Markdown record (games/resistance/records.py): every proposal, vote by name,
mission and role, the options in the reader's language. Built from the real engine's event log."""

from __future__ import annotations

import random
import re

import pytest

from bot import archive
from bot.names import sort_key
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


def test_a_role_the_catalogue_does_not_know_shows_as_stored() -> None:
    assert archive.role_name("resistance", "spy", "fr") == "Espion"
    assert archive.role_name("resistance", "loyal_servant", "en") == "Loyal servant"


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
