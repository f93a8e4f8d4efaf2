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


async def test_every_command_option_and_choice_is_localized_in_french(table: Any, bot: Any) -> None:
    commands = table.sb.commands()
    names = {c["name"] for c in commands}
    assert {"resistance", "settings"} <= names
    for command in commands:
        for path, item in walk(command, command["name"]):
            fr_name = (item.get("name_localizations") or {}).get("fr")
            assert fr_name, f"/{path} has no French name"
            if "choices" not in path and "=" not in path:
                assert NAME.match(fr_name) and fr_name == fr_name.lower(), (path, fr_name)
                assert (item.get("description_localizations") or {}).get("fr"), (
                    f"/{path} has no French description"
                )


async def test_a_french_client_gets_french_answers(table: Any, bot: Any) -> None:
    chloe = next(u for u in table.users if u.locale == "fr")
    ix = await table.sb.slash(chloe, "resistance status", channel=table.channel)
    reply = await ix.reply_message(10)
    assert reply is not None and "Aucune partie" in reply.text
