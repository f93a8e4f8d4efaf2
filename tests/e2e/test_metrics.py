"""The Prometheus endpoint ([metrics] port): names and labels, /healthz, and that the real bot's
clicks, votes, deadlines, answers and 429s move the counters (through the sandbox)."""

from __future__ import annotations

import gc
import socket
from dataclasses import replace
from typing import Any

import aiohttp
import pytest
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import func, select

from bot import metrics
from bot.app import GameBot
from bot.cli import read_settings
from bot.config import MetricsSettings
from bot.metrics import REGISTRY, MetricsServer, click_kind
from db.engine import make_engine
from db.models import Outbox
from games.builtin import builtin_plugins, builtin_registry
from games.resistance.players import RESULT_MARKERS, Game
from tests.e2e.test_deadlines import game_id
from tests.harness import running_bot, sandbox_settings

GAMES = builtin_registry()

pytestmark = pytest.mark.timeout(120)

# name -> the labels of its samples (histograms: besides "le")
EXPECTED = {
    "pbp_interaction_ack_seconds": set(),
    "pbp_vote_confirm_seconds": {"game"},
    "pbp_clicks": {"kind"},
    "pbp_votes_recorded": {"game", "kind"},
    "pbp_vote_batch_size": set(),
    "pbp_group_commit_busy_seconds": set(),
    "pbp_deadlines_due": {"kind"},
    "pbp_deadlines_resolved": {"kind"},
    "pbp_deadline_lateness_seconds": {"kind"},
    "pbp_effects_pending": set(),
    "pbp_effect_delivery_failures": set(),
    "pbp_discord_rate_limited": {"scope"},
    "pbp_event_loop_lag_seconds": set(),
    "pbp_gc_pause_seconds": {"generation"},
    "pbp_ready": set(),
}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def get(port: int, path: str) -> tuple[int, str]:
    async with (
        aiohttp.ClientSession() as http,
        http.get(f"http://127.0.0.1:{port}{path}") as response,
    ):
        return response.status, await response.text()


async def scrape(port: int) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """Every sample of /metrics: (sample name, its labels) -> value."""
    status, text = await get(port, "/metrics")
    assert status == 200
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


async def names_and_labels(port: int) -> set[str]:
    """Every expected metric is exposed, each sample with exactly its labels; returns the
    names that have labelled samples."""
    status, text = await get(port, "/metrics")
    assert status == 200
    families = {f.name: f for f in text_string_to_metric_families(text)}
    labelled = set()
    for name, labels in EXPECTED.items():
        assert name in families, name
        for sample in families[name].samples:
            assert set(sample.labels) - {"le"} == labels, (name, sample.name, sample.labels)
            if labels:
                labelled.add(name)
    return labelled


async def delivered(bot: GameBot, game_id: int) -> None:
    """Until the outbox has finished every row the game has (the post shows before its row is
    marked done): the dispatcher's own wait, up to the game's last row."""
    async with bot.sessions() as s:
        last = await s.scalar(select(func.max(Outbox.seq)).where(Outbox.game_id == game_id))
    assert last is not None
    assert await bot.dispatcher.delivered(game_id, last, 10)


def moved(now: dict[Any, float], then: dict[Any, float], name: str, **labels: str) -> float:
    """How much a sample grew between two scrapes."""
    return value(now, name, **labels) - value(then, name, **labels)


