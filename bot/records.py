"""What a game leaves behind for its readers: its record as a file, the archive of ended games,
and the rules text with the options of the game in a channel.

Built from the stored state and the public event log only, so any process, after any restart,
gives the same record of the same game. What each game writes comes from its plugin record's
hooks (``GamePlugin.archive``, ``GamePlugin.rules``; bot.plugins): nothing here knows a game.
"""

from __future__ import annotations

import io
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

import discord
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot import activity, archive, modlog
from bot.errors import UserError
from bot.event_log import decode_events
from bot.i18n import game_name, t
from db import repo
from db.models import Game, GameStatus
from rulebase import Event

if TYPE_CHECKING:
    from bot.plugins import Archive, FileMaker, GamePlugin
    from bot.service import Actor, GameService, Reply

T = TypeVar("T")
T_contra = TypeVar("T_contra", contravariant=True)


def file_maker(data: bytes, filename: str, description: str | None = None) -> FileMaker:
    """A fresh ``discord.File`` each call (a File's buffer can be sent only once)."""

    def make() -> discord.File:
        return discord.File(io.BytesIO(data), filename=filename, description=description)

    return make


async def public_events(s: AsyncSession, game: Game) -> list[Event]:
    return decode_events(game.kind, await repo.events(s, game.id, public_only=True))


def plugin_of(service: Any, kind: str | None = None) -> GamePlugin | None:
    """The plugin record of a service's game (or of ``kind``), from the bot's registry."""
    registry = service.app.registry
    kind = kind or service.kind
    if registry is None or kind not in registry:
        return None
    plugin: GamePlugin = registry[kind]
    return plugin


def archive_of(service: Any, kind: str | None = None) -> Archive | None:
    plugin = plugin_of(service, kind)
    return plugin.archive if plugin is not None else None


async def record_file(
    s: AsyncSession, game: Game, state: Any, lang: str, record: Archive | None
) -> FileMaker:
    """The game's record as a Markdown file, from its state and public event log."""
    text = archive.markdown(record, game, state, await public_events(s, game), lang)
    text += await activity.totals(s, game, lang)  # the posts and misses (bot/activity.py)
    text += await modlog.section(s, game, lang)  # the moderators' actions (bot/modlog.py)
    return file_maker(text.encode("utf-8"), archive.filename(game, lang))


async def loaded(services: Mapping[str, Any], s: AsyncSession, game_id: int) -> tuple[Game, Any]:
    """A game's row and its engine state, by its kind's service."""
    game = await repo.get_game(s, game_id)
    if game is None or game.kind not in services:
        raise UserError("common.error.no_game")
    service = services[game.kind]
    await service.prepare(s, game)
    return game, service.load(game)


async def posts_written(service: Any) -> None:
    """The posts still counted in memory written first (bot/activity.py): a record's totals
    count up to its last post."""
    tracker = service.app.activity if service is not None else None
    if tracker is not None:
        await tracker.flush()


def file_builders(
    sessions: Any, services: Mapping[str, Any]
) -> dict[str, Callable[..., Awaitable[discord.File]]]:
    """How the dispatcher builds the files that any game's effect records name
    (``Attachment("record", ...)``; each game's own come with its plugin)."""

    async def record(game_id: int, lang: str) -> discord.File:
        await posts_written(next(iter(services.values()), None))
        async with sessions() as s:
            game, state = await loaded(services, s, game_id)
            made = await record_file(s, game, state, lang, archive_of(services[game.kind]))
            return made()

    return {"record": record}


class Drawing(Protocol[T_contra]):
    """How a picture is drawn and said (a game's vote_matrix module)."""

    async def render_async(self, shown: T_contra, lang: str, /) -> bytes:
        """The PNG, rendered off the event loop."""

    def describe(self, shown: T_contra, lang: str, /) -> str:
        """The text alternative."""


@dataclass(frozen=True)
class Picture(Generic[T]):
    """A picture a game attaches to its posts and its archive (a vote matrix): read from the
    stored game and its public events in a session, drawn off the event loop after it, with
    its text alternative as the file's description. ``files`` is the plugin's builder of
    ``Attachment(name, (game_id, lang))``; ``archive_files`` the archive's (bot.plugins)."""

    #: the attachment's kind (``GamePlugin.files``)
    name: str
    #: the catalogue key of the file's name (its placeholder: ``game``, the game's number)
    filename: str
    #: (session, game row, engine state) -> what the picture shows
    read: Callable[[AsyncSession, Game, Any], Awaitable[T]]
    drawing: Drawing[T]

    async def file(self, shown: T, lang: str, game_id: int) -> FileMaker:
        """The picture of ``shown`` in ``lang``, as a file of game ``game_id``."""
        png = await self.drawing.render_async(shown, lang)
        name = t(self.filename, lang, game=game_id)
        return file_maker(png, name, self.drawing.describe(shown, lang))

    def files(
        self, sessions: Any, services: Mapping[str, Any]
    ) -> dict[str, Callable[..., Awaitable[discord.File]]]:
        """The plugin's builder of the attachment (``GamePlugin.files``)."""

        async def build(game_id: int, lang: str) -> discord.File:
            async with sessions() as s:
                game, state = await loaded(services, s, game_id)
                shown = await self.read(s, game, state)
            return (await self.file(shown, lang, game_id))()

        return {self.name: build}

    async def archive_files(
        self, s: AsyncSession, game: Game, state: Any, lang: str
    ) -> list[FileMaker]:
        """``/<game> archive`` attaches the picture before the record (``Archive.files``)."""
        return [await self.file(await self.read(s, game, state), lang, game.id)]


