"""The Bot subclass: loads the cogs, registers the persistent buttons, starts the deadlines."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import hashlib
import json
import logging
import random
import re
from collections.abc import Iterable
from typing import Any

import aiohttp
import discord
from discord.ext import commands
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession

from adapters import switch
from adapters.discord_callback import close_callbacks
from adapters.discord_endpoints import point_discord_at
from adapters.discord_state import OwnState
from bot import metrics, names
from bot.activity import Activity
from bot.bounds import enforce_bounds
from bot.clock import Clock, utcnow
from bot.config import Settings
from bot.courier import Courier
from bot.dispatcher import Dispatcher
from bot.english import counted, word
from bot.errors import GameCommandTree
from bot.modlog import ModLog
from bot.notify import EFFECTS_CHANNEL, DeadlineListener
from bot.places import gone_while_offline
from bot.plugins import GamePlugin, Registry
from bot.reachable import OFFER_VIEW
from bot.records import file_builders
from bot.scheduler import DeadlineScheduler
from bot.service import AfterCommit, GameService, Services
from bot.single import ProcessLock
from bot.startup import (
    BAD_TOKEN,
    StartupError,
    check_token,
    prepare_database,
    unreachable_database,
    unreachable_discord,
)
from bot.stopping import GraceTime, InFlight, run_until_stopped
from bot.translator import CatalogueTranslator
from db import repo
from db.engine import make_engine, make_sessions
from db.models import ACTIVE_STATUSES, Deadline

log = logging.getLogger(__name__)

#: The extensions of every bot besides the games' own cogs (each game's plugin names its cog):
#: the shared Discord edge (bot.app does not import it: it loads it by name).
COGS = ("cogs.lobby", "cogs.settings", "cogs.stats", "cogs.listing")

#: Seconds the bot's close waits for the start's background work (the games read ahead, the
#: places checked) to end.
STARTING_AT_CLOSE = 10.0

# Libraries that log whole payloads at DEBUG (request bodies, gateway events, SQL parameters):
# DMs with roles and hands, clicked choices, interaction tokens.
PAYLOAD_LOGGERS = ("discord", "aiosqlite")


# discord.py's loggers that write request URLs (interaction callbacks and webhooks carry the
# interaction's token in their path), at WARNING too (a rate-limited callback).
URL_LOGGERS = ("discord.http", "discord.webhook.async_", "discord.client", "discord.gateway")
TOKEN_IN_URL = re.compile(r"(/(?:interactions|webhooks)/\d+/)[^/\s?]+")


class RedactTokens(logging.Filter):
    """Replace the token of an interaction or webhook URL in a log record by ``<token>``."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        redacted = TOKEN_IN_URL.sub(r"\1<token>", message)
        if redacted != message:
            record.msg, record.args = redacted, ()
        return True


_REDACT = RedactTokens()


def quiet_payload_logs(discord_debug: bool) -> None:
    """Keep the payload-dumping libraries at INFO whatever the bot's level, unless
    ``[logging] discord_debug`` asks for their DEBUG output; and never let a URL's interaction
    token through, at any level."""
    for name in PAYLOAD_LOGGERS:
        logging.getLogger(name).setLevel(logging.NOTSET if discord_debug else logging.INFO)
    for name in URL_LOGGERS:
        logger = logging.getLogger(name)
        if _REDACT not in logger.filters:
            logger.addFilter(_REDACT)


def owns_guild(guild_id: int, shard_count: int | None, shard_ids: tuple[int, ...] | None) -> bool:
    """Whether this process runs the shard of ``guild_id`` (Discord's sharding formula)."""
    if not shard_count or shard_ids is None:
        return True
    return (guild_id >> 22) % shard_count in shard_ids


