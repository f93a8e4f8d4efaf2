"""``python -m bench.dayvotes``: the Werewolf day-vote burst (issue 39), bot against floor.

G Werewolf games of 16 players at day 1's vote, seeded with the real engine (``Werewolf.setup``,
then the first night: the wolves agree on a villager, the seer looks, the witch heals the
victim, so all 16 live), written to the database as the service writes them (the game, its
players, its events, the day's deadline and reminder, the count message's slot), and each
game's count message posted in the sandbox with the day's vote menu. Then every living player
votes through that menu (the select of the living, or No elimination), a quarter of them
changing their vote once, at the load scenario's clicks a second (bench/load.py): the
confirmations on the bot (SQLite) and on the floor (bench/floor.py) in the same run, the
child's CPU per click, the votes in the final state, and the count messages' edits (PATCHes)
as the sandbox received them. ``majority_ends_day`` stays on: the votes spread over four names
and No elimination so that no majority can form, whatever order they arrive in.

The sandbox answers every edit at once (it emulates no per-channel rate limit):
``--discord-edits`` runs the bot once more with each count edit held until the next tick of
:data:`EDIT_TICK` (one edit a second a message, Discord's bucket of 5 per 5 s), as discord.py
waits out a 429.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

import discord
from sqlalchemy import func, insert, select
from sqlalchemy.pool import NullPool

from bench.__main__ import lock_file
from bench.load import (
    GAMES_PER_GUILD,
    LOAD_GAMES,
    RESULTS,
    Click,
    Quiet,
    World,
    answer_text,
    drive,
    latency_stats,
    now_utc,
    ready,
    start_bot,
    wait_answers,
    wait_identify,
    wait_idle,
    wait_logged,
    wait_quiet,
)
from bench.seed import BATCH, SeedGame, fresh_database
from bot.i18n import t
from bot.names import sort_key
from bot.single import Held, hold, holder
from db.engine import make_engine
from db.models import Deadline, Event, Game, Message, Outbox, Player
from games.builtin import builtin_registry
from games.resistance.rules import team_size
from games.werewolf import render
from games.werewolf.components import vote_view
from games.werewolf.options import WEREWOLF_OPTIONS, rule_options
from games.werewolf.rules import Phase, Role, Werewolf, WerewolfEvent
from games.werewolf.rules import Player as EnginePlayer
from games.werewolf.service import COUNT, DAY, DAY_REMINDER, stamp
from sandbox import Sandbox

PLAYERS = 16
#: The load scenario's clicks a second: its games × (10 votes + the first team's choices) in
#: its 10-second burst (bench/load.py), 1,300.
LOAD_RATE = LOAD_GAMES * (10 + team_size(10, 1)) / 10.0
#: The names each game's votes spread over (and No elimination), and the share of the players
#: who change their vote once.
CANDIDATES, CHANGERS = 4, 0.25
#: The day vote's secret choice (``WerewolfService.vote``): its select's custom_id is
#: ``choice:<CHOICE>:<game>:<day>``.
CHOICE = "ww_vote"
#: ``--discord-edits``: seconds a count edit may wait for its turn (Discord: 5 per 5 s).
EDIT_TICK = 1.0
EDIT_ROUTE = "PATCH /channels/{channel_id}/messages/{message_id}"
LANG = "en"


def confirmed_text() -> str:
    """What the answer to a day-1 vote begins with (the bot's, and the floor's copy)."""
    return t("werewolf.vote.done", LANG, number=1, name="").split("**")[0]


@dataclass
class Day:
    """The world of the burst (guilds, games, players, as the load scenario's), each game's
    state at day 1 and its count message in the sandbox, the day's deadline."""

    world: World
    due: datetime
    states: dict[int, Werewolf] = field(default_factory=dict)
    counts: dict[int, Any] = field(default_factory=dict)  # game id -> sandbox message


def build_day(sb: Sandbox, n_games: int, players: int) -> World:
    """Guilds of up to 100 game channels, a moderator in each, ``players`` members a game."""
    mod = sb.add_user("Moderator")
    world = World(sb, mod, [], [])
    mods = discord.Permissions(manage_guild=True).value
    for i in range(n_games):
        if i % GAMES_PER_GUILD == 0:
            guild = sb.add_guild(f"Bench {len(world.guilds) + 1}")
            guild.add_member(mod, roles=[guild.add_role("GM", permissions=mods)])
            world.guilds.append(guild)
        guild = world.guilds[-1]
        channel = guild.add_text_channel(f"game-{i + 1}")
        world.channels[i + 1] = channel
        seats = []
        for j in range(players):
            user = sb.add_user(f"g{i + 1}p{j}")
            guild.add_member(user)
            world.users[user.id] = user
            seats.append((user.id, user.name))
        world.games.append(SeedGame(i + 1, guild.id, channel.id, mod.id, seats))
    return world


Acted = list[tuple[list[WerewolfEvent], int | None]]


def day_one(game: SeedGame, rng: random.Random) -> tuple[Werewolf, Acted]:
    """The game dealt and through its first night, with each action's events and actor: the
    wolves agree on a villager, the seer looks at another, the witch heals the victim."""
    seats = [EnginePlayer(uid, name) for uid, name in game.players]
    state, events = Werewolf.setup(seats, rng, rule_options(WEREWOLF_OPTIONS.defaults()))
    acted: Acted = [(events, game.created_by)]
    villagers = [p for p in state.alive if state.roles[p] is Role.VILLAGER]
    victim, looked = villagers[0], villagers[1]
    for wolf in state.living_wolves:
        acted.append((state.pick(wolf, victim), wolf))
    seer, witch = state.holder(Role.SEER), state.holder(Role.WITCH)
    assert seer is not None and witch is not None
    acted.append((state.look(seer, looked), seer))
    acted.append((state.brew(witch, True, None), witch))
    assert state.phase is Phase.DAY and len(state.alive) == len(seats), state.phase
    return state, acted


def post_count(day: Day, game: SeedGame) -> Any:
    """The day's message as the service posts it (``count_post``): the live count and the
    vote menu (the living in name order, and No elimination)."""
    state, sb = day.states[game.id], day.world.sb
    ordered = sorted(state.alive, key=lambda p: sort_key(p, state.player(p).name))
    options = [[state.player(p).name, str(p)] for p in ordered]
    none = t("werewolf.count.none_label", LANG)
    view = vote_view(
        CHOICE, game.id, state.day, options, t("werewolf.vote.placeholder", LANG), none
    )
    body = {"content": render.count_text(state, LANG, day.due), "components": view.to_components()}
    msg = sb.rest._build_message(day.world.channels[game.id], sb.bot_user.id, body, [])
    return sb._store_message(msg)


def game_rows(day: Day, game: SeedGame, acted: Acted, now: datetime) -> dict[str, list[Any]]:
    """The rows the service's start and first night leave for one game."""
    state, defaults = day.states[game.id], WEREWOLF_OPTIONS.defaults()
    started = now - timedelta(hours=1)
    row = {"id": game.id, "kind": "werewolf", "guild_id": game.guild_id, "thread_id": None}
    row |= {"channel_id": game.channel_id, "status": "running", "options": dict(defaults)}
    row |= {"created_by": game.created_by, "created_at": started, "started_at": started}
    row |= {"state": state.to_dict(), "version": len(acted), "lang": LANG}
    players = [
        {"game_id": game.id, "user_id": uid, "display_name": name, "seat": seat, "locale": LANG}
        | {"role": state.roles[uid].value, "dm_failed": False, "active": True, "joined_at": started}
        for seat, (uid, name) in enumerate(game.players)
    ]
    events = [
        {"game_id": game.id, "at": started, "actor_id": actor, "kind": e.kind}
        | {"payload": e.payload(), "private_to": e.private_to}
        for batch, actor in acted
        for e in batch
    ]
    at = {"at": stamp(state)}
    reminder = day.due - timedelta(hours=float(defaults["reminder_hours"]))
    deadlines = [
        {"game_id": game.id, "guild_id": game.guild_id, "kind": kind, "due_at": due}
        | {"status": "open", "payload": at, "created_at": started}
        for kind, due in ((DAY, day.due), (DAY_REMINDER, reminder))
    ]
    count = day.counts[game.id]
    message = {"game_id": game.id, "purpose": COUNT, "channel_id": count.channel_id}
    message |= {"message_id": count.id, "user_id": 0, "created_at": started}
    return {"games": [row], "players": players, "events": events, "deadlines": deadlines} | {
        "messages": [message]
    }


TABLES = {"games": Game, "players": Player, "events": Event, "deadlines": Deadline}
TABLES |= {"messages": Message}


async def prepare_day(url: str | None, sb: Sandbox, n_games: int, players: int) -> Day:
    """The sandbox's guilds and players, each game at day 1 and its count message posted; the
    games written to ``url`` (None: the floor, which has no database, gets the same world)."""
    now = now_utc()
    day = Day(build_day(sb, n_games, players), now + timedelta(hours=24))
    rng = random.Random(1)
    rows: dict[str, list[Any]] = defaultdict(list)
    for game in day.world.games:
        state, acted = day_one(game, random.Random(rng.getrandbits(64)))
        day.states[game.id] = state
        day.counts[game.id] = post_count(day, game)
        for table, batch in game_rows(day, game, acted, now).items():
            rows[table] += batch
    if url is not None:
        await fresh_database(url)
        engine = make_engine(url, poolclass=NullPool)
        try:
            async with engine.begin() as conn:
                for table, model in TABLES.items():
                    for start in range(0, len(rows[table]), BATCH):
                        await conn.execute(insert(model), rows[table][start : start + BATCH])
        finally:
            await engine.dispose()
    return day


def plan_votes(day: Day, seconds: float, rng: random.Random) -> list[Click]:
    """Every living player's vote at a random moment of ``seconds``, round the four names and
    No elimination; a quarter vote in the first half and change to another name in the second.
    Refuses a plan in which a name could reach a majority of the living (the day would end)."""
    clicks: list[Click] = []
    for game in day.world.games:
        state = day.states[game.id]
        voters = list(state.alive)
        rng.shuffle(voters)
        names = [str(p) for p in rng.sample(voters, CANDIDATES)]
        choices, changers = [*names, "none"], round(CHANGERS * len(voters))
        ever: Counter[str] = Counter()
        for i, uid in enumerate(voters):
            first = choices[i % len(choices)]
            ever[first] += 1
            if i >= changers:
                clicks.append(Click(rng.uniform(0, seconds), game, uid, first))
                continue
            then = rng.choice([n for n in names if n != first])
            ever[then] += 1
            clicks.append(Click(rng.uniform(0, seconds / 2), game, uid, first))
            clicks.append(Click(rng.uniform(seconds / 2, seconds), game, uid, then))
        # the engine's majority (no captain): more than half the living on one name
        if any(2 * ever[n] > len(voters) for n in names):
            raise ValueError(f"game {game.id}: a majority could form; more candidates needed")
    clicks.sort(key=lambda c: c.at)
    return clicks


async def send_vote(day: Day, c: Click) -> Any:
    """``c``'s player votes on their game's count message, now: the select of the living, or
    the No elimination button."""
    sb, msg, user = day.world.sb, day.counts[c.game.id], day.world.users[c.user_id]
    if c.choice == "none":
        c.ix = await sb.click(user, msg, label=t("werewolf.count.none_label", LANG))
    else:
        c.ix = await sb.select(user, msg, values=[c.choice])
    return c.ix


async def drive_votes(day: Day, clicks: list[Click]) -> float:
    """Each vote sent at its moment, as bench.load drives its clicks; the burst's real length."""
    return await drive(clicks, partial(send_vote, day))


async def floor_ready(day: Day, bot: Any) -> None:
    """The floor is up: connected, ``ready`` logged, a probe vote answered, then idle."""
    sb = day.world.sb
    await wait_identify(sb, bot, 120)
    await sb.wait_until_connected(timeout=60)
    await wait_logged(bot, " ready: ", 60)
    game = day.world.games[0]
    end = time.monotonic() + 60
    while time.monotonic() < end:
        ix = await send_vote(day, Click(0.0, game, game.players[0][0], "none"))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(ix.reply_message(2.0), 2.0)
        if ix.answered_at is not None:
            await wait_idle(bot)
            return
    raise TimeoutError("the floor answered no vote within 60 s")


class EditTicks:
    """``--discord-edits``: every count edit the sandbox receives waits for the next tick
    (a sandbox hold rule, released and renewed every ``tick`` seconds), so a message is
    edited at most once a tick, as Discord's bucket and discord.py's wait for a 429 allow."""

    def __init__(self, sb: Sandbox, tick: float) -> None:
        self.sb, self.tick = sb, tick
        self._task: asyncio.Task[None] | None = None

    def hold(self) -> Any:
        return self.sb.hold_route("PATCH", r"^/channels/\d+/messages/\d+$", times=10**9)

    async def __aenter__(self) -> EditTicks:
        async def ticks() -> None:
            rule = self.hold()
            try:
                for _ in range(1_000_000):  # bounded; cancelled on exit
                    await asyncio.sleep(self.tick)
                    rule.release()
                    self.sb.hold_rules.remove(rule)
                    rule = self.hold()
            finally:
                rule.release()
                with contextlib.suppress(ValueError):
                    self.sb.hold_rules.remove(rule)

        self._task = asyncio.get_running_loop().create_task(ticks())
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task


def vote_stats(clicks: list[Click]) -> dict[str, Any]:
    """Acknowledgement and confirmation (the answer "…is on record") of each vote."""
    mark = confirmed_text()
    ixs = [c.ix for c in clicks if c.ix is not None]
    confirmed = [ix for ix in ixs if ix.answered_at is not None and mark in answer_text(ix)]
    others = Counter(answer_text(ix)[:100] for ix in ixs if ix not in confirmed)
    return {
        "clicks": len(clicks),
        "confirmed": len(confirmed),
        "unanswered": len(clicks) - len(confirmed),
        **latency_stats("confirm", [ix.answer_latency * 1000 for ix in confirmed]),
        **latency_stats("ack", [ix.latency * 1000 for ix in ixs if ix.latency is not None]),
        "other_answers": sorted(others.items())[:5],
    }


def sliding_max(times: list[float], window: float) -> int:
    """The most of ``times`` (sorted) within any ``window`` seconds (from one of them, the
    window's end excluded: a bucket of N per ``window``)."""
    most, start = 0, 0
    for end, at in enumerate(times):
        while at - times[start] >= window:
            start += 1
        most = max(most, end - start + 1)
    return most


def edit_stats(day: Day, requests: list[Any], clicks: list[Click], span: float) -> dict[str, Any]:
    """The count messages' PATCHes as the sandbox received them (each at the moment it took
    effect): per game, over the ``span`` seconds of the run (first vote → last answer), and
    the votes each edit carried."""
    game_of = {msg.id: gid for gid, msg in day.counts.items()}
    times: dict[int, list[float]] = {gid: [] for gid in day.counts}
    refused = 0
    for r in requests:
        if r.route == EDIT_ROUTE and int(r.path.rsplit("/", 1)[1]) in game_of:
            times[game_of[int(r.path.rsplit("/", 1)[1])]].append(r.time + r.duration)
            refused += r.status >= 400
    mark = confirmed_text()
    votes = Counter(c.game.id for c in clicks if c.ix is not None and mark in answer_text(c.ix))
    edits = [len(v) for v in times.values()]
    minutes = span / 60 if span > 0 else float("nan")
    carried = [votes[g] / len(v) for g, v in times.items() if v]
    return {
        "edits": sum(edits),
        "edits_per_game_mean": round(sum(edits) / len(edits), 1),
        "edits_per_game_max": max(edits),
        "edits_per_game_per_min_mean": round(sum(edits) / len(edits) / minutes, 1),
        "edits_per_game_per_min_max": round(max(edits) / minutes, 1),
        "edits_in_5s_max": max(sliding_max(sorted(v), 5.0) for v in times.values()),
        "votes_per_edit_mean": round(sum(carried) / len(carried), 2) if carried else 0.0,
        "edits_refused": refused,
    }


async def final_check(url: str, day: Day, clicks: list[Click]) -> dict[str, Any]:
    """Every confirmed vote in the games' final states (each player's last confirmed one),
    each day still open, each count message showing its game's final count; the outbox's
    count edits sent and dropped as superseded."""
    engine = make_engine(url, poolclass=NullPool)
    try:
        async with engine.connect() as conn:
            found = (await conn.execute(select(Game.id, Game.state))).all()
            rows = select(Outbox.status, func.count()).where(Outbox.kind == "edit")
            outbox = {k: n for k, n in await conn.execute(rows.group_by(Outbox.status))}
    finally:
        await engine.dispose()
    mark, last = confirmed_text(), dict[tuple[int, int], int | None]()
    for c in sorted(clicks, key=lambda c: c.ix.answered_at if c.ix and c.ix.answered_at else 0):
        if c.ix is not None and mark in answer_text(c.ix):
            last[(c.game.id, c.user_id)] = None if c.choice == "none" else int(c.choice)
    final = {gid: Werewolf.from_dict(state) for gid, state in found if state}
    lost = sum(1 for (g, u), v in last.items() if final[g].votes.get(u, -1) != v)
    stale = sum(
        1
        for gid, msg in day.counts.items()
        if day.world.sb.messages[msg.id].content != render.count_text(final[gid], LANG, day.due)
    )
    return {
        "recorded": len(last),
        "lost": lost,
        "days_ended": sum(1 for s in final.values() if s.phase is not Phase.DAY),
        "counts_stale": stale,
        "outbox_edits": outbox,
    }


async def side(
    url: str | None,
    tmp: Path,
    games: int,
    players: int,
    seconds: float,
    ticks: bool,
    keep_log: bool,
    profile: bool = False,
) -> dict[str, Any]:
    """One child (the bot on ``url``, or the floor) through the burst; ``ticks``: the count
    edits paced as Discord's rate limit paces them (:class:`EditTicks`)."""
    name = "floor-dayvotes" if url is None else f"bot-dayvotes{'-ticks' if ticks else ''}"
    async with Sandbox(interaction_timeout=3.0) as sb:
        day = await prepare_day(url, sb, games, players)
        spy = RESULTS / f"{name}-profile.txt" if profile and url is not None else None
        bot = await start_bot(sb, url, tmp, name, profile=spy)
        try:
            if url is None:
                await floor_ready(day, bot)
            else:
                await ready(day.world, bot, False)
            clicks = plan_votes(day, seconds, random.Random(2))
            mark, cpu0 = len(sb.requests), bot.cpu_seconds()
            paced = EditTicks(sb, EDIT_TICK) if ticks else contextlib.nullcontext()
            async with paced:
                with Quiet():
                    real = await drive_votes(day, clicks)
                    await wait_answers(clicks, timeout=sb.token_lifetime, stall=60)
                    cpu = bot.cpu_seconds() - cpu0
                    await wait_quiet(sb, 1.0, 30)
            requests = sb.requests[mark:]
            checked = {} if url is None else await final_check(url, day, clicks)
        finally:
            await bot.stop()
        if keep_log:
            bot.keep_log(RESULTS / f"bot-{name}.log")
    stats = vote_stats(clicks)
    sent = [c.ix.sent_at for c in clicks if c.ix is not None]
    done = [c.ix.answered_at for c in clicks if c.ix is not None and c.ix.answered_at]
    span = (max(done) - min(sent)) if done and sent else 0.0
    result = {
        "burst_s": round(real, 2),
        "clicks_per_s": round(len(clicks) / real, 1) if real else 0.0,
        **stats,
        "cpu_ms_per_click": round(1000 * cpu / len(clicks), 2) if clicks else 0.0,
        "unknown_interaction": sum(1 for r in requests if r.error_code == 10062),
        "rate_429": sum(1 for r in requests if r.status == 429),
        "bot_errors": bot.log().count(" ERROR "),
    }
    if url is not None:
        result |= edit_stats(day, requests, clicks, span) | checked
    return result


def ratio(bot: dict[str, Any], floor: dict[str, Any], key: str) -> float | None:
    return round(bot[key] / floor[key], 2) if floor.get(key) else None


async def run(
    games: int,
    players: int,
    rate: float,
    seconds: float | None,
    ticks: bool,
    tmp: Path,
    keep_log: bool = True,
    profile: bool = False,
) -> dict[str, Any]:
    """The floor, the bot (and with ``ticks`` the bot again, its edits paced), in turn; each
    child's log kept in bench/results/ (``keep_log``), the bot's py-spy profile with
    ``profile``."""
    clicks = round(players * (1 + CHANGERS)) * games
    burst = seconds if seconds is not None else clicks / rate
    floor = await side(None, tmp, games, players, burst, False, keep_log)
    runs = {"floor": floor}
    for paced in (False, True) if ticks else (False,):
        url = f"sqlite+aiosqlite:///{tmp / f'dayvotes{int(paced)}.sqlite3'}"
        one = await side(url, tmp, games, players, burst, paced, keep_log, profile)
        runs["bot_paced" if paced else "bot"] = one
    out: dict[str, Any] = {"games": games, "players": players, "seconds": round(burst, 2)}
    out |= {"rate": round(clicks / burst, 1), "majority_ends_day": True, **runs}
    for name in runs.keys() - {"floor"}:
        out[f"{name}_confirm_p99_ratio"] = ratio(runs[name], floor, "confirm_p99_ms")
        out[f"{name}_cpu_per_click_ratio"] = ratio(runs[name], floor, "cpu_ms_per_click")
    return out


def markdown(result: dict[str, Any]) -> str:
    """The figures as docs/performance.md shows them."""
    names = [n for n in ("floor", "bot", "bot_paced") if n in result]
    rows: list[tuple[str, Callable[[dict[str, Any]], str]]] = [
        ("votes confirmed (of the clicks)", lambda r: f"{r['confirmed']:,} of {r['clicks']:,}"),
        ("confirmation p50 / p99 ms", lambda r: f"{r['confirm_p50_ms']} / {r['confirm_p99_ms']}"),
        ("CPU ms a click", lambda r: f"{r['cpu_ms_per_click']}"),
        ("unanswered / 10062", lambda r: f"{r['unanswered']} / {r['unknown_interaction']}"),
        ("votes lost / days ended", lambda r: f"{r.get('lost', '—')} / {r.get('days_ended', '—')}"),
        (
            "count edits a game a minute: mean / max",
            lambda r: (
                f"{r.get('edits_per_game_per_min_mean', '—')} / "
                f"{r.get('edits_per_game_per_min_max', '—')}"
            ),
        ),
        ("… most edits of one message in 5 s", lambda r: f"{r.get('edits_in_5s_max', '—')}"),
        ("… votes an edit carried (mean)", lambda r: f"{r.get('votes_per_edit_mean', '—')}"),
    ]
    lines = ["| " + " | ".join(["", *names]) + " |", "|" + "---|" * (len(names) + 1)]
    lines += [
        "| " + " | ".join([label, *(cell(result[n]) for n in names)]) + " |" for label, cell in rows
    ]
    for n in names[1:]:
        lines.append(
            f"\n{n}: confirmation p99 / the floor's {result[f'{n}_confirm_p99_ratio']}, "
            f"CPU a click / the floor's {result[f'{n}_cpu_per_click_ratio']}"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.dayvotes", description=__doc__)
    parser.add_argument("--games", type=int, default=LOAD_GAMES, help="games (default 1000)")
    parser.add_argument("--players", type=int, default=PLAYERS, help="players a game (16)")
    parser.add_argument(
        "--rate", type=float, default=LOAD_RATE, help=f"clicks a second (default {LOAD_RATE:g})"
    )
    parser.add_argument("--seconds", type=float, default=None, help="the burst (default: rate)")
    parser.add_argument(
        "--discord-edits", action="store_true", help="the bot again, its count edits paced"
    )
    parser.add_argument(
        "--profile", action="store_true", help="the bot under py-spy (bench/results/*-profile.txt)"
    )
    parser.add_argument("--out", type=Path, default=None, help="JSON file (default: stdout)")
    args = parser.parse_args(argv)
    builtin_registry()  # the games' catalogues (the count's text, the menu's labels) and events
    try:
        hold(lock_file())  # one bench run at a time (bench/__main__.py); released at the exit
    except Held as held:
        print(f"another bench run ({holder(held.pid)}) holds {held.path}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="pbp-dayvotes-") as d:
        result = asyncio.run(
            run(
                args.games,
                args.players,
                args.rate,
                args.seconds,
                args.discord_edits,
                Path(d),
                True,
                args.profile,
            )
        )
    text = json.dumps(result, indent=2)
    if args.out is not None:
        args.out.write_text(text + "\n", encoding="utf-8")
    print(text)
    print("\n" + markdown(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