# -- archives --------------------------------------------------------------------------------

ARCHIVED = (GameStatus.ENDED.value, GameStatus.CANCELLED.value)


async def archived_games(
    s: AsyncSession, guild_id: int, kind: str, *, limit: int | None = None
) -> list[Game]:
    """This server's games of ``kind`` that were played and are over, the newest first."""
    stmt = (
        select(Game)
        .where(
            Game.guild_id == guild_id,
            Game.kind == kind,
            Game.status.in_(ARCHIVED),
            Game.state.is_not(None),
        )
        .order_by(Game.id.desc())
    )
    if limit is not None:
        stmt = stmt.limit(limit)
    return list((await s.scalars(stmt)).all())


def short_outcome(service: Any, game: Game, lang: str) -> str:
    """How an archived game ended, in one line: cancelled, or its game's own words."""
    if game.status == GameStatus.CANCELLED.value:
        return t("archive.cancelled_short", lang)
    record = archive_of(service, game.kind)
    if record is None:
        return t("archive.ended_short", lang)
    return record.outcome(service.load(game), lang)


def day(game: Game) -> str:
    at = game.ended_at or game.started_at or game.created_at
    return at.strftime("%Y-%m-%d")


async def archive_choices(
    service: Any, guild_id: int, typed: str, lang: str
) -> list[tuple[str, int]]:
    """Autocomplete for ``archive game``: number, date and outcome; matches what is typed
    against all three."""
    typed = typed.strip().lstrip("#").casefold()
    out: list[tuple[str, int]] = []
    async with service.app.sessions() as s:
        games = await archived_games(s, guild_id, service.kind, limit=200)
        for game in games:
            await service.prepare(s, game)
    for game in games:
        label = t(
            "archive.choice",
            lang,
            number=game.id,
            date=day(game),
            outcome=short_outcome(service, game, lang),
        )
        if typed and typed not in label.casefold():
            continue
        out.append((label[:100], game.id))
        if len(out) == 25:
            break
    return out


async def archive_reply(service: GameService, actor: Actor, guild_id: int, number: int) -> Reply:
    """``archive game``: the record of an ended game of this server, in the reader's language,
    after the pictures its game attaches (``Archive.files``)."""
    from bot.service import Reply

    lang = actor.lang
    name = game_name(service.kind, lang)
    record = archive_of(service)
    await posts_written(service)
    async with service.app.sessions() as s:
        game = await repo.get_game(s, number)
        if (
            game is None
            or game.guild_id != guild_id
            or game.kind != service.kind
            or game.status not in ARCHIVED
            or game.state is None
        ):
            raise UserError("archive.not_found", number=number, game=name)
        await service.prepare(s, game)
        state = service.load(game)
        files = [await record_file(s, game, state, lang, record)]
        if record is not None and record.files is not None:
            files = [*await record.files(s, game, state, lang), *files]
    text = t(
        "archive.reply",
        lang,
        number=game.id,
        game=game_name(service.kind, lang, game.options),
        date=day(game),
        outcome=short_outcome(service, game, lang),
    )
    return Reply(text, files=files)


# -- rules -----------------------------------------------------------------------------------


async def rules_text(service: Any, lang: str, channel_id: int) -> str:
    """The rules of the game (its plugin's ``rules`` hook, which may depend on the options of
    the game running here: a variant), then the options of the game running in this channel,
    if any."""
    kind = service.kind
    async with service.app.sessions() as s:
        game = await repo.active_game_in_channel(s, channel_id)
        if game is not None and game.kind != kind:
            game = None
        options = dict(game.options) if game is not None else {}
        # the hour is the server's: say in which zone
        if game is not None and options.get("deadline_time"):
            options["timezone"] = (await repo.get_guild_settings(s, game.guild_id)).timezone
    plugin = plugin_of(service)
    parts = plugin.rules(lang, options) if plugin is not None and plugin.rules else []
    schema = service.app.schema(kind)
    listing = archive.options_text(kind, schema, options, lang) if game is not None else None
    parts.append(listing or t("rules.no_game", lang))
    return "\n\n".join(parts)
