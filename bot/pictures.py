"""What the games' pictures share (the Resistance's vote matrix, Werewolf's day votes): the
font they are drawn in, a name cut to the room it has, and a legend flowing onto lines."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import font_roboto
from PIL import ImageDraw, ImageFont

NAME_CHARS = 32  # a name longer than this is cut first (then to the pixel width)


@cache
def font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    """Roboto (a font the package ships: the same picture on every machine)."""
    name = "Roboto-Bold.ttf" if bold else "Roboto-Regular.ttf"
    return ImageFont.truetype(str(Path(font_roboto.font_directory) / name), size)


def fit(draw: ImageDraw.ImageDraw, text: str, face: ImageFont.FreeTypeFont, width: int) -> str:
    """``text`` cut (with an ellipsis) to ``width`` pixels; control characters removed."""
    text = "".join(ch if ch.isprintable() else " " for ch in text).strip() or "?"
    if len(text) > NAME_CHARS:
        text = text[: NAME_CHARS - 1] + "…"
    if draw.textlength(text, font=face) <= width:
        return text
    while len(text) > 1 and draw.textlength(text + "…", font=face) > width:
        text = text[:-1]
    return text.rstrip() + "…"


def legend_positions(
    draw: ImageDraw.ImageDraw,
    items: list[tuple[str, str]],
    width: int,
    face: ImageFont.FreeTypeFont,
    swatch: int,
) -> list[tuple[int, int]]:
    """Where each legend item (its ``swatch`` pixels of sample, then its text) goes, relative
    to the legend, flowing onto new lines within ``width``."""
    x = y = 0
    out = []
    for _, text in items:
        w = swatch + int(draw.textlength(text, font=face)) + 16
        if x and x + w > width:
            x, y = 0, y + 24
        out.append((x, y))
        x += w
    return out


def legend_height(
    draw: ImageDraw.ImageDraw,
    items: list[tuple[str, str]],
    width: int,
    face: ImageFont.FreeTypeFont,
    swatch: int,
) -> int:
    return max(y for _, y in legend_positions(draw, items, width, face, swatch)) + 20
