"""The Resistance service: one method per user action, one transaction each.

Votes and mission choices live in the ``votes`` table (one row per player and proposal, an
upsert): a click is recorded without rewriting the game state, so ten players clicking at once
never overwrite each other. At the result the recorded choices are applied to the engine.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import discord
from sqlalchemy.ext.asyncio import AsyncSession

from bot import posts
from bot.ballots import BallotBox, BallotRules, Ballots, Mark
from bot.choice import Offer, SecretPick
from bot.effects import DirectMessage, EditSlot, Post, View
from bot.errors import UserError
from bot.i18n import t
from bot.listing import Waiting
from bot.names import shown, sort_key
from bot.render.common import channel, ts
from bot.service import Actor, AfterCommit, Effect, GameService, Outcome, Services, Step
from db import repo
from db.models import Deadline, Game, Player
from games.resistance import records as rs_records
from games.resistance import render as render
from games.resistance.avalon import (
    AVALON_KINDS,
    AVALON_PHASES,
    AVALON_REMINDER,
    Avalon,
    chooser_of,
    engine_options,
    step_of,
)
from games.resistance.rules import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    GameError,
    MissionChoice,
    Phase,
    Resistance,
    TeamVote,
)
from games.resistance.rules import Player as EnginePlayer
from games.resistance.rules import ResistanceEvent as Event

log = logging.getLogger(__name__)

VOTE = "rs_vote"
REMINDER = "rs_reminder"
LEADER = "rs_leader"
LEADER_REMINDER = "rs_leader_reminder"
LEADER_KINDS = (LEADER, LEADER_REMINDER)
KINDS = (VOTE, REMINDER, *LEADER_KINDS, *AVALON_KINDS)
#: The leader's menu: a pick of the mission's size, then Propose (bot/choice.py: SecretPick).
TEAM = "rs_team"


def debate_step(state: Resistance) -> tuple[int, int]:
    """The debate a leader's menu belongs to: (the number its proposal will have, the
    attempt). A proposal moves the first on, a skipped leader the second: each debate has its
    own, so a menu of an earlier one is refused."""
    return state.proposal_number + 1, state.rejections + 1


def debate_number(proposal: int, attempt: int) -> int:
    """A debate as the step of its menu: ``32`` is the third proposal's second attempt (an
    attempt is at most MAX_REJECTIONS, 5: one digit)."""
    return proposal * 10 + attempt


class LeaderMenu:
    """The leader's menu as the core's pick (bot/choice.py, ``PickRules``): the rules check a
    pick as a proposal (leader, phase, players, size), Propose proposes as the command does."""

    def __init__(self, service: ResistanceService) -> None:
        self.service = service
        stale = "resistance.error.stale_team_menu"
        self.pick = SecretPick(service, TEAM, self, deadline=LEADER, stale=stale)

    def step(self, game: Game) -> int | None:
        state = self.service.load(game)
        return debate_number(*debate_step(state)) if state.phase is Phase.DEBATE else None

    def leader(self, game: Game, actor: Actor) -> Resistance:
        """The state, once ``actor`` is a player."""
        state = self.service.load(game)
        if not state.is_player(actor.id):
            raise GameError("resistance.error.not_a_player", {})
        return state

    def check(self, game: Game, actor: Actor, picked: Sequence[str]) -> None:
        self.leader(game, actor).verify_propose(actor.id, team_of(picked))

    async def offer(
        self, s: AsyncSession, game: Game, actor: Actor, picked: Sequence[str]
    ) -> Offer:
        state = self.service.load(game)
        text = await self.text(s, game, state, actor.lang, team_of(picked))
        return self.menu(state, actor.id, actor.lang, text, picked)

    async def confirm(
        self, s: AsyncSession, game: Game, actor: Actor, picked: Sequence[str]
    ) -> Outcome:
        state = self.leader(game, actor)
        state.verify_lead(actor.id)
        if not picked:
            raise UserError("resistance.error.no_team_chosen")
        return await self.service.propose_in(s, game, state, actor, team_of(picked))

    def menu(
        self, state: Resistance, user_id: int, lang: str, text: str, chosen: Sequence[str] = ()
    ) -> Offer:
        """The leader's menu: a select of every player, exactly the mission's size to pick,
        ``chosen`` shown picked, then a Propose button."""
        # Select labels are plain text (no Markdown): sorted like every list of names.
        ids = sorted(state.leader_order, key=lambda i: sort_key(i, state.player(i).name))
        options = tuple((state.player(pid).name, str(pid)) for pid in ids)
        placeholder = t("resistance.menu.placeholder", lang, size=state.team_size)
        label = t("resistance.button.propose", lang)
        size, chosen = state.team_size, tuple(chosen)
        return Offer(user_id, text, options, placeholder, size=size, chosen=chosen, confirm=label)

    def view(self, game: Game, state: Resistance, offer: Offer) -> View:
        return self.pick.view(game, debate_number(*debate_step(state)), offer)

    async def text(
        self, s: AsyncSession, game: Game, state: Resistance, lang: str, chosen: Sequence[int]
    ) -> str:
        """The leader's call DM as it stands (the skip's deadline, the team chosen so far)."""
        open_ = await repo.open_deadlines(s, game.id, kinds=[LEADER])
        due = open_[0].due_at if open_ else None
        return render.leader_dm(state, lang, posts.link(game), due, chosen)


def team_of(picked: Sequence[str]) -> list[int]:
    return [int(v) if v.isdigit() else 0 for v in picked]


@dataclass(frozen=True)
class VoteRequest:
    """One click on a vote button (or ``/resistance vote``), queued for group commit."""

    actor: Actor
    game_id: int
    proposal: int | None
    choice: TeamVote | MissionChoice


class TeamVotes(BallotRules[VoteRequest, Resistance]):
    """The team votes and mission choices as the ballot box (bot/ballots.py) checks and
    answers them: one row per player and proposal (round ``p<n>``, kinds ``team`` and
    ``mission``); a game with ``early_close`` resolves once every vote is in."""

    kind = "resistance"
    deadline = VOTE

    def __init__(self, service: ResistanceService) -> None:
        self.service = service

    def refused(self, head: Any, r: VoteRequest) -> Exception:
        stale = r.proposal is not None
        return UserError("resistance.error.stale_button" if stale else "resistance.error.game_over")

    def parse(self, head: Any, state: dict[str, Any], extra: Any) -> Resistance:
        return Resistance.from_dict(state)

    def check(self, state: Resistance, r: VoteRequest, due: list[datetime]) -> Mark:
        """Whether this click on a running game may be recorded now: the value the rules
        record (a Resistance sabotage becomes support), and a private note."""
        actor, proposal, choice = r.actor, r.proposal, r.choice
        if not state.is_player(actor.id):
            raise GameError("resistance.error.not_a_player", {})
        if proposal is not None and (
            proposal != state.proposal_number or state.phase is not Phase.VOTE
        ):
            raise UserError("resistance.error.stale_button")
        round_key = f"p{state.proposal_number}"
        if state.phase is Phase.VOTE:
            self.service.actions.check_in_time(due, actor)
        if isinstance(choice, TeamVote):
            state.verify_vote(actor.id, choice)
            return Mark(round_key, "team", choice.value)
        recorded = state.recorded_choice(actor.id, choice)
        supports = recorded is not choice
        note = t("resistance.vote.resistance_supports", actor.lang) if supports else None
        return Mark(round_key, "mission", recorded.value, note)

    def reply(
        self, state: Resistance, r: VoteRequest, mark: Mark, on_record: Ballots, changed: bool
    ) -> str:
        uid = r.actor.id
        team = on_record.get((r.game_id, mark.round_key, "team", uid))
        mission = on_record.get((r.game_id, mark.round_key, "mission", uid))
        return render.on_record(state, uid, r.actor.lang, team, mission, mark.note)

    def closes_early(self, head: Any) -> bool:
        return bool(head.options.get("early_close"))

    async def close_if_all_in(
        self, s: AsyncSession, head: Any, state: Resistance, kinds: set[str]
    ) -> list[Effect]:
        """Early close: once every vote and mission choice is in, resolve now."""
        service = self.service
        game = await repo.get_game(s, head.id)
        if game is None:
            return []
        state = service.load(game)
        service.apply_ballots(state, *await service.ballots(s, game, state))
        if not state.everyone_in():
            return []
        later = service.resolve_later(game.id, state.proposal_number)
        return await service.deadlines.close_early(s, game, VOTE, later)


class ResistanceService(GameService):
    kind = "resistance"
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    reminder_kinds = frozenset({REMINDER, LEADER_REMINDER, AVALON_REMINDER})

    def __init__(self, app: Services) -> None:
        super().__init__(app)
        #: the team votes and mission choices, by group commit (bot/ballots.py)
        self.ballot_box: BallotBox[VoteRequest, Resistance] = BallotBox(
            app, TeamVotes(self), self.actions.transaction
        )
        #: Avalon's options, lobby lines, the Lady's choice and the assassination
        self.avalon = Avalon(self, self)
        #: the leader's menu: the core's pick (bot/choice.py)
        self.leader_menu = LeaderMenu(self)

    # -- where Avalon differs -----------------------------------------------------------------

    def shape_options(self, options: dict[str, Any], given: Mapping[str, Any]) -> None:
        self.avalon.shape_options(options, given)

    def lobby_text(self, game: Game, players: list[Player]) -> str:
        return self.avalon.lobby_text(game, super().lobby_text(game, players))

    def before_start(self, game: Game, players: list[Player]) -> None:
        self.avalon.check_start(game, len(players))

    # -- state --------------------------------------------------------------------------------

    def load(self, game: Game) -> Resistance:
        if game.state is None:
            raise UserError("common.error.not_started")
        return Resistance.from_dict(game.state)

    # -- start --------------------------------------------------------------------------------

    def bad_player_count(self, count: int) -> Exception:
        return GameError(
            "resistance.error.bad_player_count",
            {"min": self.min_players, "max": self.max_players, "count": count},
        )

    async def deal(
        self, s: AsyncSession, game: Game, players: list[Player], actor: Actor
    ) -> Outcome:
        rng = random.Random(self.app.rng.getrandbits(64))
        options = engine_options(game.options)
        state, events = Resistance.setup(
            [EnginePlayer(p.user_id, p.display_name) for p in players], rng, options
        )
        for p in players:
            p.seat = state.leader_order.index(p.user_id)
            p.role = (state.characters.get(p.user_id) or state.roles[p.user_id]).value
        game.status = "running"
        game.started_at = self.now()
        await self.save(s, game, state, events, actor.id)
        effects = [
            self.role_dms(state, players),
            self.post_leader_list(game, state, new=True),
        ]
        effects.append(posts.announce(game, render.start_text(state, game.lang)))
        effects += await self.call_leader(s, game, state)
        return Outcome(t("resistance.start.done", actor.lang), effects)

    def role_dms(self, state: Resistance, players: list[Player]) -> list[Effect]:
        return [
            DirectMessage(p.user_id, render.role_text(state, p.user_id, p.locale)) for p in players
        ]

    # -- leader list --------------------------------------------------------------------------

    def post_leader_list(self, game: Game, state: Resistance, *, new: bool = False) -> Effect:
        """Edit the pinned leader list in place; else post a new one, pin it, unpin the old."""
        text, where = render.leader_list_text(state, game.lang), posts.where(game)
        if new:
            return Post(where, text, slot="leader_list", pin=True, unpin_previous=True)
        return EditSlot(where, "leader_list", text=text, repost=True, pin=True)

    # -- propose ------------------------------------------------------------------------------

    async def propose(self, actor: Actor, game_id: int, team: Sequence[int]) -> str:
        """``/resistance propose`` with its players: the leader proposes ``team``."""
        async with self.action(game_id, actor) as (s, game):
            outcome = await self.propose_in(s, game, self.running(game), actor, team)
            await self.commit_outcome(s, game, outcome)
        return await self.run(outcome)

    async def propose_in(
        self, s: AsyncSession, game: Game, state: Resistance, actor: Actor, team: Sequence[int]
    ) -> Outcome:
        """The proposal, checked by the rules (leader, phase, team), in the caller's
        transaction (not committed): the command's and the menu's alike."""
        if not state.is_player(actor.id):
            raise GameError("resistance.error.not_a_player", {})
        events = state.propose(actor.id, list(team))
        due = await self.deadlines.due_at(s, game, "vote_hours")
        await self.deadlines.cancel(s, game, LEADER_KINDS)
        await self.save(s, game, state, events, actor.id)
        effects = await self.arm_vote_deadlines(s, game, state, due)
        proposal = state.proposal_number
        effects.append(posts.announce(game, render.proposal_text(state, actor.id, game.lang, due)))
        if game.options.get("lock_during_vote", True):
            effects.append(posts.debate_lock(game, await repo.players(s, game.id), lock=True))
        effects.append(self.vote_dms(game, state, await repo.players(s, game.id), proposal, due))
        return Outcome(t("resistance.proposal.done", actor.lang), effects)

    # -- the leader's menu --------------------------------------------------------------------

    async def open_team_menu(self, actor: Actor, game_id: int) -> tuple[str, View]:
        """``/resistance propose`` without players: the leader's menu, privately."""
        await self.actions.settled(game_id)
        async with self.app.sessions() as s:
            game = await repo.get_game(s, game_id)
            assert game is not None
            self.running(game)
            state = self.leader_menu.leader(game, actor)
            state.verify_lead(actor.id)
            step = debate_number(*debate_step(state))
            chosen = await self.leader_menu.pick.kept(s, game, actor.id, step)
            offer = await self.leader_menu.offer(s, game, actor, chosen)
            return offer.text, self.leader_menu.view(game, state, offer)

    def needed_permissions(self, channel: Any, options: dict[str, Any]) -> list[str]:
        """Also: pin the leader list (Pin Messages: since 23 February 2026 Manage Messages no
        longer grants pinning), and close the debate during votes: lock the forum post, or deny
        Send Messages by member overwrites in a text channel; lock the thread or forum post the
        game lives in."""
        needed = super().needed_permissions(channel, options)
        needed.append("pin_messages")
        if options.get("lock_during_vote"):
            in_thread = isinstance(channel, discord.ForumChannel | discord.Thread)
            needed.append("manage_threads" if in_thread else "manage_roles")
        return needed

    async def arm_vote_deadlines(
        self, s: AsyncSession, game: Game, state: Resistance, due: datetime
    ) -> list[Effect]:
        """The current vote's deadline and its reminder."""
        reminder_hours = float(game.options.get("reminder_hours", 2))
        payload = {"proposal": state.proposal_number}
        return await self.deadlines.arm_with_reminder(
            s, game, (VOTE, REMINDER), due, reminder_hours, payload
        )

    async def call_leader(self, s: AsyncSession, game: Game, state: Resistance) -> list[Effect]:
        """Tell the new leader it is their turn: the channel's call pings them (them only), a DM
        links to the channel, and with ``leader_hours`` a reminder DM comes before the skip."""
        due, effects = await self.arm_leader_deadline(s, game, state)
        leader = state.leader
        effects.append(posts.announce(game, render.debate_text(state, game.lang), mention=leader))
        effects.append(await self.leader_call_dm(s, game, state, due))
        return effects

    async def leader_call_dm(
        self, s: AsyncSession, game: Game, state: Resistance, due: datetime | None
    ) -> Effect:
        """The leader's DM: their turn, a link to the game, the skip's deadline, the menu."""
        leader = state.leader
        row = await repo.player(s, game.id, leader)
        lang = row.locale if row is not None else game.lang
        text = render.leader_dm(state, lang, posts.link(game), due)
        return self.leader_menu.pick.menu(
            game,
            debate_number(*debate_step(state)),
            self.leader_menu.menu(state, leader, lang, text),
        )

    async def arm_leader_deadline(
        self, s: AsyncSession, game: Game, state: Resistance
    ) -> tuple[datetime | None, list[Effect]]:
        """With ``leader_hours``: the skip deadline and, ``reminder_hours`` before it (at most
        half way), the leader's reminder. Returns the skip's time and the scheduling effects."""
        hours = float(game.options.get("leader_hours", 0) or 0)
        if hours <= 0 or state.phase is not Phase.DEBATE or self.app.scheduler is None:
            return None, []
        now = self.now()
        due = now + timedelta(hours=hours)
        before = min(float(game.options.get("reminder_hours", 2) or 0), hours / 2)
        payload = {"proposal": state.proposal_number, "leader": state.leader}
        return due, await self.deadlines.arm_with_reminder(
            s, game, LEADER_KINDS, due, before, payload
        )

    async def remind_leader_in(self, s: AsyncSession, game: Game, proposal: int) -> Outcome | None:
        """The leader has not proposed yet and the skip is near: a private reminder."""
        state = self.load(game)
        if state.phase is not Phase.DEBATE or state.proposal_number != proposal:
            return None
        open_ = await repo.open_deadlines(s, game.id, kinds=[LEADER])
        if not open_:
            return None
        leader = state.leader
        row = await repo.player(s, game.id, leader)
        lang = row.locale if row is not None else game.lang
        text = render.leader_reminder_dm(state, lang, posts.link(game), open_[0].due_at)
        return Outcome("", [DirectMessage(leader, text)])

    def vote_dms(
        self, game: Game, state: Resistance, players: list[Player], proposal: int, due: datetime
    ) -> list[Effect]:
        team = set(state.team or ())
        effects: list[Effect] = []
        for p in players:
            on_team = p.user_id in team
            text = render.vote_dm(state, p.locale, on_team, due, channel(posts.where(game)))
            view = View("rs_vote", (game.id, proposal, on_team, p.locale))
            effects.append(DirectMessage(p.user_id, text, view=view))
        return effects

    # -- votes --------------------------------------------------------------------------------

    async def vote(
        self, actor: Actor, game_id: int, proposal: int | None, choice: TeamVote | MissionChoice
    ) -> str:
        """Record a team vote or a mission choice; ``proposal`` None means the current one.

        Clicks are written by group commit (bot/ballots.py): the answer comes once the
        transaction that holds the vote has committed."""
        outcome = await self.ballot_box.submit(VoteRequest(actor, game_id, proposal, choice))
        return await self.run(outcome)

    def apply_ballots(
        self, state: Resistance, team_votes: dict[int, str], mission_votes: dict[int, str]
    ) -> list[Event]:
        """Put the recorded votes and mission choices into the rules (they live in their own
        table, one row per player, so that simultaneous clicks never overwrite each other)."""
        events: list[Event] = []
        for uid, value in team_votes.items():
            if state.is_player(uid):
                events += state.vote(uid, TeamVote(value))
        team = set(state.team or ())
        for uid, value in mission_votes.items():
            if uid in team:
                events += state.choose(uid, MissionChoice(value))
        return events

    async def ballots(
        self, s: AsyncSession, game: Game, state: Resistance
    ) -> tuple[dict[int, str], dict[int, str]]:
        """The team votes and mission choices on record for the current proposal."""
        round_key = f"p{state.proposal_number}"
        team_votes = await repo.votes_for(s, game.id, round_key, "team")
        return team_votes, await repo.votes_for(s, game.id, round_key, "mission")

    def resolve_later(self, game_id: int, proposal: int) -> AfterCommit:
        async def resolve() -> None:
            await self.resolve(game_id, proposal)

        return resolve

    # -- result -------------------------------------------------------------------------------

    async def resolve(self, game_id: int, proposal: int) -> None:
        """Resolve the vote ``proposal`` (its deadline, or everyone has voted); nothing if it
        is over already."""
        async with self.action(game_id) as (s, game):
            outcome = await self.resolve_in(s, game, proposal)
            if outcome is None:
                return
            await self.commit_outcome(s, game, outcome)
        await self.run(outcome)

    async def close_step(
        self, s: AsyncSession, game: Game, state: Resistance, actor: Actor
    ) -> Outcome:
        """A moderator's ``resolve``: the vote, the Lady's choice or the assassination, now."""
        closed = f"resolved_{state.phase.value}" if state.phase in AVALON_PHASES else "resolved"
        outcome = await self.resolve_in(s, game, None)
        if outcome is None:
            raise GameError("resistance.error.no_vote_to_resolve", {})
        outcome.reply = t(f"resistance.moderation.{closed}", actor.lang)
        return outcome

    async def resolve_in(self, s: AsyncSession, game: Game, proposal: int | None) -> Outcome | None:
        if game.status != "running":
            return None
        state = self.load(game)
        if state.phase in AVALON_PHASES and proposal is None:
            return await self.avalon.timeout_in(s, game, state)
        if state.phase is not Phase.VOTE or (
            proposal is not None and proposal != state.proposal_number
        ):
            return None
        events = self.apply_ballots(state, *await self.ballots(s, game, state))
        owing = set(state.owing())  # no vote, or a team member's mission choice not given
        everyone = {p.id for p in state.players}
        events += state.resolve()
        phase: Phase = state.phase  # read again: resolve() moved it on from VOTE
        await self.deadlines.cancel(s, game, (VOTE, REMINDER))
        players = await repo.players(s, game.id)
        effects: list[Effect] = [posts.announce(game, render.result_text(state, events, game.lang))]
        if game.options.get("lock_during_vote", True):
            effects.append(posts.debate_lock(game, players, lock=False))
        if phase is Phase.OVER:
            await repo.set_status(s, game, "ended", at=self.now())
            await self.save(s, game, state, events, None)
            effects.append(self.post_leader_list(game, state))
            effects.append(posts.announce(game, render.end_text(state, game.lang)))
            effects.append(await rs_records.end_post(self, s, game, state))
        elif phase in AVALON_PHASES:
            await self.save(s, game, state, events, None)
            effects.append(self.post_leader_list(game, state))
            effects += await self.avalon.open_step(s, game, state)
        else:
            effects += await self.open_debate(s, game, state, events, None)
        if phase is not Phase.OVER:  # the replacement list: who let this deadline pass
            effects += await self.seats.count_misses(s, game, owing, everyone - owing)
        return Outcome("", effects)

    async def open_debate(
        self, s: AsyncSession, game: Game, state: Resistance, events: list[Event], actor: int | None
    ) -> list[Effect]:
        """Save, then the next debate: the leader list, the call to the leader, its deadline."""
        await self.save(s, game, state, events, actor)
        effects = [self.post_leader_list(game, state)]
        effects += await self.call_leader(s, game, state)
        return effects

    # -- deadlines ----------------------------------------------------------------------------

    async def deadline_due(self, s: AsyncSession, game: Game, deadline: Deadline) -> Outcome | None:
        if deadline.kind in AVALON_KINDS:
            return await self.avalon.deadline_due(s, game, deadline)
        proposal = int((deadline.payload or {}).get("proposal", 0))
        if deadline.kind == VOTE:
            return await self.resolve_in(s, game, proposal)
        if deadline.kind == REMINDER:
            return await self.remind_in(s, game, proposal)
        if deadline.kind == LEADER:
            return await self.skip_leader_in(s, game, proposal)
        if deadline.kind == LEADER_REMINDER:
            return await self.remind_leader_in(s, game, proposal)
        return None

    async def remind_in(
        self, s: AsyncSession, game: Game, proposal: int | None, lang: str | None = None
    ) -> Outcome | None:
        state = self.load(game)
        if state.phase is not Phase.VOTE or (
            proposal is not None and proposal != state.proposal_number
        ):
            return None
        self.apply_ballots(state, *await self.ballots(s, game, state))
        missing = set(state.owing())  # private: each reminder goes to its own player
        waiting = [p for p in await repo.players(s, game.id) if p.user_id in missing]
        deadline = await self.vote_due(s, game)
        dms: list[Effect] = [
            DirectMessage(
                p.user_id,
                t(
                    "resistance.dm.reminder",
                    p.locale,
                    deadline=ts(deadline) if deadline else "—",
                    where=channel(posts.where(game)),
                ),
            )
            for p in waiting
        ]
        reply = t("resistance.moderation.reminded", lang or game.lang, count=len(waiting))
        return Outcome(reply, dms)

    async def vote_due(self, s: AsyncSession, game: Game) -> datetime | None:
        return await self.deadlines.due(s, game, VOTE)

    async def skip_leader_in(self, s: AsyncSession, game: Game, proposal: int) -> Outcome | None:
        state = self.load(game)
        if state.phase is not Phase.DEBATE or state.proposal_number != proposal:
            return None
        skipped = state.leader
        events = state.skip_leader()
        phase: Phase = state.phase  # read again: skip_leader() may end the game
        effects: list[Effect] = [posts.announce(game, render.result_text(state, events, game.lang))]
        if phase is Phase.OVER:
            await repo.set_status(s, game, "ended", at=self.now())
            await self.save(s, game, state, events, None)
            effects.append(posts.announce(game, render.end_text(state, game.lang)))
            effects.append(await rs_records.end_post(self, s, game, state))
        else:
            await self.save(s, game, state, events, None)
            effects += await self.call_leader(s, game, state)
            effects += await self.seats.count_misses(s, game, [skipped], [])  # no team proposed
        effects.append(self.post_leader_list(game, state))
        return Outcome("", effects)

    # -- moderation ---------------------------------------------------------------------------

    async def resync_effects(self, s: AsyncSession, game: Game) -> list[Effect]:
        """The leader list as the state has it, and the debate closed during a vote, open
        otherwise (what a missing Manage Roles or Manage Threads left behind is put back)."""
        if game.state is None:
            return await super().resync_effects(s, game)
        state = self.load(game)
        effects: list[Effect] = [self.post_leader_list(game, state)]
        if game.options.get("lock_during_vote", True):
            voting = game.status == "running" and state.phase is Phase.VOTE
            effects.append(posts.debate_lock(game, await repo.players(s, game.id), lock=voting))
        return effects

    def step(self, state: Resistance) -> Step | None:
        """The vote, the leader's proposal (its skip, with ``leader_hours``), or Avalon's
        private choice."""
        vote = f"vote p{state.proposal_number}"
        if state.phase in AVALON_PHASES:
            name = f"{state.phase.value} {step_of(state)} {vote}"
            notice = f"resistance.moderation.extended_{state.phase.value}_public"
            return Step(name, AVALON_KINDS, notice)
        if state.phase is Phase.VOTE:
            return Step(vote, (VOTE, REMINDER), "resistance.moderation.extended_public")
        if state.phase is Phase.DEBATE:
            return Step(vote, LEADER_KINDS, "resistance.moderation.extended_leader_public")
        return None

    async def remind_step(
        self, s: AsyncSession, game: Game, state: Resistance, actor: Actor
    ) -> Outcome:
        outcome: Outcome | None
        if state.phase in AVALON_PHASES:
            outcome = await self.avalon.remind_in(s, game, state, actor.lang)
        else:
            outcome = await self.remind_in(s, game, None, actor.lang)
        if outcome is None:
            raise UserError("resistance.error.nobody_to_remind")
        return outcome

    def end_state(self, state: Resistance) -> list[Event]:
        return state.cancel()

    def game_over(self) -> Exception:
        return GameError("resistance.error.game_over", {})

    async def cancelled(
        self, s: AsyncSession, game: Game, state: Resistance, events: Sequence[Event]
    ) -> list[Effect]:
        """The debate reopened, the leader list's last edit, the end and, as every end does
        (RULES.md, End), every role; the history comes with the record (:meth:`record_post`)."""
        effects: list[Effect] = []
        if game.options.get("lock_during_vote", True):
            effects.append(posts.debate_lock(game, await repo.players(s, game.id), lock=False))
        effects.append(self.post_leader_list(game, state))
        effects.append(posts.announce(game, render.end_text(state, game.lang)))
        return effects

    async def record_post(self, s: AsyncSession, game: Game, state: Resistance) -> Post:
        return await rs_records.end_post(self, s, game, state)

    async def seat(
        self, s: AsyncSession, game: Game, old: Actor, new: Actor, actor: Actor
    ) -> Outcome:
        state = self.running(game)
        old_name, events, row = await self.seats.hand_over(s, game, state, old, new)
        row.role = (state.characters.get(new.id) or state.roles[new.id]).value
        await self.save(s, game, state, events, actor.id)
        effects: list[Effect] = [
            posts.announce(
                game,
                t(
                    "resistance.moderation.substituted_public",
                    game.lang,
                    old=shown(old_name),
                    new=shown(new.name),
                ),
            ),
            self.post_leader_list(game, state),
        ]
        effects.append(DirectMessage(new.id, render.role_text(state, new.id, game.lang)))
        if state.phase is Phase.VOTE:
            due = await self.vote_due(s, game) or self.now()
            effects.append(self.vote_dms(game, state, [row], state.proposal_number, due))
        if state.phase is Phase.DEBATE and state.leader == new.id:
            # the newcomer leads this debate: the call DM and its menu are theirs now
            open_ = await repo.open_deadlines(s, game.id, kinds=[LEADER])
            due_lead = open_[0].due_at if open_ else None
            effects.append(await self.leader_call_dm(s, game, state, due_lead))
        effects += await self.avalon.after_substitute(s, game, state, row)
        return Outcome(
            t(
                "resistance.moderation.substituted",
                actor.lang,
                old=shown(old_name),
                new=shown(new.name),
            ),
            effects,
        )

    # -- read-only views ----------------------------------------------------------------------

    async def running_status(self, s: AsyncSession, game: Game, lang: str) -> str:
        state = self.load(game)
        team_votes: dict[int, str] = {}
        due = None
        if state.phase is Phase.VOTE:
            team_votes, mission_votes = await self.ballots(s, game, state)
            self.apply_ballots(state, team_votes, mission_votes)
            due = await self.vote_due(s, game)
        elif state.phase is Phase.DEBATE:
            # With leader_hours, the leader is skipped at this deadline.
            leader_due = await repo.open_deadlines(s, game.id, kinds=[LEADER])
            due = leader_due[0].due_at if leader_due else None
        elif state.phase in AVALON_PHASES:
            due = await self.avalon.due_at(s, game)
        return render.status_text(state, lang, team_votes=team_votes, due=due)

    async def waiting_on(
        self, s: AsyncSession, game: Game, user_id: int, lang: str
    ) -> list[Waiting]:
        """``/games``, privately: what the game waits for from the player (their team vote,
        their mission choice, their proposal as leader, the Lady's choice, the assassination)."""
        if game.status != "running" or game.state is None:
            return []
        state = self.load(game)
        if state.phase is Phase.VOTE:
            team_votes, mission_votes = await self.ballots(s, game, state)
            due = await self.vote_due(s, game)
            owed = []
            if state.is_player(user_id) and user_id not in team_votes:
                owed.append("vote")
            if user_id in (state.team or ()) and user_id not in mission_votes:
                owed.append("mission")
            return [Waiting(t(f"resistance.waiting.{what}", lang), due) for what in owed]
        if state.phase is Phase.DEBATE and state.leader == user_id:
            due = await self.deadlines.due(s, game, LEADER)
            return [Waiting(t("resistance.waiting.proposal", lang), due)]
        if state.phase in AVALON_PHASES and chooser_of(state) == user_id:
            due = await self.avalon.due_at(s, game)
            return [Waiting(t(f"resistance.waiting.{state.phase.value}", lang), due)]
        return []

    async def history(self, actor: Actor, game_id: int) -> str:
        await self.actions.settled(game_id)
        async with self.app.sessions() as s:
            game = await repo.get_game(s, game_id)
            assert game is not None
            state = self.load(game)
            return render.history_text(
                state, await rs_records.resistance_events(s, game), actor.lang
            )

    async def role(self, actor: Actor, game_id: int) -> str:
        async with self.app.sessions() as s:
            game = await repo.get_game(s, game_id)
            assert game is not None
            state = self.load(game)
            if state.is_player(actor.id):
                return render.role_text(state, actor.id, actor.lang)
            if game.options.get("moderators_see_roles") and await self.moderators.is_moderator(
                s, actor, game, game.guild_id
            ):
                return render.moderator_roles_text(state, actor.lang)
            raise GameError("resistance.error.not_a_player", {})
