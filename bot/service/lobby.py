"""The lobby: a game opened where the moderator typed (a forum gets a post of its own),
its options merged and checked, members joining and leaving until the start."""

from __future__ import annotations

import contextlib
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

import discord
from sqlalchemy.ext.asyncio import AsyncSession

from bot.effects import EditSlot, Post, View
from bot.errors import UserError
from bot.i18n import Lang, game_name, t
from bot.listing import lobby_call
from bot.names import listing, shown
from bot.notices import PermissionNames
from bot.posts import where
from bot.service.actions import Actions, consume_interaction
from bot.service.moderators import Moderators
from bot.service.outcome import Actor, Effect, Outcome, TagRequired
from bot.service.services import Services
from db import repo
from db.models import Game, Player

if TYPE_CHECKING:
    from bot.service.protocol import GameRules

#: How long a start's claim on its lobby lasts (the DM check of ten players takes seconds; a
#: claim older than this is of a process that died during its start).
STARTING_FOR = timedelta(minutes=5)


def starting_key(game_id: int) -> str:
    """The ``bot_state`` key of a start under way (``Start.start``)."""
    return f"starting:{game_id}"


async def refuse_if_starting(s: AsyncSession, game: Game, now: datetime) -> None:
    """Refuse a lobby change while a start checks the players' DMs (in another process: in
    this one the game's lock makes it wait). A claim older than ``STARTING_FOR`` is of a
    process that died meanwhile: it is ignored."""
    claimed = await repo.get_bot_state(s, starting_key(game.id))
    if claimed is None:
        return
    with contextlib.suppress(ValueError):
        if now - datetime.fromisoformat(claimed) < STARTING_FOR:
            raise UserError("common.error.starting")


def _plain(text: str) -> str:
    """Casefolded, without accents: how tag names are compared with game names."""
    decomposed = unicodedata.normalize("NFKD", text.casefold().strip())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def check_permissions(channel: Any, needed: list[str]) -> None:
    """Refuse early, naming what the bot lacks, rather than fail halfway through a game."""
    me = channel.guild.me
    perms = channel.permissions_for(me)
    missing = [name for name in needed if not getattr(perms, name)]
    if missing:
        raise UserError("common.error.bot_missing", permissions=PermissionNames(tuple(missing)))


def placed(channel: Any, place: Any) -> tuple[int, int | None]:
    """The game's (channel, thread) as the database keeps them: a new forum post is a thread of
    the forum, and so is a thread the moderator opened the game in, of its text channel (or its
    forum); a text channel is itself, with no thread."""
    if place is not channel:
        return channel.id, place.id
    if isinstance(channel, discord.Thread):
        return channel.parent_id, channel.id
    return channel.id, None


