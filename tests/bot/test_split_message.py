"""Long answers are split to Discord's 2,000 characters, at paragraphs, then lines."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from bot.effects import split_message


def test_paragraphs_stay_whole_when_they_fit() -> None:
    text = "a" * 1500 + "\n\n" + "b" * 700 + "\n" + "c" * 900 + "\n\n" + "d" * 4500
    pieces = split_message(text)
    assert [len(p) for p in pieces] == [1500, 1601, 2000, 2000, 500]
    assert pieces[1] == "b" * 700 + "\n" + "c" * 900
    assert split_message("") == [] and split_message("x\n\ny") == ["x\n\ny"]


@given(st.text(alphabet="ab \n", max_size=9000), st.integers(10, 2000))
def test_no_piece_is_too_long_and_nothing_is_lost(text: str, limit: int) -> None:
    pieces = split_message(text, limit)
    assert all(0 < len(p) <= limit for p in pieces)
    assert re.sub(r"\s", "", "".join(pieces)) == re.sub(r"\s", "", text)
