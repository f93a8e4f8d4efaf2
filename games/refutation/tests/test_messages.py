"""The Refutation Game's messages through the core's catalogue: each count of its statistics
line picks its own plural form."""

from __future__ import annotations

import pytest

from bot.i18n import t


@pytest.mark.parametrize(
    ("lang", "counts", "text"),
    [
        ("en", (0, 1, 2), "0 games, 1 won — 2 refutations credited"),
        ("en", (1, 0, 1), "1 game, 0 won — 1 refutation credited"),
        ("fr", (0, 1, 2), "0 partie, 1 gagnée — 2 réfutations créditées"),
        ("fr", (2, 2, 0), "2 parties, 2 gagnées — 0 réfutation créditée"),
        ("fr", (1, 0, 1), "1 partie, 0 gagnée — 1 réfutation créditée"),
    ],
)
def test_each_count_of_a_message_picks_its_own_form(
    lang: str, counts: tuple[int, int, int], text: str
) -> None:
    played, won, credited = counts
    line = t("refutation.stats.line", lang, played=played, won=won, credited=credited)
    assert line.endswith(text), line
