"""The Refutation Game's secret choices and votes written by group commit (bot/batch.py), many
at once, through the real bot: every answer "On record" is in the votes table with the value it
shows, one row per player and question; a refused answer in the same burst changes nothing and
is answered privately; the burst that completes a step closes it once."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from sqlalchemy import select

from db.models import Vote
from games.refutation.players import DECK, RESULT_MARKERS, RfGame, best_card
from playtest.players import message, until

pytestmark = pytest.mark.timeout(120)


async def rows(bot: Any, kind: str) -> dict[int, tuple[str, str, int]]:
    """``{user_id: (round_key, value, seq)}`` of one kind of answer."""
    async with bot.sessions() as s:
        found = (await s.scalars(select(Vote).where(Vote.kind == kind))).all()
    assert len({v.user_id for v in found}) == len(found)  # one row per player
    return {v.user_id: (v.round_key, v.value, v.seq) for v in found}


def lang(user: Any) -> str:
    return "fr" if user.name == "Chloé" else "en"


async def test_a_burst_of_choices_then_of_votes_is_on_record_as_answered(
    table: Any, bot: Any
) -> None:
    players = table.users[:4]
    outsider = table.users[5]
    game = RfGame(table, players)
    await game.open(techniques=False, target=5)
    await game.start()
    _, _, target = await game.watch_then_refute()
    hands = {u: game.hand(u) for u in players}
    # Every player at once by the DM menu (an eligible card, else pass), and in the same burst
    # a /refutation choose from someone who does not play: refused, alone.
    picks = {u: best_card(hands[u], target, techniques=False) for u in players}
    dms = {u: game.choice_dm(u) for u in players}
    since = len(game.public())
    clicks = [
        (u, await table.sb.select(u, dms[u], values=["pass" if c is None else str(c)]))
        for u, c in picks.items()
    ]
    refused = await table.sb.slash(outsider, "refutation choose", channel=game.channel, card="1")
    answers = await asyncio.gather(*(ix.reply(timeout=15) for _, ix in clicks))
    assert await refused.reply(timeout=15) == message(
        "refutation.error.not_a_player", "en", player=outsider.id
    )
    assert refused.ephemeral
    for (user, ix), answer in zip(clicks, answers, strict=True):
        card = picks[user]
        expected = (
            message("refutation.choice.pass_on_record", lang(user), n=1)
            if card is None
            else message(
                "refutation.choice.on_record",
                lang(user),
                n=1,
                number=card,
                title=DECK.title(card, lang(user)),
            )
        )
        assert answer == expected, (answer, expected)
        assert ix.ephemeral
    chosen = await rows(bot, "choice")
    assert chosen == {u.id: ("r1", "pass" if c is None else str(c), 1) for u, c in picks.items()}
    # Every choice in: the step closes once (one reveal, or one "nobody played").
    reveal = await game.new_public(since, "Revealed cards", "nobody played a card")
    await asyncio.sleep(1.0)  # a second close would post a second reveal
    closes = [x for x in game.public()[since:] if "Revealed cards" in x or "nobody played" in x]
    assert len(closes) == 1, closes
    assert "Revealed cards" in reveal, reveal  # the table's deal gives someone a card to play
    # The vote: everyone at once on the vote message's buttons.
    message_ = await until(game.vote_message, what="the vote message")
    cards = sorted({c for c in picks.values() if c is not None})
    votes = {u: str(cards[i % len(cards)]) if i % 3 else "abstain" for i, u in enumerate(players)}
    since = len(game.public())
    clicks = []
    for user, choice in votes.items():
        custom_id = next(
            c["custom_id"] for c in message_.buttons if str(c["custom_id"]).endswith(f":{choice}")
        )
        clicks.append((user, await table.sb.click(user, message_, custom_id=custom_id)))
    answers = await asyncio.gather(*(ix.reply(timeout=15) for _, ix in clicks))
    for (user, ix), answer in zip(clicks, answers, strict=True):
        choice = votes[user]
        expected = (
            message("refutation.vote.abstain_on_record", lang(user), n=1)
            if choice == "abstain"
            else message("refutation.vote.on_record", lang(user), n=1, number=int(choice))
        )
        assert answer == expected, (answer, expected)
        assert ix.ephemeral
    assert await rows(bot, "refute_vote") == {u.id: ("r1", v, 1) for u, v in votes.items()}
    await game.new_public(since, *RESULT_MARKERS)
    await asyncio.sleep(1.0)
    results = [x for x in game.public()[since:] if any(m in x for m in RESULT_MARKERS)]
    assert len(results) == 1, results
