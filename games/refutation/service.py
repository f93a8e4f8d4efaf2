"""The Refutation Game service: one method per user action, one transaction each.

The active player's turn has a deadline of its own (``turn_hours``, with a reminder DM
``reminder_hours`` before it): armed when the turn opens, dropped when it ends by an action
(a watch, a refutation: the refutation's choice and vote deadlines cover its time), and at its
time the turn passes to the next player with no card played (:meth:`turn_missed`).

Secret choices and votes live in the ``votes`` table (one row per player and refutation, an
upsert, round key ``r<n>``, kinds ``choice`` and ``refute_vote``): a click is recorded without
rewriting the game state, so players clicking at once never overwrite each other. At the reveal
and at the close of the vote the recorded values are applied to the engine.
"""

from __future__ import annotations

import logging
import random
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import discord
from sqlalchemy.ext.asyncio import AsyncSession

from bot import limits
from bot import posts as public
from bot.ballots import BallotBox, BallotRules, Ballots, Mark
from bot.choice import Offer, SecretMenu
from bot.effects import DirectMessage, EditSlot, Post, View
from bot.errors import UserError
from bot.i18n import lang_of
from bot.listing import Waiting
from bot.names import listing, shown
from bot.render.common import channel, ts
from bot.service import Actor, AfterCommit, Effect, GameService, Outcome, Reply, Step
from db import repo
from db.models import Deadline, Game, Player
from games.refutation import render as render
from games.refutation.decks import settings as deck_settings
from games.refutation.decks.registry import DeckRegistry
from games.refutation.options import DECK
from games.refutation.render import ABSTAIN, PASS, m, option_data
from games.refutation.rules import (
    Deck,
    Options,
    Phase,
    Refutation,
)
from games.refutation.rules import Player as EnginePlayer
from games.refutation.rules.errors import (
    BadPlayerCount,
    BadTarget,
    GameIsOver,
    NotAPlayer,
    TargetUnreachable,
    UnknownCard,
)
from games.refutation.rules.events import (
    ReferenceConsulted,
    TurnPassed,
)
from games.refutation.rules.events import RefutationEvent as Event
from games.refutation.rules.model import MAX_PLAYERS, MIN_PLAYERS, TARGETS

log = logging.getLogger(__name__)

CHOICE = "rf_choice"
VOTE = "rf_vote"
TURN = "rf_turn"
TURN_REMINDER = "rf_turn_reminder"
TURN_KINDS = (TURN, TURN_REMINDER)
KINDS = (CHOICE, VOTE, *TURN_KINDS)


def parse_card(value: str | int) -> int:
    try:
        return int(str(value).strip().lstrip("#"))
    except ValueError:
        raise UserError("refutation.refusal.bad_card", value=str(value)[:40]) from None


def require_step(state: Refutation, n: int | None, phase: Phase) -> None:
    """Refuse a click on refutation ``n`` (None: the current one) at ``phase`` that is not
    the step open now (a button of an earlier one)."""
    if n is not None and (n != state.refutation_count or state.phase is not phase):
        raise UserError("refutation.refusal.stale_button")


@dataclass(frozen=True)
class Ballot:
    """One secret choice (``Phase.CHOICE``) or vote (``Phase.VOTE``) of a refutation, queued
    for group commit; ``card`` None: pass, or abstain."""

    actor: Actor
    game_id: int
    n: int | None
    phase: Phase
    card: int | None


