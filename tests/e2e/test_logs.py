"""At any log level the bot's log holds no role, secret choice, hand or interaction token."""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

import pytest

from games.refutation.players import RfGame
from games.resistance.players import Game
from playtest.players import text_of
from tests.harness import running_bot, sandbox_settings

pytestmark = pytest.mark.timeout(120)


def bot_log(caplog: Any) -> tuple[int, str]:
    """How many records the bot's process logged, and their text (the sandbox, which plays
    Discord in this process, is not the bot)."""
    records = [r for r in caplog.records if not r.name.startswith("sandbox")]
    text = "\n".join(
        r.getMessage() + (logging.Formatter().formatException(r.exc_info) if r.exc_info else "")
        for r in records
    )
    return len(records), text


async def play_with_secrets(table: Any, settings: Any) -> tuple[list[str], list[str]]:
    """A round of The Resistance with a sabotage and the start of a Refutation game, at DEBUG.
    Returns the secrets the bot handled (role DMs, hand DMs) and the interaction tokens."""
    sb = table.sb
    async with running_bot(sb, table.url(), settings=settings):
        game = Game(table, table.users[:5])
        await game.open(lock_during_vote=False)
        await game.start()
        spy = game.spies()[0]
        leader = game.leader()
        team = [leader, spy] if leader is not spy else [spy, game.resistance()[0]]
        await game.propose(team)
        await game.vote(accept=game.players)
        await game.vote(sabotage=[spy], support=[u for u in team if u is not spy])
        await game.resolve()
        await game.slash(spy, "resistance role")
        rf = RfGame(table, table.users[5:8], table.guild.add_text_channel("refutation"))
        await rf.open()
        await rf.start()
        secrets = [
            text_of(m)
            for u in game.players
            for m in sb.dms(u)
            if "You are" in m.text or "Vous incarnez" in m.text
        ]
        secrets += [
            text_of(m)
            for u in rf.players
            for m in sb.dms(u)
            if "Your hand" in m.text or "Votre main" in m.text
        ]
    tokens = [ix.token for ix in sb.interactions]
    assert len(secrets) == 5 + 3 and tokens
    return secrets, tokens


async def test_debug_logs_hold_no_role_choice_hand_or_token(table: Any, caplog: Any) -> None:
    caplog.set_level(logging.DEBUG)
    secrets, tokens = await play_with_secrets(table, sandbox_settings(table.sb, table.url()))
    count, text = bot_log(caplog)
    bot_levels = {r.levelname for r in caplog.records if not r.name.startswith("sandbox")}
    assert count and "DEBUG" in bot_levels  # the bot logged at DEBUG
    assert "sabotage" not in text.lower()
    for secret in secrets:
        for line in secret.splitlines():
            if len(line) > 12:  # a role or a card: long enough not to be a common word
                assert line not in text, line
    for token in tokens:
        assert token not in text


async def test_discord_debug_flag_lets_the_library_log_its_payloads(
    table: Any, caplog: Any
) -> None:
    """The documented flag does switch discord.py's DEBUG output on (and that output does hold
    the interaction tokens: the reason it is off by default)."""
    caplog.set_level(logging.DEBUG)
    settings = replace(sandbox_settings(table.sb, table.url()), discord_debug=True)
    _, tokens = await play_with_secrets(table, settings)
    _, text = bot_log(caplog)
    assert any(token in text for token in tokens)
    logging.getLogger("discord").setLevel(logging.INFO)
    logging.getLogger("aiosqlite").setLevel(logging.INFO)


async def test_a_rate_limited_interaction_callback_logs_no_token(table: Any, caplog: Any) -> None:
    """A rate-limited interaction callback is said in the log, by the bot's own call
    (adapters/discord_callback.py) and then by discord.py's retry (whose URL holds the interaction's
    token): the warnings are in the log, the token is not."""
    caplog.set_level(logging.INFO)
    sb = table.sb
    async with running_bot(sb, table.url()):
        sb.fail_route("POST", r"/interactions/\d+/[^/]+/callback$", status=429, times=2)
        ix = await sb.slash(table.users[0], "resistance status", channel=table.channel)
        assert await ix.reply(10)
    _, text = bot_log(caplog)
    assert "its callback is rate limited (429)" in text  # the bot's call
    assert "is rate limited. Retrying" in text  # discord.py's
    assert ix.token not in text


def test_a_url_token_is_redacted_in_any_discord_record() -> None:
    """The filter on discord.py's URL-writing loggers (discord.http warns with the URL of a
    rate-limited request)."""
    from bot.app import RedactTokens

    record = logging.LogRecord(
        "discord.http",
        logging.WARNING,
        __file__,
        1,
        "We are being rate limited. %s %s responded with 429.",
        ("POST", "https://discord.com/api/v10/interactions/123/aW50ZXJhY3Rpb24.abc-_x/callback"),
        None,
    )
    assert RedactTokens().filter(record)
    assert record.getMessage() == (
        "We are being rate limited. POST https://discord.com/api/v10/interactions/123/<token>"
        "/callback responded with 429."
    )
    webhook = logging.LogRecord(
        "discord.webhook.async_",
        logging.DEBUG,
        __file__,
        1,
        "PATCH /webhooks/9/tok3n/messages/@original",
        (),
        None,
    )
    RedactTokens().filter(webhook)
    assert webhook.getMessage() == "PATCH /webhooks/9/<token>/messages/@original"
