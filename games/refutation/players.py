"""Simulated players of The Refutation Game: they act only through the sandbox, as people would.

The deck is public (a file), so the players may consult it to pick their moves; hands are read
from each player's own DMs.
"""

from __future__ import annotations

import asyncio
import re
from functools import partial
from typing import Any

from games.refutation.rules import CardKind, Deck, default_deck_path, load_deck
from playtest.players import TableGame, text_of, until

DECK: Deck = load_deck(default_deck_path())
CARD_TITLE = re.compile(r"^#(\d+) · ")
TURN = re.compile(r"Turn (\d+) — <@(\d+)>")
RESULT_MARKERS = ("succeeds:", "fails:", "nobody played a card")
END_MARKERS = ("The table wins", "The table loses", "The game was ended")


def cards_in(message: Any) -> list[int]:
    """The card numbers of a message's card embeds, in order."""
    out = []
    for embed in message.embeds:
        match = CARD_TITLE.match(embed.get("title") or "")
        if match:
            out.append(int(match.group(1)))
    return out


def family(card: int) -> str | None:
    return DECK.cards[card].family


def is_technique(card: int) -> bool:
    return DECK.cards[card].kind is CardKind.TECHNIQUE


def eligible(card: int, target: int, techniques: bool = True) -> bool:
    found = DECK.cards[card]
    if found.kind is CardKind.TECHNIQUE:
        return techniques
    return found.kind is CardKind.REFUTATION and found.family == family(target)


class RfGame(TableGame):
    """One game of The Refutation Game driven through the sandbox."""

    def __init__(self, table: Any, players: list[Any], channel: Any | None = None) -> None:
        super().__init__(table, players, channel)
        self.by_id = {u.id: u for u in players}
        self.revealed: set[int] = set()
        """Refutation/technique cards shown publicly by a reveal (fair to show afterwards)."""

    # -- reading ------------------------------------------------------------------------------

    def messages(self) -> list[Any]:
        return self.sb.channel_messages(self.channel)

    def hand(self, user: Any) -> list[int]:
        """The player's hand as their latest hand DM shows it (the start DM)."""
        for message in reversed(self.sb.dms(user)):
            if "Your hand" in message.content or "Votre main" in message.content:
                return cards_in(message)
        raise AssertionError(f"no hand DM for {user.name}")

    async def hand_now(self, user: Any) -> list[int]:
        """The player's current hand, from ``/refutation hand`` (private)."""
        ix = await self.command(user, "refutation hand")
        message = await ix.reply_message(10.0)
        assert message is not None and message.ephemeral
        return cards_in(message)

    def turn(self) -> tuple[int, Any]:
        """(turn number, active player) from the latest turn prompt."""
        for text in reversed(self.public()):
            match = TURN.search(text)
            if match:
                return int(match.group(1)), self.by_id[int(match.group(2))]
        raise AssertionError("no turn prompt")

    def active(self) -> Any:
        return self.turn()[1]

    def feed(self) -> list[int]:
        for message in reversed(self.messages()):
            if "The feed" in message.content or "Le fil des" in message.content:
                return cards_in(message)
        raise AssertionError("no feed posted")

    async def status(self, user: Any | None = None) -> str:
        return await self.slash(user or self.t.mod, "refutation status")

    def choice_dm(self, user: Any) -> Any:
        for message in reversed(self.sb.dms(user)):
            if message.selects:
                return message
        return None

    def vote_message(self) -> Any:
        for message in reversed(self.messages()):
            if any(str(c.get("custom_id", "")).startswith("rf:vote:") for c in message.buttons):
                return message
        return None

    # -- acting -------------------------------------------------------------------------------

    async def open(self, **options: Any) -> None:
        reply = await self.slash(self.t.mod, "refutation new", **options)
        assert "open" in reply, reply
        lobby = await until(
            lambda: next((msg for msg in self.messages() if msg.labels), None),
            what="the lobby message",
        )
        for user in self.players:
            ix = await self.press(user, lobby, label="Join")
            await self.reply(ix)

    async def start(self) -> str:
        since = len(self.public())
        reply = await self.slash(self.t.mod, "refutation start")

        def has_hand(u: Any) -> bool:
            return any(
                "Your hand" in x.content or "Votre main" in x.content for x in self.sb.dms(u)
            )

        for user in self.players:
            await until(partial(has_hand, user), what=f"{user.name}'s hand")
        await self.new_public(since, "it is your turn")
        return reply

    async def watch(self, user: Any, card: int, **options: Any) -> str:
        return await self.slash(user, "refutation watch", card=card, **options)

    async def refute(self, user: Any, target: Any) -> str:
        before = {u.id: len(self.sb.dms(u)) for u in self.players}
        reply = await self.slash(user, "refutation refute", target=target)

        def has_choice_dm(p: Any) -> bool:
            return any(x.selects for x in self.sb.dms(p)[before[p.id] :])

        if "is open" in reply or "est ouverte" in reply:
            for player in self.players:
                await until(partial(has_choice_dm, player), what=f"{player.name}'s choice DM")
        return reply

    async def watch_then_refute(self) -> tuple[Any, Any, int]:
        """The active player places the feed's first card; the next player refutes it.
        Returns the targeted player, the refuter and the targeted card."""
        _, active = self.turn()
        since = len(self.public())
        await self.watch(active, self.feed()[0])
        await self.new_public(since, "it is your turn")
        _, refuter = self.turn()
        target = (await in_front(self))[active]
        assert "is open" in await self.refute(refuter, active)
        return active, refuter, target

    async def choose(self, user: Any, value: int | str, message: Any | None = None) -> str:
        message = message or self.choice_dm(user)
        ix = await self.select(user, message, [str(value)])
        return await self.reply(ix)

    async def click_vote(self, user: Any, choice: int | str, message: Any | None = None) -> str:
        message = message or self.vote_message()
        assert message is not None, "no vote message"
        custom_id = next(
            c["custom_id"]
            for c in message.buttons
            if str(c.get("custom_id", "")).endswith(f":{choice}")
        )
        ix = await self.press(user, message, custom_id=custom_id)
        return await self.reply(ix)

    async def choose_all(self, choices: dict[Any, int | None]) -> str:
        """Every player chooses (None: pass); returns the reveal (or no-card) message."""
        since = len(self.public())
        replies = await asyncio.gather(
            *(
                self.choose(u, "pass" if choices.get(u) is None else str(choices[u]))
                for u in self.players
            )
        )  # all at once: the votes table keeps every choice
        for reply in replies:
            assert "On record" in reply or "Enregistré" in reply, reply
        text = await self.new_public(since, "Revealed cards", "nobody played a card")
        for line in text.splitlines():
            match = re.match(r"• Card (\d+) — ", line)
            if match:
                self.revealed.add(int(match.group(1)))
        if "Revealed cards" in text:
            await until(self.vote_message, what="the vote message")
        return text

    async def vote_all(self, votes: dict[Any, int | str]) -> str:
        """Players vote (card or "abstain"); returns the result message."""
        since = len(self.public())
        message = self.vote_message()
        replies = await asyncio.gather(
            *(self.click_vote(u, choice, message) for u, choice in votes.items())
        )
        for reply in replies:
            assert "Your vote" in reply or "Votre vote" in reply, reply
        return await self.new_public(since, *RESULT_MARKERS)

    def ended(self) -> str | None:
        return next((x for x in self.public() if any(e in x for e in END_MARKERS)), None)