class RefutationService(GameService):
    kind = "refutation"
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    reminder_kinds = frozenset({TURN_REMINDER})

    # -- deck and options ---------------------------------------------------------------------

    _pinned: weakref.WeakKeyDictionary[Game, Deck]

    def __init__(self, app: Any) -> None:
        super().__init__(app)
        #: the decks by name (the default one, ``[decks] decks_dir``'s, the guilds' uploads)
        self.decks = DeckRegistry(deck_settings.of(app.sections if app is not None else {}))
        self._pinned = weakref.WeakKeyDictionary()
        #: secret choices and votes, by group commit (bot/ballots.py)
        self.ballot_box: BallotBox[Ballot, Refutation] = BallotBox(
            app, RefutationBallots(self), self.actions.transaction
        )
        #: the secret choice's DM menus (bot/choice.py), answered by :meth:`choose`
        self.hidden = SecretMenu(self, CHOICE, self.choose)

    async def guild_deck(self, guild_id: int) -> tuple[str, str]:
        """The name and content hash of the guild's deck (the guild's setting, else the
        config's, else the default deck), its content stored in the database."""
        async with self.app.sessions() as s:
            settings = await repo.get_guild_settings(s, guild_id)
        configured = str(self.app.defaults.get(self.kind, {}).get(DECK) or "")
        return await self.decks.resolve(
            self.app.sessions,
            guild_id,
            settings.defaults_for(self.kind).get(DECK) or configured or "default",
        )

    @staticmethod
    def validate(options: dict[str, Any]) -> None:
        if int(options.get("target", 5)) not in TARGETS:
            raise BadTarget(target=int(options.get("target", 5)))

    @staticmethod
    def check_reachable(options: dict[str, Any], deck: Deck) -> None:
        """The player count is not known yet: refuse only a goal that no table of this deck
        can reach (the largest table, 6 players, holds the most cards); /refutation start
        checks the actual table (RULES.md: refused with the largest possible goal)."""
        target, techniques = int(options.get("target", 5)), bool(options.get("techniques"))
        largest = Refutation.largest_target(MAX_PLAYERS, deck, techniques)
        if target > largest:
            raise TargetUnreachable(
                target=target,
                players=MAX_PLAYERS,
                dealt=Refutation.cards_dealt(MAX_PLAYERS, techniques),
                largest=largest,
            )

    async def new_game(
        self,
        actor: Actor,
        *,
        guild_id: int,
        channel: Any,
        given: dict[str, Any],
        validate: Callable[[dict[str, Any]], None] | None = None,
        tag: str | None = None,
    ) -> str:
        """The game keeps the deck's name and the hash of its content: the content itself is
        in the database, so the game plays on if the file or the upload goes away."""
        name, sha = await self.guild_deck(guild_id)
        given = {**given, DECK: name, "deck_sha256": sha}
        async with self.app.sessions() as s:
            deck = await self.decks.by_hash(s, sha)

        def checked(options: dict[str, Any]) -> None:
            if validate is not None:
                validate(options)
            self.validate(options)
            self.check_reachable(options, deck)

        return await super().new_game(
            actor, guild_id=guild_id, channel=channel, given=given, validate=checked, tag=tag
        )

    async def ensure_deck(self, s: AsyncSession, game: Game) -> Deck:
        """Load the game's deck from the database (parsed once per content, off the loop)."""
        deck = self._pinned.get(game)
        if deck is None:
            deck = self._pinned[game] = await self.deck_for(s, game.options)
        return deck

    async def deck_for(self, s: AsyncSession, options: Mapping[str, Any]) -> Deck:
        """The deck of a game with these options (the one it was opened with)."""
        sha = options.get("deck_sha256")
        if sha:
            return await self.decks.by_hash(s, str(sha))
        # a game opened before decks were stored: the default deck
        _, default = await self.decks.resolve(self.app.sessions, 0, "default")
        return await self.decks.by_hash(s, default)

    async def prepare(self, s: AsyncSession, game: Game) -> None:
        await self.ensure_deck(s, game)

    def deck_of(self, game: Game) -> Deck:
        """The game's deck, loaded by ``ensure_deck`` (every entry point calls it first)."""
        deck = self._pinned.get(game)
        if deck is None:
            raise UserError("refutation.decks.error.not_loaded")
        return deck

    # -- state --------------------------------------------------------------------------------

    def load(self, game: Game) -> Refutation:
        if game.state is None:
            raise UserError("common.error.not_started")
        return Refutation.from_dict(game.state, self.deck_of(game))

    def post(
        self,
        game: Game,
        text: str,
        embeds: Sequence[discord.Embed] = (),
        *,
        mention: int | None = None,
    ) -> Effect:
        """One public post: the dispatcher sends it in as many messages as Discord's limits
        need (the text split between lines into messages of at most 2,000 characters, the
        cards in messages of at most 10 embeds and 6,000 characters). ``mention``: the one
        player this post pings (in its last part, where the call is)."""
        return Post(
            public.where(game), text, embeds=tuple(e.to_dict() for e in embeds), mention=mention
        )

    def posts(
        self,
        game: Game,
        state: Refutation,
        events: Sequence[Event],
        locales: Mapping[int, str],
        turn_due: datetime | None = None,
    ) -> list[Effect]:
        """The public posts of ``events``, and the call of the next active player (their DM in
        their own language: ``locales``, user id to locale, see :meth:`locales`; ``turn_due``:
        the turn's deadline)."""
        effects = [
            self.post(game, text, embeds)
            for text, embeds in render.event_posts(state, events, game.lang)
        ]
        turn_passed = any(isinstance(e, TurnPassed) for e in events)
        if state.phase is Phase.TURN and (turn_passed or state.must_place):
            effects += self.call_active(game, state, locales, turn_due)
        return effects

    async def posts_in(
        self, s: AsyncSession, game: Game, state: Refutation, events: Sequence[Event]
    ) -> list[Effect]:
        """:meth:`posts` in the action's transaction, with the turn's deadline: a new turn's
        armed (:meth:`arm_turn`), the same turn's kept (a refresh: the player must still
        watch), none once the table is in a refutation or the game is over."""
        due: datetime | None = None
        armed: list[Effect] = []
        if state.phase is Phase.TURN:
            if any(isinstance(e, TurnPassed) for e in events):
                due, armed = await self.arm_turn(s, game, state)
            else:
                due = await self.deadlines.due(s, game, TURN)
        else:
            await self.deadlines.cancel(s, game, TURN_KINDS)
        locales = await self.locales(s, game)
        return [*self.posts(game, state, events, locales, due), *armed]

    async def locales(self, s: AsyncSession, game: Game) -> dict[int, str]:
        """Each player's language (their DMs'), read in the action's transaction."""
        return {p.user_id: p.locale for p in await repo.players(s, game.id)}

    def call_active(
        self,
        game: Game,
        state: Refutation,
        locales: Mapping[int, str],
        due: datetime | None = None,
    ) -> list[Effect]:
        """The turn prompt with the feed (and the turn's deadline, ``due``). A new turn pings
        the active player (only them: names in lists never ping) and DMs them a link to the
        game, in their language."""
        text, embeds = render.turn_post(state, game.lang, due)
        if state.must_place:  # the same player, who has just refreshed the feed
            return [self.post(game, text, embeds)]
        active = state.active_player
        lang = locales.get(active, game.lang)
        dm = m("turn.dm", lang, turn=state.turn, link=public.link(game))
        if due is not None:
            dm += " " + m("turn.dm_deadline", lang, deadline=ts(due))
        return [self.post(game, text, embeds, mention=active), DirectMessage(active, dm)]

    # -- the turn's deadline ------------------------------------------------------------------

    async def arm_turn(
        self, s: AsyncSession, game: Game, state: Refutation
    ) -> tuple[datetime | None, list[Effect]]:
        """The turn that opens now: the earlier turn's deadline and reminder dropped; with
        ``turn_hours`` its deadline (``deadline_time`` applies, as to every step) and,
        ``reminder_hours`` before it (at most half way), the active player's reminder. Returns
        the turn's deadline (None: no limit) and the effects that schedule them."""
        await self.deadlines.cancel(s, game, TURN_KINDS)
        # A game opened before turns had deadlines has no turn_hours: it keeps none.
        hours = float(game.options.get("turn_hours", 0) or 0)
        if hours <= 0 or state.phase is not Phase.TURN or self.app.scheduler is None:
            return None, []
        now = self.now()
        due = await self.deadlines.due_at(s, game, "turn_hours")
        payload = {"turn": state.turn}
        effects = await self.deadlines.arm(s, game, TURN, due, payload)
        span = (due - now).total_seconds() / 3600
        before = min(float(game.options.get("reminder_hours", 2) or 0), span / 2)
        if before > 0:
            reminder = due - timedelta(hours=before)
            effects += await self.deadlines.arm(s, game, TURN_REMINDER, reminder, payload)
        return due, effects

    async def turn_missed(self, s: AsyncSession, game: Game, turn: int) -> Outcome | None:
        """The deadline of turn ``turn`` has come and its active player has not played: the
        turn passes to the next player, no card played, said publicly, and the next turn is
        posted with its own deadline. The one place a turn not taken is resolved (a missed
        deadline of that player's). None: that turn is over already."""
        if game.status != "running":
            return None
        state = self.load(game)
        if state.phase is not Phase.TURN or state.turn != turn:
            return None
        absent = state.active_player
        outcome = await self.skip_in(s, game, state, None)
        # the replacement list: a turn not taken is a deadline missed (bot/service/seats.py)
        outcome.effects += await self.seats.count_misses(s, game, [absent], [])
        return outcome

    async def skip_in(
        self, s: AsyncSession, game: Game, state: Refutation, moderator: int | None
    ) -> Outcome:
        """The active player's turn passes to the next player (``moderator``: who skipped it,
        else its deadline did)."""
        events = state.skip_turn(by_moderator=moderator is not None)
        await self.save(s, game, state, events, moderator)
        return Outcome("", await self.posts_in(s, game, state, events))

    async def remind_turn_in(self, s: AsyncSession, game: Game, turn: int) -> Outcome | None:
        """Turn ``turn`` is still waiting and its deadline is near: a private reminder to the
        active player, in their language."""
        state = self.load(game)
        if state.phase is not Phase.TURN or state.turn != turn:
            return None
        due = await self.deadlines.due(s, game, TURN)
        if due is None:
            return None
        active = state.active_player
        row = await repo.player(s, game.id, active)
        lang = row.locale if row is not None else game.lang
        text = m("turn.reminder", lang, turn=turn, link=public.link(game), deadline=ts(due))
        return Outcome("", [DirectMessage(active, text)])

    async def prod_turn(
        self, s: AsyncSession, game: Game, state: Refutation, actor: Actor
    ) -> Outcome:
        """A moderator's ``remind`` during a turn: the active player's reminder DM."""
        active, turn = state.active_player, state.turn
        row = await repo.player(s, game.id, active)
        lang = row.locale if row is not None else game.lang
        due, link = await self.deadlines.due(s, game, TURN), public.link(game)
        if due is not None:
            text = m("turn.reminder", lang, turn=turn, link=link, deadline=ts(due))
        else:
            text = m("turn.reminder_open", lang, turn=turn, link=link)
        names = listing([(active, state.player(active).name)], actor.lang, bold=True)
        reply = m("moderation.reminded", actor.lang, count=1, names=names)
        return Outcome(reply, [DirectMessage(active, text)])

    # -- start --------------------------------------------------------------------------------

    def bad_player_count(self, count: int) -> Exception:
        return BadPlayerCount(count=count, min=self.min_players, max=self.max_players)

    def game_options(self, game: Game) -> Options:
        return Options(
            target=int(game.options.get("target", 5)),
            techniques=bool(game.options.get("techniques", False)),
        )

    def before_start(self, game: Game, players: list[Player]) -> None:
        # The deck must still load, and the goal be reachable by this table (RULES.md: a goal
        # larger than the cards dealt is refused, with the largest possible one), before
        # anyone is asked anything.
        Refutation.verify_setup(
            [EnginePlayer(p.user_id, p.display_name) for p in players],
            self.deck_of(game),
            self.game_options(game),
        )

    async def deal(
        self, s: AsyncSession, game: Game, players: list[Player], actor: Actor
    ) -> Outcome:
        rng = random.Random(self.app.rng.getrandbits(64))
        options = self.game_options(game)
        state, events = Refutation.setup(
            [EnginePlayer(p.user_id, p.display_name) for p in players],
            self.deck_of(game),
            rng,
            options,
        )
        for p in players:
            p.seat = state.player_ids.index(p.user_id)
        game.status = "running"
        game.started_at = self.now()
        over = state.phase is Phase.OVER
        if over:
            await repo.set_status(s, game, "ended", at=self.now())
        await self.save(s, game, state, events, actor.id)
        effects: list[Effect] = [
            self.post(game, render.start_text(state, game.lang)),
            self.hand_dms(game, state, players),
        ]
        locales = {p.user_id: p.locale for p in players}
        if over:
            effects += self.posts(game, state, events, locales)
        else:
            due, armed = await self.arm_turn(s, game, state)
            effects += [*self.call_active(game, state, locales, due), *armed]
        return Outcome(m("start.done", actor.lang), effects)

    def hand_reply(self, state: Refutation, player_id: int, lang: str, head: str) -> Reply:
        text, embeds = render.hand(state, player_id, lang, head)
        return Reply(text, embeds)

    def hand_dms(self, game: Game, state: Refutation, players: list[Player]) -> list[Effect]:
        where = channel(public.where(game))
        effects: list[Effect] = []
        for p in players:
            reply = self.hand_reply(
                state,
                p.user_id,
                p.locale,
                m("hand.dm", p.locale, where=where, count=len(state.hands[p.user_id])),
            )
            embeds = tuple(e.to_dict() for e in reply.embeds)
            effects.append(DirectMessage(p.user_id, reply.content, embeds=embeds))
        return effects

    # -- watch --------------------------------------------------------------------------------

    async def watch(
        self,
        actor: Actor,
        game_id: int,
        card: int,
        *,
        refresh: bool = False,
        return_current: bool = False,
    ) -> str:
        """Watch (Veille). With ``refresh`` and ``card`` not in the new feed: refresh only, and
        tell the player to pick from the new feed."""
        async with self.action(game_id, actor) as (s, game):
            state = self.running(game)
            if not state.is_player(actor.id):
                raise NotAPlayer(player=actor.id)
            placed = True
            if refresh and not state.can_watch(
                actor.id, card, refresh=True, return_current=return_current
            ):
                # Why not? Other reasons are the player's to fix; only the card being absent from
                # the new feed means "refresh, then choose again".
                state.verify_watch(actor.id, None, refresh=True, return_current=return_current)
                try:
                    state.verify_watch(actor.id, card, refresh=True, return_current=return_current)
                except Exception as exc:
                    if getattr(exc, "key", "") not in (
                        "refutation.error.card_not_in_feed",
                        "refutation.error.feed_empty",
                    ):
                        raise
                events = state.watch(actor.id, None, refresh=True, return_current=return_current)
                placed = False
            else:
                events = state.watch(actor.id, card, refresh=refresh, return_current=return_current)
            await self.actions.require_in_time(s, game, TURN, actor)
            await self.save(s, game, state, events, actor.id)
            reply = (
                m("watch.done", actor.lang, number=card)
                if placed
                else m("watch.pick_again", actor.lang, number=card)
            )
            outcome = await self.commit_outcome(
                s, game, Outcome(reply, await self.posts_in(s, game, state, events))
            )
        return await self.run(outcome)

    # -- refute -------------------------------------------------------------------------------

    async def refute(self, actor: Actor, game_id: int, target: int) -> str:
        async with self.action(game_id, actor) as (s, game):
            state = self.running(game)
            if not state.is_player(actor.id):
                raise NotAPlayer(player=actor.id)
            events = state.refute(actor.id, target)
            await self.actions.require_in_time(s, game, TURN, actor)
            # The turn ends here: the refutation's choice and vote have deadlines of their own.
            await self.deadlines.cancel(s, game, TURN_KINDS)
            n = state.refutation_count
            due = await self.deadlines.due_at(s, game, "choice_hours")
            await self.save(s, game, state, events, actor.id)
            effects = await self.deadlines.arm(s, game, CHOICE, due, {"n": n})
            text, embeds = render.refute_post(state, actor.id, game.lang, due)
            effects.append(self.post(game, text, embeds))
            effects.append(self.choice_dms(game, state, await repo.players(s, game.id), due))
            outcome = Outcome(m("refute.done", actor.lang, n=n), effects)
            await self.commit_outcome(s, game, outcome)
        return await self.run(outcome)

    def choice_dms(
        self, game: Game, state: Refutation, players: list[Player], due: datetime
    ) -> list[Effect]:
        n = state.refutation_count
        where = channel(public.where(game))
        effects: list[Effect] = []
        for p in players:
            if not state.is_player(p.user_id):
                continue
            lang = p.locale
            text, embeds = render.choice_dm(state, p.user_id, lang, where, due)
            options = tuple(
                tuple(option_data(o)) for o in render.choice_options(state, p.user_id, lang)
            )
            cards = tuple(e.to_dict() for e in embeds)
            placeholder = m("refute.placeholder", lang)
            offer = Offer(p.user_id, text, options, placeholder, embeds=cards)
            effects.append(self.hidden.menu(game, n, offer))
        return effects

    # -- secret choice ------------------------------------------------------------------------

    def current(self, game: Game, n: int | None, phase: Phase) -> Refutation:
        """The running state for a click on refutation ``n`` (None: the current one)."""
        if game.status != "running":
            if n is not None:
                raise UserError("refutation.refusal.stale_button")
            state: Refutation = self.running(game)
            return state
        state = self.load(game)
        require_step(state, n, phase)
        return state

    async def choose(self, actor: Actor, game_id: int, n: int | None, value: str) -> str:
        """Record a secret choice (a card number or ``pass``); ``n`` None: the current one.
        Written by group commit (bot/ballots.py)."""
        card = None if value.strip().lower() in (PASS, "passer") else parse_card(value)
        outcome = await self.ballot_box.submit(Ballot(actor, game_id, n, Phase.CHOICE, card))
        return await self.run(outcome)

    def later(self, method: Callable[[int, int], Any], game_id: int, n: int) -> AfterCommit:
        async def go() -> None:
            await method(game_id, n)

        return go

    async def close_choice(self, game_id: int, n: int) -> None:
        async with self.action(game_id) as (s, game):
            outcome = await self.reveal_in(s, game, n)
            if outcome is not None:
                await self.commit_outcome(s, game, outcome)
        if outcome is not None:
            await self.run(outcome)

    async def reveal_in(self, s: AsyncSession, game: Game, n: int) -> Outcome | None:
        if game.status != "running":
            return None
        state = self.load(game)
        if state.phase is not Phase.CHOICE or state.refutation_count != n:
            return None
        events: list[Event] = []
        chosen = await repo.votes_for(s, game.id, f"r{n}", "choice")
        for uid, value in chosen.items():
            card = None if value == PASS else int(value)
            if state.can_choose(uid, card):
                events += state.choose(uid, card)
        everyone = set(state.player_ids)
        events += state.reveal()
        phase: Phase = state.phase  # read again: reveal() moved it on from CHOICE
        await self.deadlines.cancel(s, game, (CHOICE,))
        effects: list[Effect] = []
        if phase is Phase.VOTE:
            due = await self.deadlines.due_at(s, game, "vote_hours")
            text, embeds = render.reveal_post(state, game.lang)
            effects.append(self.post(game, text, embeds))
            effects += await self.deadlines.arm(s, game, VOTE, due, {"n": n})
            effects.append(self.vote_message(game, state, due, list(state.revealed), True))
        else:
            effects += await self.posts_in(s, game, state, events)
            if phase is Phase.OVER:
                await repo.set_status(s, game, "ended", at=self.now())
        await self.save(s, game, state, events, None)
        if phase is Phase.OVER:
            effects.append(public.archive_post(game))
        else:  # the replacement list: who let the secret choice pass (a pass is an answer)
            effects += await self.seats.count_misses(s, game, everyone - set(chosen), set(chosen))
        return Outcome("", effects)

    def vote_message(
        self, game: Game, state: Refutation, due: datetime, cards: list[int], reference: bool
    ) -> list[Effect]:
        lang, n = game.lang, state.refutation_count
        text = render.vote_text(state, lang, due, cards, reference)
        buttons = render.vote_buttons(state, cards, lang)
        view = View("rf_vote", (game.id, n, buttons, reference, lang_of(lang)))
        return [
            self.close_vote_buttons(game),
            Post(public.where(game), text, view=view, slot="vote"),
        ]

    def close_vote_buttons(self, game: Game) -> Effect:
        """The buttons of the last vote message go (the message stays)."""
        return EditSlot(public.where(game), "vote", clear_view=True)

    # -- vote ---------------------------------------------------------------------------------

    def valid_votes(self, state: Refutation, recorded: dict[int, str]) -> dict[int, int | None]:
        out: dict[int, int | None] = {}
        for uid, value in recorded.items():
            card = None if value == ABSTAIN else int(value)
            if state.can_vote(uid, card):
                out[uid] = card
        return out

    async def vote(self, actor: Actor, game_id: int, n: int | None, value: str) -> str:
        """Record a vote (a card number or ``abstain``); ``n`` None: the current refutation.
        Written by group commit (bot/ballots.py)."""
        lowered = value.strip().lower()
        card = None if lowered in (ABSTAIN, "abstention", "sabstenir") else parse_card(value)
        outcome = await self.ballot_box.submit(Ballot(actor, game_id, n, Phase.VOTE, card))
        return await self.run(outcome)

    async def close_vote(self, game_id: int, n: int) -> None:
        async with self.action(game_id) as (s, game):
            outcome = await self.close_vote_in(s, game, n)
            if outcome is not None:
                await self.commit_outcome(s, game, outcome)
        if outcome is not None:
            await self.run(outcome)

    async def close_vote_in(self, s: AsyncSession, game: Game, n: int) -> Outcome | None:
        if game.status != "running":
            return None
        state = self.load(game)
        if state.phase is not Phase.VOTE or state.refutation_count != n:
            return None
        voted = set(await repo.votes_for(s, game.id, f"r{n}", "refute_vote"))
        everyone = set(state.player_ids)
        events = await self.apply_votes(s, game, state)
        events += state.close_vote()
        outcome = await self.finish_refutation(s, game, state, events)
        if game.status == "running":  # the replacement list: an abstention is an answer
            outcome.effects += await self.seats.count_misses(s, game, everyone - voted, voted)
        return outcome

    async def apply_votes(self, s: AsyncSession, game: Game, state: Refutation) -> list[Event]:
        recorded = await repo.votes_for(s, game.id, f"r{state.refutation_count}", "refute_vote")
        events: list[Event] = []
        for uid, card in self.valid_votes(state, recorded).items():
            events += state.vote(uid, card)
        return events

    async def finish_refutation(
        self, s: AsyncSession, game: Game, state: Refutation, events: list[Event]
    ) -> Outcome:
        await self.deadlines.cancel(s, game, (VOTE,))
        if state.phase is Phase.OVER:
            await repo.set_status(s, game, "ended", at=self.now())
        await self.save(s, game, state, events, None)
        posts = await self.posts_in(s, game, state, events)
        effects = [self.close_vote_buttons(game), *posts]
        if state.phase is Phase.OVER:
            effects.append(public.archive_post(game))
        return Outcome("", effects)

    async def consult(self, actor: Actor, game_id: int, n: int | None) -> str:
        """The Reference page button: the target's page, publicly; maybe an election."""
        async with self.action(game_id, actor) as (s, game):
            state = self.current(game, n, Phase.VOTE)
            if not state.is_player(actor.id):
                raise NotAPlayer(player=actor.id)
            state.verify_consult_reference(actor.id)
            await self.actions.require_in_time(s, game, VOTE, actor)
            events = await self.apply_votes(s, game, state)
            number = state.target_card
            assert number is not None
            revealed = list(state.revealed)
            events += state.consult_reference(actor.id)
            consulted = next(e for e in events if isinstance(e, ReferenceConsulted))
            text = render.reference_text(state, actor.id, number, revealed, consulted, game.lang)
            effects: list[Effect]
            if consulted.elected is not None:
                effects = [self.post(game, text)]
                outcome = await self.finish_refutation(s, game, state, events)
                effects += outcome.effects
            else:
                runoff = consulted.restricted_to
                await self.save(s, game, state, events, actor.id)
                effects = [self.post(game, text)]
                if runoff:
                    due = await self.deadlines.due(s, game, VOTE) or self.now()
                    effects.append(self.vote_message(game, state, due, list(runoff), False))
                recorded = await repo.votes_for(
                    s, game.id, f"r{state.refutation_count}", "refute_vote"
                )
                if all(pid in self.valid_votes(state, recorded) for pid in state.player_ids):
                    close = self.later(self.close_vote, game.id, state.refutation_count)
                    effects += await self.deadlines.close_early(s, game, VOTE, close)
            outcome = Outcome(m("reference.done", actor.lang), effects)
            await self.commit_outcome(s, game, outcome)
        return await self.run(outcome)

    # -- deadlines ----------------------------------------------------------------------------

    async def deadline_due(self, s: AsyncSession, game: Game, deadline: Deadline) -> Outcome | None:
        await self.ensure_deck(s, game)
        payload = deadline.payload or {}
        n = int(payload.get("n", 0))
        if deadline.kind == CHOICE:
            return await self.reveal_in(s, game, n)
        if deadline.kind == VOTE:
            return await self.close_vote_in(s, game, n)
        if deadline.kind == TURN:
            return await self.turn_missed(s, game, int(payload.get("turn", 0)))
        if deadline.kind == TURN_REMINDER:
            return await self.remind_turn_in(s, game, int(payload.get("turn", 0)))
        return None

    # -- moderation ---------------------------------------------------------------------------

    def end_state(self, state: Refutation) -> list[Event]:
        return state.end(by_moderator=True)

    def game_over(self) -> Exception:
        return GameIsOver()

    async def cancelled(
        self, s: AsyncSession, game: Game, state: Refutation, events: Sequence[Event]
    ) -> list[Effect]:
        """The vote buttons closed, the end posted (every refuted card, the credits)."""
        return [
            self.close_vote_buttons(game),
            *self.posts(game, state, list(events), await self.locales(s, game)),
        ]

    def step_kind(self, state: Refutation) -> str | None:
        """The deadline kind of the step that is open (choice or vote), else None."""
        if state.phase is Phase.CHOICE:
            return CHOICE
        if state.phase is Phase.VOTE:
            return VOTE
        return None

    def step(self, state: Refutation) -> Step | None:
        """The secret choice or the vote that is open, else the turn (and its reminder)."""
        kind, n = self.step_kind(state), state.refutation_count
        if kind is None:
            if state.phase is not Phase.TURN:
                return None
            name = render.name(state, state.active_player)
            args = {"n": n, "turn": state.turn, "name": name}
            notice = f"refutation.moderation.extended_{TURN}_public"
            return Step(f"{TURN} t{state.turn}", TURN_KINDS, notice, args)
        notice = f"refutation.moderation.extended_{kind}_public"
        return Step(f"{kind} r{n}", (kind,), notice, {"n": n})

    async def close_step(
        self, s: AsyncSession, game: Game, state: Refutation, actor: Actor
    ) -> Outcome:
        """Close the open step now: the secret choice (reveal) or the vote."""
        kind, n = self.step_kind(state), state.refutation_count
        if kind == CHOICE:
            outcome = await self.reveal_in(s, game, n)
        elif kind == VOTE:
            outcome = await self.close_vote_in(s, game, n)
        else:
            outcome = None
        if outcome is None or kind is None:
            raise UserError("refutation.refusal.nothing_open")
        notice = m(f"moderation.resolved_{kind}_public", game.lang, n=n)
        outcome.effects.insert(0, public.announce(game, notice))
        outcome.reply = m(f"moderation.resolved_{kind}", actor.lang, n=n)
        return outcome

    async def remind_step(
        self, s: AsyncSession, game: Game, state: Refutation, actor: Actor
    ) -> Outcome:
        """DM whoever has not chosen (choice) or not voted (vote); during a turn, the active
        player (a prod before the turn's deadline, or with no deadline at all)."""
        if state.phase is Phase.TURN:
            return await self.prod_turn(s, game, state, actor)
        kind, n = self.step_kind(state), state.refutation_count
        if kind == CHOICE:
            answered = set(await repo.votes_for(s, game.id, f"r{n}", "choice"))
        elif kind == VOTE:
            recorded = await repo.votes_for(s, game.id, f"r{n}", "refute_vote")
            answered = set(self.valid_votes(state, recorded))
        else:
            raise UserError("refutation.refusal.nothing_open")
        due = await self.deadlines.due(s, game, kind)
        where = channel(public.where(game))
        waiting = [
            p
            for p in await repo.players(s, game.id)
            if state.is_player(p.user_id) and p.user_id not in answered
        ]
        dms: list[Effect] = [
            DirectMessage(
                p.user_id,
                m(
                    f"moderation.remind_{kind}",
                    p.locale,
                    n=n,
                    where=where,
                    deadline=ts(due) if due else m("end.none", p.locale),
                ),
            )
            for p in waiting
        ]

        names = listing([(p.user_id, p.display_name) for p in waiting], actor.lang, bold=True)
        reply = m("moderation.reminded", actor.lang, count=len(waiting), names=names)
        return Outcome(reply, dms)

    async def skip(self, actor: Actor, game_id: int) -> str:
        """A moderator passes the active player's turn to the next player, no card played, as
        its deadline would (the next turn gets its own deadline)."""
        async with self.action(game_id, actor) as (s, game):
            await self.moderators.require_moderator(s, actor, game, game.guild_id)
            state = self.running(game)
            state.verify_skip_turn(by_moderator=True)
            skipped, turn = state.player(state.active_player).name, state.turn
            outcome = await self.skip_in(s, game, state, actor.id)
            outcome.reply = m("moderation.skipped", actor.lang, turn=turn, name=shown(skipped))
            await self.commit_outcome(s, game, outcome)
        return await self.run(outcome)

    async def seat(
        self, s: AsyncSession, game: Game, old: Actor, new: Actor, actor: Actor
    ) -> Outcome:
        """``new`` takes the seat, hand, card in front, choice, vote and credits of ``old``."""
        state = self.running(game)
        old_name, events, row = await self.seats.hand_over(s, game, state, old, new)
        if self.step_kind(state) is not None:
            # The choice or vote already on record follows the seat, like the engine's.
            round_key = f"r{state.refutation_count}"
            for kind in ("choice", "refute_vote"):
                value = (await repo.votes_for(s, game.id, round_key, kind)).get(old.id)
                if value is not None:
                    await repo.record_vote(
                        s, game.id, round_key, kind, new.id, value, at=self.now()
                    )
                    await repo.delete_votes(s, game.id, round_key, kind, user_id=old.id)
        await self.save(s, game, state, events, actor.id)
        notice = m(
            "moderation.substituted_public",
            game.lang,
            old=shown(old_name),
            new=shown(new.name),
        )
        effects: list[Effect] = [self.post(game, notice), self.hand_dms(game, state, [row])]
        if state.phase is Phase.CHOICE:
            due = await self.deadlines.due(s, game, CHOICE) or self.now()
            effects.append(self.choice_dms(game, state, [row], due))
        reply = m("moderation.substituted", actor.lang, old=shown(old_name), new=shown(new.name))
        return Outcome(reply, effects)

    # -- read-only views ----------------------------------------------------------------------

    async def hand(self, actor: Actor, game_id: int) -> Reply:
        await self.actions.settled(game_id)
        async with self.app.sessions() as s:
            game = await repo.get_game(s, game_id)
            assert game is not None
            await self.ensure_deck(s, game)
            state = self.load(game)
        if not state.is_player(actor.id):
            raise NotAPlayer(player=actor.id)
        return self.hand_reply(
            state,
            actor.id,
            actor.lang,
            m("hand.private", actor.lang, count=len(state.hands[actor.id])),
        )

    async def card(self, actor: Actor, channel_id: int, guild_id: int, number: int) -> Reply:
        """A card's reference page, privately: from this channel's game's deck, else the
        guild's deck, else the default one."""
        async with self.app.sessions() as s:
            game = await repo.active_game_in_channel(s, channel_id)
            if game is not None and game.kind == self.kind:
                deck = await self.ensure_deck(s, game)
            else:
                game = None
        if game is None:
            _, sha = await self.guild_deck(guild_id)
            async with self.app.sessions() as s:
                deck = await self.decks.by_hash(s, sha)
        if not deck.has_card(number):
            raise UnknownCard(card=number)
        async with self.app.sessions() as s:
            under_vote = await self.targets_under_vote(s, actor, guild_id, game, deck)
        return Reply("", [render.reference_embed(deck, number, actor.lang, under_vote)])

    async def targets_under_vote(
        self, s: AsyncSession, actor: Actor, guild_id: int, game: Game | None, deck: Deck
    ) -> dict[int, tuple[int, int]]:
        """Disinformation cards of this deck whose refutation vote is open and whose reference
        page has not been opened yet, in any game, for anyone, from anywhere (RULES.md: never in
        a private lookup): this channel's game, the guild's games, the actor's games and every
        game with an open vote deadline: target -> (refutation number, the game's channel)."""
        candidates = [game] if game is not None else []
        candidates += await repo.running_games(s, [guild_id]) if guild_id else []
        candidates += await repo.games_of_user(s, actor.id, ("running",))
        candidates += await repo.games_with_open_deadline(s, self.kind, [VOTE])
        games: dict[int, Game] = {}
        for g in candidates:
            if g.kind == self.kind:
                games.setdefault(g.id, g)
        out: dict[int, tuple[int, int]] = {}
        for g in games.values():
            if g.status != "running" or g.state is None:
                continue
            await self.ensure_deck(s, g)
            state = self.load(g)
            if (
                state.phase is Phase.VOTE
                and not state.reference_consulted
                and state.target_card is not None
                and state.deck.id == deck.id
            ):
                out[state.target_card] = (state.refutation_count, public.where(g))
        return out

    async def waiting_on(
        self, s: AsyncSession, game: Game, user_id: int, lang: str
    ) -> list[Waiting]:
        """``/games``, privately: the player's turn, their secret choice or their vote on the
        open refutation, with its deadline."""
        if game.status != "running" or game.state is None:
            return []
        await self.prepare(s, game)
        state = self.load(game)
        kind, n = self.step_kind(state), state.refutation_count
        if kind is None:
            if state.phase is Phase.TURN and state.active_player == user_id:
                due = await self.deadlines.due(s, game, TURN)
                return [Waiting(m("waiting.turn", lang, turn=state.turn), due)]
            return []
        if not state.is_player(user_id):
            return []
        if kind == CHOICE:
            answered = set(await repo.votes_for(s, game.id, f"r{n}", "choice"))
        else:
            recorded = await repo.votes_for(s, game.id, f"r{n}", "refute_vote")
            answered = set(self.valid_votes(state, recorded))
        if user_id in answered:
            return []
        due = await self.deadlines.due(s, game, kind)
        return [Waiting(m(f"waiting.{kind}", lang, n=n), due)]

    async def running_status(self, s: AsyncSession, game: Game, lang: str) -> str:
        await self.ensure_deck(s, game)
        state = self.load(game)
        n, due, answered = state.refutation_count, None, 0
        if state.phase is Phase.TURN:
            due = await self.deadlines.due(s, game, TURN)
        elif state.phase is Phase.CHOICE:
            due = await self.deadlines.due(s, game, CHOICE)
            answered = len(await repo.votes_for(s, game.id, f"r{n}", "choice"))
        elif state.phase is Phase.VOTE:
            due = await self.deadlines.due(s, game, VOTE)
            recorded = await repo.votes_for(s, game.id, f"r{n}", "refute_vote")
            answered = len(self.valid_votes(state, recorded))
        return render.status_text(state, lang, due=due, answered=answered)

    # -- autocomplete -------------------------------------------------------------------------

    async def state_in(self, channel_id: int) -> Refutation | None:
        async with self.app.sessions() as s:
            game = await repo.active_game_in_channel(s, channel_id)
            if game is None or game.kind != self.kind or game.state is None:
                return None
            await self.ensure_deck(s, game)
            return self.load(game)

    async def feed_choices(self, channel_id: int, lang: str) -> list[tuple[str, int]]:
        state = await self.state_in(channel_id)
        if state is None or state.phase is not Phase.TURN:
            return []
        return [(render.label(state.deck, c, lang, limits.CHOICE_NAME), c) for c in state.feed]

    async def choice_choices(
        self, channel_id: int, user_id: int, lang: str
    ) -> list[tuple[str, str]]:
        state = await self.state_in(channel_id)
        if state is None or not state.is_player(user_id) or state.phase is not Phase.CHOICE:
            return []
        return [(o.label, o.value) for o in render.choice_options(state, user_id, lang)]

    async def vote_choices(self, channel_id: int, lang: str) -> list[tuple[str, str]]:
        state = await self.state_in(channel_id)
        if state is None or state.phase is not Phase.VOTE:
            return []
        cards = state.restricted_to if state.restricted_to is not None else list(state.revealed)
        out = [(render.label(state.deck, c, lang, limits.CHOICE_NAME), str(c)) for c in cards]
        return [*out, (m("reveal.abstain", lang), ABSTAIN)]


