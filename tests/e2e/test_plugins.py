"""The games come from the registry (bot.plugins): a bot runs the games it is given, and a
button of a game it does not run gets the usual private answer to an old button."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select

from bot.plugins import load_plugin
from db.engine import make_engine, make_sessions
from db.models import Player
from playtest.players import text_of, until
from tests.harness import running_bot

pytestmark = pytest.mark.timeout(90)


async def players_of(table: Any) -> list[int]:
    engine = make_engine(table.url())
    try:
        async with make_sessions(engine)() as s:
            return list((await s.scalars(select(Player.user_id))).all())
    finally:
        await engine.dispose()


async def test_a_lobby_of_a_game_the_bot_no_longer_runs(table: Any) -> None:
    sb, channel = table.sb, table.channel
    async with running_bot(sb, table.url()):
        ix = await sb.slash(table.mod, "refutation new", channel=channel)
        assert await ix.reply_message(10.0) is not None
        lobby = await until(
            lambda: next((m for m in sb.channel_messages(channel) if m.labels), None),
            what="the lobby",
        )
        joined = await (await sb.click(table.users[0], lobby, label="Join")).reply_message(10.0)
        assert joined is not None and "You are in" in text_of(joined)
    # The same database, a bot that runs The Resistance only.
    async with running_bot(
        sb, table.url(), plugins=[load_plugin("games.resistance.plugin")]
    ) as bot:
        assert set(bot.services) == {"resistance"}
        assert {c["name"] for c in sb.commands()} >= {"resistance", "settings", "stats"}
        assert "refutation" not in {c["name"] for c in sb.commands()}
        before = len(sb.channel_messages(channel))
        ix = await sb.click(table.users[1], lobby, label="Join")
        reply = await ix.reply_message(10.0)
        assert reply is not None and reply.ephemeral
        assert text_of(reply) == "This game no longer exists."
        assert len(sb.channel_messages(channel)) == before
    assert await players_of(table) == [table.users[0].id]
