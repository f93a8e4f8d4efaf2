"""Simulated players of The Resistance and of Avalon: they act only through the sandbox, as
people would (playtest/players.py). The demos and the end-to-end tests play with them."""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Iterable
from functools import partial
from typing import Any

from games.resistance.rules import AVALON_TABLE, TEAM_SIZES, TeamTable
from playtest.players import TableGame, text_of, until

RESULT_MARKERS = ("Team accepted", "Team rejected", "Équipe acceptée", "Équipe refusée")
#: The channel's call for a team, and the Leader's DM that asks for it.
DEBATE_MARKERS = ("/5**: debate is open", "/5**\u00a0: le débat est ouvert")
CALL_MARKERS = ("It is your turn", "C’est à vous")
TEAM_SIZE = re.compile(r"(?:team of|équipe de) (\d+)")
HISTORY_MARKERS = ("History of the game", "Historique de la partie")
END_MARKERS = ("The Resistance wins", "The spies win", "La Résistance gagne", "Les Espions gagnent")
#: The leader's menu: its select and its Propose button, as the core's pick sends them
#: (bot/choice.py) and as a DM of earlier versions has them.
TEAM_SELECTS = ("choice:rs_team:", "rs:team:")
PROPOSE = re.compile(r"choice:rs_team:\d+:\d+:ok|rs:propose:\d+:\d+:\d+")
#: What opens a role DM, in English and in French.
ROLE_DM = ("You are", "Vous incarnez")
ROLE = re.compile(r"(?:You are|Vous incarnez) (?:a |un )?\*\*(.+?)\*\*")


