"""Avalon in the Resistance service: the options, the Lady of the Lake and the assassination,
each a secret choice by DM (``bot.choice.SecretChoice``) before a ``vote_hours`` deadline, with
a reminder.

A collaborator that the Resistance service holds (``avalon``), given the core service and the
Resistance's own ``Board``: the classic flow calls it where Avalon differs. The rules are in
``games.resistance.rules``; this is only their Discord side.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from datetime import datetime, timedelta
from typing import Any, Protocol

from sqlalchemy.ext.asyncio import AsyncSession

from bot import posts
from bot.choice import Offer, SecretChoice
from bot.errors import UserError
from bot.i18n import t
from bot.names import shown, sort_key
from bot.options import OptionName
from bot.render.common import channel, ts
from bot.service import Actor, Effect, GameService, Outcome
from db import repo
from db.models import Deadline, Game, Player
from games.resistance import render as render
from games.resistance.render import ROLE_ORDER, key
from games.resistance.rules import (
    AVALON_OPTIONS,
    AVALON_TABLE,
    AvalonOnly,
    MissingVote,
    Options,
    Phase,
    Resistance,
    ResistanceEvent,
    TeamTable,
    Variant,
    evil_characters,
    good_characters,
    verify_options,
)

#: The deadline of the current Lady choice or assassination, and its reminder.
AVALON = "rs_avalon"
AVALON_REMINDER = "rs_avalon_reminder"
AVALON_KINDS = (AVALON, AVALON_REMINDER)
AVALON_PHASES = (Phase.LADY, Phase.ASSASSINATION)
#: The two secret choices (their menus' ``choice:rs_lady:…``, ``choice:rs_kill:…``): examine
#: with the Lady, or name Merlin.
LADY_ACT, KILL_ACT = "lady", "kill"


class Board(Protocol):
    """What Avalon needs of the Resistance's own side of the service that holds it (the core's
    parts it reaches through ``GameService``)."""

    def load(self, game: Game) -> Resistance: ...

    async def open_debate(
        self,
        s: AsyncSession,
        game: Game,
        state: Resistance,
        events: list[ResistanceEvent],
        actor: int | None,
    ) -> list[Effect]: ...

    def post_leader_list(self, game: Game, state: Resistance, *, new: bool = False) -> Effect: ...


def engine_options(options: Mapping[str, Any]) -> Options:
    """The rules' options of a game from its stored options (old games: classic, and the
    forum's table: a game stored before ``team_table`` plays the table it was opened with)."""
    return Options(
        missing_vote=MissingVote(options.get("missing_vote", "reject")),
        variant=Variant(options.get("variant") or "classic"),
        **{name: bool(options.get(name)) for name in AVALON_OPTIONS},
        team_table=TeamTable(options.get("team_table") or TeamTable.FORUM.value),
    )


def step_of(state: Resistance) -> int:
    """Which private choice is open: the Lady's n-th holder, or 0 for the assassination."""
    return len(state.lady_holders) if state.phase is Phase.LADY else 0


class AvalonChoice:
    """The Lady's choice or the assassination, as its secret choice asks of the game
    (``bot.choice.ChoiceRules``): its step, its chooser, what an answer and the deadline do."""

    def __init__(self, avalon: Avalon, act: str) -> None:
        self.avalon, self.act = avalon, act
        self.phase = Phase.LADY if act == LADY_ACT else Phase.ASSASSINATION

    def step(self, game: Game) -> int | None:
        state = self.avalon.board.load(game)
        return step_of(state) if state.phase is self.phase else None

    def waiting(self, game: Game) -> Collection[int]:
        state = self.avalon.board.load(game)
        chooser = chooser_of(state)
        return [chooser] if chooser is not None and state.phase is self.phase else []

    async def answer(self, s: AsyncSession, game: Game, actor: Actor, value: str) -> Outcome:
        """The Lady's holder examines the player ``value``, or the Assassin names them (the
        engine refuses anyone else, another phase, an ineligible player)."""
        state = self.avalon.board.load(game)
        target = int(value) if value.isdigit() else 0
        if self.act == LADY_ACT:
            events = state.examine(actor.id, target)
            reply = render.lady_result_text(state, target, state.roles[target], actor.lang)
        else:
            events = state.assassinate(actor.id, target)
            name = shown(state.player(target).name)
            reply = t(key("assassination.done"), actor.lang, name=name)
        outcome = await self.avalon.after_step(s, game, state, events, actor.id)
        outcome.reply = reply
        return outcome

    async def timeout(self, s: AsyncSession, game: Game) -> Outcome | None:
        return await self.avalon.timeout_in(s, game, self.avalon.board.load(game))