@dataclass(eq=False)
class Lobby:
    """The lobby of one game's service; the game's hooks (``rules``) shape its options, its
    text and the permissions it needs."""

    app: Services
    rules: GameRules
    actions: Actions
    moderators: Moderators

    async def options_for(
        self, s: AsyncSession, guild_id: int, given: dict[str, Any]
    ) -> dict[str, Any]:
        """Config defaults, then the guild's defaults, then what the moderator typed; shaped
        by the game (:meth:`shape_options`), then checked together by the game's schema (the
        check the config and ``/settings`` make: ``OptionsSchema.verify``)."""
        settings = await repo.get_guild_settings(s, guild_id)
        schema = self.app.schema(self.rules.kind)
        options = schema.merge(
            self.app.defaults[self.rules.kind], settings.defaults_for(self.rules.kind), given
        )
        self.rules.shape_options(options, given)
        schema.verify(options)
        return options

    def text(self, game: Game, players: list[Player]) -> str:
        """Who has joined, out of how many the game takes (each game may add its lines)."""
        names = listing([(p.user_id, p.display_name) for p in players], game.lang)
        return t(
            "common.lobby.text",
            game.lang,
            game=game_name(self.rules.kind, game.lang, game.options),
            count=len(players),
            min=self.rules.min_players,
            max=self.rules.max_players,
            players=names,
        )

    def view(self, game: Game) -> View:
        """The Join / Leave buttons (built by the cogs' ``lobby`` view builder)."""
        return View("lobby", (self.rules.kind, game.id, game.lang))

    async def refresh(self, s: AsyncSession, game: Game) -> Effect:
        """The lobby message shows who has joined: edited in place, posted anew if refused."""
        players = await repo.players(s, game.id)
        return EditSlot(
            where(game),
            "lobby",
            text=self.rules.lobby_text(game, players),
            view=self.view(game),
            repost=True,
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
        """Open a game: in a forum channel a new post (tagged, see ``post_tags``), else this
        channel."""
        is_forum = isinstance(channel, discord.ForumChannel)
        if actor.bot:
            raise UserError("common.error.bot_seat")
        async with self.app.sessions.begin() as s:
            await consume_interaction(s, actor)  # a redelivered one: answered as it was
            await self.moderators.require_host(s, actor, guild_id)
            if not is_forum and await repo.active_game_in_channel(s, channel.id) is not None:
                raise UserError("common.error.channel_busy")
            options = await self.options_for(s, guild_id, given)
            if validate is not None:
                validate(options)
            self.rules.opened_in(channel, options)
            settings = await repo.get_guild_settings(s, guild_id)
            lang: Lang = "fr" if settings.language == "fr" else "en"
        check_permissions(channel, self.rules.needed_permissions(channel, options))
        title = game_name(self.rules.kind, lang, options)
        place = await self.open_post(channel, tag, lang, title)
        parent_id, thread_id = placed(channel, place)
        if place is not channel:
            reply = t("common.lobby.opened_post", actor.lang, game=title, post=f"<#{thread_id}>")
        else:
            reply = t("common.lobby.opened", actor.lang, game=title)
        async with self.app.sessions.begin() as s:
            await consume_interaction(s, actor)  # another delivery may have opened it meanwhile
            game = await repo.create_game(
                s,
                kind=self.rules.kind,
                guild_id=guild_id,
                channel_id=parent_id,
                thread_id=thread_id,
                created_by=actor.id,
                options=options,
                lang=lang,
                at=self.app.clock(),
            )
            lobby = Post(
                place.id, self.rules.lobby_text(game, []), view=self.view(game), slot="lobby"
            )
            called = await lobby_call(s, game, place.id)  # lobby_role (bot/listing.py)
            outcome = await self.actions.commit_outcome(s, game, Outcome(reply, [lobby, *called]))
        return await self.actions.run(outcome)

    async def open_post(self, channel: Any, tag: str | None, lang: Lang, title: str) -> Any:
        """Where the lobby goes: a new post of a forum channel (tagged), else the channel."""
        applied = self.post_tags(channel, tag)
        if not isinstance(channel, discord.ForumChannel):
            return channel
        created = await channel.create_thread(
            name=t("common.lobby.post_title", lang, game=title),
            content=t("common.lobby.opening", lang, game=title),
            applied_tags=applied,
        )
        return created.thread

    def require_place(self, game: Game, place: tuple[int | None, int | None] | None) -> None:
        """Joining and leaving count only where the lobby is: ``place`` is the interaction's
        (guild, channel); a forwarded copy of the lobby clicked elsewhere is refused."""
        if place is not None and place != (game.guild_id, where(game)):
            raise UserError("common.error.wrong_place", where=f"<#{where(game)}>")

    def post_tags(self, channel: Any, tag: str | None) -> list[discord.ForumTag]:
        """The tags of a new forum post: the one the moderator gave (by id, as autocomplete
        sends it, or by name), else a tag named like the game, else none — unless the forum
        requires one (REQUIRE_TAG: Discord refuses the post with 40067), then the moderator
        is asked to choose (``TagRequired``)."""
        if not isinstance(channel, discord.ForumChannel):
            if tag is not None:
                raise UserError("common.error.tag_not_forum")
            return []
        tags = list(channel.available_tags)
        if tag is not None and tag.strip():
            wanted = tag.strip()
            for candidate in tags:
                if str(candidate.id) == wanted or _plain(candidate.name) == _plain(wanted):
                    return [candidate]
            raise UserError(
                "common.error.unknown_tag",
                tag=discord.utils.escape_markdown(wanted[:100]),
                tags=", ".join(discord.utils.escape_markdown(x.name) for x in tags) or "—",
            )
        names = {_plain(self.rules.kind)} | {
            _plain(game_name(self.rules.kind, lang)) for lang in ("en", "fr")
        }
        named = [x for x in tags if _plain(x.name) in names]
        if named:
            return named[:1]
        if channel.flags.require_tag:
            if not tags:
                raise UserError("common.error.forum_without_tags")
            raise TagRequired([(x.id, x.name) for x in tags])
        return []

    def needed_permissions(self, channel: Any) -> list[str]:
        """What the bot does in any game's channel (the README's permission table): read and
        post there, with embeds and files (the game's record at the end), and fetch its own
        messages to edit them. A forum post needs Send Messages in the forum (Discord ignores
        Create Public Threads for forum posts); everything after it goes into the post."""
        needed = [
            "view_channel",
            "send_messages",
            "embed_links",
            "attach_files",  # the vote matrix and the game's record at the end
            "read_message_history",
        ]
        if isinstance(channel, discord.ForumChannel | discord.Thread):
            needed.append("send_messages_in_threads")
        return needed

    async def join(
        self, actor: Actor, game_id: int, *, member: Actor | None = None, by_moderator: bool = False
    ) -> str:
        """Sign ``member`` (or the actor) up for the lobby."""
        who = member or actor
        if who.bot:
            raise UserError("common.error.bot_seat")
        if not who.member:  # a bot can DM only the members of a server it shares with them
            raise UserError("common.error.not_a_member", name=shown(who.name))
        async with self.actions.action(game_id, actor) as (s, game):
            self.require_place(game, actor.place)
            if by_moderator:
                await self.moderators.require_moderator(s, actor, game, game.guild_id)
            if game.status != "lobby":
                raise UserError("common.error.not_in_lobby")
            await refuse_if_starting(s, game, self.app.clock())
            if await repo.player(s, game.id, who.id) is not None:
                raise UserError("common.error.already_joined", name=shown(who.name))
            if len(await repo.players(s, game.id)) >= self.rules.max_players:
                raise UserError("common.error.lobby_full", max=self.rules.max_players)
            # Someone signed up by a moderator gets DMs in the guild's language: Discord tells
            # a member's language only when they interact themselves.
            locale = game.lang if by_moderator else who.lang
            await repo.add_player(s, game.id, who.id, who.name, locale=locale, at=self.app.clock())
            effect = await self.refresh(s, game)
            key = "common.lobby.added" if by_moderator else "common.lobby.joined"
            outcome = Outcome(t(key, actor.lang, name=shown(who.name)), [effect])
            await self.actions.commit_outcome(s, game, outcome)
        return await self.actions.run(outcome)

    async def leave(
        self, actor: Actor, game_id: int, *, member: Actor | None = None, by_moderator: bool = False
    ) -> str:
        who = member or actor
        async with self.actions.action(game_id, actor) as (s, game):
            self.require_place(game, actor.place)
            if by_moderator:
                await self.moderators.require_moderator(s, actor, game, game.guild_id)
            if game.status != "lobby":
                raise UserError("common.error.not_in_lobby")
            if await repo.player(s, game.id, who.id) is None:
                raise UserError("common.error.not_joined", name=shown(who.name))
            await repo.remove_player(s, game.id, who.id)
            effect = await self.refresh(s, game)
            key = "common.lobby.removed" if by_moderator else "common.lobby.left"
            outcome = Outcome(t(key, actor.lang, name=shown(who.name)), [effect])
            await self.actions.commit_outcome(s, game, outcome)
        return await self.actions.run(outcome)
