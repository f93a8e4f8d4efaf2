"""Production figures: Prometheus metrics and ``/healthz`` (``[metrics] port`` in the config).

The metrics live in one registry of the process (:data:`REGISTRY`) and are always counted (a
counter costs about a microsecond); the HTTP endpoint is served only when ``[metrics] port`` is
set, by an aiohttp server in the bot's own event loop (aiohttp is already what discord.py uses):

- ``GET /metrics``: the Prometheus text format;
- ``GET /healthz``: ``200 ok`` once the bot is ready (connected, caches filled), ``503``
  before and once it is closing.

prometheus-client is the reference Python client: the exposition format, histogram buckets and
label handling are its, not reimplemented here.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import logging
import re
import time
from typing import Any

import discord
from aiohttp import web
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)

from adapters import discord_callback
from adapters.discord_webhook import time_callbacks

log = logging.getLogger(__name__)

REGISTRY = CollectorRegistry(auto_describe=True)

# Seconds, from a few milliseconds to Discord's 3 s for the first answer (and 15 min after).
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10)
LATENESS_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 900, 3600)

ACK_SECONDS = Histogram(
    "pbp_interaction_ack_seconds",
    "Click or command (the interaction's own time) to its first callback answered by Discord",
    registry=REGISTRY,
    buckets=LATENCY_BUCKETS,
)
CONFIRM_SECONDS = Histogram(
    "pbp_vote_confirm_seconds",
    "Click on a vote button to the private answer that says the vote is on record (sent after "
    "the commit)",
    ["game"],
    registry=REGISTRY,
    buckets=LATENCY_BUCKETS,
)
CLICKS = Counter(
    "pbp_clicks",
    "Button clicks and select choices received, by the custom_id's prefix (rs:vote, lobby, ...)",
    ["kind"],
    registry=REGISTRY,
)
VOTES_RECORDED = Counter(
    "pbp_votes_recorded",
    "Votes and mission choices committed to the votes table",
    ["game", "kind"],
    registry=REGISTRY,
)
VOTE_BATCH = Histogram(
    "pbp_vote_batch_size",
    "Clicks written by one group-commit transaction",
    registry=REGISTRY,
    buckets=(1, 2, 4, 8, 16, 32, 64, 128, 256),
)
WRITER_BUSY = Counter(
    "pbp_group_commit_busy_seconds",
    "Seconds the group-commit writers spent writing batches (a batch taken to its results): "
    "over wall time, how busy the database writer is (SQLite's direct path runs on the event "
    "loop, so this is loop time too)",
    registry=REGISTRY,
)
DEADLINES_DUE = Counter(
    "pbp_deadlines_due",
    "Deadlines claimed for resolution because they fell due (a rolled-back attempt that the "
    "sweep retries counts again)",
    ["kind"],
    registry=REGISTRY,
)
DEADLINES_RESOLVED = Counter(
    "pbp_deadlines_resolved",
    "Deadline resolutions committed (a moderator's resolve moves the deadline to now first)",
    ["kind"],
    registry=REGISTRY,
)
DEADLINE_LATENESS = Histogram(
    "pbp_deadline_lateness_seconds",
    "How long after its due time a due deadline was resolved",
    ["kind"],
    registry=REGISTRY,
    buckets=LATENESS_BUCKETS,
)
EFFECTS_PENDING = Gauge(
    "pbp_effects_pending",
    "Discord effects of committed actions not delivered yet: the outbox's pending rows (every "
    "process's, read at each scrape) and the after-commit calls running in this process",
    registry=REGISTRY,
)
EFFECT_FAILURES = Counter(
    "pbp_effect_delivery_failures",
    "Discord effects of committed actions given up: refused for good (403, 404, closed DMs) or "
    "out of attempts (outbox rows marked failed), or an after-commit call that raised",
    registry=REGISTRY,
)
_running_effects = 0
RATE_LIMITED = Counter(
    "pbp_discord_rate_limited",
    "HTTP 429 answers from Discord (api: the REST API; webhook: interaction follow-ups)",
    ["scope"],
    registry=REGISTRY,
)
LOOP_LAG = Histogram(
    "pbp_event_loop_lag_seconds",
    "How late the event loop ran a timer that was due (sampled every 0.5 s)",
    registry=REGISTRY,
    buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5),
)
GC_PAUSE = Histogram(
    "pbp_gc_pause_seconds",
    "How long each collection of Python's cyclic garbage collector stopped the process, by "
    "generation (2: a full collection, which walks every object not frozen at start)",
    ["generation"],
    registry=REGISTRY,
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1),
)
READY = Gauge("pbp_ready", "1 once the bot is ready (as /healthz answers 200)", registry=REGISTRY)

CLICK_KIND = re.compile(r"^([a-z]+(?::[a-z]+)?)")


def click_kind(custom_id: str) -> str:
    """The label of a click: the custom_id's prefix (``rs:vote:12:3:accept`` → ``rs:vote``)."""
    match = CLICK_KIND.match(custom_id or "")
    return match.group(1) if match else "other"


@functools.cache
def child(metric: Any, *labels: str) -> Any:
    """``metric.labels(*labels)``, looked up once: prometheus-client checks and locks on every
    ``labels`` call, the hottest part of counting a click (label values here are few: game
    kinds, vote kinds, custom_id prefixes)."""
    return metric.labels(*labels)


