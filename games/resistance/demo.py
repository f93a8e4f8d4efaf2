"""``python -m bot demo``: five simulated players play The Resistance to its end.

They act only through the sandbox, as people would: slash commands in the channel and the
buttons of their DMs. Each reads only their own DMs (a spy knows it is a spy from its role DM).
"""

from __future__ import annotations

import asyncio
import random
import re
from typing import Any

from bot.demo import PLAYERS, slash, until

#: Avalon with the Lady of the Lake wants seven players (the Lady is recommended from 7).
AVALON_PLAYERS = [*PLAYERS, "Farid", "Gwen"]
VOTE_SECONDS = 4.0


async def open_and_start(sb: Any, channel: Any, mod: Any, users: list[Any], **options: Any) -> None:
    """The moderator opens a Resistance lobby with ``options``; everyone joins; it starts."""
    await slash(sb, channel, mod, "resistance new", **options)
    lobby = await until(lambda: next((m for m in sb.channel_messages(channel) if m.labels), None))
    for user in users:
        ix = await sb.click(user, lobby, label="Join")
        await ix.reply_message(10.0)
    await slash(sb, channel, mod, "resistance start")


async def play_resistance(
    sb: Any, channel: Any, mod: Any, users: list[Any], rng: random.Random
) -> None:
    by_name = {u.name: u for u in users}
    await open_and_start(
        sb, channel, mod, users, vote_hours=VOTE_SECONDS / 3600, reminder_hours=0.0
    )

    def role_of(user: Any) -> str:
        for message in sb.dms(user):
            if "**Spy**" in message.content or "**Espion**" in message.content:
                return "spy"
        return "resistance"

    await until(
        lambda: all(
            any("You are" in m.content or "Vous incarnez" in m.content for m in sb.dms(u))
            for u in users
        )
    )
    spies = {u.id for u in users if role_of(u) == "spy"}

    def leader() -> Any:
        text = sb.pins(channel)[-1].content
        match = re.search(r"\*\*(.+?)\*\* ←", text)
        return by_name[match.group(1)] if match else None

    def over() -> bool:
        return any(
            "wins" in m.content or "gagne" in m.content for m in sb.channel_messages(channel)
        )

    while not over():
        chief = await until(leader)
        others = [u for u in users if u is not chief]
        team = [chief, *rng.sample(others, team_size(sb, channel) - 1)]
        before = {u.id: len(sb.dms(u)) for u in users}
        team_options = {f"player{i}": u for i, u in enumerate(team, 1)}
        await slash(sb, channel, chief, "resistance propose", **team_options)

        def all_asked(b: dict[int, int] = before) -> bool:
            return all(any(m.labels for m in sb.dms(u)[b[u.id] :]) for u in users)

        await until(all_asked)
        silent = rng.choice(users) if rng.random() < 0.3 else None
        for user in users:
            if user is silent:
                continue  # forgets to vote: the deadline still resolves the round
            dm = next(m for m in reversed(sb.dms(user)) if m.labels)
            accept = rng.random() < (
                0.35 if user.id in spies and not set(spies) & {u.id for u in team} else 0.7
            )
            await click(sb, user, dm, "accept" if accept else "reject")
            if user in team:
                sabotage = user.id in spies and rng.random() < 0.7
                await click(sb, user, dm, "sabotage" if sabotage else "support")
        count = len(sb.channel_messages(channel))

        def vote_counted(c: int = count) -> bool:
            return any(
                "Team accepted" in m.content or "Team rejected" in m.content
                for m in sb.channel_messages(channel)[c:]
            )

        await until(vote_counted, timeout=VOTE_SECONDS + 20)
        await asyncio.sleep(0.3)


def team_size(sb: Any, channel: Any) -> int:
    """Read from the latest debate announcement, as a player would."""
    for message in reversed(sb.channel_messages(channel)):
        match = re.search(r"team of (\d+)", message.content)
        if match:
            return int(match.group(1))
    raise AssertionError("no debate announcement")


async def click(sb: Any, user: Any, message: Any, choice: str) -> None:
    custom_id = next(
        c["custom_id"]
        for c in message.all_components
        if str(c.get("custom_id", "")).endswith(f":{choice}")
    )
    ix = await sb.click(user, message, custom_id=custom_id)
    await ix.reply_message(10.0)
