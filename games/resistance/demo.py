"""``python -m bot demo``: five simulated players play The Resistance to its end.

They are the end-to-end tests' players (games/resistance/players.py): they act only through the
sandbox, as people would — slash commands in the channel, the buttons of their DMs — and each
reads only their own DMs (a spy knows it is a spy from its role DM). The Leader proposes once
called (the debate announcement, then the call by DM), in the menu of that DM; a player may
forget to vote, and the deadline still resolves the round.
"""

from __future__ import annotations

import random

from games.resistance.players import HISTORY_MARKERS, RESULT_MARKERS, Game
from playtest.demo import PLAYERS, DemoTable
from playtest.players import until

#: Avalon with the Lady of the Lake wants seven players (the Lady is recommended from 7).
AVALON_PLAYERS = [*PLAYERS, "Farid", "Gwen"]
#: Each vote lasts 3.6 seconds.
VOTE_HOURS = 0.001


async def play_resistance(table: DemoTable, rng: random.Random) -> None:
    game = Game(table, table.users)
    await game.open(vote_hours=VOTE_HOURS, reminder_hours=0)
    await game.start()
    spies = {u.id for u in game.spies()}  # each spy knows it from its own role DM
    since = 0
    while True:
        leader = await game.called(since)
        others = [u for u in game.players if u is not leader]
        team = [leader, *rng.sample(others, game.size_asked() - 1)]
        since = len(game.public())
        await game.propose_in_menu(team)
        silent = rng.choice(game.players) if rng.random() < 0.3 else None
        spies_on_team = bool(spies & {u.id for u in team})
        for user in game.players:
            if silent is not None and user is silent:
                table.echo.say(f"({user.name} forgets to vote: the deadline resolves the round)")
                continue
            accept = rng.random() < (0.35 if user.id in spies and not spies_on_team else 0.7)
            await game.click(user, "accept" if accept else "reject")
            if user in team:
                sabotage = user.id in spies and rng.random() < 0.7
                await game.click(user, "sabotage" if sabotage else "support")
        await game.new_public(since, *RESULT_MARKERS, timeout=VOTE_HOURS * 3600 + 20)

        def next_step(after: int = since) -> bool:
            return game.ended() is not None or game.debate_since(after) is not None

        await until(next_step, 20.0, "the next debate or the end")
        if game.ended():
            break
    await game.new_public(since, *HISTORY_MARKERS)
