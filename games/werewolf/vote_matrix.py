"""The day votes of a game of Werewolf, as a PNG: who voted whom each day.

A pure function of the game's public events, the players' names and a language:

- one row per seat, in the order of the table (a substitute takes the row of the player they
  replaced, labelled ``new (old)``); a dead player's row says which night or day they died,
  and their cells are dark on the days that follow;
- one column per day, headed by whom the day eliminated (or nobody);
- every cell holds the name the player voted for, "no elimination" or a dash (did not vote),
  each with its own colour (Okabe–Ito, safe for colour-blind readers); the captain's vote,
  which counts twice, carries a yellow "×2" badge; the eliminated player's cell is framed.

Day votes are public: the picture shows no role. The font is Roboto (``font-roboto``), so the
same Pillow gives the same pixels anywhere (``games/werewolf/tests/test_vote_matrix.py``
compares them). Rendering takes tens of milliseconds: call :func:`render_async` from the loop.
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from PIL import Image, ImageDraw, ImageFont

from bot.i18n import t
from bot.names import clean
from bot.pictures import fit, font, legend_height, legend_positions
from games.werewolf.rules import WerewolfEvent
from games.werewolf.rules.events import (
    CaptainElected,
    CaptainNamed,
    Dawn,
    DayBegan,
    DayEnded,
    GameStarted,
    HunterShot,
    PlayerSubstituted,
)

SWATCH = 30  # a legend item's sample, in pixels
VOTE = (86, 180, 233)  # Okabe–Ito sky blue
NO_ELIMINATION = (230, 159, 0)  # Okabe–Ito orange
NOT_VOTED = (220, 220, 220)  # light grey
DEAD = (90, 90, 90)
CAPTAIN = (240, 228, 66)  # Okabe–Ito yellow
INK = (30, 30, 30)
MUTED = (110, 110, 110)
PAPER = (255, 255, 255)
BAND = (242, 242, 242)

MAX_WIDTH = 1400
MIN_WIDTH = 520
MARGIN = 14
CELL_W = 110  # a day's column, narrowed (to MIN_CELL_W) when many days must fit MAX_WIDTH
MIN_CELL_W = 64
CELL_H = 30
NAME_MAX = 200  # pixels for the names column
DESCRIPTION_LIMIT = 1024  # Discord's limit for an attachment's description


@dataclass
class Day:
    """One day as the picture shows it: each seat's vote (None: no elimination; absent: did
    not vote), who could vote, the captain then, and whom it eliminated."""

    number: int
    alive: frozenset[int]
    captain: int | None
    votes: dict[int, int | None] | None = None  # None while the day runs
    eliminated: int | None = None


@dataclass
class Matrix:
    rows: list[tuple[int, str]]  # (seat's current player id, label)
    names: dict[int, str]  # seat -> its player's name now, as cells show it
    days: list[Day] = field(default_factory=list)
    died: dict[int, tuple[str, int]] = field(default_factory=dict)  # seat -> ("night", 1)


@dataclass
class Seats:
    """Each player's seat now, through every substitution, and the earlier names of a seat."""

    successor: dict[int, int] = field(default_factory=dict)
    replaced: dict[int, list[str]] = field(default_factory=dict)

    def __call__(self, pid: int) -> int:
        seen = set()
        while pid in self.successor and pid not in seen:
            seen.add(pid)
            pid = self.successor[pid]
        return pid

    def substitute(self, e: PlayerSubstituted, old_name: str) -> None:
        self.successor[e.old] = e.new
        earlier = self.replaced.pop(e.old, [])
        self.replaced.setdefault(e.new, []).extend([*earlier, old_name])


def build(events: Iterable[WerewolfEvent], names: Mapping[int, str]) -> Matrix:
    """The matrix of a game from its public events, in order; ``names``: everyone who sat at
    the table (bot.archive.names_of), substituted players included."""
    events = list(events)
    seat = Seats()
    for e in events:
        if isinstance(e, PlayerSubstituted):
            seat.substitute(e, e.old_name or names.get(e.old, str(e.old)))
    order = next((e.players for e in events if isinstance(e, GameStarted)), ())
    seats = list(dict.fromkeys(seat(p) for p in order))
    # drawn as typed, never reversed by a control character
    short = {pid: clean(names.get(pid, str(pid))) for pid in seats}
    rows = []
    for pid in seats:
        label = short[pid]
        if pid in seat.replaced:
            label = f"{label} ({', '.join(clean(x) for x in seat.replaced[pid])})"
        rows.append((pid, label))
    matrix = Matrix(rows, short)
    add_days(matrix, events, seat)
    return matrix


