"""``python -m bench load``: the real bot (a child process) under load from simulated players.

Scenarios, each on SQLite and (when a URL is given) PostgreSQL:

- ``load``: G games of 10 players in the vote phase; every player clicks Accept/Reject, every
  team member Support/Sabotage, at random moments of a burst (10 s). Acknowledgement latency
  (INTERACTION_CREATE sent → first callback received, ``ix.latency``), clicks per second, votes
  lost (the votes table against the clicks answered "on record"), 10062s, the bot's peak RSS.
- ``rss``: 1,000 games seeded and active (every player clicks once): the bot's peak RSS.
- ``startup``: launch → IDENTIFY → first slash command answered, with 10,000 open deadlines
  (1 % overdue: the scheduler resolves them while the bot connects, their games locked until
  then, and schedules the rest), and launch → the overdue deadlines resolved.
- ``round``: one real round driven by slash commands (propose → votes → resolve): the REST
  calls the bot made, by route, against the minimum the round needs.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import os
import random
import re
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

import discord
from sqlalchemy import select
from sqlalchemy import text as sql
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool

from bench.capacity import (
    CATCH_UP_CAP_S,
    LIMIT_P99_MS,
    PROBE_WAIT_S,
    capacity_rates,
    catch_up,
    ceiling_text,
    first_saturated,
    judge,
    knee_step,
    saturation,
    search,
    shares,
    usage,
)
from bench.child import (
    BotProcess,
    bucket_max,
    free_port,
    launch,
    machine_jiffies,
    proc_cpu_seconds,
    profile_summary,
    scrape,
    spy_failure,
    spy_on,
    stop_spy,
    write_config,
)
from bench.plot import draw_ceiling
from bench.seed import SeedGame, fresh_database, seed_games, seed_rows
from bot.english import counted
from db.engine import make_engine
from db.models import Deadline, Game, Vote
from sandbox import Sandbox

RESULTS = Path(__file__).resolve().parent / "results"
GAMES_PER_GUILD = 100
ON_RECORD = "On record"
CALLBACK = "POST /interactions/{interaction_id}/{interaction_token}/callback"

#: The run of record's scenarios (``python -m bench load``'s defaults) and its targets.
LOAD_GAMES = 1000
RSS_GAMES = 10_000
STARTUP_DEADLINES = 100_000
TARGETS: dict[str, Any] = {
    # the headline burst: LOAD_GAMES games × 10 (13,000 clicks in 10 s)
    "load_games": LOAD_GAMES,
    "ratio_p99": {"sqlite": 1.5, "postgresql": 1.5},
    "lost": 0,
    "unanswered": 0,
    "unknown_interaction": 0,
    # each ceiling over the floor's (confirmation p99 < 300 ms, nothing unanswered, offered)
    "capacity_share_of_floor": {"sqlite": 0.9, "postgresql": 0.75},
    "capacity_p99_ms": 300.0,
    "rss_games": RSS_GAMES,
    "rss_mb": 400.0,
    "startup_deadlines": STARTUP_DEADLINES,
    "ready_s": 5.0,
    "overdue_resolved_s": 60.0,
}


def now_utc() -> datetime:
    return datetime.now(UTC)


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[k]


# -- the world -------------------------------------------------------------------------------


@dataclass
class World:
    sb: Sandbox
    mod: Any
    guilds: list[Any]
    games: list[SeedGame]
    channels: dict[int, Any] = field(default_factory=dict)  # game id -> channel
    users: dict[int, Any] = field(default_factory=dict)  # user id -> sandbox user
    vote_dm: dict[tuple[int, int], Any] = field(default_factory=dict)  # (game, user) -> msg


def build_world(sb: Sandbox, n_games: int, *, sandbox_users: int | None = None) -> World:
    """Guilds of up to 100 game channels, a moderator in each, 10 players per game.

    Only the first ``sandbox_users`` games (default all) get real sandbox users; the others get
    player ids only (enough for deadlines that do not fire during the run), in real guilds and
    channels (a bot restarted finds its games' places: none is cancelled as gone)."""
    real = n_games if sandbox_users is None else sandbox_users
    mod = sb.add_user("Moderator")
    mods_perm = discord.Permissions(manage_guild=True).value
    guilds: list[Any] = []
    world = World(sb, mod, guilds, [])
    fake = 10**17
    for i in range(n_games):
        gid = i + 1
        if i < real:
            if i % GAMES_PER_GUILD == 0:
                guild = sb.add_guild(f"Bench {len(guilds) + 1}")
                role = guild.add_role("GM", permissions=mods_perm)
                guild.add_member(mod, roles=[role])
                guilds.append(guild)
            guild = guilds[-1]
            channel = guild.add_text_channel(f"game-{gid}")
            world.channels[gid] = channel
            players = []
            for j in range(10):
                user = sb.add_user(f"g{gid}p{j}")
                world.users[user.id] = user
                players.append((user.id, user.name))
            world.games.append(SeedGame(gid, guild.id, channel.id, mod.id, players))
        else:
            if i % GAMES_PER_GUILD == 0 or i == real:
                guilds.append(sb.add_guild(f"Bench {len(guilds) + 1}"))
            guild = guilds[-1]
            channel = guild.add_text_channel(f"game-{gid}")
            fake += 1000
            players = [(fake + j, f"g{gid}p{j}") for j in range(10)]
            world.games.append(SeedGame(gid, guild.id, channel.id, mod.id, players))
    return world


def post_vote_dms(world: World) -> None:
    """The DM each player gets at a proposal, stored in the sandbox as the bot's message, with
    the real buttons (``games.resistance.components.vote_view``:
    ``rs:vote:<game>:<proposal>:<choice>``)."""
    from games.resistance.components import vote_view

    sb = world.sb
    bodies: dict[bool, list[dict[str, Any]]] = {}
    for g in world.games:
        if g.id not in world.channels:
            continue
        for uid, _name in g.players:
            on_team = uid in g.team
            components = vote_view(g.id, g.proposal, on_team, "en").to_components()
            bodies.setdefault(on_team, components)
            body = {"content": f"Vote on the team of game {g.id}", "components": components}
            channel = sb.dm_channel(world.users[uid])
            msg = sb.rest._build_message(channel, sb.bot_user.id, body, [])
            sb._store_message(msg)
            world.vote_dm[(g.id, uid)] = msg


# -- child bot -------------------------------------------------------------------------------


async def start_bot(
    sb: Sandbox,
    url: str | None,
    tmp: Path,
    name: str,
    *,
    profile: Path | None = None,
    metrics_port: int | None = None,
    bypasses: tuple[str, ...] | None = None,
) -> BotProcess:
    """The bot child on ``url``; ``url`` None: the floor (a bare discord.py client).
    ``bypasses``: the ones the bot runs (None: every one)."""
    config = tmp / f"{name}.toml"
    database = url or "sqlite+aiosqlite:///unused"
    write_config(config, sb, database, metrics_port=metrics_port, bypasses=bypasses)
    bot = launch(config, tmp / f"{name}.log", profile=profile, floor=url is None)
    bot.start_sampling()
    return bot


async def wait_identify(sb: Sandbox, bot: BotProcess, timeout: float) -> float:
    """Seconds from launch to the bot's IDENTIFY."""
    end = time.monotonic() + timeout
    while sb.identify_count == 0:
        if not bot.alive():
            raise RuntimeError(f"the bot exited:\n{bot.log()[-3000:]}")
        if time.monotonic() > end:
            raise TimeoutError(f"no IDENTIFY within {timeout} s:\n{bot.log()[-3000:]}")
        await asyncio.sleep(0.01)
    return time.monotonic() - bot.started_at


async def first_answer(world: World, bot: BotProcess, timeout: float) -> float:
    """Seconds from launch until the bot answers a first slash command (retries until then)."""
    sb = world.sb
    game = world.games[0]
    channel = world.channels[game.id]
    end = time.monotonic() + timeout
    attempt = 0
    while True:
        attempt += 1
        if not bot.alive():
            raise RuntimeError(f"the bot exited:\n{bot.log()[-3000:]}")
        if time.monotonic() > end or attempt > 200:
            raise TimeoutError(f"no answer to a slash command within {timeout} s")
        try:
            if not sb.commands(channel.guild) and not sb.commands():
                raise LookupError("commands not synced yet")
            sb.find_command("resistance")
            ix = await sb.slash(world.mod, "resistance status", channel=channel)
            await ix.wait_ack(timeout=2.0)
            return (ix.acked_at or time.monotonic()) - bot.started_at
        except (LookupError, TimeoutError, Exception) as exc:
            del exc
            await asyncio.sleep(0.05)


#: The bot's log lines that say its overdue deadlines are resolved: in the background since
#: they are, before connecting until then.
OVERDUE_DONE = (
    "overdue deadlines resolved:",
    "overdue deadline resolved",
    "overdue deadlines resolved",
)
OVERDUE_COUNT = re.compile(r"overdue deadlines resolved: (\d+)|(\d+) overdue deadlines? resolved")


async def wait_log(bot: BotProcess, texts: tuple[str, ...], timeout: float) -> float | None:
    """Seconds from launch until the bot's log holds one of ``texts`` (None: not within
    ``timeout``)."""
    end = time.monotonic() + timeout
    while not any(text in bot.log() for text in texts):
        if not bot.alive() or time.monotonic() > end:
            return None
        await asyncio.sleep(0.05)
    return time.monotonic() - bot.started_at


async def first_click(world: World, bot: BotProcess, timeout: float) -> float:
    """The floor's readiness: seconds from launch until a first click is answered."""
    game = next(g for g in world.games if g.id in world.channels)
    click = Click(0.0, game, game.players[0][0], "accept")
    found = await catch_up(lambda: answered(world, bot, click), cap=timeout)
    if not found["caught_up"]:
        raise TimeoutError(f"no answer to a click within {timeout} s")
    answered_at: float = click.ix.answered_at
    return answered_at - bot.started_at


async def wait_quiet(sb: Sandbox, quiet: float = 1.0, timeout: float = 20.0) -> None:
    """Until the bot has made no REST call for ``quiet`` seconds (at most ``timeout``)."""
    end = time.monotonic() + timeout
    last, since = len(sb.requests), time.monotonic()
    while time.monotonic() < end:
        await asyncio.sleep(0.1)
        if len(sb.requests) != last:
            last, since = len(sb.requests), time.monotonic()
        elif time.monotonic() - since >= quiet:
            return


class LoopLag:
    """The bench process's own event-loop lag (the sandbox answers late when it is busy)."""

    def __init__(self, every: float = 0.01) -> None:
        self.every = every
        self.max = 0.0
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._gc_start = 0.0
        self.gc_max = 0.0

        def on_gc(phase: str, info: dict[str, Any]) -> None:
            if phase == "start":
                self._gc_start = time.perf_counter()
            else:
                self.gc_max = max(self.gc_max, time.perf_counter() - self._gc_start)

        self._on_gc = on_gc
        gc.callbacks.append(on_gc)

        async def watch() -> None:
            loop = asyncio.get_running_loop()
            for _ in range(1_000_000):  # bounded; stopped by stop()
                before = loop.time()
                await asyncio.sleep(self.every)
                self.max = max(self.max, loop.time() - before - self.every)

        self._task = asyncio.get_running_loop().create_task(watch())

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
        with contextlib.suppress(ValueError, AttributeError):
            gc.callbacks.remove(self._on_gc)


# -- scenario: click burst -------------------------------------------------------------------


@dataclass
class Click:
    at: float
    game: SeedGame
    user_id: int
    choice: str
    ix: Any = None


def plan_clicks(
    world: World,
    burst: float,
    *,
    mission: bool,
    rng: random.Random,
    voters: int | None = None,
) -> list[Click]:
    """Every player of every game votes (``voters``: that many of each game's players, drawn
    at random), and the team's members choose too (``mission``), at random moments of
    ``burst`` seconds."""
    clicks: list[Click] = []
    for g in world.games:
        if g.id not in world.channels:
            continue
        players = g.players if voters is None else rng.sample(g.players, voters)
        for uid, _ in players:
            vote = "accept" if rng.random() < 0.6 else "reject"
            clicks.append(Click(rng.uniform(0, burst), g, uid, vote))
            if mission and uid in g.team:
                choice = "support" if rng.random() < 0.7 else "sabotage"
                clicks.append(Click(rng.uniform(0, burst), g, uid, choice))
    clicks.sort(key=lambda c: c.at)
    return clicks


async def drive_clicks(world: World, clicks: list[Click]) -> float:
    """Send each click at its moment (one driver coroutine); returns the burst's real length."""
    return await drive(clicks, partial(send_click, world))


async def drive(clicks: list[Click], send: Callable[[Click], Awaitable[Any]]) -> float:
    """Each click sent by ``send`` at its moment; the burst's real length."""
    loop = asyncio.get_running_loop()
    t0 = loop.time()
    for c in clicks:
        # At least one turn of the loop per click: behind schedule (after a stall of the
        # machine), sending every overdue click in one step held the sandbox's loop for as long
        # (100 ms and more at 650 clicks/s): no answer was stamped and no event left meanwhile,
        # then the clicks reached the bot all at once, a queue of the bench's own making.
        await asyncio.sleep(max(0.0, t0 + c.at - loop.time()))
        await send(c)
    return loop.time() - t0


async def send_click(world: World, c: Click) -> Any:
    """``c``'s player clicks its button (``c.choice``) on their vote DM, now: the interaction,
    kept in ``c.ix``."""
    msg = world.vote_dm[(c.game.id, c.user_id)]
    custom_id = f"rs:vote:{c.game.id}:{c.game.proposal}:{c.choice}"
    c.ix = await world.sb.click(world.users[c.user_id], msg, custom_id=custom_id)
    return c.ix


async def answered(world: World, bot: BotProcess, c: Click, wait: float = PROBE_WAIT_S) -> bool:
    """Whether the child answers ``c``, sent now, within ``wait`` seconds: a probe of
    :func:`bench.capacity.catch_up` (raises when the child has exited)."""
    if not bot.alive():
        raise RuntimeError(f"the child exited:\n{bot.log()[-3000:]}")
    ix = await send_click(world, c)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(ix.reply_message(wait), wait)
    return ix.answered_at is not None


async def wait_answers(clicks: list[Click], timeout: float, stall: float = 10.0) -> None:
    """Until every click has its visible answer, at most ``timeout`` seconds, and at most
    ``stall`` seconds without a new answer (a click never answered does not hold the run)."""
    end = time.monotonic() + timeout
    last, since = -1, time.monotonic()
    while time.monotonic() < end:
        done = sum(1 for c in clicks if c.ix is not None and c.ix.answered_at is not None)
        if done == len(clicks):
            return
        if done != last:
            last, since = done, time.monotonic()
        elif time.monotonic() - since > stall:
            return
        await asyncio.sleep(0.1)


def answer_text(ix: Any) -> str:
    msg = ix.answer
    return msg.text if msg is not None else ""


def expected_value(g: SeedGame, uid: int, choice: str) -> str:
    if choice == "sabotage" and g.extra["roles"].get(uid) != "spy":
        return "support"  # the rules record a Resistance sabotage as support
    return choice


async def votes_lost(url: str, clicks: list[Click]) -> tuple[int, int]:
    """(clicks answered "on record", of those, how many the votes table does not hold)."""
    engine = make_engine(url, poolclass=NullPool)
    try:
        async with engine.connect() as conn:
            rows = (
                await conn.execute(
                    select(Vote.game_id, Vote.round_key, Vote.kind, Vote.user_id, Vote.value)
                )
            ).all()
    finally:
        await engine.dispose()
    table = {(g, r, k, u): v for g, r, k, u, v in rows}
    recorded = lost = 0
    for c in clicks:
        if c.ix is None or ON_RECORD not in answer_text(c.ix):
            continue
        recorded += 1
        kind = "team" if c.choice in ("accept", "reject") else "mission"
        key = (c.game.id, f"p{c.game.proposal}", kind, c.user_id)
        if table.get(key) != expected_value(c.game, c.user_id, c.choice):
            lost += 1
    return recorded, lost


def latency_stats(prefix: str, values_ms: list[float]) -> dict[str, float]:
    return {
        f"{prefix}_p50_ms": round(percentile(values_ms, 50), 1),
        f"{prefix}_p95_ms": round(percentile(values_ms, 95), 1),
        f"{prefix}_p99_ms": round(percentile(values_ms, 99), 1),
        f"{prefix}_max_ms": round(max(values_ms), 1) if values_ms else float("nan"),
    }


def click_stats(clicks: list[Click]) -> dict[str, Any]:
    """Acknowledgement (click → first callback) and confirmation (click → the answer that says
    "On record") of each click, and how many clicks never got that answer."""
    ixs = [c.ix for c in clicks if c.ix is not None]
    ack = [ix.latency * 1000 for ix in ixs if ix.latency is not None]
    confirmed = [ix for ix in ixs if ix.answered_at is not None and ON_RECORD in answer_text(ix)]
    confirm = [ix.answer_latency * 1000 for ix in confirmed]
    sent = [ix.sent_at for ix in ixs]
    done = [ix.answered_at for ix in confirmed]
    span = (max(done) - min(sent)) if done and sent else float("nan")
    return {
        "clicks": len(clicks),
        "acked": len(ack),
        "confirmed": len(confirmed),
        "unanswered": len(clicks) - len(confirmed),
        **latency_stats("confirm", confirm),
        **latency_stats("ack", ack),
        "confirm_mean_ms": round(statistics.fmean(confirm), 1) if confirm else float("nan"),
        "confirmed_per_s": round(len(done) / span, 1) if span and span == span else 0.0,
    }


async def prepare_world(url: str | None, sb: Sandbox, n_games: int, seed: int) -> World:
    """The sandbox's guilds, users and vote DMs; the games seeded in ``url`` (None: the floor,
    which has no database, gets the same games, teams and clicks)."""
    world = build_world(sb, n_games)
    if url is None:
        seed_rows(world.games, now=now_utc(), seed=seed)
    else:
        await fresh_database(url)
        await seed_games(url, world.games, now=now_utc(), seed=seed)
    post_vote_dms(world)
    return world


async def ready(world: World, bot: BotProcess, floor: bool) -> float:
    """Once the child is ready and idle: the seconds from its launch to its ``ready`` log."""
    await wait_identify(world.sb, bot, 120)
    await world.sb.wait_until_connected(timeout=60)
    # on_ready comes after discord.py's wait for the guilds (seconds after the first command
    # can be answered); the bot's collects the whole start-up heap then (gc.freeze): a stall
    # that must not fall in the burst.
    await wait_logged(bot, " ready: ", 60)
    ready_s = time.monotonic() - bot.started_at
    if floor:
        await first_click(world, bot, 60)
    else:
        await first_answer(world, bot, 60)
    await wait_idle(bot)
    return ready_s


async def wait_logged(bot: BotProcess, text: str, timeout: float) -> None:
    """Until the child's log holds ``text`` (at most ``timeout`` seconds)."""
    end = time.monotonic() + timeout
    while text not in bot.log():
        if not bot.alive():
            raise RuntimeError(f"the child exited:\n{bot.log()[-3000:]}")
        if time.monotonic() > end:
            raise TimeoutError(f"{text.strip()!r} not logged within {timeout} s")
        await asyncio.sleep(0.05)


async def wait_idle(
    bot: BotProcess, *, busy: float = 0.1, every: float = 0.2, timeout: float = 10
) -> None:
    """Until the child uses less than ``busy`` of a core over ``every`` seconds (at most
    ``timeout``): what start-up left running (on_ready's collection, the first command's
    answer and its collation tables) is not counted in the burst's CPU per click."""
    end = time.monotonic() + timeout
    last = bot.cpu_seconds()
    while time.monotonic() < end:
        await asyncio.sleep(every)
        now = bot.cpu_seconds()
        if now - last < busy * every:
            return
        last = now


def timeline(clicks: list[Click]) -> list[list[float]]:
    """Per second of the burst (by when each click was sent): ``[second, clicks, confirmation
    p99 ms, unanswered]``: where a stall began, and whether the backlog drained."""
    seconds: dict[int, list[Click]] = {}
    for c in clicks:
        seconds.setdefault(int(c.at), []).append(c)
    rows: list[list[float]] = []
    for second, group in sorted(seconds.items()):
        confirmed = [
            c.ix.answer_latency * 1000
            for c in group
            if c.ix is not None and c.ix.answered_at is not None and ON_RECORD in answer_text(c.ix)
        ]
        p99 = round(percentile(confirmed, 99), 1) if confirmed else -1.0
        rows.append([second, len(group), p99, len(group) - len(confirmed)])
    return rows


class WalSize:
    """The peak size of a SQLite database's WAL file while the block runs (sampled every
    0.25 s; nothing for PostgreSQL or the floor)."""

    def __init__(self, url: str | None, every: float = 0.25) -> None:
        database = make_url(url).database if url and url.startswith("sqlite") else None
        self.path = Path(database + "-wal") if database else None
        self.every = every
        self.peak = 0
        self._task: asyncio.Task[None] | None = None

    def sample(self) -> None:
        if self.path is not None:
            with contextlib.suppress(OSError):
                self.peak = max(self.peak, self.path.stat().st_size)

    def __enter__(self) -> WalSize:
        async def watch() -> None:
            for _ in range(1_000_000):  # bounded; stopped on exit
                self.sample()
                await asyncio.sleep(self.every)

        if self.path is not None:
            self._task = asyncio.get_running_loop().create_task(watch())
        return self

    def __exit__(self, *exc: object) -> None:
        self.sample()
        if self._task is not None:
            self._task.cancel()


class Quiet:
    """No collection of the bench's own (large, long-lived) heap while it measures: the sandbox
    and the players must not stall the measure (the child keeps its own GC)."""

    def __enter__(self) -> LoopLag:
        self.lag = LoopLag()
        self.lag.start()
        gc.collect()
        gc.freeze()
        gc.disable()
        return self.lag

    def __exit__(self, *exc: object) -> None:
        gc.enable()
        gc.unfreeze()
        self.lag.stop()


async def scenario_load(
    url: str | None,
    tmp: Path,
    n_games: int,
    *,
    burst: float = 10.0,
    mission: bool = True,
    seed: int = 1,
    profile: Path | None = None,
    label: str = "load",
    keep_log: bool = True,
    voters: int | None = None,
    bypasses: tuple[str, ...] | None = None,
) -> dict[str, Any]:
    """G games × 10 players click once each (and the team's mission choice) at random moments
    of ``burst`` seconds (``voters``: only that many players of each game vote). ``url``
    None: the floor answers instead of the bot; ``bypasses``: the ones the bot runs."""
    floor = url is None
    name = f"{'floor' if floor else label}-{n_games}"
    async with Sandbox(interaction_timeout=3.0) as sb:
        sb.interaction_timeout = 3.0
        world = await prepare_world(url, sb, n_games, seed)
        bot = await start_bot(sb, url, tmp, name, profile=profile, bypasses=bypasses)
        try:
            ready_s = await ready(world, bot, floor)
            rss_ready = bot.rss_kb()
            clicks = plan_clicks(
                world, burst, mission=mission, rng=random.Random(seed), voters=voters
            )
            mark = len(sb.requests)
            cpu0 = bot.cpu_seconds()
            wal = WalSize(url)
            with Quiet() as lag, wal:
                real_burst = await drive_clicks(world, clicks)
                await wait_answers(clicks, timeout=120)
                cpu = bot.cpu_seconds() - cpu0
                await wait_quiet(sb, 0.5, 10)
            recorded, lost = (0, 0) if floor else await votes_lost(url or "", clicks)
            hwm = bot.hwm_kb()
        finally:
            await bot.stop()
        log = bot.log()
        if keep_log:
            bot.keep_log(RESULTS / f"bot-{name}.log")
        requests = sb.requests[mark:]
        return {
            "games": n_games,
            "burst_s": round(real_burst, 2),
            **click_stats(clicks),
            "recorded": recorded,
            "lost": lost,
            "unknown_interaction": sum(1 for r in requests if r.error_code == 10062),
            "rate_429": sum(1 for r in requests if r.status == 429),
            "clicks_per_s": round(len(clicks) / real_burst, 1) if real_burst else 0.0,
            # The child's CPU time from the first click to the last answer, per click: what a
            # click costs the process, whatever else runs on the machine.
            "cpu_ms_per_click": round(1000 * cpu / len(clicks), 2) if clicks else 0.0,
            "ready_s": round(ready_s, 2),
            "rss_ready_mb": round(rss_ready / 1024, 1),
            "peak_rss_mb": round(max(hwm, bot.peak_rss_kb) / 1024, 1),
            "bot_errors": log.count(" ERROR "),
            "bench_loop_lag_max_ms": round(lag.max * 1000, 1),
            "bench_gc_max_ms": round(lag.gc_max * 1000, 1),
            **({"wal_peak_mb": round(wal.peak / 1e6, 2)} if wal.path is not None else {}),
            "timeline": timeline(clicks),
            "other_answers": sorted(
                Counter(
                    answer_text(c.ix)[:120] if c.ix is not None else "not sent"
                    for c in clicks
                    if c.ix is None or ON_RECORD not in answer_text(c.ix)
                ).items()
            )[:10],
            "log_tail": [ln for ln in log.splitlines() if "ERROR" in ln or "WARNING" in ln][:20],
        }


# The worst of the repetitions for what must be zero; the median for the rest.
WORST_OF = ("lost", "unanswered", "unknown_interaction", "bot_errors", "rate_429")


def median_of(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Several repetitions of one scenario: the median of each figure (the worst for what must
    be zero); the repetitions themselves under ``reps``."""
    good = [r for r in runs if "error" not in r]
    if not good:
        return runs[0] if runs else {"error": "no run"}
    out: dict[str, Any] = dict(good[len(good) // 2])
    for key in good[0]:
        values = [r.get(key) for r in good]
        numbers = [v for v in values if isinstance(v, int | float) and not isinstance(v, bool)]
        if len(numbers) != len(values):
            continue
        if key in WORST_OF:
            out[key] = max(numbers)
        else:
            ints = all(isinstance(v, int) for v in numbers)
            med = (statistics.median_low if ints else statistics.median)(numbers)
            out[key] = round(med, 1) if isinstance(med, float) else med
    out["reps"] = len(runs)
    out["errors"] = len(runs) - len(good)
    if len(runs) > 1:
        out["runs"] = [
            {k: v for k, v in r.items() if k not in ("other_answers", "log_tail", "timeline")}
            for r in runs
        ]
    return out


# -- scenario: memory of many active games --------------------------------------------------


#: The rss scenario's clicks a second: each is a game's first (its state read and parsed,
#: about 2 ms of the bot's CPU on a shared 2-core machine), kept well under what the bot
#: sustains so that no backlog swells the memory measured.
RSS_RATE = 250


async def scenario_rss(
    url: str,
    tmp: Path,
    n_games: int = RSS_GAMES,
    *,
    seconds: float | None = None,
    profile: Path | None = None,
) -> dict[str, Any]:
    """``n_games`` games seeded and each made active, one of its players voting, at random
    moments of ``seconds`` (default: :data:`RSS_RATE` clicks a second; 10,000 games: 10,000
    clicks in 40 s): the bot's peak RSS (its high-water mark, start-up included) with every
    game's state loaded."""
    burst = seconds if seconds is not None else max(1.0, n_games / RSS_RATE)
    return await scenario_load(
        url, tmp, n_games, burst=burst, mission=False, label="rss", voters=1, profile=profile
    )


# -- scenario: capacity ----------------------------------------------------------------------

CAPACITY_RATES = capacity_rates()
CAPACITY_P99_MS = LIMIT_P99_MS


def plan_rate(world: World, rate: float, seconds: float, rng: random.Random) -> list[Click]:
    """``rate`` clicks a second for ``seconds``, each a random player of a random game clicking
    one of their buttons (a second click changes the vote: the same work for the bot)."""
    games = [g for g in world.games if g.id in world.channels]
    clicks = []
    for _ in range(max(1, round(rate * seconds))):
        g = rng.choice(games)
        uid, _name = rng.choice(g.players)
        choices = ["accept", "reject"] + (["support", "sabotage"] if uid in g.team else [])
        clicks.append(Click(rng.uniform(0, seconds), g, uid, rng.choice(choices)))
    clicks.sort(key=lambda c: c.at)
    return clicks


async def pg_backends(url: str | None) -> set[int]:
    """The server pids of the PostgreSQL backends connected to ``url``'s database (the bot's;
    empty for SQLite, the floor, or a server this bench cannot ask)."""
    if not url or url.startswith("sqlite"):
        return set()
    engine = make_engine(url, poolclass=NullPool)
    try:
        async with engine.connect() as conn:
            rows = await conn.execute(
                sql(
                    "SELECT pid FROM pg_stat_activity "
                    "WHERE datname = current_database() AND pid <> pg_backend_pid()"
                )
            )
            return {int(pid) for pid in rows.scalars()}
    except Exception:
        return set()
    finally:
        await engine.dispose()


@dataclass
class Meter:
    """What the parties of a step used: the bench process, the child, PostgreSQL's backends
    (their pids, read from the server), the machine, and the child's own metrics (the writer's
    busy seconds, its loop lag, its batch sizes) when it serves them."""

    bot: BotProcess
    url: str | None
    metrics_port: int | None
    pids: set[int] = field(default_factory=set)

    async def read(self) -> tuple[dict[str, float | None], dict[str, float]]:
        if self.url is not None and not self.url.startswith("sqlite"):
            self.pids |= await pg_backends(self.url)
        scraped = await scrape(self.metrics_port) if self.metrics_port is not None else {}
        machine = machine_jiffies()
        db = [proc_cpu_seconds(pid) for pid in self.pids]
        known = [c for c in db if c is not None]
        counters: dict[str, float | None] = {
            "wall": time.monotonic(),
            "bench": time.process_time(),
            "child": self.bot.cpu_seconds(),
            "db": sum(known) if known else None,
            "machine_busy": machine[0] if machine else None,
            "machine_total": machine[1] if machine else None,
            "writer_busy": scraped.get("pbp_group_commit_busy_seconds_total"),
        }
        return counters, scraped

    @staticmethod
    def figures(
        before: tuple[dict[str, float | None], dict[str, float]],
        after: tuple[dict[str, float | None], dict[str, float]],
    ) -> dict[str, Any]:
        (c0, m0), (c1, m1) = before, after
        if c1.get("db") is not None and c0.get("db") is None:
            c0 = {**c0, "db": 0.0}  # backends opened during the step
        used = usage(c0, c1)
        cpus = os.cpu_count() or 1
        machine = used["machine_busy"]
        ours = sum(used[k] or 0.0 for k in ("bench_cores", "child_cores", "db_cores"))
        lag = bucket_max(m0, m1, "pbp_event_loop_lag_seconds")
        batch = bucket_max(m0, m1, "pbp_vote_batch_size")
        return {
            **used,
            # the machine's busy cores that are none of the bench's, the child's or its backends'
            "other_cores": None if machine is None else round(max(0.0, machine * cpus - ours), 2),
            "child_loop_lag_ms": None if lag is None else round(1000 * lag, 1),
            "batch_max": None if batch is None else batch,
            "outbox_pending": m1.get("pbp_effects_pending"),
        }


async def scenario_capacity(
    url: str | None,
    tmp: Path,
    n_games: int = 500,
    *,
    rates: tuple[int, ...] = CAPACITY_RATES,
    step: float = 4.0,
    limit_ms: float = CAPACITY_P99_MS,
    seed: int = 2,
    profile: Path | None = None,
) -> dict[str, Any]:
    """The highest click rate sustained with confirmation p99 under ``limit_ms``, nothing
    unanswered and the rate really offered: one bot (or floor), ``step`` seconds at each rate
    of ``rates`` in turn until one fails twice (:func:`bench.capacity.search`); each step with
    what every party used over it and how long the child took to catch up after it (the next
    step starts then: :func:`bench.capacity.catch_up`), and what saturated first; ``behind``:
    the step after which the child did not catch up, the search's last. ``profile`` (a file
    name's prefix): each step's child and bench process under py-spy
    (``<profile>-<rate>-<attempt>-child.txt`` and ``-bench.txt``), a summary of both in the
    step (:func:`bench.child.profile_summary`)."""
    floor = url is None
    database = None if url is None else ("sqlite" if url.startswith("sqlite") else "postgresql")
    name = f"capacity-{'floor' if floor else database}"
    rng = random.Random(seed)
    async with Sandbox(interaction_timeout=3.0) as sb:
        world = await prepare_world(url, sb, n_games, seed)
        port = free_port()  # the floor's /metrics too: its loop's lag
        bot = await start_bot(sb, url, tmp, name, metrics_port=port)
        try:
            await ready(world, bot, floor)
            meter = Meter(bot, url, port)
            probe_rng = random.Random(seed + 1)  # the steps' own clicks drawn as before

            async def probe() -> bool:
                """A fresh click as a step's: a random player of a random game, now."""
                return await answered(world, bot, plan_rate(world, 1, 1.0, probe_rng)[0])

            async def one(rate: int, attempt: int) -> dict[str, Any]:
                clicks = plan_rate(world, rate, step, rng)
                files = {
                    who: Path(f"{profile}-{rate}-{attempt}-{who}.txt")
                    for who in ("child", "bench")
                    if profile is not None
                }
                spies = [spy_on(pid, files[who]) for who, pid in pids(files)]
                before = await meter.read()
                with Quiet() as lag:
                    real = await drive_clicks(world, clicks)
                    await wait_answers(clicks, timeout=30, stall=5)
                after = await meter.read()
                for spy in spies:
                    if spy is not None:
                        await stop_spy(spy)
                stats = click_stats(clicks)
                offered = len(clicks) / real if real else 0.0
                ok, why = judge(rate, stats, offered, limit_ms)
                # The next step starts on a child that has caught up: it answered a click sent
                # after this step's (catch_up). Then no REST call for 0.5 s (at most 10 s): the
                # calls still trailing (deferred answers' followups, the outbox's effects) out
                # of the next step's figures. That silence alone does not say the child caught
                # up: one that drops the interactions too old to answer is silent while behind.
                caught = await catch_up(probe)
                await wait_quiet(sb, 0.5, 10)
                return {
                    "offered_per_s": round(offered, 1),
                    "ok": ok,
                    "why": why,
                    **caught,
                    "bench_loop_lag_max_ms": round(lag.max * 1000, 1),
                    **{
                        k: stats[k]
                        for k in (
                            "clicks",
                            "unanswered",
                            "confirm_p50_ms",
                            "confirm_p99_ms",
                            "ack_p99_ms",
                            "confirmed_per_s",
                        )
                    },
                    **Meter.figures(before, after),
                    **({"profile": profiled(files)} if files else {}),
                }

            def profiled(files: dict[str, Path]) -> dict[str, Any]:
                """Each profile's summary, or why py-spy recorded nothing (said once)."""
                out: dict[str, Any] = {}
                for who, f in files.items():
                    summary = profile_summary(f, top=8)
                    failure = None if summary is not None else spy_failure(f)
                    out[who] = summary if failure is None else {"error": failure}
                    if failure is not None and failure not in said:
                        said.add(failure)
                        print(f"--profile: py-spy recorded nothing: {failure}", file=sys.stderr)
                return out

            said: set[str] = set()

            def pids(files: dict[str, Path]) -> list[tuple[str, int]]:
                return [(w, bot.pid if w == "child" else os.getpid()) for w in files]

            found = await search(rates, one)
        finally:
            await bot.stop()
        bot.keep_log(RESULTS / f"bot-{name}.log")
    steps = found["steps"]
    knee = knee_step(found)
    out: dict[str, Any] = {
        "capacity_clicks_per_s": found["ceiling"],
        "bound": found["bound"],
        "failed_at": found["failed_at"],
        # the step after which the child had not caught up within the cap: the search's last
        "behind": found["behind"],
        "catch_up_cap_s": CATCH_UP_CAP_S,
        "limit_p99_ms": limit_ms,
        "step_s": step,
        "games": n_games,
        "saturated_first": first_saturated(steps, database),
        "at_knee": None
        if knee is None
        else {"what": saturation(knee, database), "loads": shares(knee, database)},
        "steps": steps,
    }
    return out


# -- scenario: start-up with 10,000 open deadlines -------------------------------------------


async def scenario_startup(
    url: str,
    tmp: Path,
    *,
    deadlines: int = 10_000,
    overdue_share: float = 0.01,
    name: str = "startup",
    profile: Path | None = None,
) -> dict[str, Any]:
    n_games = deadlines // 2
    n_overdue = max(1, round(n_games * overdue_share))
    await fresh_database(url)
    async with Sandbox(interaction_timeout=3.0) as sb:
        world = build_world(sb, n_games, sandbox_users=n_overdue)
        for g in world.games[:n_overdue]:
            guild = world.channels[g.id].guild
            for uid, _ in g.players:
                guild.add_member(world.users[uid])
        overdue = {g.id for g in world.games[:n_overdue]}
        await seed_games(url, world.games, now=now_utc(), overdue=overdue)
        bot = await start_bot(sb, url, tmp, name, profile=profile)
        try:
            identify = await wait_identify(sb, bot, 120)
            await sb.wait_until_connected(timeout=60)
            ready = await first_answer(world, bot, 120)
            overdue_done = await wait_log(bot, OVERDUE_DONE, 120)
            await wait_quiet(sb, 1.0, 30)
            hwm = bot.hwm_kb()
        finally:
            await bot.stop()
        bot.keep_log(RESULTS / f"bot-{name}.log")
        counts = await _deadline_counts(url)
        log = bot.log()
        found = OVERDUE_COUNT.search(log)
        resolved_at_start = int(found[1] or found[2]) if found else None
        return {
            "deadlines": deadlines,
            "overdue": 2 * n_overdue,
            "launch_to_identify_s": round(identify, 2),
            "launch_to_ready_s": round(ready, 2),
            "launch_to_overdue_resolved_s": None
            if overdue_done is None
            else round(overdue_done, 2),
            "resolved_at_start": resolved_at_start,
            "open_after": counts.get("open", 0),
            "done_after": counts.get("done", 0),
            "peak_rss_mb": round(hwm / 1024, 1),
            "bot_errors": log.count(" ERROR "),
        }


async def _deadline_counts(url: str) -> dict[str, int]:
    engine = make_engine(url, poolclass=NullPool)
    try:
        async with engine.connect() as conn:
            rows = (await conn.execute(select(Deadline.status))).scalars().all()
    finally:
        await engine.dispose()
    return dict(Counter(rows))


# -- scenario: REST calls of one real round --------------------------------------------------


def round_minimum(players: int, interactions: int) -> dict[str, int]:
    """What one round (propose → votes → resolve) needs, by route."""
    return {
        CALLBACK: interactions,  # one callback per interaction, carrying its private answer
        # players vote DMs + the proposal + the result + the next leader's call and DM
        "POST /channels/{channel_id}/messages": players + 4,
        "PATCH /channels/{channel_id}/messages/{message_id}": 1,  # the leader list, in place
        # lock_during_vote in a text channel: one member overwrite per player, then lifted
        "PUT /channels/{channel_id}/permissions/{overwrite_id}": players,
        "DELETE /channels/{channel_id}/permissions/{overwrite_id}": players,
    }


async def scenario_round(url: str, tmp: Path) -> dict[str, Any]:
    await fresh_database(url)
    async with Sandbox(interaction_timeout=3.0) as sb:
        world = build_world(sb, 1)
        guild = world.guilds[0]
        channel = world.channels[1]
        users = list(world.users.values())
        for u in users:
            guild.add_member(u)
        world.games.clear()  # the game comes from /resistance new, not from the seeder
        bot = await start_bot(sb, url, tmp, "round")
        try:
            await wait_identify(sb, bot, 60)
            await sb.wait_until_connected(timeout=60)
            await _ready_commands(sb, bot)

            async def slash(user: Any, command: str, **options: Any) -> str:
                ix = await sb.slash(user, command, channel=channel, **options)
                return await ix.reply(timeout=15) or ""

            await slash(world.mod, "resistance new")
            lobby = await sb._wait_for(
                lambda: next((m for m in sb.channel_messages(channel) if m.labels), None),
                15,
                "the lobby",
            )
            for u in users:
                ix = await sb.click(u, lobby, label="Join")
                await ix.reply(timeout=15)
            await slash(world.mod, "resistance start")
            state = await _state(url)
            await wait_quiet(sb, 0.5, 15)
            by_id = {u.id: u for u in users}
            leader = by_id[state.leader]
            team = [
                state.leader,
                *[p for p in state.leader_order if p != state.leader][: state.team_size - 1],
            ]
            mark = len(sb.requests)
            before = {u.id: len(sb.dms(u)) for u in users}
            options = {f"player{i}": by_id[p] for i, p in enumerate(team, 1)}
            await slash(leader, "resistance propose", **options)
            for u in users:

                def vote_dm(u: Any = u) -> bool:
                    return any(m.labels for m in sb.dms(u)[before[u.id] :])

                await sb._wait_for(vote_dm, 15, "vote DM")
            ixs = []
            for u in users:
                dm = next(m for m in reversed(sb.dms(u)) if m.labels)
                choices = ["accept"] + (["support"] if u.id in team else [])
                for choice in choices:
                    cid = next(
                        c["custom_id"]
                        for c in dm.all_components
                        if str(c.get("custom_id", "")).endswith(":" + choice)
                    )
                    ixs.append(await sb.click(u, dm, custom_id=cid))
            for ix in ixs:
                await ix.reply(timeout=15)
            await slash(world.mod, "resistance resolve")
            await sb.wait_for_message(channel, contains="Team accepted", timeout=15)
            await wait_quiet(sb, 1.0, 20)
        finally:
            await bot.stop()
        calls = Counter(r.route for r in sb.requests[mark:])
        interactions = 2 + len(ixs)
        minimum = round_minimum(len(users), interactions)
        routes = sorted(set(calls) | set(minimum))
        return {
            "players": len(users),
            "interactions": interactions,
            "routes": {r: {"calls": calls.get(r, 0), "minimum": minimum.get(r, 0)} for r in routes},
            "total": sum(calls.values()),
            "minimum_total": sum(minimum.values()),
        }


async def _ready_commands(sb: Sandbox, bot: BotProcess, timeout: float = 30) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        with contextlib.suppress(Exception):
            sb.find_command("resistance")
            return
        if not bot.alive():
            raise RuntimeError(f"the bot exited:\n{bot.log()[-3000:]}")
        await asyncio.sleep(0.05)
    raise TimeoutError("the bot did not sync its commands")


async def _state(url: str) -> Any:
    from games.resistance.rules import Resistance

    engine = make_engine(url, poolclass=NullPool)
    try:
        async with engine.connect() as conn:
            latest = select(Game.state).order_by(Game.id.desc()).limit(1)
            state = (await conn.execute(latest)).scalar_one()
    finally:
        await engine.dispose()
    return Resistance.from_dict(state)


# -- the whole run ---------------------------------------------------------------------------


@dataclass
class Backend:
    name: str
    url: str | None  # None: skipped


def backends(tmp: Path, pg: str | None) -> list[Backend]:
    out = [Backend("SQLite", f"sqlite+aiosqlite:///{tmp / 'bench.sqlite3'}")]
    if pg:
        out.append(
            Backend(
                "PostgreSQL",
                make_url(pg).set(database="pbp_bench").render_as_string(hide_password=False),
            )
        )
    else:
        out.append(Backend("PostgreSQL", None))
    return out


SCENARIOS = ("round", "floor", "load", "capacity", "rss", "startup")
FLOOR = "floor"
#: The summary's key of each side.
KEYS = {FLOOR: "floor", "SQLite": "sqlite", "PostgreSQL": "postgresql"}


async def run(
    games: list[int],
    *,
    pg: str | None,
    scenarios: tuple[str, ...] = SCENARIOS,
    burst: float = 10.0,
    rss_games: int = RSS_GAMES,
    deadlines: int = STARTUP_DEADLINES,
    profile: bool = False,
    out: Path | None = None,
    plot: Path | None = None,
    repeat: int = 3,
    capacity: bool = True,
    capacity_games: int = 500,
    rates: tuple[int, ...] = CAPACITY_RATES,
    step: float = 4.0,
) -> dict[str, Any]:
    """Every scenario of ``scenarios`` (the floor beside the bot in ``load`` and
    ``capacity``), the JSON written to ``out`` (default ``bench/results/load-<time>.json``) and
    the ceiling plot to ``plot`` (default: beside the JSON, ``.png``) when capacity ran."""
    results: dict[str, Any] = {
        "started": now_utc().isoformat(),
        "targets": TARGETS,
        "rss_games": rss_games,
        "deadlines": deadlines,
        "games": games,
        "burst_s": burst,
        "repeat": repeat,
        "rates": list(rates),
        "backends": {},
    }
    b: dict[str, dict[str, Any]] = results["backends"]
    with tempfile.TemporaryDirectory(prefix="pbp-bench-") as d:
        tmp = Path(d)
        # The floor and the bot on each backend, repetitions interleaved (the machine's load
        # drifts: each figure's neighbours were measured in the same minutes).
        sides: list[tuple[str, str | None]] = []
        if FLOOR in scenarios:
            b[FLOOR] = {}
            sides.append((FLOOR, None))
        for backend in backends(tmp, pg):
            b[backend.name] = {}
            if backend.url is None:
                b[backend.name]["skipped"] = "no --pg URL and no TEST_DATABASE_URL"
            else:
                sides.append((backend.name, backend.url))
        loaded = [(n, u) for n, u in sides if n == FLOOR or "load" in scenarios]
        top = max(games) if games else 0
        for g in games if loaded else []:
            runs: dict[str, list[dict[str, Any]]] = {name: [] for name, _ in loaded}
            # The headline (the largest G) is the median of ``repeat`` runs; the others run once.
            for rep in range(repeat if g == top else 1):
                for name, url in loaded:
                    prof = (
                        RESULTS / f"profile-{name}-{g}.txt"
                        if profile and url is not None and rep == 0
                        else None
                    )
                    runs[name].append(
                        await _guard(scenario_load(url, tmp, g, burst=burst, profile=prof))
                    )
            for name, _ in loaded:
                b[name][f"load-{g}"] = median_of(runs[name])
        if capacity and "capacity" in scenarios:
            for name, url in sides:
                prof = RESULTS / f"profile-capacity-{KEYS[name]}" if profile else None
                b[name]["capacity"] = await _guard(
                    scenario_capacity(
                        url, tmp, capacity_games, rates=rates, step=step, profile=prof
                    )
                )
        for backend in backends(tmp, pg):
            res = b[backend.name]
            url = backend.url
            if url is None:
                continue
            if "round" in scenarios:
                res["round"] = await _guard(scenario_round(url, tmp))
            if "rss" in scenarios:
                prof = RESULTS / f"profile-rss-{backend.name}.txt" if profile else None
                res[f"rss-{rss_games}"] = await _guard(
                    scenario_rss(url, tmp, rss_games, profile=prof)
                )
            if "startup" in scenarios:
                prof = RESULTS / f"profile-startup-{backend.name}.txt" if profile else None
                res["startup"] = await _guard(
                    scenario_startup(
                        url,
                        tmp,
                        deadlines=deadlines,
                        name=f"startup-{backend.name}",
                        profile=prof,
                    )
                )
    results["summary"] = summary(results)
    results["finished"] = now_utc().isoformat()
    if out is None:
        RESULTS.mkdir(parents=True, exist_ok=True)
        stamp = now_utc().strftime("%Y%m%d-%H%M%S")
        out = RESULTS / f"load-{stamp}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    if any("capacity" in r for r in b.values()):
        plot = plot or out.with_suffix(".png")
        plot.parent.mkdir(parents=True, exist_ok=True)
        draw_ceiling(results, plot)
        results["plot"] = str(plot)
    out.write_text(json.dumps(results, indent=2, default=str), encoding="utf-8")
    results["json"] = str(out)
    return results


def _figure(res: dict[str, Any] | None, key: str) -> Any:
    if not res or "error" in res or key not in res:
        return None
    value = res[key]
    return None if isinstance(value, float) and value != value else value


def summary(results: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The headline, at the largest G: confirmation and acknowledgement p99 of the floor and of
    the bot on each backend, the bot's confirmation p99 over the floor's, clicks unanswered and
    votes lost; each capacity ceiling (clicks per second with confirmation p99 < 300 ms, none
    unanswered, the rate offered), how it is bounded (``knee``: found; ``bench``: the bench
    could not offer more; ``top``: every rate held; ``behind``: the search ended on a child
    that did not catch up after a step), the bot's ceiling over the floor's and
    what saturated first; the peak RSS of the ``rss`` games and the start-up times."""
    b = results["backends"]
    g = max(results["games"]) if results["games"] else 0
    out: dict[str, dict[str, Any]] = {
        key: {}
        for key in (
            "confirm_p99_ms",
            "ack_p99_ms",
            "ratio_p99",
            "unanswered",
            "lost",
            "capacity_clicks_per_s",
            "capacity_bound",
            "capacity_ratio",
            "saturated_first",
            "rss_peak_mb",
            "startup_ready_s",
            "startup_overdue_resolved_s",
        )
    }
    floor_p99 = _figure(b.get(FLOOR, {}).get(f"load-{g}"), "confirm_p99_ms")
    floor_cap = _figure(b.get(FLOOR, {}).get("capacity"), "capacity_clicks_per_s")
    rss = f"rss-{results.get('rss_games', RSS_GAMES)}"
    for name, key in KEYS.items():
        res = b.get(name)
        if res is None or res.get("skipped"):
            continue
        load = res.get(f"load-{g}")
        p99 = _figure(load, "confirm_p99_ms")
        if load is not None:
            out["confirm_p99_ms"][key] = p99
            out["ack_p99_ms"][key] = _figure(load, "ack_p99_ms")
        if name != FLOOR and load is not None:
            out["unanswered"][key] = _figure(load, "unanswered")
            out["lost"][key] = _figure(load, "lost")
            out["ratio_p99"][key] = (
                round(p99 / floor_p99, 2) if p99 is not None and floor_p99 else None
            )
        cap = res.get("capacity")
        if cap is not None:
            ceiling = _figure(cap, "capacity_clicks_per_s")
            out["capacity_clicks_per_s"][key] = ceiling
            out["capacity_bound"][key] = _figure(cap, "bound")
            out["saturated_first"][key] = _figure(cap, "saturated_first")
            if name != FLOOR:
                out["capacity_ratio"][key] = (
                    round(ceiling / floor_cap, 2) if ceiling is not None and floor_cap else None
                )
        if name != FLOOR and rss in res:
            out["rss_peak_mb"][key] = _figure(res[rss], "peak_rss_mb")
        if name != FLOOR and "startup" in res:
            out["startup_ready_s"][key] = _figure(res["startup"], "launch_to_ready_s")
            out["startup_overdue_resolved_s"][key] = _figure(
                res["startup"], "launch_to_overdue_resolved_s"
            )
    return out


async def _guard(coro: Any) -> dict[str, Any]:
    try:
        result: dict[str, Any] = await coro
        return result
    except Exception as exc:
        return {"error": f"{type(exc).__name__}: {exc}"[:2000]}


# -- the table -------------------------------------------------------------------------------


def _cell(res: dict[str, Any], scenario: str, key: str) -> str:
    if res.get("skipped"):
        return "skipped"
    data = res.get(scenario)
    if data is None:
        return "—"
    if "error" in data:
        return "error"
    value = data.get(key)
    return "—" if value is None else str(value)


#: The bench's own loop lag in a burst (ms) past which the machine, not the bot, sets the tail:
#: on a quiet machine the sandbox lags 3-9 ms at 650 clicks/s, whoever answers the clicks
#: (more with PostgreSQL on the same cores, up to about 20 ms on the nights measured).
NOISY_LAG_MS = 15.0


def noise(results: dict[str, Any]) -> str | None:
    """A warning when the bench's own event loop (the sandbox that stamps every answer) lagged
    past :data:`NOISY_LAG_MS` in a repetition of the headline's bursts: each answer is then
    stamped that much late, the floor's as much as the bot's, and the p99s and their ratios
    measure the machine's stalls as much as the bot (this does not change any figure)."""
    g = max(results["games"]) if results["games"] else 0
    worst: dict[str, float] = {}
    for name, res in results["backends"].items():
        load = res.get(f"load-{g}")
        lags = (
            [r.get("bench_loop_lag_max_ms") for r in (load.get("runs") or [load])] if load else []
        )
        numbers = [x for x in lags if isinstance(x, int | float)]
        if numbers:
            worst[name] = max(numbers)
    if max(worst.values(), default=0.0) <= NOISY_LAG_MS:
        return None
    each = ", ".join(f"{name} {lag:g} ms" for name, lag in worst.items())
    return (
        f"  NOISY MACHINE: the bench's own loop lagged up to {each} in these bursts "
        f"(quiet: under {NOISY_LAG_MS:g} ms); its answers were stamped that late, so these p99s "
        "and ratios measure the machine's stalls as much as the bot: run again on a quiet machine"
    )


def headline(results: dict[str, Any]) -> str:
    """Per backend, the bot's confirmation p50/p95/p99 and its ratio to the floor's, with the
    acknowledgement figures beside them (the largest G, median of the repetitions), each
    capacity ceiling and its ratio, and a warning when the machine was too noisy for them to
    mean much (:func:`noise`)."""
    b = results["backends"]
    g = max(results["games"]) if results["games"] else 0
    summ = results.get("summary") or {}
    lines = [
        f"HEADLINE: {g} games × 10, median of {counted(results.get('repeat', 1), 'repetition')}; "
        'confirmation = click → the answer "On record", ack = click → first callback'
    ]
    for name, key in KEYS.items():
        res = b.get(name)
        if res is None:
            continue
        if res.get("skipped"):
            lines.append(f"  {name:<10} skipped ({res['skipped']})")
            continue
        load = res.get(f"load-{g}")
        parts = [f"  {name:<10}"]
        if load and "error" not in load:

            def ms(prefix: str, data: dict[str, Any] = load) -> str:
                return " / ".join(f"{data[f'{prefix}_{q}_ms']:g}" for q in ("p50", "p95", "p99"))

            ratio = summ.get("ratio_p99", {}).get(key)
            parts += [
                f"confirmation p50/p95/p99 {ms('confirm')} ms",
                f"= {ratio:g} × the floor's p99" if ratio is not None else "",
                f"| ack {ms('ack')} ms",
                f"| CPU {load.get('cpu_ms_per_click', '—')} ms/click",
                f"| unanswered {load['unanswered']}",
                "" if name == FLOOR else f"| lost {load['lost']}",
            ]
        elif load:
            parts.append(f"error: {load['error'][:200]}")
        cap = res.get("capacity")
        if cap is not None:
            share = summ.get("capacity_ratio", {}).get(key)
            parts.append(
                f"| ceiling {ceiling_text(cap)} clicks/s"
                + (f" = {100 * share:.0f} % of the floor's" if share is not None else "")
            )
        lines.append(" ".join(p for p in parts if p))
    warning = noise(results)
    if warning is not None:
        lines.append(warning)
    return "\n".join(lines)


HOLDS, FAILS = "**holds**", "**does not hold**"


def verdict(ok: bool | None, unknown: str = "—") -> str:
    return unknown if ok is None else (HOLDS if ok else FAILS)


def capacity_verdict(results: dict[str, Any]) -> str:
    """Each bot's ceiling against its share of the floor's (:data:`TARGETS`): measured only
    when the floor's ceiling was found (a knee); a bot's bench-bound or top ceiling is a lower
    bound, enough to hold, and a floor's lower bound is enough to fail."""
    b = results["backends"]
    floor = b.get(FLOOR, {}).get("capacity")
    if not floor or "error" in floor:
        return "not measured (no floor)"
    f_cap, f_bound = floor.get("capacity_clicks_per_s") or 0, floor.get("bound")
    oks: list[bool | None] = []
    for name, key in KEYS.items():
        cap = b.get(name, {}).get("capacity")
        if name == FLOOR or cap is None:
            continue
        if "error" in cap:
            oks.append(False)
            continue
        share = TARGETS["capacity_share_of_floor"][key]
        c_cap, c_bound = cap.get("capacity_clicks_per_s") or 0, cap.get("bound")
        if f_bound == "knee":
            ok: bool | None = c_cap >= share * f_cap or (None if c_bound != "knee" else False)
        else:  # the floor's real ceiling is higher than measured
            ok = False if c_bound == "knee" and c_cap < share * f_cap else None
        oks.append(ok)
    if not oks:
        return "—"
    if any(ok is False for ok in oks):
        return FAILS
    if any(ok is None for ok in oks):
        return (
            "not measured: a ceiling is a lower bound (the bench's, the top rate's, or the last "
            "before the child fell behind)"
        )
    return HOLDS


def markdown_targets(results: dict[str, Any]) -> str:
    """The targets against this run's figures, as docs/performance.md's Markdown table: one
    row per target (its verdict in the last column), figures between them."""
    b = results["backends"]
    g = max(results["games"]) if results["games"] else 0
    summ = results.get("summary") or {}
    names = [n for n in KEYS if n in b]
    bots = [n for n in names if n != FLOOR and not b[n].get("skipped")]

    def fig(name: str, scenario: str, *keys: str, sep: str = " / ") -> str:
        data = b.get(name, {})
        if data.get("skipped"):
            return "skipped"
        res = data.get(scenario)
        if not res:
            return "—"
        if "error" in res:
            return "error"
        return sep.join(_num(res.get(k)) for k in keys)

    def each(scenario: str, test: Any) -> bool | None:
        """Whether every bot's figures of ``scenario`` pass ``test`` (None: none ran)."""
        ran = [b[n].get(scenario) for n in bots if b[n].get(scenario) is not None]
        if not ran:
            return None
        return all("error" not in r and bool(test(r)) for r in ran)

    ratio = summ.get("ratio_p99", {})
    load = f"load-{g}"
    clicks = next((r[load].get("clicks") for r in b.values() if r.get(load)), None)
    lim = TARGETS["ratio_p99"]
    rows = [["target", *names, "holds?"]]
    if any(load in b[n] for n in names):
        rows += [
            [
                f"{g:,} games × 10"
                + (f" ({clicks:,} clicks in {results.get('burst_s', 10):g} s)" if clicks else "")
                + f": confirmation p50 / p95 / p99 ms (median of {results.get('repeat', 1)})",
                *[
                    fig(n, load, "confirm_p50_ms", "confirm_p95_ms", "confirm_p99_ms")
                    for n in names
                ],
                "",
            ],
            [
                f"… confirmation p99 / the floor's: ≤ {lim['sqlite']:g} (SQLite), "
                f"≤ {lim['postgresql']:g} (PostgreSQL)",
                *["1" if n == FLOOR else _num(ratio.get(KEYS[n])) for n in names],
                verdict(
                    None
                    if FLOOR not in b or not any(load in b[n] for n in bots)
                    else all(
                        ratio.get(KEYS[n]) is not None and ratio[KEYS[n]] <= lim[KEYS[n]]
                        for n in bots
                        if load in b[n]
                    )
                ),
            ],
            [
                "… ack p50 / p95 / p99 ms",
                *[fig(n, load, "ack_p50_ms", "ack_p95_ms", "ack_p99_ms") for n in names],
                "",
            ],
            [
                "… clicks unanswered / votes lost: 0",
                *[fig(n, load, "unanswered", "lost") for n in names],
                verdict(each(load, lambda r: r.get("unanswered") == 0 and r.get("lost") == 0)),
            ],
            [
                "… CPU ms per click (the child process)",
                *[fig(n, load, "cpu_ms_per_click") for n in names],
                "",
            ],
        ]
    if any("capacity" in b[n] for n in names):
        share = TARGETS["capacity_share_of_floor"]
        caps = summ.get("capacity_ratio", {})
        rows += [
            [
                f"capacity, clicks/s (confirmation p99 < {TARGETS['capacity_p99_ms']:g} ms, "
                f"none unanswered, the rate offered): ≥ {100 * share['sqlite']:.0f} % "
                f"(SQLite) / {100 * share['postgresql']:.0f} % (PostgreSQL) of the floor's",
                *[
                    ("skipped" if b[n].get("skipped") else ceiling_text(b[n].get("capacity")))
                    + (
                        f" ({100 * caps[KEYS[n]]:.0f} %)"
                        if n != FLOOR and caps.get(KEYS[n]) is not None
                        else ""
                    )
                    for n in names
                ],
                capacity_verdict(results),
            ],
            [
                "… what saturated first (at the rate)",
                *[_saturated(b[n].get("capacity")) for n in names],
                "",
            ],
        ]
    rss = f"rss-{results.get('rss_games', RSS_GAMES)}"
    if any(rss in b[n] for n in names):
        rows.append(
            [
                f"{results.get('rss_games', RSS_GAMES):,} active games: bot peak RSS MB "
                f"< {TARGETS['rss_mb']:g}",
                *["—" if n == FLOOR else fig(n, rss, "peak_rss_mb") for n in names],
                verdict(each(rss, lambda r: r.get("peak_rss_mb", 1e9) < TARGETS["rss_mb"])),
            ]
        )
    if any("startup" in b[n] for n in names):
        deadlines = results.get("deadlines", STARTUP_DEADLINES)
        rows += [
            [
                f"{deadlines:,} open deadlines (1 % overdue): launch → ready (first command "
                f"answered) s < {TARGETS['ready_s']:g}",
                *["—" if n == FLOOR else fig(n, "startup", "launch_to_ready_s") for n in names],
                verdict(
                    each(
                        "startup",
                        lambda r: (r.get("launch_to_ready_s") or 1e9) < TARGETS["ready_s"],
                    )
                ),
            ],
            [
                f"… launch → the overdue deadlines resolved s < {TARGETS['overdue_resolved_s']:g}",
                *[
                    "—" if n == FLOOR else fig(n, "startup", "launch_to_overdue_resolved_s")
                    for n in names
                ],
                verdict(
                    each(
                        "startup",
                        lambda r: (
                            (r.get("launch_to_overdue_resolved_s") or 1e9)
                            < TARGETS["overdue_resolved_s"]
                        ),
                    )
                ),
            ],
        ]
    lines = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * len(rows[0])]
    lines += ["| " + " | ".join(r) + " |" for r in rows[1:]]
    return "\n".join(lines)


def _num(value: Any) -> str:
    """A figure as the tables print it (thousands separated, floats as short as they are)."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return "—" if value != value else (f"{value:,.0f}" if value >= 10_000 else f"{value:g}")
    return str(value)


def _saturated(cap: dict[str, Any] | None) -> str:
    """``the child's CPU at 1,950/s``; ``nothing (the busiest, …)``; ``—`` without a capacity
    search."""
    if not cap or "error" in cap or not cap.get("saturated_first"):
        return "—"
    first = cap["saturated_first"]
    rate, load = first.get("at_rate"), first.get("load")
    at = f" at {rate:,}/s" if isinstance(rate, int) else ""
    if first.get("what") == "none":
        busiest = PARTY_NAMES.get(first.get("busiest"), str(first.get("busiest")))
        return f"nothing (the busiest, {busiest}, at {_num(load)} of its limit{at})"
    return PARTY_NAMES.get(first.get("what"), str(first.get("what"))) + at


def _knee(cap: dict[str, Any] | None) -> str:
    """The last step of a search that stopped: its rate, p99, what the bench offered, the
    cores each process used and the seconds the child took to catch up after it (``—`` when
    every rate held)."""
    step = None if not cap or "error" in cap else knee_step(cap)
    if step is None:
        return "—"
    cores = "/".join(_num(step.get(k)) for k in ("bench_cores", "child_cores", "db_cores"))
    behind = " (not caught up)" if step.get("caught_up") is False else ""
    return (
        f"{step['rate']:,}: {_num(step.get('confirm_p99_ms'))} ms, "
        f"{_num(step.get('offered_per_s'))}/s, {cores}, {_num(step.get('catch_up_s'))} s{behind}"
    )


#: The short names of :data:`bench.capacity.PARTIES` in the tables.
PARTY_NAMES = {
    "bench": "the bench (could not offer the rate)",
    "sandbox": "the sandbox's loop",
    "child_cpu": "the child's CPU",
    "child_loop": "the child's event loop (blocked)",
    "sqlite": "SQLite's writer",
    "postgresql": "PostgreSQL",
    "machine": "the machine's cores",
    "none": "nothing",
}


def format_table(results: dict[str, Any]) -> str:
    names = list(results["backends"])
    rows: list[tuple[str, str, list[str]]] = []
    b = results["backends"]
    top = max(results["games"]) if results["games"] else 0
    summ = results.get("summary") or {}

    def joined(sc: str, keys: tuple[str, ...]) -> list[str]:
        return [
            " / ".join(_cell(b[n], sc, k) for k in keys)
            if _cell(b[n], sc, keys[0]) not in ("skipped", "—", "error")
            else _cell(b[n], sc, keys[0])
            for n in names
        ]

    for g in results["games"]:
        sc = f"load-{g}"
        if not any(sc in r for r in b.values()):
            continue
        label = f"{g} games × 10"
        floor_p99 = _figure(b.get(FLOOR, {}).get(sc), "confirm_p99_ms")
        ratios = []
        for n in names:
            p99 = _figure(b[n].get(sc), "confirm_p99_ms")
            ratios.append(
                f"{p99 / floor_p99:.2f}" if n != FLOOR and p99 is not None and floor_p99 else "—"
            )
        rows += [
            (
                f"{label}: clicks (in {results['burst_s']:g} s) / clicks/s",
                "",
                joined(sc, ("clicks", "clicks_per_s")),
            ),
            (
                f"{label}: CONFIRMATION p50 / p95 / p99 / max ms",
                "",
                joined(
                    sc, ("confirm_p50_ms", "confirm_p95_ms", "confirm_p99_ms", "confirm_max_ms")
                ),
            ),
            (
                f"{label}: confirmation p99 / the floor's",
                f"≤ {TARGETS['ratio_p99']['sqlite']:g} SQLite, "
                f"≤ {TARGETS['ratio_p99']['postgresql']:g} PG"
                if g == top
                else "",
                ratios,
            ),
            (
                f"{label}: ack p50 / p95 / p99 / max ms",
                "",
                joined(sc, ("ack_p50_ms", "ack_p95_ms", "ack_p99_ms", "ack_max_ms")),
            ),
            (f"{label}: votes lost / unanswered", "0", joined(sc, ("lost", "unanswered"))),
            (
                f"{label}: 10062 Unknown interaction / 429",
                "0",
                joined(sc, ("unknown_interaction", "rate_429")),
            ),
            (
                f"{label}: CPU ms per click (the child, first click → last answer)",
                "",
                [_cell(b[n], sc, "cpu_ms_per_click") for n in names],
            ),
            (f"{label}: peak RSS MB", "", [_cell(b[n], sc, "peak_rss_mb") for n in names]),
        ]
    if any("capacity" in r for r in b.values()):
        share = TARGETS["capacity_share_of_floor"]
        cap_ratios = summ.get("capacity_ratio") or {}
        rows += [
            (
                f"capacity clicks/s (confirm p99 < {TARGETS['capacity_p99_ms']:g} ms, "
                "0 unanswered, offered)",
                f"≥ {100 * share['sqlite']:.0f} % SQLite, ≥ {100 * share['postgresql']:.0f} % PG",
                [
                    "skipped"
                    if b[n].get("skipped")
                    else ceiling_text(b[n].get("capacity"))
                    + (
                        f" ({100 * cap_ratios[KEYS[n]]:.0f} %)"
                        if cap_ratios.get(KEYS[n]) is not None
                        else ""
                    )
                    for n in names
                ],
            ),
            (
                "capacity: saturated first",
                "",
                [_saturated(b[n].get("capacity")) for n in names],
            ),
            (
                "capacity: at the failed step (rate: p99 ms, offered/s, cores bench/child/db, "
                "catch-up)",
                "",
                [_knee(b[n].get("capacity")) for n in names],
            ),
        ]
    rss_keys = sorted({k for r in b.values() for k in r if k.startswith("rss-")})
    for key in rss_keys:
        rows.append(
            (
                f"{int(key[4:]):,} active games: bot peak RSS MB",
                f"< {TARGETS['rss_mb']:g}",
                [_cell(b[n], key, "peak_rss_mb") for n in names],
            )
        )
        rows.append(
            (
                f"{int(key[4:]):,} active games: confirmation p99 ms / lost / unanswered",
                "",
                joined(key, ("confirm_p99_ms", "lost", "unanswered")),
            )
        )
        rows.append(
            (
                f"{int(key[4:]):,} active games: SQLite WAL peak MB (during the clicks)",
                "",
                [_cell(b[n], key, "wal_peak_mb") for n in names],
            )
        )
    if any("startup" in r for r in b.values()):
        deadlines = results.get("deadlines", STARTUP_DEADLINES)
        rows += [
            (
                f"start-up, {deadlines:,} open deadlines: launch → IDENTIFY s",
                "",
                [_cell(b[n], "startup", "launch_to_identify_s") for n in names],
            ),
            (
                "start-up: launch → first slash command answered s",
                f"< {TARGETS['ready_s']:g}",
                [_cell(b[n], "startup", "launch_to_ready_s") for n in names],
            ),
            (
                "start-up: launch → overdue deadlines resolved s",
                f"< {TARGETS['overdue_resolved_s']:g}",
                [_cell(b[n], "startup", "launch_to_overdue_resolved_s") for n in names],
            ),
            (
                "start-up: overdue deadlines resolved / open after / peak RSS MB",
                "",
                [
                    " / ".join(
                        _cell(b[n], "startup", k)
                        for k in ("resolved_at_start", "open_after", "peak_rss_mb")
                    )
                    if "skipped" not in _cell(b[n], "startup", "open_after")
                    else "skipped"
                    for n in names
                ],
            ),
        ]
    widths = [max(len(r[0]) for r in rows), max(len("target"), *(len(r[1]) for r in rows))]
    widths += [max(len(n), *(len(r[2][i]) for r in rows)) for i, n in enumerate(names)]
    lines = [
        " | ".join(h.ljust(w) for h, w in zip(["metric", "target", *names], widths, strict=True))
    ]
    lines.append("-+-".join("-" * w for w in widths))
    for metric, target, cells in rows:
        lines.append(
            " | ".join(v.ljust(w) for v, w in zip([metric, target, *cells], widths, strict=True))
        )
    out = [headline(results), "\n".join(lines)]
    rounds = {n: b[n].get("round") for n in names if b[n].get("round")}
    if rounds:
        routes: set[str] = set()
        for r in rounds.values():
            routes |= set(r.get("routes", {}))
        head = ["route", *[f"calls ({n})" for n in rounds], "minimum"]
        table = []
        for route in sorted(routes):
            cells = [
                str(r.get("routes", {}).get(route, {}).get("calls", 0)) for r in rounds.values()
            ]
            minimum = next(
                (
                    str(r["routes"][route]["minimum"])
                    for r in rounds.values()
                    if route in r.get("routes", {})
                ),
                "0",
            )
            table.append([route, *cells, minimum])
        table.append(
            [
                "total",
                *[str(r.get("total", "error")) for r in rounds.values()],
                str(next(iter(rounds.values())).get("minimum_total", "")),
            ]
        )
        w = [max(len(x[i]) for x in [head, *table]) for i in range(len(head))]
        lines = [
            "REST calls of one round (propose → votes → resolve, 10 players):",
            " | ".join(h.ljust(x) for h, x in zip(head, w, strict=True)),
            "-+-".join("-" * x for x in w),
        ]
        lines += [" | ".join(c.ljust(x) for c, x in zip(row, w, strict=True)) for row in table]
        out.append("\n".join(lines))
    errors = [
        f"{n} {sc}: {data['error']}"
        for n, res in b.items()
        for sc, data in res.items()
        if isinstance(data, dict) and "error" in data
    ]
    if errors:
        out.append("errors:\n" + "\n".join(errors))
    return "\n\n".join(out)
