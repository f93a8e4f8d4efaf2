"""The vote matrix of a game of The Resistance, as a PNG: who voted what on every proposal.

A pure function of the game's public events, the players' names and a language:

- one row per seat, in leader-list order (a substitute takes the row of the player they
  replaced, labelled ``new (old)``);
- one column per proposal, grouped by mission; a leader who was skipped gets a column too;
- every cell says accept, reject or no vote by its colour *and* its symbol (a check mark, a
  cross, a dash; Okabe–Ito colours, safe for colour-blind readers); the leader of the proposal
  has a triangle in the corner, team members a thick frame;
- above each mission's columns, its result (check or cross) and its number of sabotages.

The font is Roboto, from the ``font-roboto`` package, so the same Pillow gives the same pixels
on any machine (the golden-image tests rely on it: see
``games/resistance/tests/test_vote_matrix.py``). Rendering takes tens of milliseconds: call
:func:`render_async` from the event loop.
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from PIL import Image, ImageDraw

from bot.i18n import t
from bot.names import clean
from bot.pictures import fit, font, legend_height, legend_positions
from games.resistance.rules import (
    LeaderSkipped,
    MissionResult,
    PlayerSubstituted,
    ResistanceEvent,
    TeamProposed,
    TeamVoteResult,
)

# Okabe–Ito: distinguishable with every common colour-vision deficiency.
ACCEPT = (0, 114, 178)  # blue
REJECT = (213, 94, 0)  # vermillion
NO_VOTE = (205, 205, 205)  # light grey
SUCCESS = ACCEPT
FAILURE = REJECT
INK = (30, 30, 30)
MUTED = (110, 110, 110)
PAPER = (255, 255, 255)
BAND = (242, 242, 242)
WHITE = (255, 255, 255)
LEADER = (240, 228, 66)  # Okabe–Ito yellow, outlined in ink: visible on every cell colour

SWATCH = 24  # a legend item's sample, in pixels
MAX_WIDTH = 1200
MIN_WIDTH = 520
MARGIN = 14
CELL_W = 36
CELL_H = 30
GAP = 8  # between missions
NAME_MAX = 180  # pixels for the names column
DESCRIPTION_LIMIT = 1024  # Discord's limit for an attachment's description


@dataclass
class Column:
    """One proposal (or one skipped leader) as the matrix shows it."""

    mission: int
    leader: int
    proposal: int | None = None  # None: the leader was skipped
    team: tuple[int, ...] = ()
    votes: dict[int, str] | None = None  # None while the vote runs
    accepted: bool | None = None


@dataclass
class Mission:
    number: int
    success: bool
    sabotages: int


@dataclass
class Matrix:
    rows: list[tuple[int, str]]  # (seat's current player id, label)
    columns: list[Column] = field(default_factory=list)
    missions: dict[int, Mission] = field(default_factory=dict)


def build(
    events: Iterable[ResistanceEvent], names: Mapping[int, str], order: Sequence[int]
) -> Matrix:
    """The matrix of a game from its public events, in order.

    ``names`` are the current players' names, ``order`` the current leader list."""
    events = list(events)
    seat, replaced = seats(events)
    rows = []
    for pid in order:
        label = clean(names.get(pid, str(pid)))  # drawn as typed, never reversed by a control
        if pid in replaced:
            label = f"{label} ({', '.join(clean(x) for x in replaced[pid])})"
        rows.append((pid, label))
    matrix = Matrix(rows)
    add_columns(matrix, events, seat)
    return matrix


def seats(events: Sequence[ResistanceEvent]) -> tuple[Callable[[int], int], dict[int, list[str]]]:
    """Each player's seat now (a substitute's, through every substitution since), and the names
    each seat's earlier players had."""
    successor: dict[int, int] = {}
    old_names: dict[int, str] = {}
    for event in events:
        if isinstance(event, PlayerSubstituted):
            successor[event.old] = event.new
            old_names[event.old] = event.old_name or str(event.old)

    def seat(pid: int) -> int:
        seen = set()
        while pid in successor and pid not in seen:
            seen.add(pid)
            pid = successor[pid]
        return pid

    replaced: dict[int, list[str]] = {}
    for old in successor:
        replaced.setdefault(seat(old), []).append(old_names[old])
    return seat, replaced


