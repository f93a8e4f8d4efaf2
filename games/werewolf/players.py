"""Simulated players of Werewolf: they act only through the sandbox, as people would
(playtest/players.py) — read their role DM, pick in the den's menu or their DM's, vote in the
day's menu. The end-to-end tests (and the demo) play with them."""

from __future__ import annotations

import re
from functools import partial
from typing import Any

from playtest.players import TableGame, text_of, until

#: The role in bold in a role DM, in English and in French, and the names it may have.
ROLE = re.compile(r"(?:You are a|Vous êtes) \*\*(.+?)\*\*")
ROLES = {
    "werewolf": "werewolf",
    "loup-garou": "werewolf",
    "villager": "villager",
    "villageois": "villager",
    "seer": "seer",
    "voyante": "seer",
    "witch": "witch",
    "sorcière": "witch",
    "hunter": "hunter",
    "chasseur": "hunter",
    "Cupid": "cupid",
    "Cupidon": "cupid",
}
DEN_NAMES = ("Werewolves' den", "Tanière des loups-garous")
END_MARKERS = (
    "The village wins",
    "The werewolves win",
    "The lovers win",
    "Le village gagne",
    "Les loups-garous gagnent",
    "Les amoureux gagnent",
)


class Game(TableGame):
    """One game of Werewolf driven through the sandbox by its players and moderator."""

    def __init__(self, table: Any, players: list[Any], channel: Any | None = None) -> None:
        super().__init__(table, players, channel)
        self.roles: dict[int, str] = {}

    # -- the lobby and the start ----------------------------------------------------------------

    async def open(self, **options: Any) -> None:
        since = len(self.sb.channel_messages(self.channel))
        reply = await self.slash(self.t.mod, "werewolf new", **options)
        assert "open" in reply or "ouvert" in reply, reply
        lobby = await until(
            lambda: next(
                (m for m in self.sb.channel_messages(self.channel)[since:] if m.labels), None
            ),
            what="the lobby message",
        )
        join = "Join" if "Join" in lobby.labels else "Rejoindre"
        for user in self.players:
            await self.reply(await self.press(user, lobby, label=join))

    async def start(self) -> str:
        reply = await self.slash(self.t.mod, "werewolf start")
        for user in self.players:
            await self.learn_role(user)
        return reply

    async def learn_role(self, user: Any) -> str:
        dm: str = await until(partial(self.role_dm, user), what=f"{user.name}'s role")
        match = ROLE.search(dm)
        assert match is not None, dm
        self.roles[user.id] = ROLES[match.group(1)]
        return dm

    def role_dm(self, user: Any) -> str | None:
        for message in reversed(self.sb.dms(user)):
            text = text_of(message)
            if ROLE.search(text):
                return text
        return None

    def having(self, role: str) -> list[Any]:
        return [u for u in self.players if self.roles.get(u.id) == role]

    def one(self, role: str) -> Any:
        return self.having(role)[0]

    def others(self) -> list[Any]:
        return [u for u in self.players if self.roles.get(u.id) != "werewolf"]

    # -- the night ------------------------------------------------------------------------------

    def den(self) -> Any:
        for name in DEN_NAMES:
            thread = self.sb.thread_of(self.channel, name)
            if thread is not None:
                return thread
        return None

    def den_menu(self, night: int = 1) -> Any:
        """The den's menu of night ``night`` (the den's post "**Night 2** — …"), once posted."""
        den = self.den()
        messages = self.sb.messages_in(den) if den is not None else []
        mark = f" {night}** —"
        return next((m for m in reversed(messages) if m.selects and mark in text_of(m)), None)

    def dm_menu(self, user: Any, since: int = 0, night: int | None = None) -> Any:
        """The latest menu of the user's DMs from message ``since`` on (of night ``night``:
        its text "**Night 2** — …")."""
        mark = "" if night is None else f" {night}** —"
        messages = reversed(self.sb.dms(user)[since:])
        return next((m for m in messages if m.selects and mark in text_of(m)), None)

    async def kill(self, wolf: Any, victim: Any, night: int = 1) -> str:
        menu = await until(partial(self.den_menu, night), what=f"the den's menu of night {night}")
        return await self.reply(await self.select(wolf, menu, [str(victim.id)]))

    async def act(self, user: Any, value: str, since: int = 0, night: int | None = None) -> str:
        """``user`` picks ``value`` in the latest menu of their DM (from message ``since``; of
        night ``night``)."""
        menu = await until(partial(self.dm_menu, user, since, night), what=f"{user.name}'s menu")
        return await self.reply(await self.select(user, menu, [value]))

    # -- the day --------------------------------------------------------------------------------

    def count_message(self) -> Any:
        return next(
            (m for m in reversed(self.sb.channel_messages(self.channel)) if m.selects), None
        )

    async def vote(self, voter: Any, target: Any | None) -> str:
        """A vote in the day's menu, or a click on its No elimination button."""
        menu = await until(self.count_message, what="the day's vote menu")
        if target is None:
            none = next(label for label in menu.labels)
            return await self.reply(await self.press(voter, menu, label=none))
        return await self.reply(await self.select(voter, menu, [str(target.id)]))
