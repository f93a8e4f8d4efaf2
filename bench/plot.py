"""The ceiling plot: confirmation p99 against the offered click rate, for the floor and the bot
on each database, from the capacity search of one run (``python -m bench load --plot FILE``).

Both axes are logarithmic. Each step of the search is a point at the rate the bench really
offered and the p99 it measured (filled: the step held; hollow: it failed), each side's steps
joined in the order they ran; the 300 ms limit is a dashed line and each ceiling a dotted
vertical line with its value. Drawn with Pillow (which the bot already uses for the vote
matrix) and the Roboto font it ships with, so the picture is the same on every machine.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import font_roboto
from PIL import Image, ImageDraw, ImageFont

from bench.capacity import LIMIT_P99_MS, ceiling_text

WIDTH, HEIGHT = 1200, 720
LEFT, RIGHT, TOP, BOTTOM = 90, 250, 70, 80
#: each side's colour (the limit line is red)
COLOURS = {"floor": (90, 90, 90), "SQLite": (31, 119, 180), "PostgreSQL": (230, 120, 20)}
LIMIT_COLOUR = (200, 30, 30)
GRID = (225, 225, 225)
INK = (30, 30, 30)


def font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    name = "Roboto-Bold.ttf" if bold else "Roboto-Regular.ttf"
    return ImageFont.truetype(str(Path(font_roboto.font_directory) / name), size)


def _decades(low: float, high: float) -> tuple[float, float]:
    """The powers of ten around ``low`` … ``high`` (both > 0); at least one decade (a single
    rate asked, a power of ten itself, would make the axis of zero width)."""
    bottom = 10 ** math.floor(math.log10(low))
    return bottom, max(10 ** math.ceil(math.log10(high)), bottom * 10)


def _ticks(low: float, high: float) -> Iterable[tuple[float, bool]]:
    """1, 2, 5 × each power of ten from ``low`` to ``high``; True for the powers themselves."""
    decade = low
    while decade <= high * 1.0001:
        for m in (1, 2, 5):
            value = decade * m
            if low * 0.9999 <= value <= high * 1.0001:
                yield value, m == 1
        decade *= 10


def _label(value: float) -> str:
    return f"{value:,.0f}" if value >= 1 else f"{value:g}"


def points(cap: dict[str, Any]) -> list[tuple[float, float, bool]]:
    """(offered rate, confirmation p99 ms, held) of each step run, by rate (a refinement's
    steps, run last, fall between the others); a step with no p99 (nothing confirmed) at
    +inf."""
    out = []
    for step in cap.get("steps") or []:
        rate = step.get("offered_per_s") or step.get("rate") or 0
        p99 = step.get("confirm_p99_ms")
        if not isinstance(p99, int | float) or p99 != p99:
            p99 = math.inf
        if rate > 0:
            out.append((float(rate), float(p99), bool(step.get("ok"))))
    return sorted(out, key=lambda point: point[0])


def draw_ceiling(results: dict[str, Any], path: Path) -> Path:
    """Draw the plot of ``results``' capacity searches into the PNG ``path``."""
    sides = {
        name: res["capacity"]
        for name, res in results.get("backends", {}).items()
        if isinstance(res.get("capacity"), dict) and "error" not in res["capacity"]
    }
    series = {name: points(cap) for name, cap in sides.items()}
    # the axis from the rates asked (the offered ones fall a little short of them)
    asked = [s.get("rate") for cap in sides.values() for s in cap.get("steps") or []]
    rates = [float(r) for r in asked if isinstance(r, int | float) and r > 0] or [100.0, 1e4]
    finite = [p for pts in series.values() for _, p, _ in pts if math.isfinite(p) and p > 0]
    x0, x1 = _decades(min(rates), max(rates))
    y0, y1 = _decades(min([*finite, 1.0]), max([*finite, LIMIT_P99_MS * 3]))
    image = Image.new("RGB", (WIDTH, HEIGHT), "white")
    draw = ImageDraw.Draw(image)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(rate: float) -> float:
        rate = min(max(rate, x0), x1)
        return LEFT + plot_w * (math.log10(rate) - math.log10(x0)) / math.log10(x1 / x0)

    def y(ms: float) -> float:
        ms = min(max(ms, y0), y1)
        return TOP + plot_h * (1 - (math.log10(ms) - math.log10(y0)) / math.log10(y1 / y0))

    small, normal = font(13), font(15)
    for value, major in _ticks(x0, x1):
        draw.line([(x(value), TOP), (x(value), TOP + plot_h)], fill=GRID, width=2 if major else 1)
        draw.text((x(value), TOP + plot_h + 8), _label(value), font=small, fill=INK, anchor="mt")
    for value, major in _ticks(y0, y1):
        draw.line([(LEFT, y(value)), (LEFT + plot_w, y(value))], fill=GRID, width=2 if major else 1)
        draw.text((LEFT - 8, y(value)), _label(value), font=small, fill=INK, anchor="rm")
    draw.rectangle([LEFT, TOP, LEFT + plot_w, TOP + plot_h], outline=INK)
    draw.text(
        (LEFT + plot_w / 2, HEIGHT - 30),
        "clicks per second offered (log)",
        font=normal,
        fill=INK,
        anchor="mm",
    )
    draw.text((20, TOP - 24), "confirmation p99, ms (log)", font=normal, fill=INK, anchor="lm")
    draw.text(
        (LEFT, 24),
        "Capacity: confirmation p99 against the offered click rate",
        font=font(20, bold=True),
        fill=INK,
        anchor="lm",
    )
    # the limit, dashed
    ly = y(LIMIT_P99_MS)
    for start in range(LEFT, LEFT + plot_w, 14):
        draw.line([(start, ly), (min(start + 8, LEFT + plot_w), ly)], fill=LIMIT_COLOUR, width=2)
    draw.text(
        (LEFT + plot_w - 4, ly - 4),
        f"limit {LIMIT_P99_MS:g} ms",
        font=small,
        fill=LIMIT_COLOUR,
        anchor="rb",
    )
    legend_y = TOP + 10
    for name, pts in series.items():
        colour = COLOURS.get(name, INK)
        ordered = sorted(pts, key=lambda p: p[0])
        if len(ordered) > 1:
            draw.line([(x(r), y(p)) for r, p, _ in ordered], fill=colour, width=2)
        for r, p, ok in pts:
            box = [x(r) - 5, y(p) - 5, x(r) + 5, y(p) + 5]
            draw.ellipse(box, fill=colour if ok else "white", outline=colour, width=2)
        cap = sides[name]
        ceiling = cap.get("capacity_clicks_per_s")
        if isinstance(ceiling, int) and ceiling > 0 and x0 <= ceiling <= x1:
            cx = x(ceiling)
            for start in range(TOP, TOP + plot_h, 8):
                draw.line([(cx, start), (cx, min(start + 3, TOP + plot_h))], fill=colour, width=2)
        # the legend: name, ceiling
        lx = LEFT + plot_w + 20
        draw.line([(lx, legend_y + 9), (lx + 24, legend_y + 9)], fill=colour, width=3)
        draw.ellipse([lx + 7, legend_y + 4, lx + 17, legend_y + 14], fill=colour)
        draw.text((lx + 32, legend_y), name, font=font(15, bold=True), fill=colour)
        draw.text(
            (lx + 32, legend_y + 20),
            f"ceiling {ceiling_text(cap)}/s",
            font=small,
            fill=INK,
        )
        legend_y += 52
    lx = LEFT + plot_w + 20
    notes = [
        "filled: the step held",
        "hollow: it failed (p99, a click",
        "unanswered, or not offered)",
        "dotted: each ceiling",
    ]
    for i, note in enumerate(notes):
        draw.text((lx, legend_y + 10 + 18 * i), note, font=small, fill=INK)
    started = str(results.get("started", ""))[:16].replace("T", " ")
    if started:
        draw.text((lx, HEIGHT - 30), f"run of {started} UTC", font=small, fill=INK, anchor="lm")
    path.parent.mkdir(parents=True, exist_ok=True)
    image.save(path, format="PNG", optimize=True)
    return path
