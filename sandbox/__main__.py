"""``python -m sandbox --port 8765``: run the sandbox standalone with a demo guild."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging

from . import util
from .core import Sandbox
from .models import Message


def build_demo(sb: Sandbox) -> None:
    alice = sb.add_user("Alice", locale="en-US")
    bob = sb.add_user("Bob", locale="fr")
    carol = sb.add_user("Carol")
    dave = sb.add_user("Dave")
    erin = sb.add_user("Erin", dms_open=False)
    guild = sb.add_guild("Sandbox Guild", owner=alice)
    mods = guild.add_role("Moderators", permissions=util._P(manage_guild=True).value)
    guild.add_text_channel("general", topic="Games are played here")
    guild.add_forum_channel("games", tags=["resistance", "refutation"])
    guild.add_member(bob, roles=[mods])
    for user in (carol, dave, erin):
        guild.add_member(user)


def describe(sb: Sandbox) -> str:
    lines = [
        f"Discord sandbox listening on {sb.base_url}",
        "",
        "Point a bot at it (config.toml):",
        sb.config_lines(),
    ]
    for guild in sb.guilds.values():
        lines.append(f"guild {guild.name} ({guild.id})")
        for channel in guild.channels:
            lines.append(f"  #{channel.name} ({channel.id}) type {channel.type}")
        for member in guild.members.values():
            user = member.user
            extra = " [bot]" if user.bot else ("" if user.dms_open else " [DMs closed]")
            lines.append(f"  @{user.name} ({user.id}){extra}")
    return "\n".join(lines)


def _print_message(sb: Sandbox) -> None:
    def listener(event: str, msg: Message) -> None:
        channel = sb.channels.get(msg.channel_id)
        where = f"#{channel.name}" if channel and channel.name else "DM"
        if channel is not None and channel.is_dm and channel.recipient_id:
            where = f"DM {sb.users[channel.recipient_id].name}"
        author = sb.users[msg.author_id].name
        verb = "edited" if event == "MESSAGE_UPDATE" else "says"
        print(f"[{where}] {author} {verb}: {msg.text[:200]!r}", flush=True)

    sb.message_listeners.append(listener)


async def serve(host: str, port: int, token: str | None, shards: int, quiet: bool) -> None:
    sb = Sandbox(host=host, port=port, token=token, recommended_shards=shards)
    build_demo(sb)
    async with sb:
        print(describe(sb), flush=True)
        if not quiet:
            _print_message(sb)
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.Event().wait()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m sandbox", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--token", default=None, help="bot token to accept (default: random)")
    parser.add_argument("--shards", type=int, default=1, help="shards from GET /gateway/bot")
    parser.add_argument("--quiet", action="store_true", help="do not print messages")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(args.host, args.port, args.token, args.shards, args.quiet))


if __name__ == "__main__":
    main()
