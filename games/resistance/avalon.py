"""Avalon in the Resistance service: the options, the role DMs, the Lady of the Lake and the
assassination (each a private choice before a ``vote_hours`` deadline, with a reminder).

A mixin of :class:`games.resistance.service.ResistanceService`: the classic flow calls these
hooks where Avalon differs. The rules are in ``games.resistance.rules``; this is only their Discord
side.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy.ext.asyncio import AsyncSession

from bot.effects import DirectMessage, View
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
#: What a select menu does: examine with the Lady, or name Merlin.
LADY_ACT, KILL_ACT = "lady", "kill"


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


class AvalonSteps(GameService):
    """The Avalon side of the Resistance service (ResistanceService's first base, so its
    ``super()`` is GameService)."""

    if TYPE_CHECKING:
        # What these steps use of ResistanceService (defined there, declared here for the type
        # checker only, so that nothing shadows GameService at run time).
        def load(self, game: Game) -> Resistance: ...

        def announce(self, game: Game, text: str, *, mention: int | None = None) -> Effect: ...

        def post_leader_list(
            self, game: Game, state: Resistance, *, new: bool = False
        ) -> Effect: ...

        async def cancel_deadlines(
            self, s: AsyncSession, game: Game, kinds: Sequence[str]
        ) -> None: ...

        async def arm_vote_deadlines(
            self,
            s: AsyncSession,
            game: Game,
            state: Resistance,
            now: datetime,
            due: datetime,
            *,
            kinds: tuple[str, str] = ...,
            payload: dict[str, Any] | None = None,
        ) -> list[Effect]: ...

        async def open_debate(
            self,
            s: AsyncSession,
            game: Game,
            state: Resistance,
            events: list[ResistanceEvent],
            actor: int | None,
        ) -> list[Effect]: ...

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

    def lobby_text(self, game: Game, players: list[Player]) -> str:
        """An Avalon game's lobby says so, with its special roles and the Lady, on lines of
        their own (never on the line of the players' names)."""
        text = super().lobby_text(game, players)
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

    async def start(self, actor: Actor, game_id: int) -> str:
        """Refuse before anyone is asked anything when the Avalon roles do not fit the table."""
        async with self.app.sessions() as s:
            game = await repo.get_game(s, game_id)
            count = len(await repo.players(s, game_id)) if game is not None else 0
        if game is not None and game.status == "lobby" and 5 <= count <= 10:
            verify_options(engine_options(game.options), count)
        return await super().start(actor, game_id)

    # -- opening a private choice ---------------------------------------------------------------

    async def open_avalon_step(
        self, s: AsyncSession, game: Game, state: Resistance
    ) -> list[Effect]:
        """The Lady's turn or the assassination begins: the deadline and its reminder, the
        public announcement, the chooser's DM with a select menu."""
        now = self.now()
        due = await self.due_at(s, game, "vote_hours")
        effects = await self.arm_vote_deadlines(
            s,
            game,
            state,
            now,
            due,
            kinds=AVALON_KINDS,
            payload={"phase": state.phase.value, "step": step_of(state)},
        )
        effects.append(self.announce(game, render.lady_turn_text(state, game.lang, due)))
        chooser = await self.chooser_row(s, game, state)
        if chooser is not None:
            effects.append(self.choice_dm(game, state, chooser, due))
        return effects

    async def chooser_row(self, s: AsyncSession, game: Game, state: Resistance) -> Player | None:
        chooser = state.lady_holder if state.phase is Phase.LADY else state.assassin
        if chooser is None or state.phase not in AVALON_PHASES:
            return None
        return await repo.player(s, game.id, chooser)

    def choice_dm(self, game: Game, state: Resistance, player: Player, due: datetime) -> Effect:
        """The chooser's DM: the Lady's holder or the Assassin, with a select menu of names."""
        lady = state.phase is Phase.LADY
        act = LADY_ACT if lady else KILL_ACT
        ids = state.lady_eligible if lady else state.assassination_targets
        # Select labels are plain text (no Markdown): sorted like every list of names.
        options = [
            (state.player(pid).name, pid)
            for pid in sorted(ids, key=lambda i: sort_key(i, state.player(i).name))
        ]
        text = t(
            key("lady.dm" if lady else "assassination.dm"),
            player.locale,
            deadline=ts(due),
            where=channel(self.where(game)),
        )
        placeholder = t(
            key("lady.placeholder" if lady else "assassination.placeholder"), player.locale
        )
        choices = [[name, pid] for name, pid in options]
        view = View(
            "rs_avalon_choice",
            (game.id, act, step_of(state), choices, placeholder, player.locale),
        )
        return DirectMessage(player.user_id, text, view=view)

    # -- the choices ----------------------------------------------------------------------------

    async def lady(self, actor: Actor, game_id: int, step: int | None, target: int) -> str:
        """The Lady's holder examines ``target`` (``step`` None: by command, the current one)."""
        return await self.avalon_choose(actor, game_id, step, target, LADY_ACT)

    async def assassinate(self, actor: Actor, game_id: int, step: int | None, target: int) -> str:
        """The Assassin names ``target``."""
        return await self.avalon_choose(actor, game_id, step, target, KILL_ACT)

    async def avalon_choose(
        self, actor: Actor, game_id: int, step: int | None, target: int, act: str
    ) -> str:
        async with self.action(game_id, actor) as (s, game):
            if game.status != "running":
                raise UserError(
                    key("error.stale_menu") if step is not None else "resistance.error.game_over"
                )
            state = self.load(game)
            phase = Phase.LADY if act == LADY_ACT else Phase.ASSASSINATION
            if step is not None and (state.phase is not phase or step != step_of(state)):
                raise UserError(key("error.stale_menu"))
            if state.phase is phase:
                await self.require_in_time(s, game, AVALON, actor)
            await repo.set_player_locale(s, game.id, actor.id, actor.lang)
            if act == LADY_ACT:
                events = state.examine(actor.id, target)
                side = state.roles[target]
                reply = render.lady_result_text(state, target, side, actor.lang)
            else:
                events = state.assassinate(actor.id, target)
                reply = t(
                    key("assassination.done"), actor.lang, name=shown(state.player(target).name)
                )
            outcome = await self.after_avalon_step(s, game, state, events, actor.id)
            outcome.reply = reply
            await self.commit_outcome(s, game, outcome)
        return await self.run(outcome)

    async def after_avalon_step(
        self,
        s: AsyncSession,
        game: Game,
        state: Resistance,
        events: list[ResistanceEvent],
        actor: int | None,
    ) -> Outcome:
        """The Lady was used or passed on (the next debate opens), or the Assassin named someone
        or no one (the game ends): save, cancel the step's deadlines, tell the channel."""
        await self.cancel_deadlines(s, game, AVALON_KINDS)
        lines = [
            render.avalon_public_line(state, e, game.lang) for e in events if e.private_to is None
        ]
        text = "\n".join(line for line in lines if line)
        if state.is_over:
            # The assassination and the result in one post: who is Merlin, only with the end.
            return Outcome("", await self.finish_avalon(s, game, state, events, actor, text))
        effects: list[Effect] = [self.announce(game, text)] if text else []
        effects += await self.open_debate(s, game, state, events, actor)
        return Outcome("", effects)

    async def finish_avalon(
        self,
        s: AsyncSession,
        game: Game,
        state: Resistance,
        events: list[ResistanceEvent],
        actor: int | None,
        head: str,
    ) -> list[Effect]:
        from games.resistance import records as rs_records

        await repo.set_status(s, game, "ended", at=self.now())
        await self.save(s, game, state, events, actor)
        end = "\n".join(part for part in (head, render.end_text(state, game.lang)) if part)
        return [
            self.post_leader_list(game, state),
            self.announce(game, end),
            await rs_records.end_post(self, s, game, state),
        ]

    # -- deadlines, reminders, moderation ------------------------------------------------------

    async def avalon_due(self, s: AsyncSession, game: Game) -> datetime | None:
        open_ = await repo.open_deadlines(s, game.id, kinds=[AVALON])
        return open_[0].due_at if open_ else None

    def is_current(self, state: Resistance, deadline: Deadline) -> bool:
        payload = deadline.payload or {}
        return (
            state.phase in AVALON_PHASES
            and payload.get("phase") == state.phase.value
            and payload.get("step") == step_of(state)
        )

    async def avalon_deadline_due(
        self, s: AsyncSession, game: Game, deadline: Deadline
    ) -> Outcome | None:
        state = self.load(game)
        if not self.is_current(state, deadline):
            return None
        if deadline.kind == AVALON_REMINDER:
            return await self.avalon_remind_in(s, game, state, None)
        return await self.avalon_timeout_in(s, game, state)

    async def avalon_timeout_in(self, s: AsyncSession, game: Game, state: Resistance) -> Outcome:
        """The deadline (or a moderator's resolve): the Lady passes on unexamined; the Assassin
        named no one, good wins."""
        chooser = state.lady_holder if state.phase is Phase.LADY else None
        outcome = await self.after_avalon_step(s, game, state, state.resolve(), None)
        if chooser is not None and state.phase is not Phase.OVER:  # the holder missed it
            outcome.effects += await self.count_misses(s, game, [chooser], [])
        return outcome

    async def avalon_remind_in(
        self, s: AsyncSession, game: Game, state: Resistance, lang: str | None
    ) -> Outcome:
        chooser = await self.chooser_row(s, game, state)
        due = await self.avalon_due(s, game)
        where = channel(self.where(game))
        name = "lady.reminder" if state.phase is Phase.LADY else "assassination.reminder"
        waiting = [chooser] if chooser is not None else []
        dms: list[Effect] = [
            DirectMessage(
                p.user_id,
                t(key(name), p.locale, deadline=ts(due) if due else "—", where=where),
            )
            for p in waiting
        ]
        reply = t("resistance.moderation.reminded", lang or game.lang, count=len(waiting))
        return Outcome(reply, dms)

    async def avalon_after_substitute(
        self, s: AsyncSession, game: Game, state: Resistance, row: Player
    ) -> list[Effect]:
        """The newcomer who takes over the Lady's choice or the assassination gets its DM."""
        chooser = state.lady_holder if state.phase is Phase.LADY else state.assassin
        if state.phase not in AVALON_PHASES or chooser != row.user_id:
            return []
        due = await self.avalon_due(s, game) or self.now()
        return [self.choice_dm(game, state, row, due)]
