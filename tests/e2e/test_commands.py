"""The slash commands as Discord receives them: every name and description also in French."""

from __future__ import annotations

import re
from typing import Any

import pytest

pytestmark = pytest.mark.timeout(60)

NAME = re.compile(r"^[-_\w]{1,32}$")


def walk(command: dict[str, Any], path: str) -> list[tuple[str, dict[str, Any]]]:
    found = [(path, command)]
    for option in command.get("options") or []:
        found += walk(option, f"{path} {option['name']}")
        for choice in option.get("choices") or []:
            found.append((f"{path} {option['name']}={choice['value']}", choice))
    return found


def assert_all_in_french(commands: list[dict[str, Any]]) -> None:
    for command in commands:
        for path, item in walk(command, command["name"]):
            fr_name = (item.get("name_localizations") or {}).get("fr")
            assert fr_name, f"/{path} has no French name"
            if "choices" not in path and "=" not in path:
                assert NAME.match(fr_name) and fr_name == fr_name.lower(), (path, fr_name)
                assert (item.get("description_localizations") or {}).get("fr"), (
                    f"/{path} has no French description"
                )


async def test_every_command_option_and_choice_is_localized_in_french(table: Any, bot: Any) -> None:
    commands = table.sb.commands()
    names = {c["name"] for c in commands}
    assert {"resistance", "settings"} <= names
    assert_all_in_french(commands)


async def test_a_plugin_games_commands_and_its_settings_are_localized_in_french(
    table: Any,
) -> None:
    """The poll plugin's catalogue names only its own /poll commands; the /settings poll made
    from its schema is French too: named as /poll, its options as /poll nouveau names them."""
    from games.builtin import builtin_plugins
    from tests.e2e.poll_game.plugin import PLUGIN
    from tests.harness import running_bot

    async with running_bot(table.sb, table.url(), plugins=[*builtin_plugins(), PLUGIN]):
        commands = table.sb.commands()
        assert {"poll", "settings"} <= {c["name"] for c in commands}
        settings = next(c for c in commands if c["name"] == "settings")
        assert "poll" in {o["name"] for o in settings["options"]}
        assert_all_in_french(commands)


async def test_a_french_client_gets_french_answers(table: Any, bot: Any) -> None:
    chloe = next(u for u in table.users if u.locale == "fr")
    ix = await table.sb.slash(chloe, "resistance status", channel=table.channel)
    reply = await ix.reply_message(10)
    assert reply is not None and "Aucune partie" in reply.text


PUT_GLOBAL = "PUT /applications/{application_id}/commands"
PUT_GUILD = "PUT /applications/{application_id}/guilds/{guild_id}/commands"


async def test_commands_are_synced_only_when_the_tree_changed(table: Any) -> None:
    from dataclasses import replace

    from bot.app import COGS
    from tests.harness import running_bot, sandbox_settings

    sb = table.sb
    async with running_bot(sb, table.url()):
        pass
    assert len(sb.requests_to(PUT_GLOBAL)) == 1
    synced = [c["name"] for c in sb.commands()]
    # A second start with the same commands: no PUT (Discord rate-limits command updates).
    async with running_bot(sb, table.url()) as bot:
        assert len(sb.requests_to(PUT_GLOBAL)) == 1
        assert [c["name"] for c in sb.commands()] == synced
        reply = await (
            await sb.slash(table.users[0], "resistance status", channel=table.channel)
        ).reply(10)
        assert reply is not None and "no game" in reply.lower()
        assert await bot.sync_commands() is False
    # A changed tree (one cog fewer) is synced, then not again.
    for _ in range(2):
        async with running_bot(
            sb, table.url(), cogs=tuple(c for c in COGS if c != "cogs.settings")
        ):
            pass
    assert len(sb.requests_to(PUT_GLOBAL)) == 2
    assert "settings" not in {c["name"] for c in sb.commands()}
    # The development guild is its own scope: synced once there.
    settings = sandbox_settings(sb, table.url(), dev_guild_id=table.guild.id)
    for _ in range(2):
        async with running_bot(sb, table.url(), settings=replace(settings)):
            pass
    assert len(sb.requests_to(PUT_GUILD)) == 1
