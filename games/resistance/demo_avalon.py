"""``python -m bot demo --game avalon``: seven simulated players play Avalon with Percival,
Morgana, Mordred and the Lady of the Lake, to the assassination.

They are the end-to-end tests' players (games/resistance/players.py): they act only through the
sandbox, as people would — slash commands in the channel, the vote buttons and the select menus
in their DMs — and each reads only their own DMs. The servants of Mordred sabotage only until a
first mission fails, so that good wins three missions and the Assassin gets their last chance;
the Lady of the Lake is used after missions 2 and 3.
"""

from __future__ import annotations

import random
import re
from functools import partial
from typing import Any

from games.resistance.demo import AVALON_PLAYERS
from games.resistance.players import (
    AVALON_END_MARKERS,
    DEBATE_MARKERS,
    EVIL,
    HISTORY_MARKERS,
    AvalonGame,
)
from playtest.demo import DemoTable
from playtest.players import until

DEMO_PLAYERS = AVALON_PLAYERS

#: Each vote and each choice lasts 7.2 seconds (the votes close as soon as all are in).
HOURS = 0.002
#: What the channel announces after a result, by step.
STEPS = {
    "lady": ("examines one player who has never held it", "examine un joueur qui ne l’a jamais"),
    "kill": ("one last chance", "une dernière chance"),
    "end": AVALON_END_MARKERS,
    "debate": DEBATE_MARKERS,
}
FAILED = re.compile(r"Mission \d+ fails|La mission \d+ échoue")


def next_step(game: AvalonGame, since: int) -> tuple[str, int] | None:
    """The first step the channel announces from its message ``since`` on, and where."""
    for i, text in enumerate(game.public()[since:], since):
        for step, markers in STEPS.items():
            if any(marker in text for marker in markers):
                return step, i
    return None


async def choose_in_menu(game: AvalonGame, user: Any, act: str, rng: random.Random) -> None:
    """``user`` picks a player at random in the newest menu of ``act`` (lady or kill)."""
    menu = await until(lambda: game.menu_dm(user, act), 15.0, f"{user.name}'s {act} menu")
    (select,) = menu.selects
    value = rng.choice([o["value"] for o in select["options"]])
    target = next(u for u in game.players if str(u.id) == value)
    await game.pick(user, menu, target)


async def play_avalon(table: DemoTable, rng: random.Random) -> None:
    game = AvalonGame(table, table.users)
    await game.open_avalon(
        percival=True,
        morgana=True,
        mordred=True,
        lady_of_the_lake=True,
        vote_hours=HOURS,
        early_close=True,
        reminder_hours=0,
    )
    await game.start()
    evil = {u.id for u in game.players if game.characters[u.id] in EVIL}  # from their own DMs
    since = 0
    while True:
        step, at = await until(partial(next_step, game, since), 30.0, "the next step")
        since = at + 1
        if step == "end":
            break
        if step == "lady":
            await choose_in_menu(game, game.lady_holder(), "lady", rng)
            continue
        if step == "kill":
            await choose_in_menu(game, game.one("assassin"), "kill", rng)
            continue
        leader = await game.called(at)
        others = [u for u in game.players if u is not leader]
        team = [leader, *rng.sample(others, game.size_asked() - 1)]
        await game.propose(team)
        failed = any(FAILED.search(text) for text in game.public())
        saboteur = None if failed else next((u for u in team if u.id in evil), None)
        for user in game.players:
            await game.click(user, "accept" if rng.random() < 0.85 else "reject")
            if user in team:
                await game.click(user, "sabotage" if user is saboteur else "support")
    await game.new_public(since - 1, *HISTORY_MARKERS)
