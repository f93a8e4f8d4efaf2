"""The moderators' log in the Refutation Game's own command: a moderator's ``skip`` takes a
reason, logged in the ``mod_log`` channel with it."""

from __future__ import annotations

from typing import Any

import pytest

from bot.i18n import t
from games.refutation.tests.e2e.test_refutation_turns import started
from playtest.players import text_of, until

pytestmark = pytest.mark.timeout(120)


async def test_a_skip_is_logged_with_its_reason(table: Any, bot: Any) -> None:
    log_channel = table.guild.add_text_channel("mod-log")
    game = await started(table, [table.users[i] for i in (0, 1, 3)])
    await game.slash(table.mod, "settings mod_log", named={"channel": log_channel})
    await game.slash(table.mod, "refutation skip", reason="away all week")

    def posted() -> list[str]:
        return [text_of(m) for m in table.sb.channel_messages(log_channel)]

    await until(lambda: len(posted()) == 2, what="the setting's entry and the skip's")
    skipped = posted()[-1]
    assert skipped.endswith(
        t("modlog.action.skip", "en") + t("modlog.why", "en", reason="away all week")
    )


async def test_a_change_of_deck_is_logged_with_its_reason(table: Any, bot: Any) -> None:
    log_channel = table.guild.add_text_channel("mod-log")
    ix = await table.sb.slash(
        table.mod, "settings mod_log", channel=table.channel, named={"channel": log_channel}
    )
    await ix.reply_message(10.0)
    ix = await table.sb.slash(
        table.mod, "settings refutation deck", channel=table.channel, name="default", reason="term"
    )
    await ix.reply_message(10.0)

    def posted() -> list[str]:
        return [text_of(m) for m in table.sb.channel_messages(log_channel)]

    await until(lambda: len(posted()) == 2, what="the two settings' entries")
    changed = t("modlog.action.settings", "en", setting="deck", value="default")
    assert posted()[-1].endswith(changed + t("modlog.why", "en", reason="term"))
