"""The start of a game: every player's DMs checked before anyone is dealt a role or a hand,
with the lobby held still meanwhile, then the game's own deal."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlalchemy.ext.asyncio import AsyncSession

from bot import prods
from bot.errors import UserError
from bot.i18n import game_name, t
from bot.names import listing, ordered
from bot.posts import announce, where
from bot.service.actions import INTERACTION, Actions
from bot.service.lobby import refuse_if_starting, starting_key
from bot.service.moderators import Moderators
from bot.service.outcome import Actor, Outcome
from bot.service.seats import Seats
from bot.service.services import Services
from db import repo
from db.models import Game, Player

if TYPE_CHECKING:
    from bot.service.protocol import GameRules


@dataclass(eq=False)
class Start:
    """``/<game> start`` for one game's service; the game deals (``rules.deal``)."""

    app: Services
    rules: GameRules
    actions: Actions
    moderators: Moderators
    seats: Seats

    async def start(self, actor: Actor, game_id: int) -> str:
        """Check every player's DMs, then deal. The players dealt in are the ones probed: the
        game's lock is held from the first check to the deal (a join in this process waits for
        it; a second start finds the game started), and a claim in the database (``starting``)
        refuses a join or a start from another process meanwhile."""
        async with self.app.locks(game_id):
            async with self.actions.action(game_id, actor, locked=True) as (s, game):
                await self.moderators.require_moderator(s, actor, game, game.guild_id)
                if game.status != "lobby":
                    raise UserError("common.error.not_in_lobby")
                await refuse_if_starting(s, game, self.app.clock())
                players = await repo.players(s, game.id)
                rules = self.rules
                if not rules.min_players <= len(players) <= rules.max_players:
                    raise rules.bad_player_count(len(players))
                rules.before_start(game, players)
                await repo.set_bot_state(s, starting_key(game.id), self.app.clock().isoformat())
                s.info.pop(INTERACTION, None)  # recorded with the deal (or the refusal)
            try:
                # DMs before dealing: nobody gets a role or a hand unless everybody can.
                unreachable = await self.check_dms(game, players)
            except BaseException:
                async with self.app.sessions.begin() as s:
                    await repo.delete_bot_state(s, starting_key(game_id))
                raise
            async with self.actions.action(game_id, actor, locked=True) as (s, game):
                await repo.delete_bot_state(s, starting_key(game.id))
                if unreachable:
                    outcome = await self.unreachable(s, game, actor, unreachable)
                elif game.status != "lobby":
                    raise UserError("common.error.not_in_lobby")
                else:
                    probed = {p.user_id for p in players}
                    now = await repo.players(s, game.id)
                    joined = [p for p in now if p.user_id not in probed]
                    if joined or len(now) != len(players):  # another process changed the lobby
                        names = listing([(p.user_id, p.display_name) for p in joined], game.lang)
                        outcome = Outcome(t("common.start.lobby_changed", actor.lang, names=names))
                    else:
                        outcome = await self.rules.deal(s, game, now, actor)
                        await prods.arm(self.seats, s, game)  # bot/prods.py
                await self.actions.commit_outcome(s, game, outcome)
        return await self.actions.run(outcome)

    async def unreachable(
        self, s: AsyncSession, game: Game, actor: Actor, players: list[Player]
    ) -> Outcome:
        """The start is refused: these players' DMs are closed (named publicly and privately)."""
        names = listing([(p.user_id, p.display_name) for p in players], game.lang, bold=True)
        for p in players:
            row = await repo.player(s, game.id, p.user_id)
            if row is not None:
                row.dm_failed = True
        notice = announce(game, t("common.start.unreachable", game.lang, names=names))
        return Outcome(t("common.start.unreachable_private", actor.lang, names=names), [notice])

    async def check_dms(self, game: Game, players: list[Player]) -> list[Player]:
        """DM every player that the game starts; those who cannot be reached, in name order."""
        unreachable: list[Player] = []
        place = f"<#{where(game)}>"
        for player in players:
            sent = await self.app.courier.dm(
                player.user_id,
                t(
                    "common.start.dm_check",
                    player.locale,
                    game=game_name(self.rules.kind, player.locale, game.options),
                    where=place,
                ),
            )
            if sent is None:
                unreachable.append(player)
        return ordered(unreachable, game.lang, lambda p: (p.user_id, p.display_name))
