"""The poll's service: one transaction per action, effects through the outbox.

It decides and records; the dispatcher sends what it wrote (``Post``, ``DirectMessage``), and
the scheduler calls :meth:`PollService.deadline_due` when the poll's deadline (``pl_vote``)
falls due, in whichever process runs then (a restart in between changes nothing). The answers
are ballots of the core's vote path (bot/ballots.py: :class:`Answers`), one row per player in
the ``votes`` table, put into the poll when it is read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar

import discord
from sqlalchemy.ext.asyncio import AsyncSession

from bot import posts
from bot.ballots import BallotBox, BallotRules, Ballots, Mark
from bot.effects import DirectMessage, PrivateThread, Silence, ThreadMembers, View
from bot.errors import UserError
from bot.i18n import t
from bot.listing import Waiting
from bot.names import listing, shown
from bot.service import Actor, AfterCommit, Effect, GameService, Outcome, Services, Step
from bot.spaces import needed_for
from db import repo
from db.models import Deadline, Game, Player
from rulebase import GameError
from rulebase import Player as EnginePlayer
from tests.e2e.poll_game.faction import Faction
from tests.e2e.poll_game.pair import Pairing
from tests.e2e.poll_game.rules import CHOICES, MAX_PLAYERS, MIN_PLAYERS, Poll, PollEvent

VOTE = "pl_vote"  # the poll's one deadline (prefix "pl", its plugin's)
ROUND, ANSWER = "poll", "answer"  # an answer's row in the votes table: one per player


def ts(when: datetime) -> str:
    epoch = int(when.timestamp())
    return f"<t:{epoch}:F> (<t:{epoch}:R>)"


def label(options: Mapping[str, Any], choice: str, lang: str) -> str:
    """A choice as the moderator named it (the game's ``options``), else the catalogue's
    Yes / No."""
    given = str(options.get(choice) or "").strip()
    return given or t(f"poll.choice.{choice}", lang)


@dataclass(frozen=True)
class Answer:
    """A player's click on one of their DM's two buttons, queued for the ballot box."""

    actor: Actor
    game_id: int
    choice: str


@dataclass(frozen=True)
class Asked:
    """What the ballot box keeps of a running poll: its state, and its options (the labels)."""

    poll: Poll
    options: Mapping[str, Any]


class Answers(BallotRules[Answer, Asked]):
    """The poll's answers as the ballot box checks and answers them; the poll closes once
    every player has answered."""

    kind = "poll"
    deadline = VOTE

    def __init__(self, service: PollService) -> None:
        self.service = service

    def refused(self, head: Any, answer: Answer) -> Exception:
        if head.status == "lobby":
            return UserError("common.error.not_started")
        return GameError("poll.error.closed")

    def parse(self, head: Any, state: dict[str, Any], extra: Any) -> Asked:
        return Asked(Poll.from_dict(state), dict(head.options))

    def check(self, asked: Asked, answer: Answer, due: list[datetime]) -> Mark:
        self.service.actions.check_in_time(due, answer.actor)
        asked.poll.verify_vote(answer.actor.id, answer.choice)
        return Mark(ROUND, ANSWER, answer.choice)

    def reply(
        self, asked: Asked, answer: Answer, mark: Mark, on_record: Ballots, changed: bool
    ) -> str:
        lang = answer.actor.lang
        choice = shown(label(asked.options, answer.choice, lang))
        return t("poll.vote.changed" if changed else "poll.vote.done", lang, choice=choice)

    def closes_early(self, head: Any) -> bool:
        return True

    async def close_if_all_in(
        self, s: AsyncSession, head: Any, asked: Asked, kinds: set[str]
    ) -> list[Effect]:
        answered = await repo.votes_for(s, head.id, ROUND, ANSWER)
        if any(p.id not in answered for p in asked.poll.players):
            return []
        game = await repo.get_game(s, head.id)
        if game is None:
            return []
        return await self.service.deadlines.close_early(
            s, game, VOTE, self.service.close_later(game.id)
        )


class PollService(GameService):
    kind: ClassVar[str] = "poll"
    min_players: ClassVar[int] = MIN_PLAYERS
    max_players: ClassVar[int] = MAX_PLAYERS
    reminder_kinds: ClassVar[frozenset[str]] = frozenset({"pl_pick_reminder"})

    def __init__(self, app: Services) -> None:
        super().__init__(app)
        #: a poll opened with ``faction``: its private thread, secret pick, silenced player
        self.faction = Faction(self)
        #: a poll opened with ``pair``: the pair its first player makes (the core's pick)
        self.pairing = Pairing(self, VOTE)
        #: the answers, by group commit (bot/ballots.py)
        self.ballot_box: BallotBox[Answer, Asked] = BallotBox(
            app, Answers(self), self.actions.transaction
        )

    def needed_permissions(self, channel: Any, options: dict[str, Any]) -> list[str]:
        """A faction in a text channel: its private thread and the silenced player's
        overwrite too."""
        needed = super().needed_permissions(channel, options)
        if options.get("faction") and isinstance(channel, discord.TextChannel):
            needed += needed_for(PrivateThread, ThreadMembers, Silence)
        return needed

    # -- reading ------------------------------------------------------------------------------

    def load(self, game: Game) -> Poll:
        if game.state is None:
            raise UserError("common.error.not_started")
        return Poll.from_dict(game.state)

    def question(self, game: Game) -> str:
        return shown(str(game.options.get("question", "")))

    def lobby_text(self, game: Game, players: list[Player]) -> str:
        asked = t("poll.lobby.question", game.lang, question=self.question(game))
        return f"{asked}\n{super().lobby_text(game, players)}"

    async def vote_due(self, s: AsyncSession, game: Game) -> datetime | None:
        found = await repo.open_deadlines(s, game.id, kinds=[VOTE])
        return found[0].due_at if found else None

    async def waiting_on(
        self, s: AsyncSession, game: Game, user_id: int, lang: str
    ) -> list[Waiting]:
        """``/games``: the player's answer, while they owe it (bot/listing.py's ``Waits``)."""
        state = self.load(game)
        await self.answered(s, game, state)
        if user_id not in state.owing():
            return []
        due = await self.vote_due(s, game)
        return [Waiting(t("poll.waiting", lang, question=self.question(game)), due)]

    def bad_player_count(self, count: int) -> Exception:
        return GameError(
            "poll.error.player_count",
            {"min": self.min_players, "max": self.max_players, "count": count},
        )

    # -- start --------------------------------------------------------------------------------

    def vote_dm(self, game: Game, player: Player, due: datetime) -> Effect:
        lang = player.locale
        text = t(
            "poll.dm.vote",
            lang,
            question=self.question(game),
            deadline=ts(due),
            where=f"<#{posts.where(game)}>",
        )
        labels = [label(game.options, c, lang) for c in CHOICES]
        return DirectMessage(player.user_id, text, view=View("pl_vote", (game.id, *labels, lang)))

    async def deal(
        self, s: AsyncSession, game: Game, players: list[Player], actor: Actor
    ) -> Outcome:
        state, events = Poll.setup([EnginePlayer(p.user_id, p.display_name) for p in players])
        await repo.set_status(s, game, "running", at=self.now())
        await self.save(s, game, state, events, actor.id)
        due = await self.deadlines.due_at(s, game, "vote_hours")
        assert self.app.scheduler is not None
        await self.app.scheduler.add(
            s, game_id=game.id, guild_id=game.guild_id, kind=VOTE, due_at=due
        )
        public = t(
            "poll.start.public",
            game.lang,
            question=self.question(game),
            count=len(players),
            deadline=ts(due),
        )
        effects: list[Effect] = [posts.announce(game, public)]
        effects += [self.vote_dm(game, p, due) for p in players]
        if self.faction.wanted(game):
            effects += await self.faction.open(s, game, state)
        if self.pairing.wanted(game):
            effects += await self.pairing.open(s, game, state)
        return Outcome(t("poll.start.done", actor.lang), effects)

    # -- answers ------------------------------------------------------------------------------

    async def vote(self, actor: Actor, game_id: int, choice: str) -> str:
        """A player's answer (or a changed one), from their DM button: a ballot, answered
        once its batch has committed."""
        return await self.run(await self.ballot_box.submit(Answer(actor, game_id, choice)))

    async def answered(self, s: AsyncSession, game: Game, state: Poll) -> list[PollEvent]:
        """Put the answers on record into the poll (its players' only: a replaced player's
        went with them)."""
        events: list[PollEvent] = []
        for uid, choice in (await repo.votes_for(s, game.id, ROUND, ANSWER)).items():
            if state.is_player(uid):
                events += state.vote(uid, choice)
        return events

    # -- the result ---------------------------------------------------------------------------

    def result_text(self, game: Game, state: Poll) -> str:
        result = state.result()
        lang = game.lang
        names = {p.id: p.name for p in state.players}

        def who(ids: tuple[int, ...]) -> str:
            return listing([(i, names[i]) for i in ids], lang)

        lines = [t("poll.result.title", lang, question=self.question(game))]
        for choice in CHOICES:
            lines.append(
                t(
                    "poll.result.line",
                    lang,
                    choice=shown(label(game.options, choice, lang)),
                    count=result.count(choice),
                    names=who(result.voters[choice]),
                )
            )
        if result.silent:
            lines.append(t("poll.result.silent", lang, names=who(result.silent)))
        return "\n".join(lines)

    async def close_in(self, s: AsyncSession, game: Game) -> Outcome | None:
        """Close the poll and post its result (None: it is not open)."""
        if game.status != "running":
            return None
        state = self.load(game)
        events = await self.answered(s, game, state)
        owing = set(state.owing())  # who let the poll pass (/poll activity)
        misses = await self.seats.count_misses(
            s, game, owing, {p.id for p in state.players} - owing
        )
        events += state.close()
        if self.app.scheduler is not None:
            await self.app.scheduler.cancel_for_game(s, game.id, [VOTE])
        await self.save(s, game, state, events, None)
        await repo.set_status(s, game, "ended", at=self.now())
        effects: list[Effect] = [posts.announce(game, self.result_text(game, state)), *misses]
        if self.faction.wanted(game):
            effects += await self.faction.close(s, game)
        return Outcome("", effects)

    def close_later(self, game_id: int) -> AfterCommit:
        async def close() -> None:
            async with self.action(game_id) as (s, game):
                outcome = await self.close_in(s, game)
                if outcome is None:
                    return
                await self.commit_outcome(s, game, outcome)
            await self.run(outcome, wait=False)

        return close

    async def deadline_due(self, s: AsyncSession, game: Game, deadline: Deadline) -> Outcome | None:
        if deadline.kind == VOTE:
            return await self.close_in(s, game)
        if self.faction.pick.owns(deadline):
            return await self.faction.pick.due(s, game, deadline)
        return None

    # -- moderation ---------------------------------------------------------------------------

    def step(self, state: Poll) -> Step | None:
        return Step("poll", (VOTE,), "poll.moderation.extended")

    async def close_step(self, s: AsyncSession, game: Game, state: Poll, actor: Actor) -> Outcome:
        outcome = await self.close_in(s, game)
        assert outcome is not None
        outcome.reply = t("poll.moderation.closed", actor.lang)
        return outcome

    async def remind_step(self, s: AsyncSession, game: Game, state: Poll, actor: Actor) -> Outcome:
        await self.answered(s, game, state)
        owing = set(state.owing())
        if not owing:
            raise UserError("poll.error.nobody_to_remind")
        due = await self.vote_due(s, game) or self.now()
        players = [p for p in await repo.players(s, game.id) if p.user_id in owing]
        reply = t("poll.moderation.reminded", actor.lang, count=len(players))
        return Outcome(reply, [self.vote_dm(game, p, due) for p in players])

    async def seat(
        self, s: AsyncSession, game: Game, old: Actor, new: Actor, actor: Actor
    ) -> Outcome:
        state = self.running(game)
        old_name, events, row = await self.seats.hand_over(s, game, state, old, new)
        await repo.delete_votes(s, game.id, ROUND, ANSWER, user_id=old.id)
        await self.save(s, game, state, events, actor.id)
        names = {"old": shown(old_name), "new": shown(new.name)}
        due = await self.vote_due(s, game) or self.now()
        effects: list[Effect] = [
            posts.announce(game, t("poll.moderation.substituted", game.lang, **names)),
            self.vote_dm(game, row, due),
        ]
        effects += await self.faction.seat(s, game, state, old.id, new.id)
        reply = t("poll.moderation.substituted", actor.lang, **names)
        return Outcome(reply, effects)

    def end_state(self, state: Poll) -> list[PollEvent]:
        return state.cancel()

    def game_over(self) -> Exception:
        return GameError("poll.error.closed")

    async def running_status(self, s: AsyncSession, game: Game, lang: str) -> str:
        state = self.load(game)
        await self.answered(s, game, state)
        due = await self.vote_due(s, game)
        return t(
            "poll.status",
            lang,
            question=self.question(game),
            answered=len(state.players) - len(state.owing()),
            count=len(state.players),
            deadline=ts(due) if due else "—",
        )
