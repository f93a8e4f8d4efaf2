"""The one interaction wrapper (cogs/interaction.py): whatever refuses a command or a click, the
user gets a private answer in their own language, and nothing changes.

A refusal of the rules or of the app (a domain error), a game opened in the same channel at the
same moment (ChannelBusy, raised by the database's own check), a database another process keeps
locked past the action's retries. (A click after its deadline, "Too late", in English and in
French: tests/e2e/test_deadlines.py.)
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import replace
from typing import Any

import pytest
from sqlalchemy import select

from db.models import Game as GameRow
from db.models import Player
from playtest.players import message, until
from tests.e2e.test_deadlines import hold_write_lock
from tests.harness import running_bot, sandbox_settings

pytestmark = pytest.mark.timeout(120)


async def lobby_of(table: Any) -> Any:
    return await until(
        lambda: next((m for m in table.sb.channel_messages(table.channel) if m.labels), None),
        what="the lobby message",
    )


async def rows(bot: Any, model: Any) -> list[Any]:
    async with bot.sessions() as s:
        return list((await s.scalars(select(model))).all())


async def test_a_refused_click_or_command_is_answered_privately_in_the_users_language(
    table: Any, bot: Any
) -> None:
    sb = table.sb
    chloe = next(u for u in table.users if u.locale == "fr")
    opening = await sb.slash(table.mod, "resistance new", channel=table.channel)
    assert "open" in (await opening.reply(10) or "")
    lobby = await lobby_of(table)
    first = await sb.click(chloe, lobby, label="Join")
    assert await first.reply(10) == message("common.lobby.joined", "fr", name="Chloé")
    # The same button again: the service refuses (a domain error), in French, privately.
    again = await sb.click(chloe, lobby, label="Join")
    assert await again.reply(10) == message("common.error.already_joined", "fr", name="Chloé")
    assert again.ephemeral
    # A command only moderators may use, typed by a player.
    start = await sb.slash(chloe, "resistance start", channel=table.channel)
    assert await start.reply(10) == message("common.error.not_moderator", "fr")
    assert start.ephemeral
    # A command of a game typed where there is none.
    other = table.guild.add_text_channel("elsewhere")
    status = await sb.slash(table.users[0], "resistance status", channel=other)
    assert await status.reply(10) == message("common.error.no_game_here", "en")
    # Nothing changed: one player, still in the lobby.
    assert [p.user_id for p in await rows(bot, Player)] == [chloe.id]
    assert [g.status for g in await rows(bot, GameRow)] == ["lobby"]


async def test_two_games_opened_in_one_channel_at_once_one_opens_the_other_is_told(
    table: Any, bot: Any
) -> None:
    sb = table.sb
    asked = await asyncio.gather(
        *(sb.slash(table.mod, "resistance new", channel=table.channel) for _ in range(2))
    )
    answers = sorted([await ix.reply(10) or "" for ix in asked])
    busy = message("common.error.channel_busy", "en")
    opened = message("common.lobby.opened", "en", game="The Resistance")
    assert answers == sorted([busy, opened]), answers
    assert all(ix.ephemeral for ix in asked)
    assert len(await rows(bot, GameRow)) == 1
    assert len([m for m in sb.channel_messages(table.channel) if m.labels]) == 1


async def test_a_database_locked_past_the_retries_gets_a_private_try_again(table: Any) -> None:
    sb = table.sb
    settings = sandbox_settings(sb, table.url())
    # No waiting beyond SQLite's own busy timeout (5 s): the click gives up at once after it.
    settings = replace(settings, database=replace(settings.database, busy_wait_seconds=0.0))
    async with running_bot(sb, table.url(), settings=settings) as bot:
        chloe = next(u for u in table.users if u.locale == "fr")
        await (await sb.slash(table.mod, "resistance new", channel=table.channel)).reply(10)
        lobby = await lobby_of(table)
        held = threading.Event()
        holder = threading.Thread(target=hold_write_lock, args=(table.db, 8.0, held))
        holder.start()
        try:
            assert await asyncio.to_thread(held.wait, 10)
            click = await sb.click(chloe, lobby, label="Join")
            assert await click.reply(15) == message("common.error.busy", "fr")
            assert click.ephemeral
        finally:
            await asyncio.to_thread(holder.join)
        assert await rows(bot, Player) == []
        # Once the other writer is done, the same click works.
        click = await sb.click(chloe, lobby, label="Join")
        assert await click.reply(10) == message("common.lobby.joined", "fr", name="Chloé")


async def test_an_interaction_that_expired_costs_one_call_and_no_trace(
    table: Any, bot: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """The bot's first callback came after Discord's window (10062 Unknown interaction):
    nothing can answer that click any more, so the bot makes no second call to try, and logs
    one warning, not an error's trace (under load, both per expired click fed the backlog)."""
    sb = table.sb
    chloe = next(u for u in table.users if u.locale == "fr")
    opening = await sb.slash(table.mod, "resistance new", channel=table.channel)
    assert "open" in (await opening.reply(10) or "")
    lobby = await lobby_of(table)
    sb.interaction_timeout = 0.0  # every first callback now comes too late
    try:
        late = await sb.click(chloe, lobby, label="Join")
        await until(
            lambda: any(late.token in r.path for r in sb.requests), what="the bot's callback"
        )
        await asyncio.sleep(1.0)  # a second call would have come by now
    finally:
        sb.interaction_timeout = 3.0
    made = [r for r in sb.requests if late.token in r.path]
    assert [r.error_code for r in made] == [10062], [(r.route, r.status) for r in made]
    assert "expired before its first callback" in caplog.text
    assert "unexpected error" not in caplog.text and "Traceback" not in caplog.text
    # The bot answers the next click as usual.
    again = await sb.click(chloe, lobby, label="Join")
    assert await again.reply(10) == message("common.error.already_joined", "fr", name="Chloé")