class Game(TableGame):
    """One game of The Resistance driven through the sandbox by its players and moderator."""

    def __init__(self, table: Any, players: list[Any], channel: Any | None = None) -> None:
        super().__init__(table, players, channel)
        self.by_name = {u.name: u for u in players}
        self.roles: dict[int, str] = {}
        #: the table of team sizes, as the options given to :meth:`open` choose it
        self.table = TeamTable.FORUM

    # -- reading ------------------------------------------------------------------------------

    def leader(self) -> Any:
        pins = self.sb.pins(self.channel)
        assert pins, "the leader list is not pinned"
        match = re.search(r"\*\*(.+?)\*\* ←", text_of(pins[-1]))
        assert match, "no leader in bold on the leader list"
        return self.by_name[match.group(1)]

    def debate_since(self, since: int) -> Any:
        """The first call for a team (the debate announcement) among the channel's messages
        from ``since`` on, or None."""
        for message in self.sb.channel_messages(self.channel)[since:]:
            if any(marker in text_of(message) for marker in DEBATE_MARKERS):
                return message
        return None

    async def called(self, since: int = 0, timeout: float = 15.0) -> Any:
        """The next Leader, once called as the players see it: the debate announcement after
        the channel's message ``since``, then the Leader's DM that asks for a team."""
        announcement = await until(partial(self.debate_since, since), timeout, "the debate")
        leader = self.leader()

        def call() -> bool:
            return any(
                m.id > announcement.id and any(k in text_of(m) for k in CALL_MARKERS)
                for m in self.sb.dms(leader)
            )

        await until(call, timeout, f"{leader.name}'s call to propose")
        return leader

    def size_asked(self) -> int:
        """The team size the latest debate announcement asks for, as a player reads it."""
        for text in reversed(self.public()):
            match = TEAM_SIZE.search(text)
            if match:
                return int(match.group(1))
        raise AssertionError("no debate announcement")

    def vote_dm(self, user: Any) -> Any:
        for message in reversed(self.sb.dms(user)):
            if message.labels and ("Accept" in message.labels or "Pour" in message.labels):
                return message
        return None

    # -- acting -------------------------------------------------------------------------------

    async def open(self, **options: Any) -> None:
        avalon = options.get("variant") == "avalon"
        self.table = AVALON_TABLE if avalon else TeamTable(options.get("team_table", "forum"))
        since = len(self.sb.channel_messages(self.channel))
        reply = await self.slash(self.t.mod, "resistance new", **options)
        assert "open" in reply or "ouvertes" in reply, reply
        lobby = await until(
            lambda: next(
                (m for m in self.sb.channel_messages(self.channel)[since:] if m.labels), None
            ),
            what="the lobby message",
        )
        join = "Join" if "Join" in lobby.labels else "Rejoindre"  # the server's language
        for user in self.players:
            ix = await self.press(user, lobby, label=join)
            await self.reply(ix)

    async def start(self) -> str:
        reply = await self.slash(self.t.mod, "resistance start")
        for user in self.players:
            dm = await until(partial(self.role_dm, user), what=f"{user.name}'s role")
            match = ROLE.search(dm)  # the role in bold: "a **Spy**", "un **Espion**"
            spy = match is not None and match.group(1) in ("Spy", "Espion")
            self.roles[user.id] = "spy" if spy else "resistance"
        return reply

    def role_dm(self, user: Any) -> str | None:
        for message in reversed(self.sb.dms(user)):
            text = text_of(message)
            if any(marker in text for marker in ROLE_DM):
                return text
        return None

    def spies(self) -> list[Any]:
        return [u for u in self.players if self.roles[u.id] == "spy"]

    def resistance(self) -> list[Any]:
        return [u for u in self.players if self.roles[u.id] == "resistance"]

    async def propose(self, team: Iterable[Any]) -> str:
        leader = self.leader()
        before = {u.id: len(self.sb.dms(u)) for u in self.players}
        options = {f"player{i}": user for i, user in enumerate(team, 1)}
        reply = await self.slash(leader, "resistance propose", **options)

        def has_vote_dm(u: Any) -> bool:
            return any(m.labels for m in self.sb.dms(u)[before[u.id] :])

        for user in self.players:
            await until(partial(has_vote_dm, user), what=f"{user.name}'s vote DM")
        return reply

    async def propose_in_menu(self, team: Iterable[Any]) -> None:
        """The Leader picks ``team`` in the menu of their call DM, then presses Propose, as a
        player would without typing a command; returns once every player has a vote DM."""
        leader, team = self.leader(), list(team)
        before = {u.id: len(self.sb.dms(u)) for u in self.players}
        menu = await self.wait_team_menu(leader)
        await self.reply(await self.select(leader, menu, [str(u.id) for u in team]))
        menu = self.sb.messages.get(menu.id, menu)  # as the pick updated it
        await self.reply(await self.press(leader, menu, custom_id=propose_of(menu)))

        def has_vote_dm(u: Any) -> bool:
            return any(m.labels for m in self.sb.dms(u)[before[u.id] :])

        for user in self.players:
            await until(partial(has_vote_dm, user), what=f"{user.name}'s vote DM")

    async def wait_team_menu(self, user: Any, since: int = 0) -> Any:
        """The leader's call DM with its menu, sent after the ``since`` first DMs of ``user``."""

        def check() -> Any:
            recent = self.sb.dms(user)[since:]
            return next(
                (
                    m
                    for m in reversed(recent)
                    if any(str(s.get("custom_id", "")).startswith(TEAM_SELECTS) for s in m.selects)
                ),
                None,
            )

        return await until(check, 15.0, f"{user.name}'s leader menu")

    async def pick_team(
        self, user: Any, message: Any, team: Iterable[Any], channel: Any | None = None
    ) -> str:
        """``user`` picks ``team`` in the leader's menu of ``message``; the answer is the
        message as updated (or a private refusal)."""
        ix = await self.sb.select(user, message, values=[str(u.id) for u in team], channel=channel)
        return await self.reply(ix)

    async def press_propose(self, user: Any, message: Any, channel: Any | None = None) -> str:
        """``user`` presses Propose under the leader's menu of ``message``."""
        ix = await self.sb.click(user, message, custom_id=propose_of(message), channel=channel)
        return await self.reply(ix)

    async def click(self, user: Any, choice: str) -> str:
        """Click a vote button by its meaning (labels are in the player's language)."""
        message = self.vote_dm(user)
        custom_id = next(
            c["custom_id"]
            for c in message.all_components
            if str(c.get("custom_id", "")).endswith(f":{choice}")
        )
        ix = await self.press(user, message, custom_id=custom_id)
        return await self.reply(ix)

    async def vote(
        self,
        accept: Iterable[Any] = (),
        reject: Iterable[Any] = (),
        sabotage: Iterable[Any] = (),
        support: Iterable[Any] = (),
    ) -> None:
        jobs = [self.click(u, "accept") for u in accept] + [self.click(u, "reject") for u in reject]
        jobs += [self.click(u, "support") for u in support]
        jobs += [self.click(u, "sabotage") for u in sabotage]
        await asyncio.gather(*jobs)

    def pinned_text(self) -> str:
        pins = self.sb.pins(self.channel)
        return text_of(pins[-1]) if pins else ""

    async def settled(self, pinned_before: str, timeout: float = 5.0) -> None:
        """After a result: until the leader list shows it (the bot delivers the result, then
        the leader list, then calls the next leader)."""
        with contextlib.suppress(AssertionError):
            await until(lambda: self.pinned_text() != pinned_before, timeout, "the leader list")

    async def resolve(self) -> str:
        since, pinned = len(self.public()), self.pinned_text()
        await self.slash(self.t.mod, "resistance resolve")
        result = await self.new_public(since, *RESULT_MARKERS)
        await self.settled(pinned)
        return result

    async def round(
        self,
        team: list[Any],
        *,
        accepted: bool = True,
        sabotage: Iterable[Any] = (),
    ) -> str:
        """The leader proposes ``team``; everyone votes; the team supports except ``sabotage``."""
        await self.propose(team)
        sabotage = list(sabotage)
        if accepted:
            await self.vote(accept=self.players)
        else:
            await self.vote(reject=self.players)
        await self.vote(sabotage=sabotage, support=[u for u in team if u not in sabotage])
        return await self.resolve()

    def team_size(self, mission: int) -> int:
        return TEAM_SIZES[self.table][len(self.players)][mission - 1]

    def ended(self) -> str | None:
        return next((x for x in self.public() if any(m in x for m in END_MARKERS)), None)


AVALON_END_MARKERS = ("Good wins", "Evil wins", "Le Bien gagne", "Le Mal gagne")
#: The bold role name in a role DM (English or French) -> the role.
ROLE_NAMES = {
    "Merlin": "merlin",
    "Percival": "percival",
    "Perceval": "percival",
    "loyal servant of Arthur": "servant",
    "Fidèle Vassal d’Arthur": "servant",
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
            match = ROLE.search(dm)
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
        """The latest DM of ``user`` with the select menu of ``act`` (lady or kill): the
        secret choice ``rs_<act>`` (bot/choice.py)."""
        for message in reversed(self.sb.dms(user)):
            if any(
                str(s.get("custom_id", "")).startswith(f"choice:rs_{act}:") for s in message.selects
            ):
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
        ix = await self.select(user, message, [str(target.id)])
        return await self.reply(ix)

    def ended(self) -> str | None:
        return next((x for x in self.public() if any(m in x for m in AVALON_END_MARKERS)), None)


def propose_of(message: Any) -> str:
    """The custom_id of the Propose button under the leader's menu of ``message``."""
    return next(
        str(c["custom_id"])
        for c in message.all_components
        if PROPOSE.fullmatch(str(c.get("custom_id", "")))
    )
