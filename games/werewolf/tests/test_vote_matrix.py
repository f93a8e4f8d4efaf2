"""The day-votes picture: golden images, its size, its text alternative, nothing secret.

The golden images are regenerated only on purpose, after a deliberate change to the picture:

    UPDATE_GOLDEN=1 .venv/bin/python -m pytest games/werewolf/tests/test_vote_matrix.py
"""

from __future__ import annotations

import asyncio
import io
import os
from pathlib import Path

import pytest
from PIL import Image

from bot.i18n import t
from games.werewolf import vote_matrix as vm
from games.werewolf.rules import Role, Werewolf, WerewolfEvent
from games.werewolf.rules.events import DayBegan, DayEnded, GameStarted, PlayerSubstituted
from games.werewolf.rules.model import Tally
from games.werewolf.tests.matrix_fixture import fixed_game
from games.werewolf.tests.rules.helpers import NAMES

pytestmark = pytest.mark.usefixtures("werewolf_catalogue")

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"


def pixels(png: bytes) -> tuple[tuple[int, int], str, bytes]:
    with Image.open(io.BytesIO(png)) as image:
        return image.size, image.mode, image.tobytes()


def the_game() -> tuple[Werewolf, list[WerewolfEvent], vm.Matrix]:
    game, events = fixed_game()
    names = {i + 1: n for i, n in enumerate(NAMES)} | {p.id: p.name for p in game.players}
    return game, events, vm.build(events, names)


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_fixed_game_renders_pixel_identical_to_its_golden_image(lang: str) -> None:
    png = vm.render(the_game()[2], lang)
    golden = GOLDEN / f"day-votes-{lang}.png"
    if UPDATE:
        golden.parent.mkdir(exist_ok=True)
        golden.write_bytes(png)
    assert golden.exists(), f"no golden image: run with UPDATE_GOLDEN=1 ({golden})"
    assert pixels(png) == pixels(golden.read_bytes()), (
        f"the picture changed; if on purpose, regenerate with UPDATE_GOLDEN=1 ({golden})"
    )


def zoe(pid: int | None) -> int | None:
    """Bob's seat (2) is Zoé's (42) in the picture, before and after she took it."""
    return 42 if pid == 2 else pid


def test_the_matrix_follows_the_day_votes_of_the_log() -> None:
    game, events, matrix = the_game()
    seats = [pid for pid, _ in matrix.rows]
    assert seats == [zoe(p) for p in range(1, 9)]  # Zoé took Bob's seat
    assert dict(matrix.rows)[42] == "Zoé (Bob)" and matrix.names[42] == "Zoé"
    ended = [e for e in events if isinstance(e, DayEnded)]
    assert [d.number for d in matrix.days] == [e.day for e in ended] == [1, 2, 3, 4, 5]
    for day, e in zip(matrix.days, ended, strict=True):
        assert day.votes is not None
        for tally in e.votes:
            for voter in tally.voters:
                assert day.votes[42 if voter == 2 else voter] == zoe(tally.target)
        assert day.eliminated == zoe(e.eliminated)
        assert set(day.votes) <= day.alive  # the dead never vote; the rest did not vote
    kinds = [v for d in matrix.days for v in (d.votes or {}).values()]
    assert None in kinds  # "no elimination" votes
    assert any(p not in (d.votes or {}) for d in matrix.days for p in d.alive)  # did not vote
    assert [d.captain for d in matrix.days[:2]] == [1, 1]  # alice, elected, until she died
    assert matrix.died[1] == ("day", 2) and matrix.died[3] == ("night", 1)
    assert {pid for pid in seats if pid not in game.alive} == set(matrix.died)


def test_the_text_alternative_in_english_and_in_french() -> None:
    matrix = the_game()[2]
    en, fr = vm.describe(matrix, "en"), vm.describe(matrix, "fr")
    assert en.startswith("Day votes, 8 players") and fr.startswith("Votes du jour, 8 joueurs")
    assert "Day 1: alice (captain, counted twice): Heidi; Zoé: eve;" in en
    assert "Jour 1\u00a0: alice (capitaine, compté double)\u00a0: Heidi\u202f; Zoé\u00a0: eve" in fr
    assert "Result: nobody eliminated." in en and "Result: alice is eliminated." in en
    assert "élimination d’alice" in fr and "eve: no elimination" in en
    assert "grace: did not vote" in en and "grace\u00a0: n’a pas voté" in fr
    assert len(vm.describe(matrix, "en", limit=100)) == 100


def test_nothing_secret_is_shown() -> None:
    """Day votes are public; roles are not in the picture's words (nor revealed or not)."""
    matrix = the_game()[2]
    for lang in ("en", "fr"):
        words = vm.describe(matrix, lang) + " ".join(x for _, x in vm.legend_items(lang))
        for role in Role:
            assert t(f"werewolf.role.{role.value}.name", lang).lower() not in words.lower()


def test_a_day_under_way_shows_who_may_vote_but_no_votes() -> None:
    events: list[WerewolfEvent] = [
        GameStarted(players=(1, 2, 3, 4, 5), wolves=1, specials=(), captain=False),
        DayBegan(day=1, alive=(1, 2, 3, 5)),
        PlayerSubstituted(old=5, new=6, name="Fay"),
    ]
    matrix = vm.build(events, {i: f"P{i}" for i in range(1, 6)} | {6: "Fay"})
    assert matrix.days[0].votes is None and matrix.days[0].alive == {1, 2, 3, 6}
    assert dict(matrix.rows)[6] == "Fay (P5)"
    assert vm.describe(matrix, "en").endswith("Day 1: vote in progress.")
    assert vm.describe(matrix, "fr").endswith("Jour 1\u00a0: vote en cours.")
    size, _, _ = pixels(vm.render(matrix, "en"))
    assert size[0] == vm.MIN_WIDTH


def many_days(days: int) -> vm.Matrix:
    names = {i: f"Ω{i} Œuvre-Éloïse de la Très-Longue-Famille" for i in range(1, 19)}
    events: list[WerewolfEvent] = [
        GameStarted(players=tuple(names), wolves=3, specials=(), captain=False)
    ]
    for n in range(1, days + 1):
        events.append(DayBegan(day=n, alive=tuple(names)))
        tally = Tally(target=n % 18 + 1, voters=tuple(names), votes=18)
        events.append(DayEnded(day=n, votes=(tally,), eliminated=None, majority=False, deaths=()))
    return vm.build(events, names)


def test_many_days_narrow_the_columns_within_the_width_then_grow_it() -> None:
    widths = [pixels(vm.render(many_days(n), "fr"))[0][0] for n in (4, 12, 18, 24)]
    assert widths[0] < widths[1] <= vm.MAX_WIDTH and widths[2] <= vm.MAX_WIDTH
    assert widths[3] > vm.MAX_WIDTH  # past eighteen days: wider, no day cut off


def test_rendering_off_the_loop_gives_the_same_bytes() -> None:
    matrix = the_game()[2]
    assert asyncio.run(vm.render_async(matrix, "fr")) == vm.render(matrix, "fr")
