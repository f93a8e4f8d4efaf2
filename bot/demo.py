"""``python -m bot demo``: a whole game against the local Discord emulator, printed as it happens.

No token and no network: the sandbox serves Discord's REST API and gateway on loopback, the real
bot logs into it with a temporary SQLite file, and simulated players click their DM buttons.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import random
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import discord

from bot.harness import running_bot, sqlite_url
from bot.plugins import GamePlugin

#: The players of a demo whose module names none (``DEMO_PLAYERS``).
PLAYERS = ["Alice", "Bruno", "Chloé", "Dmitri", "Esther"]


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


def demos(plugins: Iterable[GamePlugin]) -> dict[str, str]:
    """The demos these games ship (their plugins' ``demos``): name -> "module:function"."""
    return {name: target for p in plugins for name, target in p.demos.items()}


def demo_play(
    plugins: Iterable[GamePlugin], game: str
) -> tuple[Callable[..., Awaitable[None]], list[str]]:
    """The demo's play function and its players (the module's ``DEMO_PLAYERS``, else five)."""
    module_name, _, function = demos(plugins)[game].partition(":")
    module = importlib.import_module(module_name)
    play: Callable[..., Awaitable[None]] = getattr(module, function)
    return play, list(getattr(module, "DEMO_PLAYERS", PLAYERS))


async def run_demo(plugins: Sequence[GamePlugin], game: str, seed: int = 7) -> int:
    from sandbox import Sandbox

    play, names = demo_play(plugins, game)
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
            url = sqlite_url(Path(tmp) / "demo.sqlite3")
            async with running_bot(sb, url, seed=seed, plugins=plugins):
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


def options_text(options: dict[str, Any]) -> str:
    def show(value: Any) -> str:
        return f"@{value.name}" if hasattr(value, "name") and hasattr(value, "id") else str(value)

    return " ".join(f"{k}:{show(v)}" for k, v in options.items())
