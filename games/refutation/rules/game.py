"""The rules of The Refutation Game as a pure state machine.

``Refutation.setup`` deals a game; each action has ``verify_<action>`` (raises a ``GameError``
that explains why the action is not allowed), ``can_<action>`` (a bool) and ``<action>`` (verifies,
changes the state, appends the action to ``actions`` and returns the ``Event`` records). An
illegal action leaves the state exactly as it was.

The state holds card numbers only; the ``Deck`` (families, relevance) is passed to ``setup``,
``from_dict`` and ``replay``. Piles are lists with the top card first; "under the deck" appends.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Mapping, Sequence
from typing import Any

from rulebase import can

from .deck import CardKind, Deck
from .errors import (
    AlreadyHasCard,
    AlreadyPlaying,
    AlreadyRefreshed,
    BadPlayerCount,
    BadTarget,
    CardNotInFeed,
    CardRequired,
    DuplicatePlayer,
    FeedEmpty,
    GameIsOver,
    InvalidAction,
    MustPlace,
    NoChoiceOpen,
    NotAPlayer,
    NotEligible,
    NotEnoughDisinformation,
    NotEnoughRefutations,
    NotEnoughTechniques,
    NothingToRefresh,
    NothingToRefute,
    NothingToReturn,
    NotInHand,
    NotInRunoff,
    NotRevealed,
    NoTurnOpen,
    NotYourTurn,
    NoVoteOpen,
    ReferenceAlreadyConsulted,
    RefutationInProgress,
    TargetUnreachable,
    WrongDeck,
)
from .events import (
    CardChosen,
    CardReturned,
    CardsRevealed,
    CardWatched,
    FeedRefreshed,
    GameOver,
    GameStarted,
    HandDealt,
    PlayerSubstituted,
    ReferenceConsulted,
    RefutationFailed,
    RefutationStarted,
    RefutationSucceeded,
    Refuted,
    TurnPassed,
    TurnSkipped,
    VoteRecorded,
)
from .events import RefutationEvent as Event
from .model import (
    FEED_SIZE,
    HAND_REFUTATIONS,
    HAND_TECHNIQUES,
    MAX_PLAYERS,
    MIN_PLAYERS,
    TARGETS,
    Options,
    Phase,
    Player,
    Result,
)

STATE_FORMAT = 1


class Refutation:
    """One game of The Refutation Game. Build it with ``setup``, ``from_dict`` or ``replay``."""

    def __init__(self, deck: Deck, options: Options, players: Sequence[Player]) -> None:
        self.deck: Deck = deck
        self.deck_id: str = deck.id
        self.options: Options = options
        self.players: list[Player] = list(players)
        """In seat order: the active-player marker passes to the next seat."""
        self.draw: list[int] = []
        """The disinformation deck, top card first."""
        self.feed: list[int] = []
        """The feed ("fil des désinformations du moment"), at most ``FEED_SIZE`` cards."""
        self.in_front: dict[int, int | None] = {p.id: None for p in self.players}
        self.hands: dict[int, list[int]] = {p.id: [] for p in self.players}
        self.reserve: list[int] = []
        """Refutation and technique cards that were not dealt (out of the game)."""
        self.revealed: dict[int, int] = {}
        """During a vote: revealed card -> the player who played it."""
        self.discard: list[int] = []
        """Refutation and technique cards that won a refutation."""
        self.refuted: list[int] = []
        """The refuted disinformation pile, in order."""
        self.credits: dict[int, list[int]] = {p.id: [] for p in self.players}
        """Player -> the cards with which they refuted a disinformation."""
        self.successes: list[dict[str, Any]] = []
        """Every successful refutation: disinformation, card, player, by_reference."""
        self.active_seat: int = 0
        self.phase: Phase = Phase.TURN
        self.turn: int = 1
        self.refreshed: bool = False
        """The feed was refreshed this turn."""
        self.must_place: bool = False
        """After a refresh, the active player must watch a card."""
        self.refutation_count: int = 0
        self.target_player: int | None = None
        self.target_card: int | None = None
        self.choices: dict[int, int | None] = {}
        """During a refutation: player -> chosen card (None: passes). Absent: not decided."""
        self.votes: dict[int, int | None] = {}
        """During a vote: player -> card (None: abstains). Absent: not voted."""
        self.restricted_to: list[int] | None = None
        """After a tie on the reference page, the cards still in the vote."""
        self.reference_consulted: bool = False
        self.result: Result | None = None
        self.by_moderator: bool = False
        self.actions: list[dict[str, Any]] = []
        """Every action applied since setup, for ``replay``."""
        self.setup_record: dict[str, Any] = {}
        """The state right after setup (``from_dict`` of it + ``actions`` = this game)."""

    # ----------------------------------------------------------------------------------------
    # Setup

    @staticmethod
    def verify_setup(players: Sequence[Player], deck: Deck, options: Options) -> None:
        count = len(players)
        if not MIN_PLAYERS <= count <= MAX_PLAYERS:
            raise BadPlayerCount(count=count, min=MIN_PLAYERS, max=MAX_PLAYERS)
        seen: set[int] = set()
        for player in players:
            if player.id in seen:
                raise DuplicatePlayer(player=player.id, name=player.name)
            seen.add(player.id)
        if options.target not in TARGETS:
            raise BadTarget(target=options.target)
        disinformation = len(deck.disinformation())
        if disinformation < max(options.target, FEED_SIZE):
            raise NotEnoughDisinformation(
                needed=max(options.target, FEED_SIZE), available=disinformation
            )
        refutations = len(deck.refutations())
        if refutations < HAND_REFUTATIONS * count:
            raise NotEnoughRefutations(needed=HAND_REFUTATIONS * count, available=refutations)
        techniques = len(deck.techniques())
        if options.techniques and techniques < HAND_TECHNIQUES * count:
            raise NotEnoughTechniques(needed=HAND_TECHNIQUES * count, available=techniques)
        dealt = Refutation.cards_dealt(count, options.techniques)
        if options.target > dealt:
            # A card that wins a refutation is discarded: the hands can refute ``dealt`` cards
            # at most, so a larger goal is lost before the game starts.
            raise TargetUnreachable(
                target=options.target,
                players=count,
                dealt=dealt,
                largest=Refutation.largest_target(count, deck, options.techniques),
            )

    @staticmethod
    def cards_dealt(count: int, techniques: bool) -> int:
        """Refutation (and, with the variant, technique) cards in all hands at the start."""
        return (HAND_REFUTATIONS + (HAND_TECHNIQUES if techniques else 0)) * count

    @staticmethod
    def largest_target(count: int, deck: Deck, techniques: bool) -> int:
        """The largest goal (5, 7 or 9) that ``count`` players can reach with this deck: no more
        than the cards dealt, nor the deck's disinformation cards; 0 if none can be reached."""
        limit = min(Refutation.cards_dealt(count, techniques), len(deck.disinformation()))
        return max((t for t in TARGETS if t <= limit), default=0)

    @staticmethod
    def can_setup(players: Sequence[Player], deck: Deck, options: Options) -> bool:
        return can(lambda: Refutation.verify_setup(players, deck, options))

    @classmethod
    def setup(
        cls,
        players: Sequence[Player],
        deck: Deck,
        rng: random.Random,
        options: Options | None = None,
    ) -> tuple[Refutation, list[Event]]:
        """Shuffle, reveal the feed, deal the hands and pick the active player at random."""
        options = options or Options()
        cls.verify_setup(players, deck, options)
        game = cls(deck, options, players)
        draw = [card.number for card in deck.disinformation()]
        rng.shuffle(draw)
        game.feed, game.draw = draw[:FEED_SIZE], draw[FEED_SIZE:]
        refutations = [card.number for card in deck.refutations()]
        rng.shuffle(refutations)
        techniques = [card.number for card in deck.techniques()]
        rng.shuffle(techniques)
        for seat, player in enumerate(game.players):
            hand = refutations[seat * HAND_REFUTATIONS : (seat + 1) * HAND_REFUTATIONS]
            if options.techniques:
                hand += techniques[seat * HAND_TECHNIQUES : (seat + 1) * HAND_TECHNIQUES]
            game.hands[player.id] = hand
        dealt_refutations = HAND_REFUTATIONS * len(game.players)
        dealt_techniques = HAND_TECHNIQUES * len(game.players) if options.techniques else 0
        game.reserve = refutations[dealt_refutations:] + techniques[dealt_techniques:]
        game.active_seat = rng.randrange(len(game.players))

        events: list[Event] = [
            GameStarted(
                deck_id=deck.id,
                players=tuple(p.id for p in game.players),
                active=game.active_player,
                feed=tuple(game.feed),
                draw_count=len(game.draw),
                target=options.target,
                techniques=options.techniques,
            )
        ]
        events += [
            HandDealt(player=p.id, hand=tuple(game.hands[p.id]), private_to=p.id)
            for p in game.players
        ]
        if not game.table_can_refute():
            events += game._finish(Result.LOST)
        game.setup_record = game._state_dict()
        return game, events

    # ----------------------------------------------------------------------------------------
    # Queries

    @property
    def active_player(self) -> int:
        return self.players[self.active_seat].id

    @property
    def player_ids(self) -> list[int]:
        return [p.id for p in self.players]

    @property
    def target_family(self) -> str | None:
        if self.target_card is None:
            return None
        return self.deck.card(self.target_card).family

    def player(self, player_id: int) -> Player:
        for player in self.players:
            if player.id == player_id:
                return player
        raise NotAPlayer(player=player_id)

    def is_player(self, player_id: int) -> bool:
        return player_id in self.hands

    def is_eligible(self, card: int) -> bool:
        """Whether ``card`` may be played against the current target."""
        if self.phase not in (Phase.CHOICE, Phase.VOTE) or not self.deck.has_card(card):
            return False
        kind = self.deck.cards[card].kind
        if kind is CardKind.TECHNIQUE:
            return self.options.techniques
        return kind is CardKind.REFUTATION and self.deck.cards[card].family == self.target_family

    def eligible_cards(self, player: int) -> list[int]:
        """The cards of ``player``'s hand that they may choose now (empty outside a choice)."""
        if self.phase is not Phase.CHOICE or not self.is_player(player):
            return []
        return [card for card in self.hands[player] if self.is_eligible(card)]

    def everyone_chosen(self) -> bool:
        return self.phase is Phase.CHOICE and all(pid in self.choices for pid in self.hands)

    def everyone_voted(self) -> bool:
        return self.phase is Phase.VOTE and all(pid in self.votes for pid in self.hands)

    def unrefuted_families(self) -> set[str]:
        """Families of the disinformation cards not yet refuted (deck, feed, in front)."""
        in_play = self.draw + self.feed + [c for c in self.in_front.values() if c is not None]
        return {str(self.deck.cards[c].family) for c in in_play}

    def can_refute_something(self, card: int) -> bool:
        families = self.unrefuted_families()
        found = self.deck.cards[card]
        if found.kind is CardKind.TECHNIQUE:
            return self.options.techniques and bool(families)
        return found.kind is CardKind.REFUTATION and found.family in families

    def table_can_refute(self) -> bool:
        """Whether some player holds a card that could still refute a disinformation."""
        return any(self.can_refute_something(card) for hand in self.hands.values() for card in hand)

    def zones(self) -> dict[str, list[int]]:
        """Every card of the deck by where it is (for tests and moderators)."""
        out: dict[str, list[int]] = {
            "draw": list(self.draw),
            "feed": list(self.feed),
            "reserve": list(self.reserve),
            "revealed": list(self.revealed),
            "discard": list(self.discard),
            "refuted": list(self.refuted),
        }
        for pid in self.player_ids:
            card = self.in_front[pid]
            out[f"front:{pid}"] = [] if card is None else [card]
            out[f"hand:{pid}"] = list(self.hands[pid])
        return out

    # ----------------------------------------------------------------------------------------
    # Common checks

    def _verify_open(self) -> None:
        if self.phase is Phase.OVER:
            raise GameIsOver()

    def _verify_player(self, player: int) -> None:
        self._verify_open()
        if not self.is_player(player):
            raise NotAPlayer(player=player)

    def _verify_turn_action(self, player: int) -> None:
        self._verify_player(player)
        if self.phase is not Phase.TURN:
            raise RefutationInProgress()
        if player != self.active_player:
            raise NotYourTurn(player=player, active=self.active_player)

    def _verify_refresh(self, returning: bool = False) -> None:
        if self.refreshed:
            raise AlreadyRefreshed()
        if not self.feed and not self.draw and not returning:
            raise NothingToRefresh()

    # ----------------------------------------------------------------------------------------
    # Watch (Veille)

    def verify_watch(
        self,
        player: int,
        card: int | None = None,
        *,
        refresh: bool = False,
        return_current: bool = False,
    ) -> None:
        """The active player places ``card`` of the feed in front of them.

        ``return_current``: first put their current card under the deck (required when they
        have one). ``refresh``: then put the whole feed under the deck and reveal the top 3;
        with ``card=None`` this only refreshes and the player must watch next."""
        self._verify_turn_action(player)
        current = self.in_front[player]
        if return_current and current is None:
            raise NothingToReturn(player=player)
        if refresh:
            self._verify_refresh(returning=return_current)
        if card is None:
            if not refresh:
                raise CardRequired()
            return
        if current is not None and not return_current:
            raise AlreadyHasCard(player=player, card=current)
        feed = self.feed
        if refresh:
            returned = [current] if return_current and current is not None else []
            feed = (self.draw + returned + self.feed)[:FEED_SIZE]
        if not feed:
            raise FeedEmpty()
        if card not in feed:
            raise CardNotInFeed(card=card)

    def can_watch(
        self,
        player: int,
        card: int | None = None,
        *,
        refresh: bool = False,
        return_current: bool = False,
    ) -> bool:
        return can(
            lambda: self.verify_watch(player, card, refresh=refresh, return_current=return_current)
        )

    def watch(
        self,
        player: int,
        card: int | None = None,
        *,
        refresh: bool = False,
        return_current: bool = False,
    ) -> list[Event]:
        self.verify_watch(player, card, refresh=refresh, return_current=return_current)
        events: list[Event] = []
        if return_current:
            current = self.in_front[player]
            assert current is not None
            self.in_front[player] = None
            self.draw.append(current)
            events.append(CardReturned(player=player, card=current))
        if refresh:
            events += self._refresh()
        if card is not None:
            events += self._place(player, card)
        self.actions.append(
            {
                "action": "watch",
                "player": player,
                "card": card,
                "refresh": refresh,
                "return_current": return_current,
            }
        )
        return events

    def verify_refresh_feed(self, player: int) -> None:
        """The active player puts the feed under the deck and reveals the top 3; they must then
        watch one of the new feed cards (at most once per turn)."""
        self._verify_turn_action(player)
        self._verify_refresh()

    def can_refresh_feed(self, player: int) -> bool:
        return can(lambda: self.verify_refresh_feed(player))

    def refresh_feed(self, player: int) -> list[Event]:
        self.verify_refresh_feed(player)
        events = self._refresh()
        self.actions.append({"action": "refresh_feed", "player": player})
        return events

    def _refresh(self) -> list[Event]:
        self.draw += self.feed
        self.feed, self.draw = self.draw[:FEED_SIZE], self.draw[FEED_SIZE:]
        self.refreshed = True
        self.must_place = True
        return [FeedRefreshed(feed=tuple(self.feed), draw_count=len(self.draw))]

    def _place(self, player: int, card: int) -> list[Event]:
        slot = self.feed.index(card)
        drawn: int | None = None
        if self.draw:
            drawn = self.draw.pop(0)
            self.feed[slot] = drawn
        else:
            del self.feed[slot]
        self.in_front[player] = card
        self.must_place = False
        events: list[Event] = [
            CardWatched(
                player=player,
                card=card,
                feed=tuple(self.feed),
                drawn=drawn,
                draw_count=len(self.draw),
            )
        ]
        return events + self._pass_turn()

    # ----------------------------------------------------------------------------------------
    # Skip (a turn not taken)

    def verify_skip_turn(self, by_moderator: bool = False) -> None:
        """The active player's turn passes to the next player with no card played: at the
        turn's deadline, or by a moderator. Only while a turn is open: not during a
        refutation (its choice and vote close by their own deadlines), nor once it is over."""
        self._verify_open()
        if self.phase is not Phase.TURN:
            raise NoTurnOpen()

    def can_skip_turn(self, by_moderator: bool = False) -> bool:
        return can(lambda: self.verify_skip_turn(by_moderator))

    def skip_turn(self, by_moderator: bool = False) -> list[Event]:
        """Nothing is placed or returned; a feed already refreshed this turn stays as it is."""
        self.verify_skip_turn(by_moderator)
        skipped = TurnSkipped(player=self.active_player, turn=self.turn, by_moderator=by_moderator)
        self.actions.append({"action": "skip_turn", "by_moderator": by_moderator})
        return [skipped, *self._pass_turn()]

    # ----------------------------------------------------------------------------------------
    # Refute

    def verify_refute(self, player: int, target_player: int) -> None:
        """The active player designates the disinformation in front of ``target_player``."""
        self._verify_turn_action(player)
        if self.must_place:
            raise MustPlace()
        if not self.is_player(target_player):
            raise NotAPlayer(player=target_player)
        if self.in_front[target_player] is None:
            raise NothingToRefute(target=target_player)

    def can_refute(self, player: int, target_player: int) -> bool:
        return can(lambda: self.verify_refute(player, target_player))

    def refute(self, player: int, target_player: int) -> list[Event]:
        self.verify_refute(player, target_player)
        card = self.in_front[target_player]
        assert card is not None
        self.phase = Phase.CHOICE
        self.refutation_count += 1
        self.target_player = target_player
        self.target_card = card
        self.choices = {}
        self.votes = {}
        self.restricted_to = None
        self.reference_consulted = False
        self.actions.append({"action": "refute", "player": player, "target_player": target_player})
        family = self.target_family
        assert family is not None  # a disinformation card always has its family
        return [
            RefutationStarted(
                refutation=self.refutation_count,
                player=player,
                target_player=target_player,
                card=card,
                family=family,
            )
        ]

    # ----------------------------------------------------------------------------------------
    # Choice

    def verify_choose(self, player: int, card: int | None) -> None:
        """``player`` secretly chooses ``card`` of their hand, or passes (None). Changeable until
        the reveal."""
        self._verify_player(player)
        if self.phase is not Phase.CHOICE:
            raise NoChoiceOpen()
        if card is None:
            return
        if card not in self.hands[player]:
            raise NotInHand(card=card)
        if not self.is_eligible(card):
            raise NotEligible(card=card, family=str(self.target_family))

    def can_choose(self, player: int, card: int | None) -> bool:
        return can(lambda: self.verify_choose(player, card))

    def choose(self, player: int, card: int | None) -> list[Event]:
        self.verify_choose(player, card)
        self.choices[player] = card
        self.actions.append({"action": "choose", "player": player, "card": card})
        return [CardChosen(player=player, card=card, private_to=player)]

    def verify_reveal(self) -> None:
        """Close the choices (everyone decided, or the deadline): reveal the chosen cards."""
        self._verify_open()
        if self.phase is not Phase.CHOICE:
            raise NoChoiceOpen()

    def can_reveal(self) -> bool:
        return can(self.verify_reveal)

    def reveal(self) -> list[Event]:
        self.verify_reveal()
        for pid in self.player_ids:
            card = self.choices.get(pid)
            if card is not None:
                self.hands[pid].remove(card)
                self.revealed[card] = pid
        self.phase = Phase.VOTE
        self.choices = {}
        self.actions.append({"action": "reveal"})
        assert self.target_card is not None
        events: list[Event] = [
            CardsRevealed(
                refutation=self.refutation_count,
                disinformation=self.target_card,
                cards=dict(self.revealed),
            )
        ]
        if not self.revealed:
            events += self._fail({}, "no_cards")
        return events

    # ----------------------------------------------------------------------------------------
    # Vote

    def _candidates(self) -> list[int]:
        if self.restricted_to is not None:
            return list(self.restricted_to)
        return list(self.revealed)

    def verify_vote(self, player: int, card: int | None) -> None:
        """``player`` votes for a revealed ``card`` or abstains (None). Changeable."""
        self._verify_player(player)
        if self.phase is not Phase.VOTE:
            raise NoVoteOpen()
        if card is None:
            return
        if card not in self.revealed:
            raise NotRevealed(card=card)
        if self.restricted_to is not None and card not in self.restricted_to:
            raise NotInRunoff(card=card)

    def can_vote(self, player: int, card: int | None) -> bool:
        return can(lambda: self.verify_vote(player, card))

    def vote(self, player: int, card: int | None) -> list[Event]:
        self.verify_vote(player, card)
        self.votes[player] = card
        self.actions.append({"action": "vote", "player": player, "card": card})
        return [VoteRecorded(player=player, card=card, private_to=player)]

    def vote_counts(self) -> dict[int, int]:
        """Votes by candidate card (secret until the vote closes)."""
        counts = dict.fromkeys(self._candidates(), 0)
        for card in self.votes.values():
            if card is not None and card in counts:
                counts[card] += 1
        return counts

    def verify_consult_reference(self, player: int) -> None:
        """Any player opens the target's reference page during the vote (once)."""
        self._verify_player(player)
        if self.phase is not Phase.VOTE:
            raise NoVoteOpen()
        if self.reference_consulted:
            raise ReferenceAlreadyConsulted()

    def can_consult_reference(self, player: int) -> bool:
        return can(lambda: self.verify_consult_reference(player))

    def consult_reference(self, player: int) -> list[Event]:
        """The revealed card with the most stars on the page is elected at once; a tie
        restricts the vote to the tied cards."""
        self.verify_consult_reference(player)
        assert self.target_card is not None
        self.reference_consulted = True
        self.actions.append({"action": "consult_reference", "player": player})
        relevant = {
            card: self.deck.stars(self.target_card, card)
            for card in self.revealed
            if self.deck.stars(self.target_card, card) > 0
        }
        elected: int | None = None
        restricted: list[int] = []
        if relevant:
            best = max(relevant.values())
            top = [card for card, stars in relevant.items() if stars == best]
            if len(top) == 1:
                elected = top[0]
            else:
                restricted = top
                self.restricted_to = top
                self.votes = {
                    pid: card for pid, card in self.votes.items() if card is None or card in top
                }
        events: list[Event] = [
            ReferenceConsulted(
                player=player,
                disinformation=self.target_card,
                relevant=relevant,
                elected=elected,
                restricted_to=tuple(restricted),
            )
        ]
        if elected is not None:
            events += self._succeed(elected, self.vote_counts(), by_reference=True)
        return events

    def verify_close_vote(self) -> None:
        """Close the vote (everyone voted, or the deadline)."""
        self._verify_open()
        if self.phase is not Phase.VOTE:
            raise NoVoteOpen()

    def can_close_vote(self) -> bool:
        return can(self.verify_close_vote)

    def close_vote(self) -> list[Event]:
        """A card with more than half of the votes cast (abstentions are not cast) wins."""
        self.verify_close_vote()
        self.actions.append({"action": "close_vote"})
        counts = self.vote_counts()
        cast = sum(counts.values())
        winners = [card for card, n in counts.items() if 2 * n > cast]
        if winners:
            return self._succeed(winners[0], counts, by_reference=False)
        return self._fail(counts, "no_majority")

    # ----------------------------------------------------------------------------------------
    # Resolution

    def _return_revealed(self) -> None:
        for card, pid in self.revealed.items():
            self.hands[pid].append(card)
        self.revealed = {}

    def _clear_refutation(self) -> None:
        self.phase = Phase.TURN
        self.target_player = None
        self.target_card = None
        self.choices = {}
        self.votes = {}
        self.restricted_to = None
        self.reference_consulted = False

    def _succeed(self, card: int, counts: dict[int, int], *, by_reference: bool) -> list[Event]:
        disinformation, target_player = self.target_card, self.target_player
        assert disinformation is not None and target_player is not None
        player = self.revealed.pop(card)
        self.discard.append(card)
        self.in_front[target_player] = None
        self.refuted.append(disinformation)
        self.credits[player].append(card)
        record = {
            "disinformation": disinformation,
            "card": card,
            "player": player,
            "by_reference": by_reference,
        }
        self.successes.append(record)
        self._return_revealed()
        self._clear_refutation()
        events: list[Event] = [
            RefutationSucceeded(
                disinformation=disinformation,
                card=card,
                player=player,
                by_reference=by_reference,
                target_player=target_player,
                votes=counts,
            )
        ]
        if len(self.refuted) >= self.options.target:
            return events + self._finish(Result.WON)
        if not self.table_can_refute():
            return events + self._finish(Result.LOST)
        return events + self._pass_turn()

    def _fail(self, counts: dict[int, int], reason: str) -> list[Event]:
        assert self.target_card is not None and self.target_player is not None
        event = RefutationFailed(
            disinformation=self.target_card,
            target_player=self.target_player,
            votes=counts,
            reason=reason,
        )
        self._return_revealed()
        self._clear_refutation()
        return [event, *self._pass_turn()]

    def _pass_turn(self) -> list[Event]:
        self.active_seat = (self.active_seat + 1) % len(self.players)
        self.turn += 1
        self.refreshed = False
        self.must_place = False
        return [TurnPassed(active=self.active_player, turn=self.turn)]

    def _finish(self, result: Result, *, by_moderator: bool = False) -> list[Event]:
        self._return_revealed()
        self._clear_refutation()
        self.phase = Phase.OVER
        self.result = result
        self.by_moderator = by_moderator
        return [
            GameOver(
                result=result,
                by_moderator=by_moderator,
                refuted=tuple(self.refuted),
                credits={pid: tuple(cards) for pid, cards in self.credits.items()},
                refutations=tuple(
                    Refuted(
                        disinformation=r["disinformation"],
                        card=r["card"],
                        player=r["player"],
                        by_reference=r["by_reference"],
                    )
                    for r in self.successes
                ),
            )
        ]

    # ----------------------------------------------------------------------------------------
    # Moderation

    def verify_end(self, by_moderator: bool = True) -> None:
        self._verify_open()

    def can_end(self, by_moderator: bool = True) -> bool:
        return can(lambda: self.verify_end(by_moderator))

    def end(self, by_moderator: bool = True) -> list[Event]:
        """End the game now (result ``ended``); revealed cards go back to their owners."""
        self.verify_end(by_moderator)
        self.actions.append({"action": "end", "by_moderator": by_moderator})
        return self._finish(Result.ENDED, by_moderator=by_moderator)

    def verify_substitute(self, old: int, new_player: Player) -> None:
        """``new_player`` takes the seat, hand, card in front, choice, vote and credits of
        ``old``."""
        self._verify_open()
        if not self.is_player(old):
            raise NotAPlayer(player=old)
        if self.is_player(new_player.id):
            raise AlreadyPlaying(player=new_player.id, name=new_player.name)

    def can_substitute(self, old: int, new_player: Player) -> bool:
        return can(lambda: self.verify_substitute(old, new_player))

    def substitute(self, old: int, new_player: Player) -> list[Event]:
        self.verify_substitute(old, new_player)
        new = new_player.id
        seat = self.player_ids.index(old)
        self.players[seat] = new_player

        def move(table: dict[int, Any]) -> None:
            if old in table:
                # Keep seat order in the tables that have one entry per player.
                items = [(new if k == old else k, v) for k, v in table.items()]
                table.clear()
                table.update(items)

        for table in (self.in_front, self.hands, self.credits, self.choices, self.votes):
            move(table)
        self.revealed = {card: new if pid == old else pid for card, pid in self.revealed.items()}
        if self.target_player == old:
            self.target_player = new
        self.actions.append({"action": "substitute", "old": old, "new": new_player.to_dict()})
        return [
            PlayerSubstituted(old=old, new=new, name=new_player.name),
            HandDealt(player=new, hand=tuple(self.hands[new]), private_to=new),
        ]

    # ----------------------------------------------------------------------------------------
    # Views

    def public_view(self) -> dict[str, Any]:
        """What every player may see: never a hand, an unrevealed choice or a vote."""
        refutation: dict[str, Any] | None = None
        if self.phase in (Phase.CHOICE, Phase.VOTE):
            refutation = {
                "number": self.refutation_count,
                "target_player": self.target_player,
                "card": self.target_card,
                "family": self.target_family,
                "chosen": [pid for pid in self.player_ids if pid in self.choices],
                "revealed": dict(self.revealed) if self.phase is Phase.VOTE else {},
                "voted": [pid for pid in self.player_ids if pid in self.votes],
                "restricted_to": None if self.restricted_to is None else list(self.restricted_to),
                "reference_consulted": self.reference_consulted,
            }
        return {
            "deck_id": self.deck_id,
            "phase": self.phase.value,
            "turn": self.turn,
            "active": self.active_player,
            "target": self.options.target,
            "techniques": self.options.techniques,
            "players": [
                {
                    "id": p.id,
                    "name": p.name,
                    "hand_size": len(self.hands[p.id]),
                    "in_front": self.in_front[p.id],
                    "credits": list(self.credits[p.id]),
                }
                for p in self.players
            ],
            "feed": list(self.feed),
            "draw_count": len(self.draw),
            "discard_count": len(self.discard),
            "discard": list(self.discard),
            "refuted": list(self.refuted),
            "refreshed": self.refreshed,
            "must_place": self.must_place,
            "refutation": refutation,
            "result": None if self.result is None else self.result.value,
        }

    def private_view(self, player: int) -> dict[str, Any]:
        """What ``player`` alone may see: their hand, choice and vote."""
        if not self.is_player(player):
            raise NotAPlayer(player=player)
        return {
            "player": player,
            "hand": list(self.hands[player]),
            "in_front": self.in_front[player],
            "eligible": self.eligible_cards(player),
            "has_chosen": player in self.choices,
            "choice": self.choices.get(player),
            "has_voted": player in self.votes,
            "vote": self.votes.get(player),
        }

    # ----------------------------------------------------------------------------------------
    # Serialisation and replay

    def _state_dict(self) -> dict[str, Any]:
        return {
            "format": STATE_FORMAT,
            "deck_id": self.deck_id,
            "options": self.options.to_dict(),
            "seats": [
                {
                    **p.to_dict(),
                    "hand": list(self.hands[p.id]),
                    "in_front": self.in_front[p.id],
                    "credits": list(self.credits[p.id]),
                }
                for p in self.players
            ],
            "draw": list(self.draw),
            "feed": list(self.feed),
            "reserve": list(self.reserve),
            "revealed": [[card, pid] for card, pid in self.revealed.items()],
            "discard": list(self.discard),
            "refuted": list(self.refuted),
            "successes": copy.deepcopy(self.successes),
            "active_seat": self.active_seat,
            "phase": self.phase.value,
            "turn": self.turn,
            "refreshed": self.refreshed,
            "must_place": self.must_place,
            "refutation_count": self.refutation_count,
            "target_player": self.target_player,
            "target_card": self.target_card,
            "choices": [[pid, card] for pid, card in self.choices.items()],
            "votes": [[pid, card] for pid, card in self.votes.items()],
            "restricted_to": None if self.restricted_to is None else list(self.restricted_to),
            "reference_consulted": self.reference_consulted,
            "result": None if self.result is None else self.result.value,
            "by_moderator": self.by_moderator,
        }

    def to_dict(self) -> dict[str, Any]:
        """The whole game as JSON-compatible data (string keys only)."""
        return {
            **self._state_dict(),
            "actions": copy.deepcopy(self.actions),
            "setup": copy.deepcopy(self.setup_record),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], deck: Deck) -> Refutation:
        """The game saved by ``to_dict`` (or a ``setup_record``), played with ``deck``."""
        if d["deck_id"] != deck.id:
            raise WrongDeck(expected=str(d["deck_id"]), actual=deck.id)
        seats = d["seats"]
        game = cls(deck, Options.from_dict(d["options"]), [Player.from_dict(s) for s in seats])
        for seat in seats:
            pid = int(seat["id"])
            game.hands[pid] = [int(c) for c in seat["hand"]]
            game.in_front[pid] = _opt_int(seat["in_front"])
            game.credits[pid] = [int(c) for c in seat["credits"]]
        game.draw = [int(c) for c in d["draw"]]
        game.feed = [int(c) for c in d["feed"]]
        game.reserve = [int(c) for c in d["reserve"]]
        game.revealed = {int(card): int(pid) for card, pid in d["revealed"]}
        game.discard = [int(c) for c in d["discard"]]
        game.refuted = [int(c) for c in d["refuted"]]
        game.successes = copy.deepcopy(list(d["successes"]))
        game.active_seat = int(d["active_seat"])
        game.phase = Phase(d["phase"])
        game.turn = int(d["turn"])
        game.refreshed = bool(d["refreshed"])
        game.must_place = bool(d["must_place"])
        game.refutation_count = int(d["refutation_count"])
        game.target_player = _opt_int(d["target_player"])
        game.target_card = _opt_int(d["target_card"])
        game.choices = {int(pid): _opt_int(card) for pid, card in d["choices"]}
        game.votes = {int(pid): _opt_int(card) for pid, card in d["votes"]}
        restricted = d["restricted_to"]
        game.restricted_to = None if restricted is None else [int(c) for c in restricted]
        game.reference_consulted = bool(d["reference_consulted"])
        game.result = None if d["result"] is None else Result(d["result"])
        game.by_moderator = bool(d.get("by_moderator", False))
        game.actions = copy.deepcopy(list(d.get("actions", [])))
        setup = d.get("setup")
        game.setup_record = copy.deepcopy(dict(setup)) if setup else game._state_dict()
        return game

    def apply(self, action: Mapping[str, Any]) -> list[Event]:
        """Apply one action record of ``actions`` (as logged by the action methods)."""
        name = action.get("action")
        try:
            if name == "watch":
                return self.watch(
                    int(action["player"]),
                    _opt_int(action.get("card")),
                    refresh=bool(action.get("refresh", False)),
                    return_current=bool(action.get("return_current", False)),
                )
            if name == "refresh_feed":
                return self.refresh_feed(int(action["player"]))
            if name == "refute":
                return self.refute(int(action["player"]), int(action["target_player"]))
            if name == "choose":
                return self.choose(int(action["player"]), _opt_int(action.get("card")))
            if name == "reveal":
                return self.reveal()
            if name == "vote":
                return self.vote(int(action["player"]), _opt_int(action.get("card")))
            if name == "consult_reference":
                return self.consult_reference(int(action["player"]))
            if name == "close_vote":
                return self.close_vote()
            if name == "skip_turn":
                return self.skip_turn(bool(action.get("by_moderator", False)))
            if name == "end":
                return self.end(bool(action.get("by_moderator", True)))
            if name == "substitute":
                return self.substitute(int(action["old"]), Player.from_dict(action["new"]))
        except (KeyError, TypeError, ValueError):
            raise InvalidAction(action=str(name)) from None
        raise InvalidAction(action=str(name))

    @classmethod
    def replay(
        cls, setup_record: Mapping[str, Any], actions: Sequence[Mapping[str, Any]], deck: Deck
    ) -> Refutation:
        """The game obtained by applying ``actions`` to the state ``setup_record``."""
        game = cls.from_dict(setup_record, deck)
        game.actions = []
        game.setup_record = copy.deepcopy(dict(setup_record))
        game.setup_record.pop("actions", None)
        game.setup_record.pop("setup", None)
        for action in actions:
            game.apply(action)
        return game


def _opt_int(value: Any) -> int | None:
    return None if value is None else int(value)


def replay(
    setup_record: Mapping[str, Any], actions: Sequence[Mapping[str, Any]], deck: Deck
) -> Refutation:
    """``Refutation.replay``."""
    return Refutation.replay(setup_record, actions, deck)
