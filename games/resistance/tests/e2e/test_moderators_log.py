"""The moderators' log in the Resistance's own commands: ``/resistance history`` lists the
game's moderator actions with their reasons, in the reader's language."""

from __future__ import annotations

from typing import Any

import pytest

from bot.i18n import t
from games.resistance.players import Game

pytestmark = pytest.mark.timeout(120)


@pytest.mark.parametrize("lang", ["en", "fr"])
async def test_history_lists_the_moderators_actions(table: Any, bot: Any, lang: str) -> None:
    game = Game(table, table.users[:5])
    await game.open(leader_hours=4.0)
    await game.start()
    await game.slash(table.mod, "resistance extend", hours=2.0, reason="a *slow* table")
    before, table.mod.locale = table.mod.locale, "fr" if lang == "fr" else "en-US"
    try:
        ix = await table.sb.slash(table.mod, "resistance history", channel=table.channel)
        reply = await ix.reply_message(10.0)
    finally:
        table.mod.locale = before
    assert reply is not None
    text = reply.content
    assert f"**{t('modlog.record_title', lang)}**" in text
    assert t("modlog.action.extend", lang, hours="2") in text
    assert text.endswith(t("modlog.why", lang, reason="a \\*slow\\* table"))
