"""``/games``: the games of a server, or a player's own across servers; a new lobby's call.

In a server: its open lobbies first (with their player counts), then its running games (their
phase, next deadline as a Discord timestamp, link). With ``mine``, or in a DM with the bot: the
caller's games in every server the bot shares with them and what waits on them, soonest first
(a game says what with :class:`Waits`; else its next deadline). Privately, in pages that each
fit one message. And the ``lobby_role`` server setting: a new lobby mentions that role once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from sqlalchemy.ext.asyncio import AsyncSession

from bot import posts
from bot.activity import NOT_A_STEP, when
from bot.effects import Post
from bot.i18n import game_name, t
from bot.limits import MESSAGE_CONTENT
from bot.names import shown
from db import repo
from db.models import ACTIVE_STATUSES, Deadline, Game

if TYPE_CHECKING:
    from bot.service import Actor, GameService, Services

#: Room kept in a page for its footer.
FOOTER_ROOM = 100

#: What sorts after every deadline (what waits with none, last).
NEVER = datetime.max.replace(tzinfo=UTC)


@dataclass(frozen=True)
class Waiting:
    """Something a game waits for from a player: what (in their language), and by when."""

    what: str
    due: datetime | None


@runtime_checkable
class Waits(Protocol):
    """What a game's service may tell ``/games`` (optional: else its next deadline)."""

    async def waiting_on(
        self, s: AsyncSession, game: Game, user_id: int, lang: str
    ) -> list[Waiting]:
        """What the game waits for from ``user_id`` now (a vote, a choice, a turn…)."""


def next_due(deadlines: Iterable[Deadline], reminder: Callable[[str], bool]) -> datetime | None:
    """The soonest deadline of a step of the game (no reminder, offer or prod)."""
    steps = [
        d.due_at for d in deadlines if not d.kind.endswith(NOT_A_STEP) and not reminder(d.kind)
    ]
    return min(steps, default=None)


def pages(lines: list[str], room: int = MESSAGE_CONTENT - FOOTER_ROOM) -> list[list[str]]:
    """The lines in pages of at most ``room`` characters each (a longer line is a page)."""
    out: list[list[str]] = [[]]
    size = 0
    for line in lines:
        if out[-1] and size + len(line) + 1 > room:
            out.append([])
            size = 0
        out[-1].append(line[:room])
        size += len(line) + 1
    return out


class Listing:
    """The answers of ``/games`` from the store, the games' services and the bot's servers."""

    def __init__(
        self,
        app: Services,
        services: Mapping[str, GameService],
        guild_name: Callable[[int], str | None],
        reminder: Callable[[str], bool],
    ) -> None:
        self.app = app
        self.services = services
        #: the name of a server the bot is in (None: it is not, or no longer)
        self.guild_name = guild_name
        self.reminder = reminder

    async def games(self, actor: Actor, guild_id: int | None, mine: bool, page: int) -> str:
        if guild_id is None or mine:
            lines = await self.mine(actor)
            title = t("listing.mine_title", actor.lang)
        else:
            lines = await self.here(guild_id, actor.lang)
            title = t("listing.here_title", actor.lang)
        if not lines:
            return t(
                "listing.none_mine" if guild_id is None or mine else "listing.none", actor.lang
            )
        split = pages(lines)
        number = min(max(page, 1), len(split))
        text = "\n".join([title, *split[number - 1]])
        if len(split) > 1:
            text += "\n" + t("listing.page", actor.lang, page=number, pages=len(split))
        return text

    async def here(self, guild_id: int, lang: str) -> list[str]:
        """The server's lobbies (players signed up), then its running games (phase, deadline)."""
        async with self.app.sessions() as s:
            games = await repo.running_games(s, [guild_id], statuses=ACTIVE_STATUSES)
            games = [g for g in games if g.kind in self.services]
            lobbies = [g for g in games if g.status == "lobby"]
            lines = [await self.lobby_line(s, g, lang) for g in lobbies]
            for game in (g for g in games if g.status == "running"):
                due = next_due(await repo.open_deadlines(s, game.id), self.reminder)
                lines.append(
                    t(
                        "listing.running",
                        lang,
                        game=game_name(game.kind, lang, game.options),
                        deadline=when(due) if due else "—",
                        link=posts.link(game),
                    )
                )
        return lines

    async def lobby_line(self, s: AsyncSession, game: Game, lang: str) -> str:
        service = self.services[game.kind]
        return t(
            "listing.lobby",
            lang,
            game=game_name(game.kind, lang, game.options),
            count=len(await repo.players(s, game.id)),
            max=service.max_players,
            link=posts.link(game),
        )

    async def mine(self, actor: Actor) -> list[str]:
        """What waits on the caller in each of their games, soonest first (none last)."""
        found: list[tuple[datetime | None, str]] = []
        async with self.app.sessions() as s:
            for game in await repo.games_of_user(s, actor.id):
                server = self.guild_name(game.guild_id)
                if server is None or game.kind not in self.services:
                    continue
                for waiting in await self.waiting(s, game, actor):
                    line = t(
                        "listing.waiting",
                        actor.lang,
                        game=game_name(game.kind, actor.lang, game.options),
                        server=shown(server),
                        what=waiting.what,
                        deadline=when(waiting.due) if waiting.due else "—",
                        link=posts.link(game),
                    )
                    found.append((waiting.due, line))
        found.sort(key=lambda item: (item[0] is None, item[0] or NEVER))
        return [line for _, line in found]

    async def waiting(self, s: AsyncSession, game: Game, actor: Actor) -> list[Waiting]:
        if game.status == "lobby":
            return [Waiting(t("listing.wait_start", actor.lang), None)]
        service = self.services[game.kind]
        if isinstance(service, Waits):
            return await service.waiting_on(s, game, actor.id, actor.lang)
        due = next_due(await repo.open_deadlines(s, game.id), self.reminder)
        return [Waiting(t("listing.wait_step", actor.lang), due)]


async def lobby_call(s: AsyncSession, game: Game, place_id: int) -> list[Post]:
    """A new lobby's mention of the server's ``lobby_role`` (none: nothing), once, the one
    role its allowed mentions name."""
    role = (await repo.get_guild_settings(s, game.guild_id)).lobby_role_id
    if role is None:
        return []
    text = t(
        "listing.lobby_call",
        game.lang,
        role=f"<@&{role}>",
        game=game_name(game.kind, game.lang, game.options),
    )
    return [Post(place_id, text, mention_role=role)]