def count_click(interaction: discord.Interaction) -> None:
    if interaction.type is discord.InteractionType.component:
        data: Any = interaction.data or {}
        child(CLICKS, click_kind(str(data.get("custom_id", "")))).inc()


def created(snowflake: int) -> float:
    """When a snowflake was made, in seconds since the epoch (what ``snowflake_time`` says,
    without building a datetime)."""
    return ((snowflake >> 22) + discord.utils.DISCORD_EPOCH) / 1000


def since_click(interaction: discord.Interaction) -> float:
    """Seconds since the interaction was created (its snowflake's time)."""
    return max(0.0, time.time() - created(interaction.id))


async def effect_delivered(effect: Any) -> Any:
    """Run one after-commit effect, counted as pending until it is delivered (or failed)."""
    global _running_effects
    _running_effects += 1
    try:
        return await effect()
    except Exception:
        EFFECT_FAILURES.inc()
        raise
    finally:
        _running_effects -= 1


# -- Discord's answers --------------------------------------------------------------------------


def acknowledged(interaction_id: int) -> None:
    """An interaction's first callback went through: the time since its click."""
    ACK_SECONDS.observe(max(0.0, time.time() - created(int(interaction_id))))


class _RateLimitCounter(logging.Handler):
    """discord.py handles a 429 itself (waits, retries) and says so in a warning: count those."""

    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)

    def emit(self, record: logging.LogRecord) -> None:
        msg = str(record.msg)
        if "responded with 429" in msg:
            RATE_LIMITED.labels("api").inc()
        elif "is rate limited" in msg:
            RATE_LIMITED.labels("webhook").inc()


_RATE_LOGGERS = ("discord.http", "discord.webhook.async_")
_rate_counter = _RateLimitCounter()


class _GcTimer:
    """Times each garbage collection (``gc.callbacks``): a full collection stops every click
    at once, and its length says how much of the heap it walked."""

    def __init__(self) -> None:
        self._started = 0.0
        # made here, not in the callback: a collection may start inside prometheus-client's
        # locked creation of a child (an allocation), and its lock is not reentrant
        self._children = [GC_PAUSE.labels(str(g)) for g in range(3)]

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self._children[info["generation"]].observe(time.perf_counter() - self._started)


_gc_timer: _GcTimer | None = None


def instrument() -> None:
    """Time interaction callbacks and garbage collections, and count 429s (the callbacks in
    the calling task's context and those it creates: call it from the bot's start, before
    the gateway connects)."""
    global _gc_timer
    if _gc_timer is None:
        _gc_timer = _GcTimer()
        gc.callbacks.append(_gc_timer)
    time_callbacks(acknowledged)
    discord_callback.watch(acknowledged, child(RATE_LIMITED, "webhook").inc)
    for name in _RATE_LOGGERS:
        logger = logging.getLogger(name)
        if _rate_counter not in logger.handlers:
            logger.addHandler(_rate_counter)


# -- the endpoint ---------------------------------------------------------------------------


class MetricsServer:
    """``/metrics`` and ``/healthz`` on ``host:port``, and the event loop's lag sampler."""

    def __init__(self, bot: discord.Client, host: str, port: int) -> None:
        self.bot = bot
        self.host = host
        self.port = port
        self._runner: web.AppRunner | None = None
        self._lag: asyncio.Task[None] | None = None

    async def start(self) -> None:
        app = web.Application()
        app.router.add_get("/metrics", self.metrics)
        app.router.add_get("/healthz", self.healthz)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        await site.start()
        if self.port == 0:  # an ephemeral port (tests): tell which
            server = getattr(site, "_server", None)
            sockets = getattr(server, "sockets", None) or []
            if sockets:
                self.port = int(sockets[0].getsockname()[1])
        self._lag = asyncio.get_running_loop().create_task(self._sample_lag())
        log.info("metrics on http://%s:%d/metrics", self.host, self.port)

    async def stop(self) -> None:
        if self._lag is not None:
            self._lag.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._lag
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    def ready(self) -> bool:
        """Ready, and not stopping (a signal's drain, bot/stopping.py) nor closed."""
        in_flight = getattr(self.bot, "in_flight", None)
        stopping = in_flight is not None and in_flight.closed
        return self.bot.is_ready() and not self.bot.is_closed() and not stopping

    async def metrics(self, request: web.Request) -> web.Response:
        READY.set(1 if self.ready() else 0)
        EFFECTS_PENDING.set(await self.pending_effects() + _running_effects)
        body = generate_latest(REGISTRY)
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})

    async def pending_effects(self) -> int:
        """The outbox's pending rows (0 without a database, or if it cannot be read now)."""
        sessions = getattr(self.bot, "sessions", None)
        if sessions is None:
            return 0
        from db import repo

        try:
            async with sessions() as s:
                return await repo.count_pending_effects(s)
        except Exception:
            log.warning("metrics: could not count the pending effects", exc_info=True)
            return 0

    async def healthz(self, request: web.Request) -> web.Response:
        ready = self.ready()
        READY.set(1 if ready else 0)
        return web.Response(status=200 if ready else 503, text="ok\n" if ready else "starting\n")

    async def _sample_lag(self, every: float = 0.5) -> None:
        loop = asyncio.get_running_loop()
        while True:
            before = loop.time()
            await asyncio.sleep(every)
            LOOP_LAG.observe(max(0.0, loop.time() - before - every))