def add_days(matrix: Matrix, events: list[WerewolfEvent], seat: Seats) -> None:
    """A column for each day (its votes once it ended), and when each seat died."""
    captain: int | None = None
    when = ("night", 0)  # the last night's dawn or the last day's end: when a death happens
    for e in events:
        match e:
            case CaptainElected(captain=c) | CaptainNamed(captain=c):
                captain = None if c is None else seat(c)
            case DayBegan(day=n, alive=alive):
                matrix.days.append(Day(n, frozenset(seat(p) for p in alive), captain))
            case DayEnded(day=n, votes=tallies, eliminated=out):
                day = next((d for d in matrix.days if d.number == n), None)
                if day is None:
                    continue
                day.votes = {
                    seat(v): tally_target(x.target, seat) for x in tallies for v in x.voters
                }
                day.eliminated = None if out is None else seat(out)
                when = ("day", n)
            case Dawn(night=n):
                when = ("night", n)
        if isinstance(e, Dawn | DayEnded | HunterShot):
            for death in e.deaths:
                matrix.died.setdefault(seat(death.player), when)


def tally_target(target: int | None, seat: Seats) -> int | None:
    return None if target is None else seat(target)


@dataclass
class Canvas:
    """Where the grid goes and what it writes with."""

    draw: ImageDraw.ImageDraw
    names: Mapping[int, str]  # seat -> label
    lang: str
    x0: int  # the first column's x
    cell_w: int
    head_y: int
    grid_y: int


def render(matrix: Matrix, lang: str) -> bytes:
    """The matrix as PNG bytes, at most ``MAX_WIDTH`` pixels wide while the days fit in it at
    ``MIN_CELL_W`` each (some eighteen days); wider, never cut, past that."""
    regular, small = font(15), font(12)
    probe = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    labels = [row_label(probe, matrix, pid, label, lang) for pid, label in matrix.rows]
    name_w = max([int(probe.textlength(x, font=regular)) for x in labels] + [60]) + 12
    room = (MAX_WIDTH - MARGIN * 2 - name_w) // max(1, len(matrix.days))
    cell_w = max(MIN_CELL_W, min(CELL_W, room))
    width = max(MIN_WIDTH, MARGIN * 2 + name_w + len(matrix.days) * cell_w)
    legend = legend_items(lang)
    legend_h = legend_height(probe, legend, width - 2 * MARGIN, small, SWATCH)
    head_y = MARGIN + 30
    grid_y = head_y + 44
    height = grid_y + max(1, len(matrix.rows)) * CELL_H + 14 + legend_h + MARGIN
    image = Image.new("RGB", (width, height), PAPER)
    draw = ImageDraw.Draw(image)
    draw.text((MARGIN, MARGIN), t("werewolf.matrix.title", lang), font=font(18, True), fill=INK)
    for r, label in enumerate(labels):
        y = grid_y + r * CELL_H
        if r % 2:
            draw.rectangle([MARGIN, y - 1, width - MARGIN, y + CELL_H - 2], fill=BAND)
        draw.text((MARGIN, y + 6), label, font=regular, fill=INK)
    canvas = Canvas(draw, matrix.names, lang, MARGIN + name_w, cell_w, head_y, grid_y)
    for i, day in enumerate(matrix.days):
        draw_day(canvas, matrix, day, canvas.x0 + i * cell_w)
    draw_legend(draw, legend, MARGIN, grid_y + len(matrix.rows) * CELL_H + 14, width, small)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=False, compress_level=9)
    return out.getvalue()


def row_label(draw: ImageDraw.ImageDraw, matrix: Matrix, pid: int, label: str, lang: str) -> str:
    """A row's name, with when the player died (``† night 1``, ``† day 2``)."""
    dead = matrix.died.get(pid)
    suffix = (
        "" if dead is None else " " + t(f"werewolf.matrix.died_{dead[0]}", lang, number=dead[1])
    )
    width = NAME_MAX - int(draw.textlength(suffix, font=font(15)))
    return fit(draw, label, font(15), width) + suffix


def draw_day(canvas: Canvas, matrix: Matrix, day: Day, x: int) -> None:
    """A day's column: its name and whom it eliminated, then each seat's cell."""
    draw, lang = canvas.draw, canvas.lang
    head = t("werewolf.matrix.day", lang, number=day.number)
    draw.text((x + 2, canvas.head_y), head, font=font(14, True), fill=INK)
    if day.votes is None:
        outcome = "…"
    elif day.eliminated is None:
        outcome = t("werewolf.matrix.nobody_short", lang)
    else:
        outcome = "† " + canvas.names.get(day.eliminated, "?")
    outcome = fit(draw, outcome, font(12, True), canvas.cell_w - 8)
    draw.text((x + 2, canvas.head_y + 20), outcome, font=font(12, True), fill=MUTED)
    for r, (pid, _) in enumerate(matrix.rows):
        cell(canvas, x, canvas.grid_y + r * CELL_H, day, pid)


