"""``python -m bench load``: the real bot (a child process) under load from simulated players.

Scenarios, each on SQLite and (when a URL is given) PostgreSQL:

- ``load``: G games of 10 players in the vote phase; every player clicks Accept/Reject, every
  team member Support/Sabotage, at random moments of a burst (10 s). Acknowledgement latency
  (INTERACTION_CREATE sent → first callback received, ``ix.latency``), clicks per second, votes
  lost (the votes table against the clicks answered "on record"), 10062s, the bot's peak RSS.
- ``rss``: 1,000 games seeded and active (every player clicks once): the bot's peak RSS.
- ``startup``: launch → IDENTIFY → first slash command answered, with 10,000 open deadlines
  (1 % overdue: the scheduler resolves them before connecting, and schedules the rest).
- ``round``: one real round driven by slash commands (propose → votes → resolve): the REST
  calls the bot made, by route, against the minimum the round needs.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import random
import statistics
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import discord
from sqlalchemy import select
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool

from bench.child import BotProcess, launch, write_config
from bench.seed import SeedGame, fresh_database, seed_games
from db.engine import make_engine
from db.models import Deadline, Game, Vote
from sandbox import Sandbox

RESULTS = Path(__file__).resolve().parent / "results"
GAMES_PER_GUILD = 100
ON_RECORD = "On record"
CALLBACK = "POST /interactions/{interaction_id}/{interaction_token}/callback"
FOLLOWUP = "POST /webhooks/{webhook_id}/{webhook_token}"

TARGETS = {
    "p99_ms": 300.0,
    "lost": 0,
    "unknown_interaction": 0,
    "rss_1000_mb": 300.0,
    "ready_s": 10.0,
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

    Only the first ``sandbox_users`` games (default all) get real sandbox users and channels;
    the others get ids only (enough for deadlines that do not fire during the run)."""
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
            fake += 1000
            players = [(fake + j, f"g{gid}p{j}") for j in range(10)]
            world.games.append(SeedGame(gid, fake + 700, fake + 500, mod.id, players))
    return world


def post_vote_dms(world: World) -> None:
    """The DM each player gets at a proposal, stored in the sandbox as the bot's message, with
    the real buttons (``cogs.resistance.vote_view``: ``rs:vote:<game>:<proposal>:<choice>``)."""
    from cogs.resistance import vote_view

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
    sb: Sandbox, url: str, tmp: Path, name: str, *, profile: Path | None = None
) -> BotProcess:
    config = tmp / f"{name}.toml"
    write_config(config, sb, url)
    bot = launch(config, tmp / f"{name}.log", profile=profile)
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


def plan_clicks(world: World, burst: float, *, mission: bool, rng: random.Random) -> list[Click]:
    clicks: list[Click] = []
    for g in world.games:
        if g.id not in world.channels:
            continue
        for uid, _ in g.players:
            vote = "accept" if rng.random() < 0.6 else "reject"
            clicks.append(Click(rng.uniform(0, burst), g, uid, vote))
            if mission and uid in g.team:
                choice = "support" if rng.random() < 0.7 else "sabotage"
                clicks.append(Click(rng.uniform(0, burst), g, uid, choice))
    clicks.sort(key=lambda c: c.at)
    return clicks


async def drive_clicks(world: World, clicks: list[Click]) -> float:
    """Send each click at its moment (one driver coroutine); returns the burst's real length."""
    sb = world.sb
    loop = asyncio.get_running_loop()
    t0 = loop.time()
    for c in clicks:
        delay = t0 + c.at - loop.time()
        if delay > 0:
            await asyncio.sleep(delay)
        msg = world.vote_dm[(c.game.id, c.user_id)]
        custom_id = f"rs:vote:{c.game.id}:{c.game.proposal}:{c.choice}"
        c.ix = await sb.click(world.users[c.user_id], msg, custom_id=custom_id)
    return loop.time() - t0


async def wait_answers(clicks: list[Click], timeout: float) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if all(c.ix is not None and (c.ix.followup_ids or c.ix.original_id) for c in clicks):
            answered = [c for c in clicks if c.ix.followup_ids or _original_done(c.ix)]
            if len(answered) == len(clicks):
                return
        await asyncio.sleep(0.2)


def _original_done(ix: Any) -> bool:
    msg = ix.sb.messages.get(ix.original_id or 0)
    return msg is not None and not msg.loading


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


