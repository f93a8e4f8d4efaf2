"""``python -m bot demo``: a whole game against the local Discord emulator, printed as it happens.

No token and no network: the sandbox serves Discord's REST API and gateway on loopback, the real
bot logs into it with a temporary SQLite file, and simulated players click their DM buttons.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import random
import re
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import discord

from bot.harness import running_bot, sqlite_url

PLAYERS = ["Alice", "Bruno", "Chloé", "Dmitri", "Esther"]
#: Avalon with the Lady of the Lake wants seven players (the Lady is recommended from 7).
AVALON_PLAYERS = [*PLAYERS, "Farid", "Gwen"]
VOTE_SECONDS = 4.0


def render(message: Any) -> str:
    parts = [message.content or ""]
    for embed in message.embeds:
        parts += [f"[{embed.get('title') or ''}] {embed.get('description') or ''}".strip()]
    if message.labels:
        parts.append("  " + " ".join(f"[{label}]" for label in message.labels))
    for select in message.selects:
        names = " | ".join(str(o.get("label")) for o in select.get("options") or [])
        parts.append(f"  [menu: {names}]")
    return "\n".join(p for p in parts if p)


class Printer:
    """Prints every new channel message and DM, the way each reader sees it."""

    def __init__(self, sb: Any, channel: Any, users: list[Any], out: Any = sys.stdout) -> None:
        self.sb, self.channel, self.users, self.out = sb, channel, users, out
        self.seen: set[int] = set()
        self.start = time.monotonic()

    def flush(self) -> None:
        feeds = [(f"#{self.channel.name}", self.sb.channel_messages(self.channel))]
        feeds += [(f"DM → {u.name}", self.sb.dms(u)) for u in self.users]
        for where, messages in feeds:
            for message in messages:
                if message.id in self.seen or not message.author_is_bot or message.loading:
                    continue
                self.seen.add(message.id)
                where_shown = f"{where} (private answer)" if message.ephemeral else where
                stamp = f"{time.monotonic() - self.start:5.1f}s"
                body = render(message).replace("\n", "\n" + " " * (len(where_shown) + 10))
                print(f"{stamp} {where_shown} | {body}", file=self.out, flush=True)

    async def run(self) -> None:
        while True:
            self.flush()
            await asyncio.sleep(0.05)


async def until(check: Callable[[], Any], timeout: float = 30.0) -> Any:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = check()
        if value:
            return value
        await asyncio.sleep(0.05)
    raise TimeoutError("the demo waited too long")


def demos() -> dict[str, str]:
    """The demos the built-in games ship (their plugins' ``demos``): name -> "module:function"."""
    from bot.plugins import builtin_plugins

    return {name: target for p in builtin_plugins() for name, target in p.demos.items()}


def demo_play(game: str) -> tuple[Callable[..., Awaitable[None]], list[str]]:
    """The demo's play function and its players (the module's ``DEMO_PLAYERS``, else five)."""
    module_name, _, function = demos()[game].partition(":")
    module = importlib.import_module(module_name)
    play: Callable[..., Awaitable[None]] = getattr(module, function)
    return play, list(getattr(module, "DEMO_PLAYERS", PLAYERS))


async def run_demo(game: str = "resistance", seed: int = 7) -> int:
    from sandbox import Sandbox

    play, names = demo_play(game)
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="pbp-demo-") as tmp:
        async with Sandbox() as sb:
            guild = sb.add_guild("Demo server")
            mods = guild.add_role(
                "Game masters", permissions=discord.Permissions(manage_guild=True).value
            )
            mod = sb.add_user("Moderator")
            guild.add_member(mod, roles=[mods])
            users = []
            for name in names:
                user = sb.add_user(name, locale="fr" if name == "Chloé" else "en-US")
                guild.add_member(user)
                users.append(user)
            channel = guild.add_text_channel(game)
            printer = Printer(sb, channel, users)
            async with running_bot(sb, sqlite_url(Path(tmp) / "demo.sqlite3"), seed=seed):
                task = asyncio.create_task(printer.run())
                try:
                    await play(sb, channel, mod, users, rng)
                    await asyncio.sleep(0.5)
                finally:
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await task
                    printer.flush()
    print("\nDemo finished.")
    return 0


async def slash(sb: Any, channel: Any, user: Any, command: str, **options: Any) -> None:
    """``user`` types ``/command`` in the channel; the command and the private answer are shown."""
    print(f"       /{command} by {user.name}" + (f" {options_text(options)}" if options else ""))
    ix = await sb.slash(user, command, channel=channel, **options)
    reply = await ix.reply_message(10.0)
    if reply is not None:
        print(f"       (only {user.name} sees) {render(reply)}")


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
            if "Spy" in message.content or "Espion" in message.content:
                return "spy"
        return "resistance"

    await until(
        lambda: all(
            any("You are" in m.content or "Vous êtes" in m.content for m in sb.dms(u))
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


def options_text(options: dict[str, Any]) -> str:
    def show(value: Any) -> str:
        return f"@{value.name}" if hasattr(value, "name") and hasattr(value, "id") else str(value)

    return " ".join(f"{k}:{show(v)}" for k, v in options.items())