REVEALED_LINE = re.compile(r"^• (?:Card|Carte) (\d+) — ", re.M)


def assert_no_hand_in_public(game: RfGame, hand_dms: dict[int, list[int]] | None = None) -> None:
    """No channel message shows a refutation or technique card before a reveal showed it: hands
    stay secret. Messages are read in order; titles, texts (both languages) and card embed
    headers are checked. ``hand_dms``: the hands the DMs showed, all of them covered."""
    hidden = {c.number for c in DECK.cards.values() if c.kind is not CardKind.DISINFORMATION}
    if hand_dms:
        assert all(c in hidden for cards in hand_dms.values() for c in cards)
    for message in game.messages():
        text = text_of(message)
        if "Revealed cards" in text or "Cartes révélées" in text:
            hidden -= {int(n) for n in REVEALED_LINE.findall(text)}
        for number in hidden:
            card = DECK.cards[number]
            assert f"#{number} · " not in text, f"card {number} shown publicly: {text[:200]!r}"
            for title in card.titles.values():
                assert title not in text, f"title of card {number} shown publicly: {text[:200]!r}"
            for body in card.texts.values():
                assert body not in text, f"text of card {number} shown publicly"


IN_FRONT = re.compile(r"card (\d+) in front of \*\*(.+?)\*\*")


async def in_front(game: RfGame) -> dict[Any, int]:
    """Player -> the disinformation in front of them, from ``/refutation status``."""
    by_name = {u.name: u for u in game.players}
    text = await game.status()
    line = next(x for x in text.splitlines() if x.startswith("In play:"))
    return {by_name[name]: int(card) for card, name in IN_FRONT.findall(line)}


def best_card(hand: list[int], target: int, techniques: bool = True) -> int | None:
    """The hand's most relevant eligible card against ``target`` (refutations first)."""
    options = [c for c in hand if eligible(c, target, techniques)]
    if not options:
        return None
    return max(options, key=lambda c: (DECK.stars(target, c), not is_technique(c), -c))


def playable(hands: dict[Any, list[int]], target: int) -> dict[Any, int]:
    """The players holding an eligible card against ``target``, each with their best one (in
    the order of ``hands``)."""
    best = {u: best_card(h, target) for u, h in hands.items()}
    return {u: card for u, card in best.items() if card is not None}


async def auto_turn(game: RfGame, hands: dict[Any, list[int]]) -> str:
    """The active player refutes a card in play that someone can refute, or else watches a feed
    card someone can refute. Every refutation is played by one player and voted by all."""
    _, active = game.turn()
    fronts = await in_front(game)
    for owner, target in fronts.items():
        holders = list(playable({u: hands[u] for u in game.players}, target).items())
        if not holders:
            continue
        player, card = max(holders, key=lambda uc: DECK.stars(target, uc[1]))
        assert card is not None
        reply = await game.refute(active, owner)
        assert "is open" in reply or "est ouverte" in reply, reply
        await game.choose_all({player: card})
        result = await game.vote_all({u: card for u in game.players})
        assert "succeeds" in result, result
        hands[player].remove(card)
        return result
    feed = game.feed()
    wanted = [d for d in feed if any(best_card(h, d) is not None for h in hands.values())]
    card = (wanted or feed)[0]
    since = len(game.public())
    reply = await game.watch(active, card, return_current=active in fronts)
    assert "now in front of you" in reply or "maintenant devant vous" in reply, reply
    return await game.new_public(since, "it is your turn", *END_MARKERS)
