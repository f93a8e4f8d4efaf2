"""``python -m bot demo --game werewolf``: eight simulated players play Werewolf to its end.

They are the end-to-end tests' players (games/werewolf/players.py): they act only through the
sandbox — the den's menu for the werewolves, the menus of their DMs for the seer and the
witch, the menu of the day's vote message for everyone — and each knows only what its own DMs
and the channel tell it. The dead are read from the channel's announcements.
"""

from __future__ import annotations

import random
import re
from functools import partial
from typing import Any

from games.werewolf.players import END_MARKERS, Game
from playtest.demo import DemoTable
from playtest.players import until

DEMO_PLAYERS = ["Alice", "Bruno", "Chloé", "Dmitri", "Esther", "Farid", "Gwen", "Hugo"]
#: Each night and each day lasts a few seconds.
NIGHT_HOURS, DAY_HOURS = 0.002, 0.003
#: What opens a death line in the channel (the night, a grief, a shot, an elimination).
DEATH = re.compile(r"^(💀|💔|🎯|⚖️ (?!\*\*))")


class Village:
    """What the table knows as it plays: who is dead (from the channel), the DMs read so far."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.dead: set[int] = set()
        self.read: dict[int, int] = {}

    def living(self) -> list[Any]:
        return [u for u in self.game.players if u.id not in self.dead]

    def bury(self, text: str) -> None:
        for line in text.splitlines():
            if DEATH.match(line):
                self.dead |= {u.id for u in self.game.players if u.name in line}

    def mark(self) -> None:
        self.read = {u.id: len(self.game.sb.dms(u)) for u in self.game.players}

    def ended(self) -> bool:
        return any(m in text for text in self.game.public() for m in END_MARKERS)


async def night(village: Village, number: int, rng: random.Random) -> None:
    game = village.game
    living = village.living()
    wolves = [u for u in living if game.roles[u.id] == "werewolf"]
    prey = rng.choice([u for u in living if game.roles[u.id] != "werewolf"])
    for wolf in wolves:
        await game.kill(wolf, prey, number)
    for role in ("seer", "witch"):
        holder = next((u for u in living if game.roles[u.id] == role), None)
        if holder is None:
            continue
        since = village.read[holder.id]
        ask = partial(game.dm_menu, holder, since, number)
        menu = await until(ask, 30.0, f"the {role}'s menu")
        offered = [o["value"] for o in menu.selects[0]["options"]]
        value = rng.choice(offered[1:] if role == "witch" else offered)
        if role == "witch" and rng.random() < 0.6:
            value = "skip"  # the witch keeps her potions most nights
        await game.act(holder, value, since=since, night=number)
    village.bury(await game.new_public(0, f"Dawn after night {number}", timeout=30))


async def day(village: Village, number: int, rng: random.Random) -> None:
    game = village.game
    village.mark()
    suspect = rng.choice(village.living())
    for voter in village.living():
        if game.count_message() is None:
            break  # a majority has ended the day
        target = suspect if rng.random() < 0.75 else rng.choice(village.living())
        await game.vote(voter, target)
    village.bury(await game.new_public(0, f"Day {number} is over", timeout=30))


async def play_werewolf(table: DemoTable, rng: random.Random) -> None:
    game = Game(table, table.users)
    await game.open(night_hours=NIGHT_HOURS, day_hours=DAY_HOURS, reminder_hours=0)
    village = Village(game)
    village.mark()
    await game.start()
    number = 1
    while True:
        await night(village, number, rng)
        if village.ended():
            break
        await day(village, number, rng)

        def next_step(n: int = number + 1) -> bool:
            return village.ended() or any(f"Night {n}**" in x for x in game.public())

        await until(next_step, 30.0, "the next night or the end")
        if village.ended():
            break
        number += 1