def add_columns(
    matrix: Matrix, events: Sequence[ResistanceEvent], seat: Callable[[int], int]
) -> None:
    """A column for each proposal (its votes once published) and each skipped leader, and each
    mission's result."""
    open_: dict[int, Column] = {}
    for event in events:
        match event:
            case TeamProposed(mission=mission, leader=leader, proposal=proposal, team=team):
                column = Column(
                    mission=mission,
                    leader=seat(leader),
                    proposal=proposal,
                    team=tuple(seat(p) for p in team),
                )
                open_[proposal] = column
                matrix.columns.append(column)
            case TeamVoteResult(mission=mission, leader=leader, proposal=proposal, team=team):
                column = open_.get(proposal) or Column(
                    mission=mission,
                    leader=seat(leader),
                    proposal=proposal,
                    team=tuple(seat(p) for p in team),
                )
                if column not in matrix.columns:
                    matrix.columns.append(column)
                votes = {seat(p): "accept" for p in event.accept}
                votes.update({seat(p): "reject" for p in event.reject})
                column.votes = votes
                column.accepted = event.accepted
            case MissionResult(mission=n, success=success, sabotages=sabotages):
                matrix.missions[n] = Mission(n, success, sabotages)
            case LeaderSkipped(mission=mission, leader=leader):
                matrix.columns.append(Column(mission=mission, leader=seat(leader)))


