"""``[internals] bypasses = false``: the bot on discord.py's, SQLAlchemy's and CPython's public
paths only (adapters/switch.py). A vote click is answered by discord.py's ``send_message``
(the created message asked back), the vote written through SQLAlchemy, the state discord.py's
own and CPython's full collections its own.
The whole games with the switch off: tests/e2e/support.py's ``public_paths``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import pytest

from adapters.discord_state import GatedState
from bot.config import InternalsSettings
from db.direct import open_direct_votes
from tests.e2e.test_answer_in_one_call import calls_of, vote_button, voting
from tests.e2e.test_deadlines import game_id, votes
from tests.harness import running_bot, sandbox_settings

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
async def public_bot(table: Any) -> AsyncIterator[Any]:
    settings = replace(
        sandbox_settings(table.sb, table.url()), internals=InternalsSettings(frozenset())
    )
    async with running_bot(table.sb, table.url(), settings=settings) as running:
        yield running


async def test_a_vote_goes_the_public_way(table: Any, public_bot: Any) -> None:
    bot = public_bot
    assert type(bot._connection) is GatedState  # discord.py's own state, but for the gate
    assert open_direct_votes(bot.engine) is None  # the vote batch through SQLAlchemy
    game = await voting(table)
    voter = game.players[1]
    dm, cid = vote_button(game, voter, "accept")
    ix = await table.sb.click(voter, dm, custom_id=cid)
    answer = await ix.reply(10)
    assert answer is not None and "On record" in answer, answer
    assert calls_of(table.sb, ix) == ["callback"]
    (callback,) = [r for r in table.sb.requests if ix.token in r.path]
    assert "with_response" in callback.query  # discord.py's send_message
    recorded = await votes(bot, await game_id(bot, table.channel.id))
    assert ("p1", "team", voter.id, "accept") in recorded
