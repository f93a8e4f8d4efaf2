"""Simulated players: they act only through the sandbox, as people would — type a command in
the channel, read it and their DMs, click. Each game's own table (``games/<kind>/players.py``)
stands on :class:`TableGame`; the demos and the end-to-end tests play with the same ones.

Every action goes through :meth:`TableGame.command`, :meth:`TableGame.press` and
:meth:`TableGame.select`, which first tell the table's :class:`Echo`, if it has one: the demo's
transcript prints each command as its author types it and each click, before the answer."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

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


class Echo(Protocol):
    """What hears of each action before it reaches Discord (the demo's transcript)."""

    def command(self, user: Any, command: str, options: Mapping[str, Any]) -> None: ...

    def click(self, user: Any, message: Any, button: Mapping[str, Any]) -> None: ...

    def select(self, user: Any, message: Any, values: Sequence[str]) -> None: ...


def component(message: Any, label: str | None = None, custom_id: str | None = None) -> Any:
    """The button of ``message`` with this label or custom id (as the sandbox finds it)."""
    for found in message.all_components:
        if found.get("type") != 2:
            continue
        if (label is None or found.get("label") == label) and (
            custom_id is None or found.get("custom_id") == custom_id
        ):
            return found
    return {"label": label or custom_id}


class TableGame:
    """What any game's simulated table does through the sandbox: read the channel, type a
    command in it, click, pick in a menu, read the private answer. ``table.echo`` (optional)
    hears of each action first."""

    def __init__(self, table: Any, players: list[Any], channel: Any | None = None) -> None:
        self.t = table
        self.sb: Sandbox = table.sb
        self.players = players
        self.channel = channel or table.channel
        self.echo: Echo | None = getattr(table, "echo", None)

    # -- acting, as people do -----------------------------------------------------------------

    async def command(self, who: Any, command: str, **options: Any) -> Any:
        """``who`` types ``/command`` in the game's channel; the interaction."""
        if self.echo is not None:
            self.echo.command(who, command, options)
        return await self.sb.slash(who, command, channel=self.channel, **options)

    async def press(
        self, who: Any, message: Any, *, label: str | None = None, custom_id: str | None = None
    ) -> Any:
        """``who`` clicks a button of ``message`` (by label or custom id); the interaction."""
        if self.echo is not None:
            self.echo.click(who, message, component(message, label, custom_id))
        return await self.sb.click(who, message, label=label, custom_id=custom_id)

    async def select(self, who: Any, message: Any, values: list[str]) -> Any:
        """``who`` picks ``values`` in the select menu of ``message``; the interaction."""
        if self.echo is not None:
            self.echo.select(who, message, values)
        return await self.sb.select(who, message, values=values)

    # -- reading ------------------------------------------------------------------------------

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
        """``who`` types ``/command``; the private (or public) answer's text."""
        return await self.reply(await self.command(who, command, **options))

    async def my_games(self, who: Any, lang: str) -> str:
        """``/games mine:true`` as ``who`` reads it in ``lang`` (their client's locale)."""
        before, who.locale = who.locale, "fr" if lang == "fr" else "en-US"
        try:
            return await self.slash(who, "games", mine=True)
        finally:
            who.locale = before


def message(key: str, lang: str = "en", **params: Any) -> str:
    return t(key, lang, **params)
