"""Simulated players of Avalon: the Resistance table, plus the role DMs, the Lady of the Lake
and the assassination, read and answered through the sandbox as people would."""

from __future__ import annotations

import re
from typing import Any

from tests.e2e.play import Game, text_of, until

AVALON_END_MARKERS = ("Good wins", "Evil wins", "Le Bien gagne", "Le Mal gagne")
#: The bold role name in a role DM (English or French) -> the role.
ROLE_NAMES = {
    "Merlin": "merlin",
    "Percival": "percival",
    "Perceval": "percival",
    "loyal servant of Arthur": "servant",
    "serviteur loyal d’Arthur": "servant",
    "the Assassin": "assassin",
    "l’Assassin": "assassin",
    "Morgana": "morgana",
    "Morgane": "morgana",
    "Mordred": "mordred",
    "Oberon": "oberon",
    "minion of Mordred": "minion",
    "serviteur de Mordred": "minion",
}
EVIL = {"assassin", "morgana", "mordred", "oberon", "minion"}


class AvalonGame(Game):
    """One Avalon game driven through the sandbox."""

    def __init__(self, table: Any, players: list[Any], channel: Any | None = None) -> None:
        super().__init__(table, players, channel)
        self.characters: dict[int, str] = {}

    async def open_avalon(self, **options: Any) -> None:
        await self.open(variant="avalon", **options)

    async def start(self) -> str:
        reply = await super().start()
        for user in self.players:
            dm = self.role_dm(user)
            assert dm is not None
            match = re.search(r"(?:You are|Vous êtes) (?:a |un )?\*\*(.+?)\*\*", dm)
            assert match, dm
            self.characters[user.id] = ROLE_NAMES[match.group(1)]
            self.roles[user.id] = "spy" if self.characters[user.id] in EVIL else "resistance"
        return reply

    def holding(self, character: str) -> list[Any]:
        return [u for u in self.players if self.characters[u.id] == character]

    def one(self, character: str) -> Any:
        (user,) = self.holding(character)
        return user

    def named_in(self, text: str) -> set[str]:
        """The players whose names appear in ``text``."""
        return {u.name for u in self.players if u.name in text}

    def lady_holder(self) -> Any:
        pins = self.sb.pins(self.channel)
        match = re.search(r"Lady of the Lake: \*\*(.+?)\*\*", text_of(pins[-1]))
        assert match, "no Lady of the Lake on the leader list"
        return self.by_name[match.group(1)]

    def menu_dm(self, user: Any, act: str) -> Any:
        """The latest DM of ``user`` with the select menu of ``act`` (lady or kill)."""
        for message in reversed(self.sb.dms(user)):
            if any(str(s.get("custom_id", "")).startswith(f"rs:{act}:") for s in message.selects):
                return message
        return None

    async def wait_menu(self, user: Any, act: str, since: int = 0) -> Any:
        def check() -> Any:
            message = self.menu_dm(user, act)
            recent = {m.id for m in self.sb.dms(user)[since:]}
            return message if message is not None and message.id in recent else None

        return await until(check, 15.0, f"{user.name}'s {act} menu")

    def menu_names(self, message: Any) -> list[str]:
        (select,) = message.selects
        return [o["label"] for o in select["options"]]

    async def pick(self, user: Any, message: Any, target: Any) -> str:
        ix = await self.sb.select(user, message, values=[str(target.id)])
        return await self.reply(ix)

    def ended(self) -> str | None:
        return next((x for x in self.public() if any(m in x for m in AVALON_END_MARKERS)), None)
