"""``python -m bot demo --game avalon``: seven simulated players play Avalon with Percival,
Morgana, Mordred and the Lady of the Lake, to the assassination.

They act only through the sandbox, as people would: slash commands in the channel, the vote
buttons and the select menus in their DMs. Each reads only their own DMs. The servants of
Mordred sabotage only until a first mission fails, so that good wins three missions and the
Assassin gets their last chance; the Lady of the Lake is used after missions 2 and 3.
"""

from __future__ import annotations

import asyncio
import random
import re
from typing import Any

from bot.demo import render, slash, until
from games.resistance.demo import AVALON_PLAYERS, click, open_and_start
from games.resistance.players import ROLE_DM

DEMO_PLAYERS = AVALON_PLAYERS

SECONDS = 8.0
END = ("Good wins", "Evil wins", "The game was cancelled")
STEP = re.compile(r"examines one player|one last chance")
NEXT = re.compile(r"Mission \d+, attempt|examines one player|one last chance|Good wins|Evil wins")
EVIL_WORDS = ("Assassin", "Morgana", "Mordred", "Oberon", "minion of Mordred", "l’Assassin")
EVIL_WORDS_FR = ("Morgane", "serviteur de Mordred", "au service de Mordred")


def is_evil(role_dm: str) -> bool:
    match = re.search(r"(?:You are|Vous incarnez) (?:a |un )?\*\*(.+?)\*\*", role_dm)
    return match is not None and any(w in match.group(1) for w in EVIL_WORDS + EVIL_WORDS_FR)


async def play_avalon(
    sb: Any, channel: Any, mod: Any, users: list[Any], rng: random.Random
) -> None:
    by_name = {u.name: u for u in users}
    used_menus: set[int] = set()
    say = print
    await open_and_start(
        sb,
        channel,
        mod,
        users,
        variant="avalon",
        percival=True,
        morgana=True,
        mordred=True,
        lady_of_the_lake=True,
        vote_hours=SECONDS / 3600,
        early_close=True,
        reminder_hours=0.0,
    )

    def public() -> list[str]:
        return [m.content or "" for m in sb.channel_messages(channel)]

    def role_dm(user: Any) -> str | None:
        return next(
            (m.content for m in sb.dms(user) if any(w in m.content for w in ROLE_DM)),
            None,
        )

    await until(lambda: all(role_dm(u) for u in users))
    evil = {u.id for u in users if is_evil(role_dm(u) or "")}

    def leader() -> Any:
        match = re.search(r"\*\*(.+?)\*\* ←", sb.pins(channel)[-1].content)
        return by_name[match.group(1)] if match else None

    def over() -> bool:
        return any(any(marker in text for marker in END) for text in public())

    async def use_menus() -> bool:
        """Whoever holds a fresh Lady or assassination menu picks a name in it."""
        for user in users:
            for message in sb.dms(user):
                kinds = [str(s.get("custom_id", "")) for s in message.selects]
                if message.id in used_menus or not kinds:
                    continue
                used_menus.add(message.id)
                options = [o["value"] for o in message.selects[0]["options"]]
                choice = rng.choice(options)
                name = next(
                    o["label"] for o in message.selects[0]["options"] if o["value"] == choice
                )
                say(f"       {user.name} picks {name} in the menu of their DM")
                ix = await sb.select(user, message, values=[choice])
                reply = await ix.reply_message(10.0)
                if reply is not None:
                    say(f"       (only {user.name} sees) {render(reply)}")
                return True
        return False

    def step_open(texts: list[str]) -> bool:
        """The Lady's turn or the assassination was announced after the latest debate."""
        last = {"debate": -1, "step": -1}
        for i, text in enumerate(texts):
            if re.search(r"Mission \d+, attempt", text):
                last["debate"] = i
            if STEP.search(text):
                last["step"] = i
        return last["step"] > last["debate"]

    while not over():
        if step_open(public()):
            for _ in range(300):  # the chooser's DM may still be on its way
                if await use_menus():
                    break
                await asyncio.sleep(0.1)
            await until(lambda: over() or not step_open(public()))
            continue
        chief = await until(leader)
        size = team_size(public())
        others = [u for u in users if u is not chief]
        team = [chief, *rng.sample(others, size - 1)]
        before = {u.id: len(sb.dms(u)) for u in users}
        count = len(public())
        team_options = {f"player{i}": u for i, u in enumerate(team, 1)}
        await slash(sb, channel, chief, "resistance propose", **team_options)

        def all_asked(b: dict[int, int] = before) -> bool:
            return all(any(m.labels for m in sb.dms(u)[b[u.id] :]) for u in users)

        await until(all_asked)
        failed = any(re.search(r"Mission \d+ fails", text) for text in public())
        saboteur = None if failed else next((u for u in team if u.id in evil), None)
        for user in users:
            dm = next(m for m in reversed(sb.dms(user)) if m.labels)
            await click(sb, user, dm, "accept" if rng.random() < 0.85 else "reject")
            if user in team:
                await click(sb, user, dm, "sabotage" if user is saboteur else "support")
        # The result, then the next debate, the Lady's turn, the assassination or the end.

        def next_step(c: int = count) -> bool:
            return any(NEXT.search(text) for text in public()[c + 1 :])

        await until(next_step, timeout=SECONDS + 20)
        await asyncio.sleep(0.3)


def team_size(texts: list[str]) -> int:
    """Read from the latest debate announcement, as a player would."""
    for text in reversed(texts):
        match = re.search(r"team of (\d+)", text)
        if match:
            return int(match.group(1))
    raise AssertionError("no debate announcement")
