"""Clicks written by group commit (bot/batch.py): many at once, through the real bot.

Every click answered "On record" is in the votes table with the value the answer shows, one row
per player and question; a refused click in the same burst changes nothing and is answered
privately; with early close, the last vote of a burst resolves the round once.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from sqlalchemy import select

from db.models import Vote
from games.resistance.players import RESULT_MARKERS, Game
from playtest.players import message

pytestmark = pytest.mark.timeout(120)


async def rows(bot: Any) -> list[tuple[str, str, int, str, int]]:
    async with bot.sessions() as s:
        found = (await s.scalars(select(Vote))).all()
    return sorted((v.round_key, v.kind, v.user_id, v.value, v.seq) for v in found)


async def test_a_burst_of_clicks_is_on_record_as_answered(table: Any, bot: Any) -> None:
    game = Game(table, table.users[:10])
    await game.open(lock_during_vote=False, reminder_hours=0.0)
    await game.start()
    leader = game.leader()
    team = [leader, *[u for u in game.players if u is not leader][:2]]
    await game.propose(team)
    outsider = next(u for u in game.players if u not in team)
    sb = table.sb
    # Everybody at once: ten votes, the team's choices, and a mission command from a player
    # who is not on the team (refused, in the middle of the same burst).
    clicks: list[tuple[Any, str, Any]] = []
    for user in game.players:
        dm = game.vote_dm(user)
        for choice in ["accept" if user.id % 2 else "reject"] + (
            ["support"] if user in team else []
        ):
            cid = next(
                c["custom_id"]
                for c in dm.all_components
                if str(c.get("custom_id", "")).endswith(":" + choice)
            )
            clicks.append((user, choice, await sb.click(user, dm, custom_id=cid)))
    refused = await sb.slash(
        outsider, "resistance mission", channel=table.channel, choice="support"
    )
    answers = await asyncio.gather(*(ix.reply(timeout=15) for _, _, ix in clicks))
    refusal = await refused.reply(timeout=15)
    lang = "fr" if outsider.name == "Chloé" else "en"
    assert refusal == message("resistance.error.not_on_team", lang), refusal
    assert refused.ephemeral
    for (user, choice, ix), answer in zip(clicks, answers, strict=True):
        lang = "fr" if user.name == "Chloé" else "en"
        shown = message(f"resistance.choice.{choice}", lang)
        key = "on_record" if choice in ("accept", "reject") else "mission_on_record"
        line = message(
            f"resistance.vote.{key}", lang, **{"vote" if key == "on_record" else "choice": shown}
        )
        assert answer is not None and line in answer, (answer, line)
        assert ix.ephemeral
    # One row per player and question, holding what was clicked.
    votes = await rows(bot)
    assert len(votes) == 10 + len(team)
    expected = {(u.id, "team"): "accept" if u.id % 2 else "reject" for u in game.players}
    expected |= {(u.id, "mission"): "support" for u in team}
    assert {(uid, kind): value for _, kind, uid, value, _ in votes} == expected
    assert all(r == "p1" and seq == 1 for r, *_, seq in votes)


async def test_early_close_by_a_burst_resolves_once(table: Any, bot: Any) -> None:
    game = Game(table, table.users[:5])
    await game.open(early_close=True, lock_during_vote=False, reminder_hours=0.0)
    await game.start()
    leader = game.leader()
    team = [leader, next(u for u in game.players if u is not leader)]
    await game.propose(team)
    await game.vote(accept=game.players, support=team)
    result = await game.new_public(0, *RESULT_MARKERS, timeout=15)
    assert "Accepted (5)" in result, result
    await asyncio.sleep(1.0)  # a second close would post a second result
    results = [x for x in game.public() if any(m in x for m in RESULT_MARKERS)]
    assert len(results) == 1, results