def chooser_of(state: Resistance) -> int | None:
    """Who chooses now: the Lady's holder, or the Assassin."""
    if state.phase not in AVALON_PHASES:
        return None
    return state.lady_holder if state.phase is Phase.LADY else state.assassin


class Avalon:
    """The Avalon side of the Resistance service, which holds it as ``avalon``: its options,
    its lobby's lines, and its two secret choices by DM, the Lady's (``lady``) and the
    assassination (``kill``), which share one deadline and its reminder (``AVALON_KINDS``)."""

    def __init__(self, service: GameService, board: Board) -> None:
        self.service = service
        self.board = board
        self.lady = self.secret_choice(LADY_ACT, "lady.reminder")
        self.kill = self.secret_choice(KILL_ACT, "assassination.reminder")

    def secret_choice(self, act: str, reminder: str) -> SecretChoice:
        """One of the two: ``rs_lady`` or ``rs_kill``, on the deadline they share."""
        rules = AvalonChoice(self, act)
        stale = key("error.stale_menu")
        return SecretChoice(
            self.service,
            f"rs_{act}",
            rules,
            reminder=key(reminder),
            kinds=AVALON_KINDS,
            stale=stale,
        )

    def choice_of(self, state: Resistance) -> SecretChoice:
        return self.lady if state.phase is Phase.LADY else self.kill

    # -- options and start ---------------------------------------------------------------------

    def shape_options(self, options: dict[str, Any], given: Mapping[str, Any]) -> None:
        """The guild's Avalon defaults count only in an Avalon game; typed for a classic game,
        an Avalon option is refused. The roles together are the schema's check (Morgana needs
        Percival: games/resistance/options.py); the count is checked at start.

        Avalon plays its own table of team sizes (the box's): ``team_table`` from the config
        or the guild's defaults does not count in an Avalon game, and ``team_table:forum``
        typed for one is refused."""
        if (options.get("variant") or "classic") != Variant.AVALON.value:
            for name in AVALON_OPTIONS:
                if given.get(name):  # the engine's refusal, the option named as the reader's
                    # command names it (a Localized parameter: the app's UserError carries it)
                    raise UserError(AvalonOnly.KEY, option=OptionName("resistance", name))
                options[name] = False
            return
        typed = given.get("team_table")
        if typed is not None and typed != AVALON_TABLE.value:
            raise UserError(key("error.own_table"), option=OptionName("resistance", "team_table"))
        options["team_table"] = AVALON_TABLE.value

    def lobby_text(self, game: Game, text: str) -> str:
        """An Avalon game's lobby (the classic ``text``) says so, with its special roles and
        the Lady, on lines of their own (never on the line of the players' names)."""
        options = engine_options(game.options)
        if not options.is_avalon:
            return text
        chosen = set(good_characters(options) + evil_characters(options))
        roles = ", ".join(
            t(key(f"role_name.{c.value}"), game.lang) for c in ROLE_ORDER if c in chosen
        )
        head, _, rest = text.partition("\n")
        lines = [head, t(key("lobby.variant"), game.lang, roles=roles)]
        if options.lady_of_the_lake:
            lines.append(t(key("lobby.lady"), game.lang))
        return "\n".join([*lines, rest] if rest else lines)

    def check_start(self, game: Game, count: int) -> None:
        """Refuse before anyone is asked anything when the Avalon roles do not fit the table."""
        verify_options(engine_options(game.options), count)

    # -- opening a private choice ---------------------------------------------------------------

    async def open_step(self, s: AsyncSession, game: Game, state: Resistance) -> list[Effect]:
        """The Lady's turn or the assassination begins: the public announcement, then the
        chooser's secret choice (its menu, its deadline and reminder)."""
        service = self.service
        due = await service.deadlines.due_at(s, game, "vote_hours")
        before = float(game.options.get("reminder_hours", 2))
        remind_at = due - timedelta(hours=before) if before > 0 else None
        effects: list[Effect] = [posts.announce(game, render.lady_turn_text(state, game.lang, due))]
        chooser = await self.chooser_row(s, game, state)
        offers = [self.offer(game, state, chooser, due)] if chooser is not None else []
        choice = self.choice_of(state)
        return effects + await choice.open(s, game, step_of(state), offers, due, remind_at)

    async def chooser_row(self, s: AsyncSession, game: Game, state: Resistance) -> Player | None:
        chooser = chooser_of(state)
        return await repo.player(s, game.id, chooser) if chooser is not None else None

    def offer(self, game: Game, state: Resistance, player: Player, due: datetime) -> Offer:
        """The chooser's menu: the Lady's holder or the Assassin, the names to pick from."""
        lady = state.phase is Phase.LADY
        ids = state.lady_eligible if lady else state.assassination_targets
        # Select labels are plain text (no Markdown): sorted like every list of names.
        options = tuple(
            (state.player(pid).name, str(pid))
            for pid in sorted(ids, key=lambda i: sort_key(i, state.player(i).name))
        )
        where = channel(posts.where(game))
        text = t(
            key("lady.dm" if lady else "assassination.dm"),
            player.locale,
            deadline=ts(due),
            where=where,
        )
        placeholder = t(
            key("lady.placeholder" if lady else "assassination.placeholder"), player.locale
        )
        return Offer(player.user_id, text, options, placeholder)

    # -- after a choice -------------------------------------------------------------------------

    async def after_step(
        self,
        s: AsyncSession,
        game: Game,
        state: Resistance,
        events: list[ResistanceEvent],
        actor: int | None,
    ) -> Outcome:
        """The Lady was used or passed on (the next debate opens), or the Assassin named someone
        or no one (the game ends): save, cancel the step's deadlines, tell the channel."""
        await self.lady.close(s, game)  # the deadline both choices share
        lines = [
            render.avalon_public_line(state, e, game.lang) for e in events if e.private_to is None
        ]
        text = "\n".join(line for line in lines if line)
        if state.is_over:
            # The assassination and the result in one post: who is Merlin, only with the end.
            return Outcome("", await self.finish(s, game, state, events, actor, text))
        effects: list[Effect] = [posts.announce(game, text)] if text else []
        effects += await self.board.open_debate(s, game, state, events, actor)
        return Outcome("", effects)

    async def finish(
        self,
        s: AsyncSession,
        game: Game,
        state: Resistance,
        events: list[ResistanceEvent],
        actor: int | None,
        head: str,
    ) -> list[Effect]:
        from games.resistance import records as rs_records

        service = self.service
        await repo.set_status(s, game, "ended", at=service.now())
        await service.save(s, game, state, events, actor)
        end = "\n".join(part for part in (head, render.end_text(state, game.lang)) if part)
        return [
            self.board.post_leader_list(game, state),
            posts.announce(game, end),
            await rs_records.end_post(service, s, game, state),
        ]

    # -- deadlines, reminders, moderation ------------------------------------------------------

    async def due_at(self, s: AsyncSession, game: Game) -> datetime | None:
        return await self.lady.due_at(s, game)

    async def deadline_due(self, s: AsyncSession, game: Game, deadline: Deadline) -> Outcome | None:
        return await self.choice_of(self.board.load(game)).due(s, game, deadline)

    async def timeout_in(self, s: AsyncSession, game: Game, state: Resistance) -> Outcome:
        """The deadline (or a moderator's resolve): the Lady passes on unexamined; the Assassin
        named no one, good wins."""
        chooser = state.lady_holder if state.phase is Phase.LADY else None
        outcome = await self.after_step(s, game, state, state.resolve(), None)
        if chooser is not None and state.phase is not Phase.OVER:  # the holder missed it
            outcome.effects += await self.service.seats.count_misses(s, game, [chooser], [])
        return outcome

    async def remind_in(
        self, s: AsyncSession, game: Game, state: Resistance, lang: str | None
    ) -> Outcome:
        outcome = await self.choice_of(state).remind(s, game)
        count = len(outcome.effects)
        outcome.reply = t("resistance.moderation.reminded", lang or game.lang, count=count)
        return outcome

    async def after_substitute(
        self, s: AsyncSession, game: Game, state: Resistance, row: Player
    ) -> list[Effect]:
        """The newcomer who takes over the Lady's choice or the assassination gets its menu."""
        if chooser_of(state) != row.user_id:
            return []
        due = await self.due_at(s, game) or self.service.now()
        offer = self.offer(game, state, row, due)
        return [self.choice_of(state).menu(game, step_of(state), offer)]