def check(draw: ImageDraw.ImageDraw, x: int, y: int, size: int, colour: Any) -> None:
    """A check mark in the square of side ``size`` at (x, y)."""
    w = max(2, size // 6)
    draw.line(
        [(x + size * 0.18, y + size * 0.52), (x + size * 0.42, y + size * 0.76)],
        fill=colour,
        width=w,
    )
    draw.line(
        [(x + size * 0.40, y + size * 0.76), (x + size * 0.84, y + size * 0.24)],
        fill=colour,
        width=w,
    )


def cross(draw: ImageDraw.ImageDraw, x: int, y: int, size: int, colour: Any) -> None:
    w = max(2, size // 6)
    a, b = size * 0.24, size * 0.76
    draw.line([(x + a, y + a), (x + b, y + b)], fill=colour, width=w)
    draw.line([(x + a, y + b), (x + b, y + a)], fill=colour, width=w)


def dash(draw: ImageDraw.ImageDraw, x: int, y: int, size: int, colour: Any) -> None:
    w = max(2, size // 7)
    draw.line(
        [(x + size * 0.3, y + size / 2), (x + size * 0.7, y + size / 2)], fill=colour, width=w
    )


def leader_mark(draw: ImageDraw.ImageDraw, x: int, y: int, size: int) -> None:
    draw.polygon([(x, y), (x + size, y), (x, y + size)], fill=LEADER, outline=INK, width=2)


def team_frame(draw: ImageDraw.ImageDraw, x0: int, y0: int, x1: int, y1: int) -> None:
    draw.rectangle([x0, y0, x1, y1], outline=INK, width=3)


def cell(
    draw: ImageDraw.ImageDraw,
    x: int,
    y: int,
    vote: str | None,
    *,
    pending: bool,
    leader: bool,
    team: bool,
) -> None:
    x1, y1 = x + CELL_W - 3, y + CELL_H - 3
    side = min(CELL_W, CELL_H) - 10
    sx, sy = x + (CELL_W - 3 - side) // 2, y + (CELL_H - 3 - side) // 2
    if pending:
        draw.rectangle([x, y, x1, y1], fill=PAPER, outline=NO_VOTE)
    elif vote == "accept":
        draw.rectangle([x, y, x1, y1], fill=ACCEPT)
        check(draw, sx, sy, side, WHITE)
    elif vote == "reject":
        draw.rectangle([x, y, x1, y1], fill=REJECT)
        cross(draw, sx, sy, side, WHITE)
    else:
        draw.rectangle([x, y, x1, y1], fill=NO_VOTE)
        dash(draw, sx, sy, side, INK)
    if team:
        team_frame(draw, x, y, x1, y1)
    if leader:
        leader_mark(draw, x, y, 14)


def layout(matrix: Matrix) -> list[tuple[int, list[int]]]:
    """(mission, column indexes) in order of play."""
    groups: list[tuple[int, list[int]]] = []
    for i, column in enumerate(matrix.columns):
        if groups and groups[-1][0] == column.mission:
            groups[-1][1].append(i)
        else:
            groups.append((column.mission, [i]))
    return groups


def render(matrix: Matrix, lang: str) -> bytes:
    """The matrix as PNG bytes (at most ``MAX_WIDTH`` pixels wide)."""
    regular, small, title_face = font(15), font(12), font(18, True)
    probe = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    labels = [fit(probe, label, regular, NAME_MAX) for _, label in matrix.rows]
    name_w = max([int(probe.textlength(x, font=regular)) for x in labels] + [60]) + 12
    groups = layout(matrix)
    grid_w = len(matrix.columns) * CELL_W + max(0, len(groups) - 1) * GAP
    width = min(MAX_WIDTH, max(MIN_WIDTH, MARGIN * 2 + name_w + grid_w))
    legend = legend_items(lang)
    legend_h = legend_height(probe, legend, width - 2 * MARGIN, small, SWATCH)
    top = MARGIN + 28  # title
    mission_y, result_y, proposal_y = top, top + 22, top + 50
    grid_y = proposal_y + 22
    height = grid_y + max(1, len(matrix.rows)) * CELL_H + 14 + legend_h + MARGIN
    image = Image.new("RGB", (width, height), PAPER)
    draw = ImageDraw.Draw(image)
    draw.text((MARGIN, MARGIN), t("resistance.matrix.title", lang), font=title_face, fill=INK)
    x0 = MARGIN + name_w
    for r, label in enumerate(labels):
        y = grid_y + r * CELL_H
        if r % 2:
            draw.rectangle([MARGIN, y - 1, width - MARGIN, y + CELL_H - 2], fill=BAND)
        draw.text((MARGIN, y + 6), label, font=regular, fill=INK)
    x = x0
    for g, (mission, indexes) in enumerate(groups):
        if g:
            x += GAP
        span = len(indexes) * CELL_W - 3
        mission_head(draw, matrix, mission, (x, mission_y, result_y), span, lang)
        for i in indexes:
            draw_column(draw, matrix, matrix.columns[i], x, (proposal_y, grid_y))
            x += CELL_W
    draw_legend(draw, legend, MARGIN, grid_y + len(matrix.rows) * CELL_H + 14, width, small)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=False, compress_level=9)
    return out.getvalue()


def mission_head(
    draw: ImageDraw.ImageDraw,
    matrix: Matrix,
    mission: int,
    at: tuple[int, int, int],
    span: int,
    lang: str,
) -> None:
    """A mission's name over its columns (shortened when it does not fit ``span``), and its
    result once known: a tick or a cross, and the number of sabotages. ``at``: the group's x,
    the name's y and the result's y."""
    x, mission_y, result_y = at
    bold = font(14, True)
    head = t("resistance.matrix.mission", lang, mission=mission)
    if draw.textlength(head, font=bold) > span + GAP:
        head = t("resistance.matrix.mission_short", lang, mission=mission)
    draw.text((x, mission_y), head, font=bold, fill=INK)
    result = matrix.missions.get(mission)
    if result is not None:
        colour = SUCCESS if result.success else FAILURE
        draw.rectangle([x, result_y, x + 22, result_y + 22], fill=colour)
        (check if result.success else cross)(draw, x + 2, result_y + 2, 18, WHITE)
        draw.text((x + 26, result_y + 3), str(result.sabotages), font=bold, fill=colour)


def draw_column(
    draw: ImageDraw.ImageDraw, matrix: Matrix, column: Column, x: int, at: tuple[int, int]
) -> None:
    """A proposal's column: its number, then each player's cell. ``at``: the number's y and
    the grid's."""
    proposal_y, grid_y = at
    header = "—" if column.proposal is None else str(column.proposal)
    draw.text((x + 2, proposal_y), header, font=font(12), fill=MUTED)
    for r, (pid, _) in enumerate(matrix.rows):
        vote = None if column.votes is None else column.votes.get(pid)
        cell(
            draw,
            x,
            grid_y + r * CELL_H,
            vote,
            pending=column.proposal is not None and column.votes is None,
            leader=pid == column.leader,
            team=pid in column.team,
        )


def legend_items(lang: str) -> list[tuple[str, str]]:
    return [
        ("accept", t("resistance.matrix.accept", lang)),
        ("reject", t("resistance.matrix.reject", lang)),
        ("no_vote", t("resistance.matrix.no_vote", lang)),
        ("leader", t("resistance.matrix.leader", lang)),
        ("team", t("resistance.matrix.team", lang)),
        ("success", t("resistance.matrix.success", lang)),
        ("failure", t("resistance.matrix.failure", lang)),
        ("skipped", t("resistance.matrix.skipped", lang)),
    ]


def draw_legend(
    draw: ImageDraw.ImageDraw,
    items: list[tuple[str, str]],
    left: int,
    top: int,
    width: int,
    face: Any,
) -> None:
    for (what, text), (dx, dy) in zip(
        items, legend_positions(draw, items, width - 2 * left, face, SWATCH), strict=True
    ):
        x, y = left + dx, top + dy
        box = [x, y, x + 18, y + 18]
        if what in ("accept", "success"):
            draw.rectangle(box, fill=ACCEPT)
            check(draw, x + 1, y + 1, 16, WHITE)
        elif what in ("reject", "failure"):
            draw.rectangle(box, fill=REJECT)
            cross(draw, x + 1, y + 1, 16, WHITE)
        elif what == "no_vote":
            draw.rectangle(box, fill=NO_VOTE)
            dash(draw, x + 1, y + 1, 16, INK)
        elif what == "leader":
            draw.rectangle(box, fill=PAPER, outline=NO_VOTE)
            leader_mark(draw, x, y, 12)
        elif what == "team":
            draw.rectangle(box, fill=PAPER)
            team_frame(draw, x, y, x + 18, y + 18)
        else:  # skipped: a column headed by a dash
            draw.text((x + 4, y), "—", font=face, fill=MUTED)
        draw.text((x + 24, y + 2), text, font=face, fill=INK)


# -- text alternative ------------------------------------------------------------------------


def describe(matrix: Matrix, lang: str, limit: int = DESCRIPTION_LIMIT) -> str:
    """What the picture shows, in words (the attachment's description), cut to ``limit``."""
    name = dict(matrix.rows)
    parts = [t("resistance.matrix.alt_head", lang, players=len(matrix.rows))]
    for column in matrix.columns:
        if column.proposal is None:
            parts.append(t("resistance.matrix.alt_skipped", lang, leader=name.get(column.leader)))
            continue
        votes = column.votes or {}
        if column.votes is None:
            outcome = t("resistance.matrix.alt_pending", lang)
        else:
            outcome = t(
                "resistance.matrix.alt_accepted"
                if column.accepted
                else "resistance.matrix.alt_rejected",
                lang,
                accept=sum(1 for v in votes.values() if v == "accept"),
                reject=sum(1 for v in votes.values() if v == "reject"),
            )
        parts.append(
            t(
                "resistance.matrix.alt_proposal",
                lang,
                proposal=column.proposal,
                mission=column.mission,
                leader=name.get(column.leader, "?"),
                team=", ".join(name.get(p, "?") for p in column.team),
                outcome=outcome,
            )
        )
        result = matrix.missions.get(column.mission)
        if result is not None and column.accepted:
            key = (
                "resistance.matrix.alt_success"
                if result.success
                else "resistance.matrix.alt_failure"
            )
            parts.append(t(key, lang, mission=result.number, sabotages=result.sabotages))
    text = " ".join(parts)
    return text if len(text) <= limit else text[: limit - 1] + "…"


async def render_async(matrix: Matrix, lang: str) -> bytes:
    """:func:`render` in a worker thread, so the event loop keeps answering clicks."""
    return await asyncio.to_thread(render, matrix, lang)
