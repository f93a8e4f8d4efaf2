"""The vote matrix picture: golden images, size bounds, its text alternative, off the loop.

The golden images are regenerated only on purpose, after a deliberate change to the picture:

    UPDATE_GOLDEN=1 .venv/bin/python -m pytest games/resistance/tests/test_vote_matrix.py

(it rewrites games/resistance/tests/golden/*.png and the README's example, docs/vote-matrix.png).
"""

from __future__ import annotations

import asyncio
import io
import os
import time
from pathlib import Path

import pytest
from PIL import Image

from bot.pictures import fit, font
from games.resistance import vote_matrix as vm
from games.resistance.rules import (
    GameStarted,
    MissingVote,
    MissionResult,
    ResistanceEvent,
    TeamProposed,
    TeamVoteResult,
)
from games.resistance.tests.matrix_fixture import fixed_game
from tests.paths import ROOT

GOLDEN = Path(__file__).parent / "golden"
EXAMPLE = ROOT / "docs" / "vote-matrix.png"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"


def pixels(png: bytes) -> tuple[tuple[int, int], str, bytes]:
    with Image.open(io.BytesIO(png)) as image:
        return image.size, image.mode, image.tobytes()


def the_matrix() -> vm.Matrix:
    events, names, order = fixed_game()
    return vm.build(events, names, order)


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_fixed_game_renders_pixel_identical_to_its_golden_image(lang: str) -> None:
    png = vm.render(the_matrix(), lang)
    golden = GOLDEN / f"vote-matrix-{lang}.png"
    if UPDATE:
        golden.parent.mkdir(exist_ok=True)
        golden.write_bytes(png)
        if lang == "en":
            EXAMPLE.parent.mkdir(exist_ok=True)
            EXAMPLE.write_bytes(png)
    assert golden.exists(), f"no golden image: run with UPDATE_GOLDEN=1 ({golden})"
    assert pixels(png) == pixels(golden.read_bytes()), (
        f"the picture changed; if on purpose, regenerate with UPDATE_GOLDEN=1 ({golden})"
    )


def test_the_readme_example_is_the_english_golden_image() -> None:
    assert pixels(EXAMPLE.read_bytes()) == pixels((GOLDEN / "vote-matrix-en.png").read_bytes())


def test_the_matrix_follows_the_event_log() -> None:
    events, names, order = fixed_game()
    matrix = vm.build(events, names, order)
    assert [pid for pid, _ in matrix.rows] == order
    assert any("(Bob)" in label for _, label in matrix.rows)  # a substitute keeps the seat's row
    proposals = [c.proposal for c in matrix.columns]
    assert proposals == [1, 2, None, 3, 4, 5, 6]  # the skipped leader has a column
    assert {n: (m.success, m.sabotages) for n, m in matrix.missions.items()} == {
        1: (True, 0),
        2: (False, 1),
        3: (False, 2),
        4: (True, 0),
    }
    second = matrix.columns[1]
    assert second.votes is not None and sum(v == "accept" for v in second.votes.values()) == 2
    assert len(second.votes) == len(order) - 2  # two players did not vote
    # Every vote of the log lands in the seat's row, substitutes included.
    for e in events:
        if isinstance(e, TeamVoteResult):
            column = next(c for c in matrix.columns if c.proposal == e.proposal)
            assert column.votes is not None
            assert sum(v == "accept" for v in column.votes.values()) == len(e.accept)
            assert sum(v == "reject" for v in column.votes.values()) == len(e.reject)


def test_a_vote_under_way_shows_the_team_but_no_votes() -> None:
    events = [
        GameStarted(players=(1, 2, 3, 4, 5), leader_order=(3, 1, 2, 5, 4)),
        TeamProposed(proposal=1, mission=1, attempt=1, leader=3, team=(3, 4)),
    ]
    names = {i: f"P{i}" for i in range(1, 6)}
    matrix = vm.build(events, names, [3, 1, 2, 5, 4])
    assert matrix.columns[0].votes is None and matrix.columns[0].team == (3, 4)
    assert "vote in progress" in vm.describe(matrix, "en")
    size, _, _ = pixels(vm.render(matrix, "en"))
    assert size[0] >= vm.MIN_WIDTH


def big_matrix(players: int = 10, proposals: int = 25) -> vm.Matrix:
    """``players`` with long names, ``proposals`` over five missions (five each)."""
    names = {i: f"Ω{i} Œuvre-Éloïse de la Très-Longue-Famille {i}" for i in range(players)}
    order = list(range(players))
    events: list[ResistanceEvent] = []
    for n in range(1, proposals + 1):
        mission = min(5, (n - 1) // 5 + 1)
        leader = n % players
        team = (leader, (leader + 1) % players, (leader + 2) % players)
        events.append(
            TeamProposed(proposal=n, mission=mission, attempt=1, leader=leader, team=team)
        )
        accept = tuple(p for p in order if (p + n) % 3)
        reject = tuple(p for p in order if not (p + n) % 3 and p != n % players)
        last = n % 5 == 0
        events.append(
            TeamVoteResult(
                proposal=n,
                mission=mission,
                leader=leader,
                team=team,
                accepted=last,
                accept=accept,
                reject=reject,
                no_vote=(n % players,),
                missing_vote=MissingVote.REJECT,
            )
        )
        if last:
            events.append(
                MissionResult(
                    mission=mission,
                    team=team,
                    success=mission % 2 == 1,
                    supports=1,
                    sabotages=2,
                    sabotages_needed=1,
                )
            )
    return vm.build(events, names, order)


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_ten_players_and_twenty_five_proposals_fit_a_phone(lang: str) -> None:
    matrix = big_matrix()
    (width, height), mode, _ = pixels(vm.render(matrix, lang))
    assert mode == "RGB"
    assert 900 <= width <= 1200  # every column at full size, no wider than a phone shows well
    assert height <= 600
    assert vm.CELL_W >= 32 and vm.CELL_H >= 28  # cells big enough to tap and read
    description = vm.describe(matrix, lang)
    assert len(description) <= 1024 and description.endswith("…")


def test_names_are_cut_to_the_names_column_and_control_characters_dropped() -> None:
    matrix = vm.build([], {1: "a\nb" + "x" * 200, 2: ""}, [1, 2])
    png = vm.render(matrix, "en")
    draw = __import__("PIL.ImageDraw", fromlist=["ImageDraw"]).Draw(Image.new("RGB", (1, 1)))
    cut = fit(draw, "a\nb" + "x" * 200, font(15), vm.NAME_MAX)
    assert "\n" not in cut and cut.endswith("…") and draw.textlength(cut, font=font(15)) <= 180
    assert fit(draw, "", font(15), vm.NAME_MAX) == "?"
    assert pixels(png)[0][0] <= 1200


async def test_rendering_does_not_block_the_event_loop() -> None:
    matrix = big_matrix()
    started = time.perf_counter()
    vm.render(matrix, "en")
    alone = time.perf_counter() - started
    ticks: list[float] = []
    stop = asyncio.Event()

    async def ticker() -> None:
        while not stop.is_set():
            ticks.append(time.perf_counter())
            await asyncio.sleep(0.001)

    task = asyncio.create_task(ticker())
    await asyncio.sleep(0.005)
    begin = time.perf_counter()
    png = await vm.render_async(matrix, "en")
    end = time.perf_counter()
    stop.set()
    await task
    assert png.startswith(b"\x89PNG")
    during = [x for x in ticks if begin < x < end]
    # A blocking render would let the ticker run only before and after it.
    assert alone > 0.005 and len(during) >= 2, (alone, len(during))
