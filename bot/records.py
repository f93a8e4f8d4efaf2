"""What a game leaves behind for its readers: the vote matrix picture and the posts that carry it.

Built from the stored state and the public event log only, so any process, after any restart,
gives the same picture of the same game.
"""

from __future__ import annotations

import io
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

import discord
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot import archive, vote_matrix
from bot.effects import Attachment, Post
from bot.errors import UserError
from bot.event_log import decode_events
from bot.i18n import choice_label, game_name, lang_of, number, option_label, t
from bot.names import collation_key
from bot.options import Option, OptionsSchema
from bot.render import resistance as resistance_render
from db import repo
from db.models import Game, GameStatus
from games.common import Event
from games.resistance.rules import ResistanceEvent

if TYPE_CHECKING:
    from bot.resistance import ResistanceService
    from bot.service import Actor, GameService, Reply

FileMaker = Callable[[], discord.File]


def file_maker(data: bytes, filename: str, description: str | None = None) -> FileMaker:
    """A fresh ``discord.File`` each call (a File's buffer can be sent only once)."""

    def make() -> discord.File:
        return discord.File(io.BytesIO(data), filename=filename, description=description)

    return make


async def public_events(s: AsyncSession, game: Game) -> list[Event]:
    return decode_events(game.kind, await repo.events(s, game.id, public_only=True))


async def resistance_events(s: AsyncSession, game: Game) -> list[ResistanceEvent]:
    """The public events of a game of The Resistance."""
    return [e for e in await public_events(s, game) if isinstance(e, ResistanceEvent)]


async def resistance_matrix(s: AsyncSession, game: Game, state: Any) -> vote_matrix.Matrix:
    """The vote matrix of a game of The Resistance (any phase), from its public events."""
    names = {p.id: p.name for p in state.players}
    return vote_matrix.build(await resistance_events(s, game), names, list(state.leader_order))


async def matrix_file(matrix: vote_matrix.Matrix, lang: str, game_id: int) -> FileMaker:
    """The picture, rendered off the event loop, with its text alternative as description."""
    png = await vote_matrix.render_async(matrix, lang)
    return file_maker(
        png,
        t("resistance.matrix.filename", lang, game=game_id),
        vote_matrix.describe(matrix, lang),
    )


async def record_file(s: AsyncSession, game: Game, state: Any, lang: str) -> FileMaker:
    """The game's record as a Markdown file, from its state and public event log."""
    text = archive.markdown(game, state, await public_events(s, game), lang)
    return file_maker(text.encode("utf-8"), archive.filename(game, lang))


async def resistance_end_post(service: Any, s: AsyncSession, game: Game, state: Any) -> Post:
    """The end-of-game post: the history, with the vote matrix and the record attached. The
    files are built when the post is delivered (the picture off the loop), from the stored
    state and events of the ended game, which no longer change."""
    lang = game.lang
    text = resistance_render.history_text(state, await resistance_events(s, game), lang)
    files = (Attachment("rs_matrix", (game.id, lang)), Attachment("record", (game.id, lang)))
    return Post(service.where(game), text, files=files)


async def archive_post(service: Any, s: AsyncSession, game: Game, state: Any) -> Post:
    """A post with the game's record attached (the end of a Refutation Game, a cancellation)."""
    key = "archive.posted_refutation" if game.kind == "refutation" else "archive.posted"
    return Post(
        service.where(game), t(key, game.lang), files=(Attachment("record", (game.id, game.lang)),)
    )


async def loaded(services: Mapping[str, Any], s: AsyncSession, game_id: int) -> tuple[Game, Any]:
    """A game's row and its engine state, by its kind's service."""
    game = await repo.get_game(s, game_id)
    if game is None or game.kind not in services:
        raise UserError("common.error.no_game")
    service = services[game.kind]
    await service.prepare(s, game)
    return game, service.load(game)


def file_builders(
    sessions: Any, services: Mapping[str, Any]
) -> dict[str, Callable[..., Awaitable[discord.File]]]:
    """How the dispatcher builds the files that any game's effect records name
    (``Attachment("record", ...)``; each game's own come with its plugin)."""

    async def record(game_id: int, lang: str) -> discord.File:
        async with sessions() as s:
            game, state = await loaded(services, s, game_id)
            return (await record_file(s, game, state, lang))()

    return {"record": record}


