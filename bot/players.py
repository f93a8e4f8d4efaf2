"""Simulated players: they act only through the sandbox, as people would — type a command in
the channel, read it and their DMs, click. Each game's own table (``games/<kind>/players.py``)
stands on :class:`TableGame`; the demos and the end-to-end tests play with the same ones."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from bot.i18n import t
from sandbox import Sandbox


def text_of(message: Any) -> str:
    parts = [message.content or ""]
    for embed in message.embeds:
        parts += [embed.get("title") or "", embed.get("description") or ""]
        parts += [f"{f.get('name')} {f.get('value')}" for f in embed.get("fields") or []]
    return "\n".join(p for p in parts if p)


async def until(check: Callable[[], Any], timeout: float = 10.0, what: str = "condition") -> Any:
    """Poll ``check`` until it returns something truthy."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while True:
        value = check()
        if value:
            return value
        if loop.time() > end:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


class TableGame:
    """What any game's simulated table does through the sandbox: read the channel, type a
    command in it, read the private answer."""

    def __init__(self, table: Any, players: list[Any], channel: Any | None = None) -> None:
        self.t = table
        self.sb: Sandbox = table.sb
        self.players = players
        self.channel = channel or table.channel

    def public(self) -> list[str]:
        return [text_of(m) for m in self.sb.channel_messages(self.channel)]

    async def new_public(self, since: int, *markers: str, timeout: float = 15.0) -> str:
        def check() -> str | None:
            for text in self.public()[since:]:
                if any(marker in text for marker in markers):
                    return text
            return None

        result: str = await until(check, timeout, f"a channel message with {markers}")
        return result

    async def reply(self, ix: Any) -> str:
        message = await ix.reply_message(10.0)
        return text_of(message) if message is not None else ""

    async def slash(self, who: Any, command: str, **options: Any) -> str:
        ix = await self.sb.slash(who, command, channel=self.channel, **options)
        return await self.reply(ix)


def message(key: str, lang: str = "en", **params: Any) -> str:
    return t(key, lang, **params)
