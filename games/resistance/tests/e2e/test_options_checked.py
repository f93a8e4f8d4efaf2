"""The checks the config makes at start are those of ``/settings resistance`` and
``/resistance new`` (the schema's: games/resistance/options.py, bot/options.py): Morgana
without Percival and a ``deadline_time`` that is not a time of day are refused privately, in
the member's language, and nothing is saved or opened."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from bot.i18n import t
from bot.options import OptionError
from db import repo
from games.resistance.options import RESISTANCE_OPTIONS
from games.resistance.players import Game
from tests.harness import running_bot, sandbox_settings

pytestmark = pytest.mark.timeout(120)

MORGANA = t("resistance.error.morgana_needs_percival", "en")


async def private(table: Any, who: Any, command: str, **options: Any) -> str:
    ix = await table.sb.slash(who, command, channel=table.channel, **options)
    reply = await ix.reply_message(10)
    assert reply is not None and reply.ephemeral, f"{command}: no private answer"
    return str(reply.content)


async def saved_defaults(bot: Any, table: Any) -> dict[str, Any]:
    async with bot.sessions() as s:
        settings = await repo.get_guild_settings(s, table.guild.id)
    return dict(settings.defaults_for("resistance"))


async def test_settings_refuse_morgana_without_percival(table: Any, bot: Any) -> None:
    # the same refusal as the config's ([games.resistance] morgana = true needs percival)
    with pytest.raises(OptionError) as at_start:
        RESISTANCE_OPTIONS.parse_config({"morgana": True})
    assert at_start.value.key == "resistance.error.morgana_needs_percival"

    reply = await private(table, table.mod, "settings resistance", morgana=True)
    assert reply == MORGANA
    assert await saved_defaults(bot, table) == {}  # nothing saved
    reply = await private(table, table.mod, "settings resistance", percival=True, morgana=True)
    assert "Morgana only plays" not in reply
    assert await saved_defaults(bot, table) == {"percival": True, "morgana": True}
    # the guild's defaults checked together: Percival cannot leave while Morgana stays
    reply = await private(table, table.mod, "settings resistance", percival=False)
    assert reply == MORGANA
    assert await saved_defaults(bot, table) == {"percival": True, "morgana": True}
    french = table.users[2]  # Chloé, whose client is in French, with Manage Server
    role = table.guild.add_role("Mods FR", permissions=1 << 5)
    table.guild.add_member(french, roles=[role])
    reply = await private(table, french, "settings resistance", percival=False)
    assert reply == t("resistance.error.morgana_needs_percival", "fr")


async def test_new_game_refuses_a_time_that_is_not_one(table: Any, bot: Any) -> None:
    game = Game(table, table.users[:5])
    for command in ("resistance new", "refutation new"):
        reply = await private(table, table.mod, command, deadline_time="9pm")
        assert reply == t("daily.bad_time", "en", value="9pm"), command
        async with bot.sessions() as s:
            assert await repo.active_game_in_channel(s, table.channel.id) is None
    # the guild's defaults are checked by the same check (and kept as HH:MM)
    reply = await private(table, table.mod, "settings resistance", deadline_time="24:00")
    assert reply == t("daily.bad_time", "en", value="24:00")
    await private(table, table.mod, "settings resistance", deadline_time="9:05")
    assert (await saved_defaults(bot, table))["deadline_time"] == "09:05"
    await game.open()
    async with bot.sessions() as s:
        opened = await repo.active_game_in_channel(s, table.channel.id)
        assert opened is not None and opened.options["deadline_time"] == "09:05"


async def test_config_defaults_are_checked_with_what_a_game_is_given(table: Any) -> None:
    """A config whose Avalon games have Percival and Morgana: a moderator who turns Percival
    off for one game is refused, by the check the config passed at start."""
    defaults = RESISTANCE_OPTIONS.parse_config({"percival": True, "morgana": True})
    settings = replace(sandbox_settings(table.sb, table.url()), games={"resistance": defaults})
    async with running_bot(table.sb, table.url(), settings=settings) as bot:
        reply = await private(table, table.mod, "resistance new", variant="avalon", percival=False)
        assert reply == MORGANA
        async with bot.sessions() as s:
            assert await repo.active_game_in_channel(s, table.channel.id) is None
        # a classic game leaves the Avalon roles out: nothing to refuse
        reply = await private(table, table.mod, "resistance new", percival=False)
        assert "Morgana only plays" not in reply
        async with bot.sessions() as s:
            opened = await repo.active_game_in_channel(s, table.channel.id)
            assert opened is not None and opened.options["morgana"] is False
