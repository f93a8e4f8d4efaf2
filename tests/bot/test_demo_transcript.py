"""The demo's transcript reads Discord's markup as a client shows it (playtest/demo.py)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from playtest.demo import edit, readable, relative, timestamp, typed_value

# 2026-12-02 (a Wednesday), 16:17:05 in this machine's time zone
MOMENT = int(datetime(2026, 12, 2, 16, 17, 5).astimezone().timestamp())


class Names:
    def channel(self, channel_id: int) -> str | None:
        return {1: "resistance"}.get(channel_id)

    def member(self, user_id: int) -> str | None:
        return {2: "Chloé"}.get(user_id)

    def role(self, role_id: int) -> str | None:
        return {3: "Game masters"}.get(role_id)


def test_timestamps_read_as_dates_in_the_readers_language() -> None:
    assert timestamp(MOMENT, "F", "en", MOMENT) == "Wednesday, December 2, 2026 4:17 PM"
    assert timestamp(MOMENT, "F", "fr", MOMENT) == "mercredi 2 décembre 2026 16:17"
    assert timestamp(MOMENT, "f", "en", MOMENT) == "December 2, 2026 4:17 PM"
    assert timestamp(MOMENT, "d", "fr", MOMENT) == "02/12/2026"
    assert timestamp(MOMENT, "T", "en", MOMENT) == "4:17:05 PM"
    assert timestamp(MOMENT, "R", "fr", MOMENT - 4) == "dans 4 secondes"
    assert relative(-7200, "en") == "2 hours ago" and relative(60, "fr") == "dans 1 minute"
    assert relative(1, "en") == "in 1 second" and relative(0, "fr") == "dans 0 seconde"


def test_markup_reads_as_names() -> None:
    text = (
        f"<@2> in <#1> before <t:{MOMENT}:F> (<t:{MOMENT}:R>), <@&3>, </resistance propose:9>,"
        " <:star:12>, https://discord.com/channels/5/1 and <@!99>"
    )
    shown = readable(text, "en", Names(), MOMENT - 3)
    assert shown == (
        "@Chloé in #resistance before Wednesday, December 2, 2026 4:17 PM (in 3 seconds),"
        " @Game masters, /resistance propose, :star:, #resistance and @unknown-user"
    )
    assert "<" not in readable(f"<t:{MOMENT}>", "fr", Names(), MOMENT)


def test_an_edit_shows_what_it_changed() -> None:
    assert edit("Lobby\nPlayers (0): —", "Lobby\nPlayers (1): Alice") == "Players (1): Alice"
    assert edit("Vote\n  [A] [B]", "Vote") == "✗ [A] [B]"


def test_a_value_reads_as_typed() -> None:
    user: Any = type("U", (), {"id": 1, "name": "Alice"})()
    assert typed_value({}, 1 / 900, "en") == "0.001111"
    assert typed_value({}, user, "fr") == "@Alice"
    choice = {
        "choices": [{"name": "avalon", "value": "avalon", "name_localizations": {"fr": "Avalon"}}]
    }
    assert typed_value(choice, "avalon", "fr") == "Avalon"