async def scenario_load(
    url: str,
    tmp: Path,
    n_games: int,
    *,
    burst: float = 10.0,
    mission: bool = True,
    seed: int = 1,
    profile: Path | None = None,
    label: str = "load",
    keep_log: bool = True,
) -> dict[str, Any]:
    await fresh_database(url)
    async with Sandbox(interaction_timeout=3.0) as sb:
        sb.interaction_timeout = 3.0
        world = build_world(sb, n_games)
        await seed_games(url, world.games, now=now_utc(), seed=seed)
        await _remember_roles(url, world.games)
        post_vote_dms(world)
        bot = await start_bot(sb, url, tmp, f"{label}-{n_games}", profile=profile)
        try:
            await wait_identify(sb, bot, 120)
            await sb.wait_until_connected(timeout=60)
            await first_answer(world, bot, 60)
            rss_ready = bot.rss_kb()
            clicks = plan_clicks(world, burst, mission=mission, rng=random.Random(seed))
            mark = len(sb.requests)
            lag = LoopLag()
            lag.start()
            # The sandbox and the players must not stall the measure: no collection of their
            # (large, long-lived) heap during the burst; the bot child keeps its own GC.
            gc.collect()
            gc.freeze()
            gc.disable()
            try:
                real_burst = await drive_clicks(world, clicks)
                await wait_answers(clicks, timeout=60)
                await wait_quiet(sb, 0.5, 10)
            finally:
                gc.enable()
                gc.unfreeze()
                lag.stop()
            recorded, lost = await votes_lost(url, clicks)
            hwm = bot.hwm_kb()
            await bot.stop()
        finally:
            await bot.stop()
        log = bot.log()
        if keep_log:
            bot.keep_log(RESULTS / f"bot-{label}-{n_games}.log")
        requests = sb.requests[mark:]
        lat = [c.ix.latency * 1000 for c in clicks if c.ix is not None and c.ix.latency is not None]
        sent = [c.ix.sent_at for c in clicks if c.ix is not None]
        acked = [c.ix.acked_at for c in clicks if c.ix is not None and c.ix.acked_at is not None]
        span = (max(acked) - min(sent)) if acked and sent else float("nan")
        return {
            "games": n_games,
            "clicks": len(clicks),
            "burst_s": round(real_burst, 2),
            "acked": len(lat),
            "recorded": recorded,
            "lost": lost,
            "unanswered": len(clicks) - recorded,
            "unknown_interaction": sum(1 for r in requests if r.error_code == 10062),
            "p50_ms": round(percentile(lat, 50), 1),
            "p95_ms": round(percentile(lat, 95), 1),
            "p99_ms": round(percentile(lat, 99), 1),
            "max_ms": round(max(lat), 1) if lat else float("nan"),
            "mean_ms": round(statistics.fmean(lat), 1) if lat else float("nan"),
            "clicks_per_s": round(len(acked) / span, 1) if span and span == span else 0.0,
            "rss_ready_mb": round(rss_ready / 1024, 1),
            "peak_rss_mb": round(max(hwm, bot.peak_rss_kb) / 1024, 1),
            "bot_errors": log.count(" ERROR "),
            "bench_loop_lag_max_ms": round(lag.max * 1000, 1),
            "bench_gc_max_ms": round(lag.gc_max * 1000, 1),
            "other_answers": sorted(
                Counter(
                    answer_text(c.ix)[:120] if c.ix is not None else "not sent"
                    for c in clicks
                    if c.ix is None or ON_RECORD not in answer_text(c.ix)
                ).items()
            )[:10],
            "log_tail": [ln for ln in log.splitlines() if "ERROR" in ln or "WARNING" in ln][:20],
        }


async def _remember_roles(url: str, games: list[SeedGame]) -> None:
    engine = make_engine(url, poolclass=NullPool)
    try:
        async with engine.connect() as conn:
            rows = (await conn.execute(select(Game.id, Game.state))).all()
    finally:
        await engine.dispose()
    states = dict(rows)
    for g in games:
        roles = (states.get(g.id) or {}).get("roles") or {}
        flat: dict[int, str] = {}
        for key, value in roles.items():
            if isinstance(value, list):  # {"spy": [ids], ...}
                for uid in value:
                    flat[int(uid)] = key
            else:  # {"<id>": "spy"}
                flat[int(key)] = str(value)
        g.extra["roles"] = flat


# -- scenario: start-up with 10,000 open deadlines -------------------------------------------