class RefutationBallots(BallotRules[Ballot, Refutation]):
    """The secret choices and votes as the ballot box (bot/ballots.py) checks and answers
    them: one row per player and refutation (round ``r<n>``, kinds ``choice`` and
    ``refute_vote``); a refutation closes once every player has answered. Through SQLAlchemy
    only (not :attr:`direct`): each game's state is parsed with its deck, and every batch may
    close its round, which reads the whole round."""

    kind = "refutation"
    deadline = CHOICE
    direct = False
    follows_locale = False

    def __init__(self, service: RefutationService) -> None:
        self.service = service

    def refused(self, head: Any, b: Ballot) -> Exception:
        if b.n is not None:
            return UserError("refutation.refusal.stale_button")
        if head.status == "lobby":
            return UserError("common.error.not_started")
        return GameIsOver()

    def parse(self, head: Any, state: dict[str, Any], extra: Any) -> Refutation:
        return Refutation.from_dict(state, extra)

    async def prepare(self, s: AsyncSession, heads: Mapping[int, Any]) -> dict[int, Deck]:
        return {g: await self.service.deck_for(s, head.options) for g, head in heads.items()}

    def due_kind(self, b: Ballot) -> str:
        return CHOICE if b.phase is Phase.CHOICE else VOTE

    def check(self, state: Refutation, b: Ballot, due: list[datetime]) -> Mark:
        """As the rules check a choice or a vote on refutation ``b.n`` (None: the current
        one), then its deadline."""
        require_step(state, b.n, b.phase)
        if not state.is_player(b.actor.id):
            raise NotAPlayer(player=b.actor.id)
        if b.phase is Phase.CHOICE:
            state.verify_choose(b.actor.id, b.card)
            kind, none = "choice", PASS
        else:
            state.verify_vote(b.actor.id, b.card)
            kind, none = "refute_vote", ABSTAIN
        self.service.actions.check_in_time(due, b.actor)
        value = none if b.card is None else str(b.card)
        return Mark(f"r{state.refutation_count}", kind, value)

    def reply(
        self, state: Refutation, b: Ballot, mark: Mark, on_record: Ballots, changed: bool
    ) -> str:
        """The private answer to an accepted choice or vote: what is on record."""
        lang, count = b.actor.lang, state.refutation_count
        if b.phase is Phase.CHOICE:
            if b.card is None:
                return m("choice.pass_on_record", lang, n=count)
            title = state.deck.title(b.card, lang)
            return m("choice.on_record", lang, n=count, number=b.card, title=title)
        if b.card is None:
            return m("vote.abstain_on_record", lang, n=count)
        return m("vote.on_record", lang, n=count, number=b.card)

    def closes_early(self, head: Any) -> bool:
        return True

    async def close_if_all_in(
        self, s: AsyncSession, head: Any, state: Refutation, kinds: set[str]
    ) -> list[Effect]:
        """Everyone has chosen (a pass is an answer), or voted for a card they may: the
        reveal, or the close of the vote, now."""
        service, n = self.service, state.refutation_count
        effects: list[Effect] = []
        for kind in sorted(kinds):
            recorded = await repo.votes_for(s, head.id, f"r{n}", kind)
            if kind == "choice":
                answered = set(recorded)
                close, step = service.later(service.close_choice, head.id, n), CHOICE
            else:
                answered = set(service.valid_votes(state, recorded))
                close, step = service.later(service.close_vote, head.id, n), VOTE
            if all(pid in answered for pid in state.player_ids):
                game = await repo.get_game(s, head.id)
                if game is not None:
                    effects += await service.deadlines.close_early(s, game, step, close)
        return effects