def cell(canvas: Canvas, x: int, y: int, day: Day, pid: int) -> None:
    """One seat's vote on one day: a name, no elimination, a dash, dark once dead."""
    draw, w = canvas.draw, canvas.cell_w
    box = [x, y, x + w - 4, y + CELL_H - 4]
    if pid not in day.alive:
        draw.rectangle(box, fill=DEAD)
        return
    if day.votes is None:
        draw.rectangle(box, fill=PAPER, outline=NOT_VOTED)
    elif pid not in day.votes:
        draw.rectangle(box, fill=NOT_VOTED)
        draw.text((x + w // 2 - 6, y + 5), "—", font=font(13), fill=INK)
    else:
        target = day.votes[pid]
        fill = NO_ELIMINATION if target is None else VOTE
        text = (
            t("werewolf.matrix.no_elimination_short", canvas.lang)
            if target is None
            else canvas.names.get(target, "?")
        )
        draw.rectangle(box, fill=fill)
        room = w - 12 - (26 if pid == day.captain else 0)
        draw.text((x + 5, y + 6), fit(draw, text, font(13), room), font=font(13), fill=INK)
        if pid == day.captain:
            captain_badge(draw, x + w - 30, y + 4)
    if pid == day.eliminated:
        draw.rectangle(box, outline=INK, width=3)


def captain_badge(draw: ImageDraw.ImageDraw, x: int, y: int) -> None:
    draw.rectangle([x, y, x + 22, y + 17], fill=CAPTAIN, outline=INK)
    draw.text((x + 3, y + 1), "×2", font=font(12, True), fill=INK)


def legend_items(lang: str) -> list[tuple[str, str]]:
    keys = ("vote", "no_elimination", "not_voted", "captain", "eliminated", "dead")
    return [(key, t(f"werewolf.matrix.{key}", lang)) for key in keys]


def draw_legend(
    draw: ImageDraw.ImageDraw,
    items: list[tuple[str, str]],
    left: int,
    top: int,
    width: int,
    face: ImageFont.FreeTypeFont,
) -> None:
    fills = {"vote": VOTE, "no_elimination": NO_ELIMINATION, "not_voted": NOT_VOTED, "dead": DEAD}
    for (what, text), (dx, dy) in zip(
        items, legend_positions(draw, items, width - 2 * left, face, SWATCH), strict=True
    ):
        x, y = left + dx, top + dy
        if what == "captain":
            captain_badge(draw, x, y)
        elif what == "eliminated":
            draw.rectangle([x, y, x + 22, y + 17], fill=PAPER, outline=INK, width=3)
        else:
            draw.rectangle([x, y, x + 22, y + 17], fill=fills[what])
        if what == "not_voted":
            draw.text((x + 6, y + 1), "—", font=face, fill=INK)
        draw.text((x + 30, y + 2), text, font=face, fill=INK)


# -- text alternative ------------------------------------------------------------------------


def describe(matrix: Matrix, lang: str, limit: int = DESCRIPTION_LIMIT) -> str:
    """What the picture shows, in words (the attachment's description), cut to ``limit``."""
    parts = [t("werewolf.matrix.alt_head", lang, players=len(matrix.rows))]
    for day in matrix.days:
        if day.votes is None:
            parts.append(t("werewolf.matrix.alt_pending", lang, number=day.number))
            continue
        if day.eliminated is None:
            outcome = t("werewolf.matrix.nobody", lang)
        else:
            out = matrix.names.get(day.eliminated, "?")
            outcome = t("werewolf.matrix.alt_out", lang, name=out)
        votes = t("werewolf.matrix.alt_separator", lang).join(day_votes(matrix, day, lang))
        parts.append(
            t("werewolf.matrix.alt_day", lang, number=day.number, votes=votes, outcome=outcome)
        )
    text = " ".join(parts)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def day_votes(matrix: Matrix, day: Day, lang: str) -> list[str]:
    """Each living seat's vote of an ended day, in words, in the rows' order."""
    votes = day.votes or {}
    out = []
    for pid, _ in matrix.rows:
        if pid not in day.alive:
            continue
        if pid not in votes:
            what = t("werewolf.matrix.not_voted", lang)
        elif (target := votes[pid]) is None:
            what = t("werewolf.matrix.no_elimination", lang)
        else:
            what = matrix.names.get(target, "?")
        key = "alt_captain" if pid == day.captain else "alt_vote"
        out.append(t(f"werewolf.matrix.{key}", lang, name=matrix.names[pid], vote=what))
    return out


async def render_async(matrix: Matrix, lang: str) -> bytes:
    """:func:`render` in a worker thread, so the event loop keeps answering clicks."""
    return await asyncio.to_thread(render, matrix, lang)
