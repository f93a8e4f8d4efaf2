"""A redelivered command returns the answer its first delivery gave, through the sandbox: the
first answer of a ``/settings`` change is kept with it, in the mover's language, and the second
delivery (after a RESUME, the same id and token) is answered with it, changing nothing more."""

from __future__ import annotations

from typing import Any

import pytest

from bot.i18n import t
from db import repo
from playtest.players import text_of, until

pytestmark = pytest.mark.timeout(60)


async def answered_again(sb: Any, ix: Any) -> Any:
    """Deliver ``ix`` again; the bot's callback to that second delivery."""
    calls = len(sb.requests_to("/callback"))
    await sb.redeliver(ix)
    await until(lambda: len(sb.requests_to("/callback")) > calls, what="the second answer")
    return sb.requests_to("/callback")[calls]


@pytest.mark.parametrize("locale", ["en-US", "fr"])
async def test_a_redelivered_settings_change_is_answered_as_the_first_was(
    table: Any, bot: Any, locale: str
) -> None:
    sb = table.sb
    table.mod.locale = locale
    ix = await sb.slash(table.mod, "settings members_host", channel=table.channel, enabled=True)
    first = text_of(await ix.reply_message(10.0))
    assert first == t("settings.members_host_on", locale[:2], max=3)
    async with bot.sessions() as s:  # the change, made once, and undone meanwhile by hand
        settings = await repo.get_guild_settings(s, table.guild.id)
        settings.members_host = False
        await repo.save_guild_settings(s, settings)
        await s.commit()
    again = await answered_again(sb, ix)
    assert again.status == 400 and again.error_code == 40060  # Discord: already acknowledged
    assert again.json["data"]["content"] == first
    async with bot.sessions() as s:  # acted once: the redelivery did not set it again
        assert (await repo.get_guild_settings(s, table.guild.id)).members_host is False


@pytest.mark.parametrize("locale", ["en-US", "fr"])
async def test_a_redelivered_new_game_opens_one_post_and_is_answered_as_the_first_was(
    table: Any, bot: Any, locale: str
) -> None:
    table.mod.locale, sb = locale, table.sb
    ix = await sb.slash(table.mod, "resistance new", channel=table.channel, forum=table.forum)
    first = text_of(await ix.reply_message(10.0))
    assert "<#" in first  # the post it opened
    assert (await answered_again(sb, ix)).json["data"]["content"] == first
    assert len(sb.threads(table.forum)) == 1
    async with bot.sessions() as s:
        assert len(await repo.running_games(s, [table.guild.id], statuses=("lobby",))) == 1