async def scenario_startup(
    url: str, tmp: Path, *, deadlines: int = 10_000, overdue_share: float = 0.01
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
        bot = await start_bot(sb, url, tmp, "startup")
        try:
            identify = await wait_identify(sb, bot, 120)
            await sb.wait_until_connected(timeout=60)
            ready = await first_answer(world, bot, 120)
            await wait_quiet(sb, 1.0, 30)
            hwm = bot.hwm_kb()
        finally:
            await bot.stop()
        counts = await _deadline_counts(url)
        log = bot.log()
        resolved_at_start = None
        for line in log.splitlines():
            if "deadline scheduler started:" in line:
                with contextlib.suppress(ValueError, IndexError):
                    resolved_at_start = int(line.split("started:")[1].split()[0])
        return {
            "deadlines": deadlines,
            "overdue": 2 * n_overdue,
            "launch_to_identify_s": round(identify, 2),
            "launch_to_ready_s": round(ready, 2),
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
        CALLBACK: interactions,  # one acknowledgement per interaction
        FOLLOWUP: interactions,  # one private answer each
        # players vote DMs + the proposal + the result + the next leader's call
        "POST /channels/{channel_id}/messages": players + 3,
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
                await sb._wait_for(
                    lambda u=u: any(m.labels for m in sb.dms(u)[before[u.id] :]), 15, "vote DM"
                )
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
    from games.resistance import Resistance

    engine = make_engine(url, poolclass=NullPool)
    try:
        async with engine.connect() as conn:
            state = (await conn.execute(select(Game.state).order_by(Game.id.desc()))).scalar()
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


SCENARIOS = ("round", "load", "rss", "startup")


async def run(
    games: list[int],
    *,
    pg: str | None,
    scenarios: tuple[str, ...] = SCENARIOS,
    burst: float = 10.0,
    rss_games: int = 1000,
    deadlines: int = 10_000,
    profile: bool = False,
    out: Path | None = None,
) -> dict[str, Any]:
    results: dict[str, Any] = {
        "started": now_utc().isoformat(),
        "targets": TARGETS,
        "games": games,
        "burst_s": burst,
        "backends": {},
    }
    with tempfile.TemporaryDirectory(prefix="pbp-bench-") as d:
        tmp = Path(d)
        for backend in backends(tmp, pg):
            res: dict[str, Any] = {}
            results["backends"][backend.name] = res
            if backend.url is None:
                res["skipped"] = "no --pg URL and no TEST_DATABASE_URL"
                continue
            url = backend.url
            if "round" in scenarios:
                res["round"] = await _guard(scenario_round(url, tmp))
            if "load" in scenarios:
                for g in games:
                    prof = (RESULTS / f"profile-{backend.name}-{g}.txt") if profile else None
                    res[f"load-{g}"] = await _guard(
                        scenario_load(url, tmp, g, burst=burst, profile=prof)
                    )
            if "rss" in scenarios:
                res[f"rss-{rss_games}"] = await _guard(
                    scenario_load(url, tmp, rss_games, burst=2 * burst, mission=False, label="rss")
                )
            if "startup" in scenarios:
                res["startup"] = await _guard(scenario_startup(url, tmp, deadlines=deadlines))
    results["finished"] = now_utc().isoformat()
    if out is None:
        RESULTS.mkdir(parents=True, exist_ok=True)
        stamp = now_utc().strftime("%Y%m%d-%H%M%S")
        out = RESULTS / f"load-{stamp}.json"
    out.write_text(json.dumps(results, indent=2, default=str), encoding="utf-8")
    results["json"] = str(out)
    return results


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


def format_table(results: dict[str, Any]) -> str:
    names = list(results["backends"])
    rows: list[tuple[str, str, list[str]]] = []
    b = results["backends"]
    for g in results["games"]:
        sc = f"load-{g}"
        if not any(sc in r for r in b.values()):
            continue
        label = f"{g} games × 10"
        rows += [
            (
                f"{label}: clicks (in {results['burst_s']:g} s)",
                "",
                [_cell(b[n], sc, "clicks") for n in names],
            ),
            (
                f"{label}: ack p50 / p95 / p99 / max ms",
                "p99 < 300" if g == 500 else "",
                [
                    " / ".join(_cell(b[n], sc, k) for k in ("p50_ms", "p95_ms", "p99_ms", "max_ms"))
                    if "skipped" not in _cell(b[n], sc, "p50_ms")
                    else "skipped"
                    for n in names
                ],
            ),
            (f"{label}: clicks/s", "", [_cell(b[n], sc, "clicks_per_s") for n in names]),
            (
                f"{label}: votes lost / unanswered",
                "0",
                [
                    f"{_cell(b[n], sc, 'lost')} / {_cell(b[n], sc, 'unanswered')}"
                    if "skipped" not in _cell(b[n], sc, "lost")
                    else "skipped"
                    for n in names
                ],
            ),
            (
                f"{label}: 10062 Unknown interaction",
                "0",
                [_cell(b[n], sc, "unknown_interaction") for n in names],
            ),
            (f"{label}: bot peak RSS MB", "", [_cell(b[n], sc, "peak_rss_mb") for n in names]),
        ]
    for key in [k for k in next(iter(b.values()), {}) if k.startswith("rss-")] or []:
        rows.append(
            (
                f"{key[4:]} active games: bot peak RSS MB",
                "< 300",
                [_cell(b[n], key, "peak_rss_mb") for n in names],
            )
        )
        rows.append(
            (
                f"{key[4:]} active games: ack p99 ms / lost",
                "",
                [
                    f"{_cell(b[n], key, 'p99_ms')} / {_cell(b[n], key, 'lost')}"
                    if "skipped" not in _cell(b[n], key, "lost")
                    else "skipped"
                    for n in names
                ],
            )
        )
    if any("startup" in r for r in b.values()):
        rows += [
            (
                "start-up, 10,000 open deadlines: launch → IDENTIFY s",
                "",
                [_cell(b[n], "startup", "launch_to_identify_s") for n in names],
            ),
            (
                "start-up: launch → first slash command answered s",
                "< 10",
                [_cell(b[n], "startup", "launch_to_ready_s") for n in names],
            ),
            (
                "start-up: overdue deadlines resolved / open after",
                "",
                [
                    f"{_cell(b[n], 'startup', 'resolved_at_start')} / "
                    f"{_cell(b[n], 'startup', 'open_after')}"
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
    out = ["\n".join(lines)]
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
