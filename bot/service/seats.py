"""Seats changing hands while a game runs: a moderator's substitution, and the replacement
list (``/<game> standby``), whose volunteers are offered by DM the seat of a player who
missed ``replace_after`` deadlines in a row, one after another until one accepts."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy.ext.asyncio import AsyncSession

from bot.effects import DirectMessage, View
from bot.errors import UserError
from bot.i18n import game_name, lang_of, t
from bot.names import clean, shown
from bot.posts import where
from bot.reachable import OFFER_VIEW, can_dm, is_member
from bot.service.actions import Actions
from bot.service.lobby import Lobby
from bot.service.moderators import Moderators
from bot.service.outcome import Actor, Effect, Outcome
from bot.service.services import Services
from db import repo
from db.models import Deadline, Game, Player
from rulebase import Event, Substitution
from rulebase import Player as EnginePlayer

if TYPE_CHECKING:
    from bot.service.protocol import GameRules

log = logging.getLogger(__name__)

#: How long a volunteer has to accept a seat before the next one is asked.
OFFER_HOURS = timedelta(hours=24)


@dataclass(eq=False)
class Seats:
    """Substitutions and the replacement list of one game's service; the game seats the
    newcomer in its rules (``rules.seat``)."""

    app: Services
    rules: GameRules
    actions: Actions
    moderators: Moderators
    lobby: Lobby

    async def hand_over(
        self, s: AsyncSession, game: Game, state: Any, old: Actor, new: Actor
    ) -> tuple[str, list[Event], Player]:
        """A substitution, in the rules and in the players table: ``new`` takes ``old``'s seat.

        Returns the leaver's name, the engine's events and the newcomer's row (DMs in the
        guild's language until they act themselves)."""
        if new.bot:
            raise UserError("common.error.bot_seat")
        if not new.member:
            raise UserError("common.error.not_a_member", name=shown(new.name))
        old_name: str = state.player(old.id).name if state.is_player(old.id) else old.name
        events: list[Event] = []
        for event in state.substitute(old.id, EnginePlayer(new.id, new.name)):
            if isinstance(event, Substitution):  # the engine has forgotten the leaver's name
                event = dataclasses.replace(cast(Any, event), old_name=old_name)
            events.append(event)
        old_row = await repo.player(s, game.id, old.id)
        await repo.deactivate_player(s, game.id, old.id)
        row = await repo.add_player(
            s, game.id, new.id, new.name, locale=game.lang, at=self.app.clock()
        )
        row.seat = old_row.seat if old_row else None
        return old_name, events, row

    async def substitute(self, actor: Actor, game_id: int, old: Actor, new: Actor) -> str:
        """A moderator gives ``old``'s seat to ``new`` (a volunteer of the replacement list
        leaves it)."""
        async with self.actions.action(game_id, actor) as (s, game):
            await self.moderators.require_moderator(s, actor, game, game.guild_id)
            if not new.member and await repo.volunteer(s, game.id, new.id) is not None:
                effects = await self.pass_seat_on(s, game, old.id, new.id)
                key = f"common.standby.volunteer_left{'' if effects else '_alone'}"
                outcome = Outcome(t(key, actor.lang, name=shown(new.name)), effects)
            else:
                outcome = await self.rules.seat(s, game, old, new, actor)
                await repo.remove_volunteer(s, game.id, new.id)
            await self.actions.commit_outcome(s, game, outcome)
        return await self.actions.run(outcome)

    async def pass_seat_on(
        self, s: AsyncSession, game: Game, seat: int, gone: int, declined: Iterable[int] = ()
    ) -> list[Effect]:
        """The volunteer ``gone`` left the server and cannot take ``seat``: off the list, and
        the seat offered to the next volunteer (none: nothing more)."""
        await repo.remove_volunteer(s, game.id, gone)
        return await self.offer_seat(s, game, seat, declined=[*declined, gone])

    async def standby(self, actor: Actor, game_id: int) -> str:
        """``/<game> standby``: put the actor on the game's replacement list, or take them off
        it when they are on it already. A player of the game is refused."""
        if actor.bot:
            raise UserError("common.error.bot_seat")
        await self.probe_volunteer(actor, game_id)
        async with self.actions.action(game_id, actor) as (s, game):
            self.lobby.require_place(game, actor.place)
            if game.status not in ("lobby", "running"):
                raise UserError("common.error.no_game_here")
            row = await repo.player(s, game.id, actor.id)
            if row is not None and row.active:
                raise UserError("common.standby.playing")
            if await repo.remove_volunteer(s, game.id, actor.id):
                reply = t("common.standby.left", actor.lang)
            else:
                await repo.add_volunteer(
                    s, game.id, actor.id, actor.name, actor.lang, at=self.app.clock()
                )
                count = len(await repo.volunteers(s, game.id))
                reply = t("common.standby.joined", actor.lang, position=count)
            outcome = await self.actions.commit_outcome(s, game, Outcome(reply))
        return await self.actions.run(outcome)

    async def probe_volunteer(self, actor: Actor, game_id: int) -> None:
        """A seat is offered by DM: refuse a member who would join the list and whom the bot
        cannot DM (the probe of ``start``), saying how to open DMs. Outside any transaction (a
        DM takes time); whoever ``standby`` refuses, or takes off the list, is not probed."""
        async with self.app.sessions() as s:
            game = await repo.get_game(s, game_id)
            if game is None or game.status not in ("lobby", "running"):
                return
            self.lobby.require_place(game, actor.place)
            row = await repo.player(s, game.id, actor.id)
            if (row is not None and row.active) or await repo.volunteer(s, game.id, actor.id):
                return
        probe = t(
            "common.standby.dm_check",
            actor.lang,
            game=game_name(self.rules.kind, actor.lang, game.options),
            where=f"<#{where(game)}>",
        )
        if not await can_dm(self.app.courier, actor.id, probe):
            raise UserError("common.standby.dms_closed")

    async def standby_line(self, s: AsyncSession, game: Game, lang: str) -> str | None:
        """The replacement list for ``/<game> status`` (None: nobody is on it)."""
        found = await repo.volunteers(s, game.id)
        if not found:
            return None
        names = ", ".join(shown(v.display_name) for v in found)  # in the order they are asked
        return t("common.standby.status", lang, count=len(found), names=names)

    async def standby_choices(self, channel_id: int, typed: str) -> list[tuple[str, str]]:
        """Autocomplete of ``substitute volunteer``: the game's replacement list (name, id)."""
        async with self.app.sessions() as s:
            game = await repo.active_game_in_channel(s, channel_id)
            if game is None or game.kind != self.rules.kind:
                return []
            found = await repo.volunteers(s, game.id)
        needle = typed.strip().casefold()
        return [
            (clean(v.display_name)[:100] or str(v.user_id), str(v.user_id))
            for v in found
            if needle in v.display_name.casefold()
        ][:25]

    async def volunteer_actor(self, game_id: int, user_id: int) -> Actor:
        """The volunteer ``substitute volunteer:`` names, as the seat's new holder."""
        async with self.app.sessions() as s:
            found = await repo.volunteer(s, game_id, user_id)
            game = await repo.get_game(s, game_id)
        if found is None or game is None:
            raise UserError("common.standby.not_on_list")
        member = await is_member(self.app.courier, game.guild_id, user_id)
        return Actor(
            id=found.user_id, name=found.display_name, lang=lang_of(found.locale), member=member
        )

    @property
    def offer_kind(self) -> str:
        """The deadline kind of a seat offered to a volunteer (``<prefix>_offer``)."""
        registry = self.app.registry
        plugin = registry.by_kind.get(self.rules.kind) if registry is not None else None
        prefix = plugin.deadline_prefixes[0] if plugin is not None else self.rules.kind[:2]
        return f"{prefix}_offer"

    async def count_misses(
        self, s: AsyncSession, game: Game, missed: Iterable[int], answered: Iterable[int]
    ) -> list[Effect]:
        """A deadline of the game passed: ``missed`` did not answer it, ``answered`` did. A
        player who reaches ``replace_after`` missed deadlines in a row (0: off) has their seat
        offered to the first volunteer of the replacement list (none: nothing changes)."""
        counts = await repo.count_misses(s, game.id, missed, answered)
        limit = int(game.options.get("replace_after", 0) or 0)
        if limit <= 0:
            return []
        offered = {
            int((d.payload or {}).get("seat", 0))
            for d in await repo.open_deadlines(s, game.id, kinds=[self.offer_kind])
        }
        effects: list[Effect] = []
        for seat, n in sorted(counts.items()):
            if n >= limit and seat not in offered:
                effects += await self.offer_seat(s, game, seat, declined=())
        return effects

    async def offer_seat(
        self, s: AsyncSession, game: Game, seat: int, declined: Iterable[int]
    ) -> list[Effect]:
        """Offer ``seat`` to the first volunteer who has not declined it: a DM with Accept /
        Decline, and a deadline of its own (``OFFER_HOURS``) after which the next one is
        asked. Nothing secret is in the offer: the role or hand comes only with the seat."""
        scheduler = self.app.scheduler
        row = await repo.player(s, game.id, seat)
        if scheduler is None or row is None or not row.active:
            return []
        refused = set(declined)
        found = next(
            (v for v in await repo.volunteers(s, game.id) if v.user_id not in refused), None
        )
        if found is None:
            return []
        due = self.app.clock() + OFFER_HOURS
        payload = {"seat": seat, "volunteer": found.user_id, "declined": sorted(refused)}
        deadline = await scheduler.add(
            s,
            game_id=game.id,
            guild_id=game.guild_id,
            kind=self.offer_kind,
            due_at=due,
            payload=payload,
        )
        lang = found.locale
        text = t(
            "common.standby.offer",
            lang,
            game=game_name(self.rules.kind, lang),
            where=f"<#{where(game)}>",
            name=shown(row.display_name),
            missed=int(row.missed or 0),
            deadline=f"<t:{int(due.timestamp())}:R>",
        )
        view = View(OFFER_VIEW, (self.rules.kind, game.id, deadline.id, lang_of(lang)))
        deadline_id, due_at = deadline.id, deadline.due_at

        async def schedule() -> None:
            scheduler.schedule(deadline_id, due_at)

        return [DirectMessage(found.user_id, text, view=view), schedule]

    async def answer_offer(self, actor: Actor, game_id: int, offer: int, accept: bool) -> str:
        """A volunteer's Accept or Decline: on Accept the seat, its role or hand and its place
        pass as ``substitute`` does; on Decline (or at the offer's deadline, or on an Accept
        by someone no longer a member of the server) the next volunteer is asked. An offer
        already answered, or not this member's, is stale."""
        if accept:
            actor = dataclasses.replace(actor, member=await self.still_member(game_id, actor.id))
        async with self.actions.action(game_id, actor) as (s, game):
            deadline = await repo.get_deadline(s, offer)
            payload = dict(deadline.payload or {}) if deadline is not None else {}
            if (
                deadline is None
                or deadline.game_id != game.id
                or deadline.kind != self.offer_kind
                or deadline.status != "open"
                or int(payload.get("volunteer", 0)) != actor.id
                or game.status != "running"
            ):
                raise UserError("common.standby.stale")
            self.actions.check_in_time([deadline.due_at], actor)
            if self.app.scheduler is not None:
                await self.app.scheduler.cancel(deadline.id, session=s)
            seat = int(payload["seat"])
            row = await repo.player(s, game.id, seat)
            if accept and not actor.member:
                declined = payload.get("declined", [])
                effects = await self.pass_seat_on(s, game, seat, actor.id, declined)
                outcome = Outcome(t("common.standby.not_a_member", actor.lang), effects)
            elif not accept or row is None or not row.active:
                declined = [*payload.get("declined", []), actor.id]
                effects = [] if accept else await self.offer_seat(s, game, seat, declined)
                outcome = Outcome(t("common.standby.declined", actor.lang), effects)
            else:
                old = Actor(id=row.user_id, name=row.display_name, lang=lang_of(row.locale))
                outcome = await self.rules.seat(s, game, old, actor, actor)
                await repo.remove_volunteer(s, game.id, actor.id)
            await self.actions.commit_outcome(s, game, outcome)
        return await self.actions.run(outcome)

    async def still_member(self, game_id: int, user_id: int) -> bool:
        """Whether ``user_id`` is still a member of the game's server (bot/reachable.py)."""
        async with self.app.sessions() as s:
            game = await repo.get_game(s, game_id)
        return game is None or await is_member(self.app.courier, game.guild_id, user_id)

    async def offer_refused(self, s: AsyncSession, game_id: int, offer: int) -> None:
        """Discord refused the offer's DM (closed DMs, a member who left the server): its
        deadline moves to now, in ``s`` (the refusal's transaction), so the next volunteer is
        asked at once (``offer_expired``)."""
        if self.app.scheduler is not None and await self.app.scheduler.extend(
            offer, self.app.clock(), session=s
        ):
            log.info("game %s: offer %s refused by Discord, passed on", game_id, offer)

    async def offer_expired(self, s: AsyncSession, game: Game, deadline: Deadline) -> Outcome:
        """No answer to an offer by its deadline: the next volunteer is asked."""
        payload = dict(deadline.payload or {})
        declined = [*payload.get("declined", []), int(payload.get("volunteer", 0))]
        effects = await self.offer_seat(s, game, int(payload.get("seat", 0)), declined)
        return Outcome("", effects)
