"""One notice per missing permission until it is given back, through the sandbox: with Send
Messages taken in the game's channel, the result and the next leader's call are both refused,
and the game's creator is told once, by DM, naming the permission as Discord's settings do (in
the server's language) and ``resync``; the second refusal adds only its log line and its failed
outbox row. Given back and resynced, then lost again, it is told again."""

from __future__ import annotations

import logging
import sqlite3
from typing import Any

import pytest

from bot.i18n import t
from games.resistance.players import Game
from playtest.players import text_of, until
from sandbox import util
from tests.e2e.test_debate_lock import team_of
from tests.e2e.test_resync import bot_sees, failed_kinds, silenced_after_a_vote

pytestmark = pytest.mark.timeout(90)

TOLD_ALREADY = "its missing permission was told already"


def pending(table: Any) -> int:
    with sqlite3.connect(table.db) as db:
        return int(db.execute("SELECT count(*) FROM outbox WHERE status = 'pending'").fetchone()[0])


@pytest.mark.parametrize("lang", ["en", "fr"])
async def test_a_permission_that_stays_missing_is_told_once_until_given_back(
    table: Any, bot: Any, caplog: pytest.LogCaptureFixture, lang: str
) -> None:
    caplog.set_level(logging.INFO, logger="bot.dispatcher")
    sb, guild = table.sb, table.guild
    channel = sb.channel(table.channel.id)
    if lang == "fr":
        await Game(table, []).slash(table.mod, "settings language", language="fr")
    game = await silenced_after_a_vote(table, bot)
    dms = len(sb.dms(table.mod))
    name = f"**{t('common.permission.send_messages', lang)}**"

    def notices() -> list[str]:
        return [text_of(m) for m in sb.dms(table.mod)[dms:] if name in text_of(m)]

    await game.slash(table.mod, "resistance resolve")
    # The result, then the next leader's call: both refused, named once.
    await until(lambda: failed_kinds(table) == ["post", "post"], what="both posts refused")
    await until(lambda: len(notices()) == 1, what="the notice")
    assert "/resistance resync" in notices()[0] and f"<#{channel.id}>" in notices()[0]
    assert "send_messages" not in notices()[0]
    await until(lambda: TOLD_ALREADY in caplog.text, what="the second refusal's log line")
    assert caplog.text.count(TOLD_ALREADY) == 1
    channel.set_permissions(guild.bot_role)  # given back, then resync
    await bot_sees(bot, channel.id, "send_messages", True)
    await game.slash(table.mod, "resistance resync")
    await game.new_public(0, "debate is open", "le débat est ouvert")
    # Lost again: told again, once.
    channel.set_permissions(guild.bot_role, deny=util.SEND_MESSAGES)
    await bot_sees(bot, channel.id, "send_messages", False)
    await game.slash(game.leader(), "resistance status")  # nothing posted: nothing told
    assert len(notices()) == 1
    await game.slash(table.mod, "resistance cancel")  # its post refused
    await until(lambda: len(notices()) == 2, what="the second notice")


async def test_the_debate_lock_refused_for_the_same_lost_permission_tells_nothing_more(
    table: Any, bot: Any
) -> None:
    """With the debate closed during votes, Send Messages taken also refuses the overwrites
    (Discord lets the bot deny only what it holds): still one notice, naming Send Messages."""
    sb, guild = table.sb, table.guild
    channel = sb.channel(table.channel.id)
    game = Game(table, table.users[:5])
    await game.open(lock_during_vote=True, reminder_hours=0.0)
    await game.start()
    channel.set_permissions(guild.bot_role, deny=util.SEND_MESSAGES)
    await bot_sees(bot, channel.id, "send_messages", False)
    dms = len(sb.dms(table.mod))
    await game.propose(team_of(game))
    await until(lambda: "debate" in failed_kinds(table), what="the debate's lock refused")
    await until(lambda: pending(table) == 0, what="every effect delivered or refused")
    told = [text_of(m) for m in sb.dms(table.mod)[dms:] if "resync" in text_of(m)]
    assert len(told) == 1 and "**Send Messages**" in told[0] and "Manage Roles" not in told[0]
