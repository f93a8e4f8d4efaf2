"""``python -m bot demo --game refutation``: three simulated players play The Refutation Game.

They are the end-to-end tests' players (games/refutation/players.py): they act only through the
sandbox, as people would — slash commands in the channel, the select menu in their DMs, the
vote buttons. They read their hands from their DMs and consult the deck (a public file) to pick
their cards. Deadlines are a few seconds long; one player forgets to choose once, so a deadline
closes the choice.
"""

from __future__ import annotations

import asyncio
import random
import re
from typing import Any

from games.refutation.players import DECK, END_MARKERS, RESULT_MARKERS, RfGame, best_card
from playtest.demo import DemoTable
from playtest.players import until

#: Each secret choice and each vote lasts 3.6 seconds.
HOURS = 0.001
TURN_MARKERS = ("it is your turn", "à vous de jouer")
REVEALED = ("Revealed cards", "Cartes révélées", "nobody played a card", "personne n’a joué")
SUCCESS = re.compile(r"succeeds: card (\d+) |réussit : la carte (\d+) ")


def vote_message(game: RfGame, since: int) -> Any:
    """The newest vote message (its buttons) among the channel's messages from ``since`` on."""
    for message in reversed(game.messages()[since:]):
        if any(str(c.get("custom_id", "")).startswith("rf:vote:") for c in message.buttons):
            return message
    return None


def card_buttons(message: Any) -> list[str]:
    ids = [str(c.get("custom_id", "")).rsplit(":", 1)[1] for c in message.buttons]
    return [choice for choice in ids if choice.isdigit()]


class Table:
    """What the players know of the table: their own hands (from their DMs), and the cards in
    front of each player (from the channel)."""

    def __init__(self, game: RfGame) -> None:
        self.game = game
        self.hands = {u.id: game.hand(u) for u in game.players}
        self.in_front: dict[int, int] = {}

    def someone_can_refute(self, card: int) -> bool:
        return any(best_card(hand, card) is not None for hand in self.hands.values())


async def watch(table: Table, active: Any) -> None:
    """The active player places a feed card someone can refute (else the first)."""
    game = table.game
    feed = game.feed()
    card = next((c for c in feed if table.someone_can_refute(c)), feed[0])
    since = len(game.public())
    options = {"return_current": True} if active.id in table.in_front else {}
    await game.watch(active, card, **options)
    await game.new_public(since, *TURN_MARKERS, *END_MARKERS)
    table.in_front[active.id] = card


async def refute(
    table: Table, active: Any, owner: Any, target: int, *, forget: bool, rng: random.Random
) -> None:
    """The active player refutes ``target``, in front of ``owner``; every player chooses their
    best card (one forgets, if ``forget``); someone opens the reference page when two cards or
    more are revealed; the players vote for the card with the most stars."""
    game, echo = table.game, table.game.t.echo
    since = len(game.public())
    await game.refute(active, owner)
    silent = rng.choice(game.players) if forget else None
    for user in game.players:
        if silent is not None and user is silent:
            echo.say(f"({user.name} forgets to choose: the deadline will close the choice)")
            continue
        card = best_card(table.hands[user.id], target)
        await game.choose(user, "pass" if card is None else card)
    reveal = await game.new_public(since, *REVEALED, timeout=HOURS * 3600 + 30)
    if "Revealed cards" in reveal or "Cartes révélées" in reveal:
        vote = await until(lambda: vote_message(game, since), 15.0, "the vote")
        if len(card_buttons(vote)) > 1:
            await game.click_vote(rng.choice(game.players), "ref", vote)
            await asyncio.sleep(0.3)
        if not any(x in text for text in game.public()[since:] for x in RESULT_MARKERS):
            latest = vote_message(game, since)
            pick = max(card_buttons(latest), key=lambda c: DECK.stars(target, int(c)))
            for user in game.players:
                await game.click_vote(user, pick, latest)
    result = await game.new_public(since, *RESULT_MARKERS, timeout=HOURS * 3600 + 30)
    match = SUCCESS.search(result)
    if match:
        won = int(match.group(1) or match.group(2))
        for hand in table.hands.values():
            if won in hand:
                hand.remove(won)
        table.in_front.pop(owner.id, None)
    await game.new_public(since, *TURN_MARKERS, *END_MARKERS)


async def play_refutation(demo: DemoTable, rng: random.Random) -> None:
    game = RfGame(demo, demo.users[:3])
    await game.open(techniques=True, choice_hours=HOURS, vote_hours=HOURS)
    await game.start()
    table = Table(game)
    refutations = 0
    for _ in range(40):
        if game.ended():
            break
        _, active = game.turn()
        target = next(
            ((o, card) for o, card in table.in_front.items() if table.someone_can_refute(card)),
            None,
        )
        if target is None:
            await watch(table, active)
            continue
        refutations += 1
        owner = game.by_id[target[0]]
        await refute(table, active, owner, target[1], forget=refutations == 2, rng=rng)
