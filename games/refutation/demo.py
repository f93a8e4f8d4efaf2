"""``python -m bot demo --game refutation``: three simulated players play The Refutation Game.

They act only through the sandbox, as people would: slash commands in the channel, the select
menu in their DMs, the vote buttons. They read their hands from their DMs and consult the deck
(a public file) to pick their cards. Deadlines are a few seconds long; one player forgets to
choose once, so a deadline closes the choice.
"""

from __future__ import annotations

import asyncio
import random
import re
from typing import Any

from bot.demo import options_text, render, until
from games.refutation.rules import CardKind, Deck, default_deck_path, load_deck

SECONDS = 4.0
TURN = re.compile(r"Turn (\d+) — <@(\d+)>")
CARD = re.compile(r"^#(\d+) · ")
SUCCESS = re.compile(r"succeeds: card (\d+) ")
END = ("The table wins", "The table loses", "The game was ended")
RESULT = ("succeeds:", "fails:", "nobody played a card")


def cards_in(message: Any) -> list[int]:
    found = (CARD.match(e.get("title") or "") for e in message.embeds)
    return [int(match.group(1)) for match in found if match]


class Table:
    def __init__(self, sb: Any, channel: Any, mod: Any, players: list[Any]) -> None:
        self.sb, self.channel, self.mod, self.players = sb, channel, mod, players
        self.by_id = {u.id: u for u in players}
        self.deck: Deck = load_deck(default_deck_path())
        self.hands: dict[int, list[int]] = {}
        self.in_front: dict[int, int] = {}

    def public(self) -> list[Any]:
        return list(self.sb.channel_messages(self.channel))

    async def slash(self, user: Any, command: str, **options: Any) -> str:
        shown = f" {options_text(options)}" if options else ""
        print(f"       /{command} by {user.name}{shown}", flush=True)
        ix = await self.sb.slash(user, command, channel=self.channel, **options)
        reply = await ix.reply_message(10.0)
        return render(reply) if reply is not None else ""

    async def wait_public(self, since: int, *markers: str, timeout: float = 30.0) -> str:
        def check() -> str | None:
            for message in self.public()[since:]:
                text = render(message)
                if any(marker in text for marker in markers):
                    return text
            return None

        text: str = await until(check, timeout)
        return text

    def active(self) -> Any:
        for message in reversed(self.public()):
            match = TURN.search(message.content or "")
            if match:
                return self.by_id[int(match.group(2))]
        raise AssertionError("no turn prompt")

    def feed(self) -> list[int]:
        for message in reversed(self.public()):
            if "The feed" in (message.content or ""):
                return cards_in(message)
        raise AssertionError("no feed")

    def ended(self) -> bool:
        return any(marker in (m.content or "") for m in self.public() for marker in END)

    def eligible(self, card: int, target: int) -> bool:
        found = self.deck.cards[card]
        if found.kind is CardKind.TECHNIQUE:
            return True
        return found.kind is CardKind.REFUTATION and found.family == self.deck.cards[target].family

    def best(self, player: int, target: int) -> int | None:
        options = [c for c in self.hands[player] if self.eligible(c, target)]
        if not options:
            return None
        return max(options, key=lambda c: (self.deck.stars(target, c), -c))


async def play_refutation(
    sb: Any, channel: Any, mod: Any, users: list[Any], rng: random.Random
) -> None:
    players = users[:3]
    table = Table(sb, channel, mod, players)
    hours = SECONDS / 3600
    await table.slash(mod, "refutation new", techniques=True, choice_hours=hours, vote_hours=hours)
    lobby = await until(lambda: next((m for m in table.public() if m.labels), None))
    for user in players:
        ix = await sb.click(user, lobby, label="Join")
        await ix.reply_message(10.0)
    since = len(table.public())
    await table.slash(mod, "refutation start")
    await table.wait_public(since, "it is your turn")
    for user in players:

        def dealt(u: Any = user) -> list[int] | None:
            return next((cards_in(m) for m in sb.dms(u) if cards_in(m)), None)

        hand = await until(dealt)
        table.hands[user.id] = hand

    refutations = 0
    for _ in range(40):
        if table.ended():
            break
        active = table.active()
        target = next(
            (
                (owner, card)
                for owner, card in table.in_front.items()
                if any(table.best(p.id, card) is not None for p in players)
            ),
            None,
        )
        if target is None:
            await watch(table, active)
            continue
        refutations += 1
        await refute(table, active, target[0], target[1], forget=refutations == 2, rng=rng)


async def watch(table: Table, active: Any) -> None:
    feed = table.feed()
    wanted = [
        d for d in feed if any(table.best(p.id, d) is not None for p in table.players)
    ] or feed
    card = wanted[0]
    since = len(table.public())
    options: dict[str, Any] = {"card": card}
    if active.id in table.in_front:
        options["return_current"] = True
    await table.slash(active, "refutation watch", **options)
    await table.wait_public(since, "it is your turn", *END)
    table.in_front[active.id] = card


async def refute(
    table: Table, active: Any, owner: int, target: int, *, forget: bool, rng: random.Random
) -> None:
    sb = table.sb
    before = {u.id: len(sb.dms(u)) for u in table.players}
    since = len(table.public())
    await table.slash(active, "refutation refute", target=table.by_id[owner])
    menus = {}
    for user in table.players:

        def menu(u: Any = user) -> Any:
            return next((m for m in sb.dms(u)[before[u.id] :] if m.selects), None)

        menus[user.id] = await until(menu)
    silent = rng.choice(table.players) if forget else None
    for user in table.players:
        if silent is not None and user is silent:
            print(f"       ({user.name} forgets to choose: the deadline will close the choice)")
            continue
        card = table.best(user.id, target)
        ix = await sb.select(user, menus[user.id], values=["pass" if card is None else str(card)])
        await ix.reply_message(10.0)
    reveal = await table.wait_public(since, "Revealed cards", "nobody played", timeout=SECONDS + 30)
    if "Revealed cards" in reveal:
        vote = await until(lambda: vote_message(table, since))
        if len(card_buttons(vote)) > 1:
            clicker = rng.choice(table.players)
            ix = await sb.click(clicker, vote, custom_id=_button(vote, "ref"))
            await ix.reply_message(10.0)
            await asyncio.sleep(0.3)
        if not any(x in render(m) for m in table.public()[since:] for x in RESULT):
            latest = vote_message(table, since)
            pick = max(card_buttons(latest), key=lambda c: table.deck.stars(target, int(c)))
            for user in table.players:
                ix = await sb.click(user, latest, custom_id=_button(latest, pick))
                await ix.reply_message(10.0)
    result = await table.wait_public(since, *RESULT, timeout=SECONDS + 30)
    match = SUCCESS.search(result)
    if match:
        won = int(match.group(1))
        for hand in table.hands.values():
            if won in hand:
                hand.remove(won)
        table.in_front.pop(owner, None)
    await table.wait_public(since, "it is your turn", *END)


def _button(message: Any, choice: str) -> str:
    return next(
        str(c["custom_id"])
        for c in message.buttons
        if str(c.get("custom_id", "")).endswith(f":{choice}")
    )


def vote_message(table: Table, since: int) -> Any:
    for message in reversed(table.public()[since:]):
        if any(str(c.get("custom_id", "")).startswith("rf:vote:") for c in message.buttons):
            return message
    return None


def card_buttons(message: Any) -> list[str]:
    ids = [str(c.get("custom_id", "")).rsplit(":", 1)[1] for c in message.buttons]
    return [choice for choice in ids if choice.isdigit()]