def value(samples: dict[Any, float], name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def test_metrics_port_in_the_config(tmp_path: Any) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[metrics]\nport = 9108\nhost = "0.0.0.0"\n', encoding="utf-8")
    settings = read_settings(GAMES, path, env={})
    assert settings.metrics == MetricsSettings(port=9108, host="0.0.0.0")
    assert read_settings(GAMES, None, env={}).metrics.port == 0  # no endpoint unless asked
    path.write_text("[metrics]\nport = 70000\n", encoding="utf-8")
    with pytest.raises(Exception, match=r"\[metrics\] port"):
        read_settings(GAMES, path, env={})


def test_each_garbage_collection_is_timed_by_generation() -> None:
    metrics.instrument()
    metrics.instrument()  # once: not two timers

    def count(generation: int) -> float:
        labels = {"generation": str(generation)}
        return REGISTRY.get_sample_value("pbp_gc_pause_seconds_count", labels) or 0.0

    for generation in (0, 2):
        before = count(generation)
        gc.collect(generation)
        # at least this one (reading the registry allocates: a young collection may follow)
        assert before + 1 <= count(generation) <= before + 3


def test_click_kind_is_the_custom_id_prefix() -> None:
    assert click_kind("rs:vote:12:3:accept") == "rs:vote"
    assert click_kind("lobby:join:5") == "lobby:join"
    assert click_kind("") == "other"


async def test_healthz_answers_503_until_the_bot_is_ready(sb: Any, tmp_path: Any) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'idle.sqlite3'}"
    engine = make_engine(url)
    bot = GameBot(sandbox_settings(sb, url), engine, plugins=builtin_plugins())  # not started
    server = MetricsServer(bot, "127.0.0.1", 0)
    await server.start()
    try:
        assert server.port != 0
        assert await get(server.port, "/healthz") == (503, "starting\n")
        samples = await scrape(server.port)
        assert value(samples, "pbp_ready") == 0
    finally:
        await server.stop()
        await engine.dispose()


async def test_metrics_names_labels_and_a_click_moves_them(table: Any, sb: Any) -> None:
    port = free_port()
    settings = replace(sandbox_settings(sb, table.url()), metrics=MetricsSettings(port=port))
    async with running_bot(sb, table.url(), settings=settings) as bot:
        assert await get(port, "/healthz") == (200, "ok\n")
        await names_and_labels(port)
        before = await scrape(port)

        game = Game(table, table.users[:5])
        await game.open(lock_during_vote=False, reminder_hours=0.0, vote_hours=4 / 3600)
        await game.start()
        leader = game.leader()
        team = [leader, next(u for u in game.players if u is not leader)]
        await game.propose(team)
        # One click: a vote on record.
        assert "On record" in await game.click(game.players[1], "accept")
        after = await scrape(port)
        assert moved(after, before, "pbp_clicks_total", kind="rs:vote") == 1
        assert moved(after, before, "pbp_votes_recorded_total", game="resistance", kind="team") == 1
        assert moved(after, before, "pbp_vote_confirm_seconds_count", game="resistance") == 1
        # Every interaction's first callback is timed (the commands and the Join clicks too).
        acks = value(after, "pbp_interaction_ack_seconds_count")
        assert acks >= value(before, "pbp_interaction_ack_seconds_count") + 1 + 1 + 5 + 1 + 1
        assert value(after, "pbp_vote_batch_size_count") > value(
            before, "pbp_vote_batch_size_count"
        )
        assert moved(after, before, "pbp_group_commit_busy_seconds_total") > 0  # time in the writer
        # The vote's deadline falls due (4 s) and is resolved, a little late; the result post
        # meets one 429 first (discord.py waits and retries).
        sb.fail_route("POST", r"/channels/\d+/messages", status=429, retry_after=0.05)
        await game.new_public(0, *RESULT_MARKERS, timeout=20)
        await delivered(bot, await game_id(bot, table.channel.id))
        done = await scrape(port)
        assert moved(done, before, "pbp_deadlines_due_total", kind="rs_vote") == 1
        assert moved(done, before, "pbp_deadlines_resolved_total", kind="rs_vote") == 1
        assert moved(done, before, "pbp_deadline_lateness_seconds_count", kind="rs_vote") == 1
        assert moved(done, before, "pbp_discord_rate_limited_total", scope="api") >= 1
        assert value(done, "pbp_effects_pending") == 0  # every effect delivered
        assert value(done, "pbp_event_loop_lag_seconds_count") > 0
        assert value(done, "pbp_ready") == 1
        labelled = await names_and_labels(port)
        assert labelled >= {"pbp_clicks", "pbp_votes_recorded", "pbp_deadlines_resolved"}