def resistance_files(
    sessions: Any, services: Mapping[str, Any]
) -> dict[str, Callable[..., Awaitable[discord.File]]]:
    """The Resistance's own attachment: the vote matrix (``Attachment("rs_matrix", ...)``)."""

    async def matrix(game_id: int, lang: str) -> discord.File:
        async with sessions() as s:
            game, state = await loaded(services, s, game_id)
            built = await resistance_matrix(s, game, state)
        return (await matrix_file(built, lang, game_id))()

    return {"rs_matrix": matrix}


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
    if game.status == GameStatus.CANCELLED.value:
        return t("archive.cancelled_short", lang)
    state = service.load(game)
    if game.kind == "resistance":
        return archive.resistance_outcome(state, lang)
    return archive.refutation_outcome(state, lang)


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
    """``archive game``: the record of an ended game of this server, in the reader's language."""
    from bot.service import Reply

    lang = actor.lang
    name = game_name(service.kind, lang)
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
        record = await record_file(s, game, state, lang)
        files = [record]
        if game.kind == "resistance":
            matrix = await resistance_matrix(s, game, state)
            files.insert(0, await matrix_file(matrix, lang, game.id))
    text = t(
        "archive.reply",
        lang,
        number=game.id,
        game=name,
        date=day(game),
        outcome=short_outcome(service, game, lang),
    )
    return Reply(text, files=files)


async def resistance_history(service: ResistanceService, actor: Actor, game_id: int) -> Reply:
    """``/resistance history``: the text history and the vote matrix, in the reader's language."""
    from bot.service import Reply

    async with service.app.sessions() as s:
        game = await repo.get_game(s, game_id)
        assert game is not None
        state = service.load(game)
        text = resistance_render.history_text(state, await resistance_events(s, game), actor.lang)
        matrix = await resistance_matrix(s, game, state)
    return Reply(text, files=[await matrix_file(matrix, actor.lang, game_id)])


# -- rules -----------------------------------------------------------------------------------

RULES_SECTIONS = {
    "resistance": ("setup", "round", "end"),
    "refutation": ("setup", "turn", "end"),
}


def option_value(option: Option | None, value: Any, lang: str) -> str:
    """One option's value as the reader's language writes it: "—" when unset (none, empty), a
    choice by the name Discord shows for it (French ``contre``), a yes or no, a number (French
    ``0,5``; English as stored, ``24.0``), any other text as it is."""
    if value is None or value == "":
        return "—"
    if isinstance(value, bool):
        return t(f"common.value.{str(value).lower()}", lang)
    if option is not None and value in option.choices:
        return choice_label(value, lang)
    if isinstance(value, int | float) and lang_of(lang) != "en":
        return number(value, lang)
    return str(value)


def option_pairs(
    kind: str, schema: OptionsSchema, options: dict[str, Any], lang: str
) -> list[tuple[str, str]]:
    """A game's options as (name, value) in the reader's language, each named as the reader
    sees it in the command (bot.i18n.option_label: French ``heures_vote``; English, or a game
    whose catalogue names none: the key), in the alphabetical order of those names (bot/names.py's
    collation); the deck aside."""
    pairs = [
        (option_label(kind, k, lang), option_value(schema.get(k), v, lang))
        for k, v in options.items()
        if k != "deck"
    ]
    return sorted(pairs, key=lambda pair: collation_key(pair[0]))


def options_listing(kind: str, schema: OptionsSchema, options: dict[str, Any], lang: str) -> str:
    """A game's options as "`name` = value" (``option_pairs``)."""
    return ", ".join(
        f"`{label}` = {value}" for label, value in option_pairs(kind, schema, options, lang)
    )


def options_text(kind: str, schema: OptionsSchema, options: dict[str, Any], lang: str) -> str:
    return t("rules.options", lang, options=options_listing(kind, schema, options, lang) or "—")


async def rules_text(service: Any, lang: str, channel_id: int) -> str:
    """The rules of the forum adaptation (and of the variant in play here), then the options of
    the game running in this channel, if any."""
    kind = service.kind
    async with service.app.sessions() as s:
        game = await repo.active_game_in_channel(s, channel_id)
        if game is not None and game.kind != kind:
            game = None
        options = dict(game.options) if game is not None else {}
        # the hour is the server's: say in which zone
        if game is not None and options.get("deadline_time"):
            options["timezone"] = (await repo.get_guild_settings(s, game.guild_id)).timezone
    parts = [t(f"rules.{kind}.{section}", lang) for section in RULES_SECTIONS[kind]]
    if kind == "resistance" and game is not None and game.options.get("variant") == "avalon":
        parts.append(t("rules.resistance.avalon", lang))
    schema = service.app.schema(kind)
    listing = options_text(kind, schema, options, lang) if game is not None else None
    parts.append(listing or t("rules.no_game", lang))
    return "\n\n".join(parts)
