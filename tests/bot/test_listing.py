"""``/games``' pages: each fits one message with its footer, every line kept in order."""

from __future__ import annotations

from bot.limits import MESSAGE_CONTENT
from bot.listing import FOOTER_ROOM, pages


def test_the_lines_go_in_pages_that_each_fit_one_message() -> None:
    lines = [f"{n:03d} " + "x" * 296 for n in range(20)]  # 300 characters each
    split = pages(lines)
    assert [line for page in split for line in page] == lines
    assert all(len("\n".join(page)) <= MESSAGE_CONTENT - FOOTER_ROOM for page in split)
    assert [len(page) for page in split] == [6, 6, 6, 2]


def test_a_line_longer_than_a_page_is_cut_to_one() -> None:
    assert pages(["y" * 5000]) == [["y" * (MESSAGE_CONTENT - FOOTER_ROOM)]]
    assert pages([]) == [[]]
