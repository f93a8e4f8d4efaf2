"""Game effects that used to be sent after the commit are outbox rows now, written with the
state change: the Refutation Game's call of the active player (a DM in their own language)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from bot.dispatcher import nonce
from games.refutation.players import RfGame
from playtest.players import text_of

pytestmark = pytest.mark.timeout(150)

TURN_DM = {"fr": "C’est votre tour", "en-US": "It is your turn"}


def outbox_rows(db: Path, kind: str) -> list[tuple[dict[str, Any], str, str]]:
    """(payload, status, key) of the outbox rows of ``kind``, in order."""
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT payload, status, key FROM outbox WHERE kind = ? ORDER BY game_id, seq", (kind,)
        ).fetchall()
    return [(json.loads(p), status, key) for p, status, key in rows]


async def test_the_turn_call_is_an_outbox_dm_in_the_active_players_language(
    table: Any, bot: Any
) -> None:
    players = table.users[:3]  # alice and Bob read English, Chloé French; the server English
    assert {u.locale for u in players} == {"fr", "en-US"}
    game = RfGame(table, players)
    await game.open()
    await game.start()
    called = []
    for _ in players:  # nobody has a card in front yet: each watch passes the turn
        active = game.active()
        dm = await table.sb.wait_for_dm(active, TURN_DM[active.locale])
        other = next(v for k, v in TURN_DM.items() if k != active.locale)
        assert other not in text_of(dm)
        called.append(active)
        since = len(game.public())
        await game.watch(active, game.feed()[0])
        await game.new_public(since, "it is your turn")
    assert {u.id for u in called} == {u.id for u in players}
    # Each call is a row of the outbox, delivered with the nonce its key gives.
    turn_dms = [
        (payload, status, key)
        for payload, status, key in outbox_rows(table.db, "dm")
        if any(marker in payload["text"] for marker in TURN_DM.values())
    ]
    assert [p["user_id"] for p, _, _ in turn_dms][:3] == [u.id for u in called]
    assert all(status == "done" for _, status, _ in turn_dms)
    sent = {
        r.json.get("nonce")
        for r in table.sb.requests_to("POST /channels/{channel_id}/messages")
        if r.status == 200 and isinstance(r.json, dict)
    }
    assert all(nonce(key, 0) in sent for _, _, key in turn_dms)
