"""A running game's moderation, written once over the game's protocol: extend, resolve
(``close_now``), remind, cancel, resync, a game abandoned when its place is gone, and the
status anyone may read."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Any

import discord

from bot import notices
from bot.effects import CloseSpaces, DirectMessage, Notice, from_payload
from bot.errors import UserError
from bot.i18n import game_name, t
from bot.posts import announce
from bot.render.common import ts
from bot.service.actions import Actions
from bot.service.lobby import Lobby
from bot.service.moderators import Moderators
from bot.service.outcome import Actor, Effect, Outcome
from bot.service.seats import Seats
from bot.service.services import Services
from db import repo
from db.models import EffectStatus, Game

if TYPE_CHECKING:
    from bot.service.protocol import GameRules

log = logging.getLogger(__name__)

# Refused effects that resync does not send again: a DM refused (closed DMs are the player's
# choice) and the bot's own notices (a missing permission: stale once it is given back).
NOT_RESENT = (DirectMessage.KIND, Notice.KIND)

#: The most hours a moderator may push a deadline back at once (two weeks).
MAX_EXTEND_HOURS = 24 * 14


@dataclass(eq=False)
class Moderation:
    """The moderators' commands on a game of one service, and its status."""

    app: Services
    rules: GameRules
    actions: Actions
    moderators: Moderators
    lobby: Lobby
    seats: Seats

    def running(self, game: Game) -> Any:
        """The state of a game that runs (the refusal of a lobby, or of a game that is over)."""
        if game.status == "lobby":
            raise UserError("common.error.not_started")
        if game.status != "running":
            raise self.rules.game_over()
        return self.rules.load(game)

    async def extend(self, actor: Actor, game_id: int, hours: float) -> str:
        """Push the open step's deadlines (and their reminders) back by ``hours``, said in the
        channel in the step's own words."""
        if not 0 < hours <= MAX_EXTEND_HOURS:
            raise UserError("common.error.bad_hours", max=MAX_EXTEND_HOURS)
        async with self.actions.action(game_id, actor) as (s, game):
            await self.moderators.require_moderator(s, actor, game, game.guild_id)
            step = self.rules.step(self.running(game))
            kinds = list(step.deadlines) if step is not None else []
            deadlines = await repo.open_deadlines(s, game.id, kinds=kinds) if kinds else []
            scheduler = self.app.scheduler
            if step is None or not deadlines or scheduler is None:
                raise UserError("common.error.no_deadline")
            moved = [(d.id, d.due_at + timedelta(hours=hours)) for d in deadlines]
            main = max(due for _, due in moved)
            for deadline_id, due in moved:
                await scheduler.extend(deadline_id, due, session=s)
            text = t(step.extended, game.lang, deadline=ts(main), **step.args)
            reply = t("common.moderation.extended", actor.lang, deadline=ts(main))
            outcome = Outcome(reply, [announce(game, text)])
            await self.actions.commit_outcome(s, game, outcome)
        return await self.actions.run(outcome)

    async def close_now(self, actor: Actor, game_id: int) -> str:
        """``/<game> resolve``: close what is open now, as its deadline would."""
        async with self.actions.action(game_id, actor) as (s, game):
            await self.moderators.require_moderator(s, actor, game, game.guild_id)
            outcome = await self.rules.close_step(s, game, self.running(game), actor)
            await self.actions.commit_outcome(s, game, outcome)
        return await self.actions.run(outcome)

    async def remind(self, actor: Actor, game_id: int) -> str:
        """DM whoever the open step waits for; once per cooldown for each step."""
        async with self.actions.action(game_id, actor) as (s, game):
            await self.moderators.require_moderator(s, actor, game, game.guild_id)
            state = self.running(game)
            step = self.rules.step(state)
            outcome = await self.rules.remind_step(s, game, state, actor)
            name = step.name if step is not None else ""
            await self.moderators.require_remind_allowed(s, game, actor, name)
            await self.actions.commit_outcome(s, game, outcome)
        return await self.actions.run(outcome)

    async def cancel(self, actor: Actor, game_id: int) -> str:
        """A moderator ends the game (lobby or running) without a winner, in one transaction:
        its deadlines dropped, the engine's end (:meth:`end_state`) saved, what the game says of
        it posted (:meth:`cancelled`), and the record attached once it had started."""
        async with self.actions.action(game_id, actor) as (s, game):
            await self.moderators.require_moderator(s, actor, game, game.guild_id)
            if game.status not in ("lobby", "running"):
                raise self.rules.game_over()
            effects: list[Effect] = []
            if game.status == "running":
                state = self.rules.load(game)
                events = self.rules.end_state(state)
                if self.app.scheduler is not None:
                    await self.app.scheduler.cancel_for_game(s, game.id)
                await self.actions.save(s, game, state, events, actor.id)
                effects += await self.rules.cancelled(s, game, state, events)
                effects.append(CloseSpaces())  # its silenced members restored, threads archived
                effects.append(await self.rules.record_post(s, game, state))
            else:
                effects.append(announce(game, t("common.lobby.cancelled", game.lang)))
            await repo.set_status(s, game, "cancelled", at=self.app.clock())
            outcome = Outcome(t("common.moderation.cancelled", actor.lang), effects)
            await self.actions.commit_outcome(s, game, outcome)
        return await self.actions.run(outcome)

    async def game_to_resync(self, channel_id: int) -> int:
        """The game of this channel or post to resync: the active one, else the last one (a
        game that ended while a permission was missing still left players muted)."""
        async with self.app.sessions() as s:
            game = await repo.active_game_in_channel(s, channel_id)
            if game is None or game.kind != self.rules.kind:
                game = await repo.last_game_in_place(s, channel_id, self.rules.kind)
            if game is None:
                raise UserError("common.error.no_game_here")
            return game.id

    async def resync(self, actor: Actor, game_id: int) -> str:
        """A moderator, once a missing permission is given back: what Discord refused is queued
        again (DMs apart: closed DMs are the player's choice), then the game's own state is put
        back (its pinned messages, the debate lock as the phase wants it)."""
        async with self.actions.action(game_id, actor) as (s, game):
            await self.moderators.require_moderator(s, actor, game, game.guild_id)
            refused = [
                r
                for r in await repo.effects_of(s, game.id, [EffectStatus.FAILED.value])
                if r.kind not in NOT_RESENT
            ]
            again = [from_payload(r.kind, r.payload) for r in refused]
            for r in refused:
                await repo.update_effect(s, r.id, status=EffectStatus.DROPPED.value)
            await notices.forget(s, game)  # a permission lost again is told again
            effects: list[Effect] = [*again, *await self.rules.resync_effects(s, game)]
            reply = t("common.resync.done", actor.lang, count=len(again))
            outcome = await self.actions.commit_outcome(s, game, Outcome(reply, effects))
        return await self.actions.run(outcome)

    async def abandon(self, game_id: int, reason: str, where: str) -> bool:
        """The game's place is gone: its channel or post was deleted (``reason``
        "place_deleted"), or the bot was removed from its server ("bot_removed"). The game
        ends as cancelled in one transaction, its deadlines and pending effects dropped; the
        DM that tells its creator (``where`` names the place) is an outbox row of that same
        transaction, so it is sent once even across a crash. Nothing is posted: there is
        nowhere to post. False if the game was already over."""
        async with self.actions.action(game_id) as (s, game):
            if game.status not in ("lobby", "running"):
                return False
            if game.status == "running":
                try:
                    state = self.rules.load(game)
                except Exception:
                    log.warning("game %s: state unreadable, cancelled without it", game.id)
                else:
                    await self.actions.save(s, game, state, self.rules.end_state(state), None)
            if self.app.scheduler is not None:
                await self.app.scheduler.cancel_for_game(s, game.id)
            await repo.drop_pending_effects(s, game.id, at=self.app.clock())
            await repo.set_status(s, game, "cancelled", at=self.app.clock())
            lang = game.lang
            text = t(
                f"common.lifecycle.{reason}",
                lang,
                game=game_name(self.rules.kind, lang, game.options),
                where=discord.utils.escape_markdown(where),
            )
            told = Outcome("", [DirectMessage(game.created_by, text)])
            await self.actions.commit_outcome(s, game, told)
        log.info("game %s cancelled: %s", game_id, reason)
        await self.actions.run(told, wait=False)
        return True

    async def overview(self, actor: Actor, game_id: int) -> str:
        """``/<game> status``: the game's own status, then its replacement list."""
        text = await self.status(actor, game_id)
        async with self.app.sessions() as s:
            game = await repo.get_game(s, game_id)
            line = await self.seats.standby_line(s, game, actor.lang) if game is not None else None
        return f"{text}\n{line}" if line else text

    async def status(self, actor: Actor, game_id: int) -> str:
        """Where the game stands, as anyone may see it: the lobby, or the game running."""
        await self.actions.settled(game_id)
        async with self.app.sessions() as s:
            game = await repo.get_game(s, game_id)
            if game is None:
                raise UserError("common.error.no_game")
            if game.status == "lobby":
                return self.rules.lobby_text(game, await repo.players(s, game.id))
            return await self.rules.running_status(s, game, actor.lang)
