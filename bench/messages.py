"""``python -m bench.messages``: what the message events cost the bot (bot/activity.py).

G games of 10 players in the vote phase (the load scenario's world, bench/load.py), each game's
players members of its server, and G other channels beside the game channels. Phase 1: posts at
``--rate`` per second for ``--seconds``, half in the game channels (by their players), half in
the others; the child's CPU per post. Phase 2: the same posts while every player votes (the
load scenario's clicks); the votes' confirmation p99. Each on the bot (SQLite) and on the floor
(bench/floor.py: a bare discord.py client that receives the same events), in the same run: the
bot's figures as ratios of the floor's. Then the posts the bot wrote (``activity``) against
those its players made, and the transactions that wrote them: a post has none of its own.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.pool import NullPool

from bench.load import (
    World,
    click_stats,
    drive_clicks,
    plan_clicks,
    prepare_world,
    ready,
    start_bot,
    wait_answers,
    wait_idle,
)
from bot.activity import FLUSH_SECONDS
from db.engine import make_engine
from db.models import Activity
from games.builtin import builtin_registry
from sandbox import Sandbox


@dataclass(frozen=True)
class Post:
    at: float
    user: Any
    channel: Any
    counted: bool  # by a player in their game's channel


def members_and_others(world: World) -> list[tuple[Any, Any]]:
    """Each game's players made members of its server; beside each game channel another one
    of its server (no game there). (game channel, other channel) per game."""
    pairs = []
    for game in world.games:
        channel = world.channels[game.id]
        guild = channel.guild
        for uid, _ in game.players:
            guild.add_member(world.users[uid])
        pairs.append((channel, guild.add_text_channel(f"chat-{game.id}")))
    return pairs


def plan_posts(
    world: World, pairs: list[tuple[Any, Any]], rate: float, seconds: float, rng: random.Random
) -> list[Post]:
    """``rate × seconds`` posts at random moments: each by a random player of a random game,
    in its game's channel or (every other one) in the other channel beside it."""
    posts = []
    for n in range(int(rate * seconds)):
        i = rng.randrange(len(world.games))
        uid, _ = rng.choice(world.games[i].players)
        in_game = n % 2 == 0
        channel = pairs[i][0 if in_game else 1]
        posts.append(Post(rng.uniform(0, seconds), world.users[uid], channel, in_game))
    return sorted(posts, key=lambda p: p.at)


async def drive_posts(sb: Sandbox, posts: list[Post]) -> float:
    """Each post sent at its moment; the real length of the run."""
    loop = asyncio.get_running_loop()
    t0 = loop.time()
    for p in posts:
        await asyncio.sleep(max(0.0, t0 + p.at - loop.time()))
        await sb.say(p.user, p.channel, "a post")
    return loop.time() - t0


async def written(url: str) -> tuple[int, int]:
    """(rows, posts) of the ``activity`` table."""
    engine = make_engine(url, poolclass=NullPool)
    try:
        async with engine.connect() as conn:
            row = (await conn.execute(select(func.count(), func.sum(Activity.posts)))).one()
    finally:
        await engine.dispose()
    return int(row[0]), int(row[1] or 0)


async def side(
    url: str | None, tmp: Path, games: int, rate: float, seconds: float, during: bool
) -> Any:
    """One child (the bot on ``url``, or the floor): both phases (the posts of the second
    only if ``during``)."""
    name = "floor-messages" if url is None else "bot-messages"
    async with Sandbox(interaction_timeout=3.0) as sb:
        world = await prepare_world(url, sb, games, seed=1)
        pairs = members_and_others(world)
        bot = await start_bot(sb, url, tmp, name)
        try:
            await ready(world, bot, url is None)
            posts = plan_posts(world, pairs, rate, seconds, random.Random(1))
            cpu0 = bot.cpu_seconds()
            real = await drive_posts(sb, posts)
            await wait_idle(bot, timeout=30)
            cpu = bot.cpu_seconds() - cpu0
            clicks = plan_clicks(world, seconds, mission=False, rng=random.Random(2))
            again = plan_posts(world, pairs, rate if during else 0, seconds, random.Random(3))
            await asyncio.gather(drive_posts(sb, again), drive_clicks(world, clicks))
            await wait_answers(clicks, timeout=60)
        finally:
            await bot.stop()
    stats = click_stats(clicks)
    result = {
        "posts": len(posts),
        "posts_per_s": round(len(posts) / real, 1),
        "cpu_us_per_post": round(1e6 * cpu / len(posts), 1),
        "clicks": stats["clicks"],
        "confirmed": stats["confirmed"],
        "confirm_p99_ms": stats["confirm_p99_ms"],
    }
    if url is not None:
        rows, counted = await written(url)
        result |= {
            "player_posts_in_games": sum(p.counted for p in posts + again),
            "activity_rows": rows,
            "activity_posts": counted,
        }
    return result


async def run(games: int, rate: float, seconds: float, during: bool) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="pbp-messages-") as d:
        tmp = Path(d)
        floor = await side(None, tmp, games, rate, seconds, during)
        url = f"sqlite+aiosqlite:///{tmp / 'bench.sqlite3'}"
        bot = await side(url, tmp, games, rate, seconds, during)
    return {
        "posts_during_votes": during,
        "games": games,
        "other_channels": games,
        "rate": rate,
        "seconds": seconds,
        "flush_seconds": FLUSH_SECONDS,
        "floor": floor,
        "bot": bot,
        "cpu_per_post_ratio": round(bot["cpu_us_per_post"] / floor["cpu_us_per_post"], 2),
        "confirm_p99_ratio": round(bot["confirm_p99_ms"] / floor["confirm_p99_ms"], 2),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.messages", description=__doc__)
    parser.add_argument("--games", type=int, default=50, help="game channels (default 50)")
    parser.add_argument("--rate", type=float, default=100.0, help="posts a second (default 100)")
    parser.add_argument("--seconds", type=float, default=10.0, help="each phase (default 10)")
    parser.add_argument(
        "--quiet-votes", action="store_true", help="no posts while the players vote (phase 2)"
    )
    args = parser.parse_args(argv)
    builtin_registry()  # the games' catalogues (the vote DMs' labels) and events
    result = asyncio.run(run(args.games, args.rate, args.seconds, not args.quiet_votes))
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