def client_options(settings: Settings) -> dict[str, Any]:
    """discord.py's options of the bot: the intents it needs, its shards, no mentions unless a
    message allows one, no message or member cache (it reads what it needs)."""
    intents = discord.Intents.default()
    intents.message_content = False
    shard_ids = settings.discord.shard_ids
    return {
        "command_prefix": commands.when_mentioned,
        "intents": intents,
        "tree_cls": GameCommandTree,
        "shard_count": settings.discord.shard_count,
        # discord.py's typed options say list[int], but AutoShardedClient reads
        # kwargs.pop("shard_ids", None), None meaning every shard (its documented default).
        "shard_ids": list(shard_ids) if shard_ids else None,
        "allowed_mentions": discord.AllowedMentions.none(),
        "help_command": None,
        "max_messages": None,
        "chunk_guilds_at_startup": False,
        "member_cache_flags": discord.MemberCacheFlags.none(),
    }


class GameBot(OwnState, commands.AutoShardedBot):
    def __init__(
        self,
        settings: Settings,
        engine: AsyncEngine,
        *,
        clock: Clock = utcnow,
        rng: random.Random | None = None,
        cogs: tuple[str, ...] = COGS,
        plugins: Iterable[GamePlugin] | Registry,
        process_lock: ProcessLock | None = None,
    ) -> None:
        """``plugins``: the games this bot runs (bot.plugins; the composition root passes the
        built-in ones, games/builtin.py)."""
        self.registry = plugins if isinstance(plugins, Registry) else Registry(plugins)
        #: the interactions received and not answered yet (bot/stopping.py), the state's gate
        self.in_flight = InFlight()
        quiet_payload_logs(settings.discord_debug)
        # The bot joins no voice channel: discord.py's warnings that voice needs PyNaCl and
        # davey are noise in its log (and not a problem to fix).
        discord.VoiceClient.warn_nacl = False
        discord.VoiceClient.warn_dave = False
        super().__init__(
            # [internals] bypasses (adapters/switch.py)
            bypasses=settings.internals.bypasses,
            gate=self.in_flight,
            **client_options(settings),
        )
        self.settings = settings
        self.engine = engine
        switch.keep_only(engine.sync_engine, self.bypasses)
        #: one process per SQLite database (bot/single.py), taken before connecting
        self.process_lock = process_lock or ProcessLock(settings.database.url)
        self.sessions = make_sessions(engine)
        self.clock = clock
        self.cog_names = cogs
        self.app = self.services_for(settings, clock, rng or random.Random())
        self.services: dict[str, GameService] = {}
        #: the posts counted in the games' places, written in batches (bot/activity.py)
        self.posts = Activity(self.sessions, clock, reminder=self.is_reminder)
        self.app.activity = self.posts
        #: every moderator action, who, when, what and why (bot/modlog.py)
        self.mod_log = ModLog(self.app, self)
        self.metrics_server: metrics.MetricsServer | None = None
        self._places_checked = False
        #: the start's work that goes on in the background (read ahead, places checked)
        self._starting: list[asyncio.Task[None]] = []
        self._wire_deadlines_and_outbox()

    def services_for(self, settings: Settings, clock: Clock, rng: random.Random) -> Services:
        """What the games' services share: the store, the courier, the clock, each game's
        defaults and options (from the config), the limits."""
        return Services(
            sessions=self.sessions,
            courier=Courier(self),
            clock=clock,
            rng=rng,
            defaults={p.kind: p.config_defaults(settings) for p in self.registry},
            options={p.kind: p.schema for p in self.registry},
            busy_wait=settings.database.busy_wait_seconds,
            vote_lanes=settings.database.vote_lanes,
            limits=settings.moderation,
            registry=self.registry,
            sections=settings.sections,
        )

    def _wire_deadlines_and_outbox(self) -> None:
        """The deadline scheduler and the outbox dispatcher (the only code that performs game
        effects on Discord), and on PostgreSQL their listeners: another process that moves one
        of our deadlines wakes our sweep; one that writes effects of one of our games wakes our
        dispatcher."""
        discord_settings = self.settings.discord
        self.scheduler = DeadlineScheduler(
            self.sessions,
            self.on_deadline,
            clock=self.clock,
            owns=lambda guild_id: owns_guild(
                guild_id, discord_settings.shard_count, discord_settings.shard_ids
            ),
            game_lock=self.app.locks,
            reminder=self.is_reminder,
        )
        self.app.scheduler = self.scheduler
        self.dispatcher = Dispatcher(self, self.sessions, owns=self.scheduler.owns)
        self.app.dispatcher = self.dispatcher
        url = self.engine.url
        self.deadline_listener = DeadlineListener(
            url, self.scheduler.sweep, owns=self.scheduler.owns
        )
        self.effects_listener = DeadlineListener(
            url, self.dispatcher.sweep, owns=self.scheduler.owns, channel=EFFECTS_CHANNEL
        )

    async def start(self, token: str, *, reconnect: bool = True) -> None:
        self.process_lock.acquire()  # AlreadyRunning: another process runs on this SQLite file
        await super().start(token, reconnect=reconnect)

    async def setup_hook(self) -> None:
        metrics.instrument()
        if self.settings.metrics.port:
            self.metrics_server = metrics.MetricsServer(
                self, self.settings.metrics.host, self.settings.metrics.port
            )
            await self.metrics_server.start()

        for plugin in self.registry:
            self.services[plugin.kind] = plugin.service(self.app)
        for name, builder in file_builders(self.sessions, self.services).items():
            self.dispatcher.register_file(name, builder)
        for plugin in self.registry:
            for view, view_builder in plugin.views.items():
                self.dispatcher.register_view(view, view_builder)
            if plugin.files is not None:
                for name, builder in plugin.files(self.sessions, self.services).items():
                    self.dispatcher.register_file(name, builder)
            if plugin.buttons:
                self.add_dynamic_items(*plugin.buttons)
        self.dispatcher.on_refused(OFFER_VIEW, self.offer_refused)
        for name in (*(p.cog for p in self.registry), *self.cog_names):
            try:
                await self.load_extension(name)
            except commands.ExtensionNotFound:
                log.warning("cog %s not found, skipped", name)
        enforce_bounds(self.tree)
        await self.tree.set_translator(CatalogueTranslator())
        if self.settings.discord.sync_commands and self.syncs_commands():
            await self.sync_commands()
        for kind, service in self.services.items():
            try:
                await service.open()
            except Exception as exc:  # the first click opens it then
                log.warning("service %s: could not open its connection at start: %s", kind, exc)
        self._starting.append(asyncio.get_running_loop().create_task(self._warm()))
        self.posts.start()
        await self.dispatcher.start()
        # The overdue deadlines are resolved while the bot connects; their games stay locked
        # (no click or action on them is handled) until they are (bot/scheduler.py).
        await self.scheduler.start(overdue_in_background=True)
        await self.deadline_listener.start()
        await self.effects_listener.start()

    async def _warm(self) -> None:
        """Each service's read ahead (GameService.warm), while the bot connects."""
        for kind, service in self.services.items():
            try:
                await service.warm()
            except Exception as exc:  # its first clicks read what it did not
                log.warning("service %s: could not read its games ahead: %s", kind, exc)

    def syncs_commands(self) -> bool:
        """Only one process registers the commands: the one that runs shard 0 (every process
        would send the same list, racing for Discord's command-update rate limit)."""
        shard_ids = self.settings.discord.shard_ids
        return shard_ids is None or 0 in shard_ids

    async def on_ready(self) -> None:
        # What start-up loaded (modules, caches, commands) lives as long as the process: keep
        # it out of the cyclic GC's full collections, which otherwise stall the loop under load.
        names.load_collation()
        gc.collect()
        gc.freeze()
        log.info(
            "ready: %s %s of %s, %s",
            word(len(self.shards), "shard"),
            sorted(self.shards),
            self.shard_count,
            counted(len(self.guilds), "guild"),
        )
        if not self._places_checked:
            self._places_checked = True
            self._starting.append(asyncio.get_running_loop().create_task(self._check_places()))

    async def _check_places(self) -> None:
        """What changed while the bot was offline (bot/places.py): games whose server or place
        is gone end as the live events end them. A failure is logged (it was discord.py's
        on_error when this ran in on_ready), never raised into the bot's close."""
        try:
            for gone in await gone_while_offline(self, self.sessions, self.scheduler.owns):
                await self.abandon_games([(gone.game_id, gone.kind)], gone.reason, gone.where)
        except Exception:
            log.exception("the check of the places lost while offline failed")

    async def sync_commands(self) -> bool:
        """Register the command tree with Discord, only if it changed since the last sync
        (Discord rate-limits command updates): the hash of the payload ``tree.sync`` would send,
        per application and scope, is kept in ``bot_state``. Returns whether it synced."""
        dev_guild = self.settings.discord.dev_guild_id
        guild = discord.Object(id=dev_guild) if dev_guild else None
        if guild is not None:
            self.tree.copy_global_to(guild=guild)
        key = f"commands:{self.application_id}:{dev_guild or 'global'}"
        digest = await self.command_tree_hash(guild)
        async with self.sessions() as s:
            if await repo.get_bot_state(s, key) == digest:
                log.info("application commands unchanged since the last sync: not synced")
                return False
        await self.tree.sync(guild=guild)
        async with self.sessions.begin() as s:
            await repo.set_bot_state(s, key, digest, at=self.clock())
        log.info("application commands synced")
        return True

    async def command_tree_payload(self, guild: discord.abc.Snowflake | None) -> list[Any]:
        """The commands as ``tree.sync`` sends them (translations included)."""
        commands = self.tree.get_commands(guild=guild)
        translator = self.tree.translator
        if translator is not None:
            return [await c.get_translated_payload(self.tree, translator) for c in commands]
        return [c.to_dict(self.tree) for c in commands]

    async def command_tree_hash(self, guild: discord.abc.Snowflake | None) -> str:
        """SHA-256 of the commands as ``tree.sync`` sends them (translations included)."""
        payload = await self.command_tree_payload(guild)
        text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(text.encode()).hexdigest()

    # -- a game's place is gone: its channel or post deleted, the bot removed from the server --
    # (guilds intent only; the thread event is the raw one, so an uncached post counts too)

    async def on_guild_channel_delete(self, channel: discord.abc.GuildChannel) -> None:
        await self.abandon_games(
            await self.games_at(channel.id), "place_deleted", f"#{channel.name}"
        )

    async def on_raw_thread_delete(self, payload: discord.RawThreadDeleteEvent) -> None:
        name = payload.thread.name if payload.thread is not None else str(payload.thread_id)
        await self.abandon_games(await self.games_at(payload.thread_id), "place_deleted", name)

    async def on_guild_remove(self, guild: discord.Guild) -> None:
        async with self.sessions() as s:
            games = await repo.running_games(s, [guild.id], statuses=ACTIVE_STATUSES)
            found = [(g.id, g.kind) for g in games]
        await self.abandon_games(found, "bot_removed", guild.name)

    async def games_at(self, place_id: int) -> list[tuple[int, str]]:
        async with self.sessions() as s:
            return [(g.id, g.kind) for g in await repo.active_games_at(s, place_id)]

    async def abandon_games(self, games: list[tuple[int, str]], reason: str, where: str) -> None:
        for game_id, kind in games:
            service = self.services.get(kind)
            if service is None:
                continue
            try:
                await service.moderation.abandon(game_id, reason, where)
            except Exception:
                log.exception("game %s: could not end it (%s)", game_id, reason)

    async def offer_refused(
        self, s: AsyncSession, kind: str, game_id: int, offer: int, *_lang: str
    ) -> None:
        """Discord refused a seat's offer DM (its view's args, bot/reachable.py): the game's
        service passes the seat on, in the transaction that records the refusal."""
        service = self.services.get(kind)
        if service is not None:
            await service.seats.offer_refused(s, game_id, offer)

    def is_reminder(self, kind: str) -> bool:
        """Whether a deadline kind is a reminder of its game's (``reminder_kinds``)."""
        service = self.services.get(self.registry.kind_of_deadline(kind) or "")
        return service is not None and kind in service.reminder_kinds

    async def on_deadline(self, s: AsyncSession, deadline: Deadline) -> AfterCommit | None:
        """The scheduler's handler: the service of the deadline's game (by the prefix of the
        deadline's kind, bot.plugins) decides."""
        service = self.services.get(self.registry.kind_of_deadline(deadline.kind) or "")
        if service is None:
            log.warning("no service for deadline %s of kind %s", deadline.id, deadline.kind)
            return None
        return await service.deadlines.on_deadline(s, deadline)

    def dispatch(self, event_name: str, /, *args: Any, **kwargs: Any) -> None:
        # A click is counted as it is dispatched: an ``on_interaction`` listener would cost a
        # task per interaction (discord.py schedules one per listener and event).
        if event_name == "interaction":
            metrics.count_click(args[0])
        elif event_name == "message":  # a post counted (bot/activity.py), no task of its own
            self.posts.seen(args[0])
        super().dispatch(event_name, *args, **kwargs)

    async def drain(self, grace: float) -> None:
        """Stop as a signal asks (bot/stopping.py), within ``grace`` seconds: no new
        interaction and no new deadline resolution; the interactions received answered and a
        deadline being resolved finished meanwhile; then what the outbox can deliver."""
        left = GraceTime(grace)
        unanswered, _ = await asyncio.gather(
            self.in_flight.answered(left.left()), self.scheduler.shutdown(grace=left.left())
        )
        await self.deadline_listener.stop()
        await self.effects_listener.stop()
        await self.posts.stop()  # the posts counted since the last write
        pending = await self.dispatcher.stop(grace=left.left())
        if unanswered or pending:
            log.warning(
                "grace time over: %s unanswered, %s cut short (sent at the next start)",
                counted(unanswered, "interaction"),
                counted(pending, "delivery"),
            )

    async def close(self) -> None:
        if self.is_closed():
            return
        if self._starting:
            # Left to end (seconds at most): cancelled in the middle of a read, each would
            # leave a pooled connection to the garbage collector.
            await asyncio.wait(self._starting, timeout=STARTING_AT_CLOSE)
            for task in self._starting:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            self._starting.clear()
        if self.metrics_server is not None:
            await self.metrics_server.stop()
        await self.deadline_listener.stop()
        await self.effects_listener.stop()
        await self.scheduler.shutdown()
        await self.posts.stop()
        await self.dispatcher.stop()
        close_callbacks()
        await super().close()
        for service in self.services.values():
            await service.shutdown()
        await self.engine.dispose()
        self.process_lock.release()


async def run_bot(settings: Settings, plugins: Iterable[GamePlugin] | Registry) -> None:
    """Reach the database and apply its migrations, log in, then run until interrupted. What
    keeps it from starting (the database, a refused token, Discord out of reach) raises
    ``StartupError``, its one line for the operator (bot/startup.py)."""
    quiet_payload_logs(settings.discord_debug)
    point_discord_at(settings.discord.api_base, settings.discord.gateway_url)
    await check_token(settings.discord.token, settings.discord.api_base)
    lock = ProcessLock(settings.database.url)
    try:  # before the database is touched: a second process changes nothing, sends nothing
        lock.acquire()
    except OSError as exc:  # its folder cannot be created: the database cannot be either
        raise unreachable_database(settings.database.url, exc) from exc
    await prepare_database(settings.database.url)
    engine = make_engine(settings.database.url)
    bot = GameBot(settings, engine, plugins=plugins, process_lock=lock)
    async with bot:
        try:
            await bot.login(settings.discord.token)
        except discord.LoginFailure as exc:
            raise StartupError(BAD_TOKEN) from exc
        except aiohttp.ClientConnectionError as exc:
            raise unreachable_discord(settings.discord.api_base, exc) from exc
        await run_until_stopped(
            bot.connect(),
            lambda: bot.drain(settings.shutdown.grace_seconds),
            bot.close,
        )
