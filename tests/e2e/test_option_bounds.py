"""Every number option of every command has bounds: declared to Discord (min_value/max_value),
refused by the sandbox's driver as Discord's client does, and enforced by the bot for a client
that sends them anyway. Extremes: each bound, and ±1 (and ±0.0001 for decimals) around it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from bot.bounds import shown
from playtest.players import text_of
from sandbox import SandboxError, Upload

pytestmark = pytest.mark.timeout(240)

NUMBER_TYPES = (4, 10)


def leaves(options: list[dict[str, Any]], path: str) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """(command path, its options) for every runnable (sub)command."""
    subs = [o for o in options if o["type"] in (1, 2)]
    if not subs:
        yield path, options
    for sub in subs:
        yield from leaves(sub.get("options") or [], f"{path} {sub['name']}")


def all_leaves(sb: Any, guild: Any) -> list[tuple[str, list[dict[str, Any]]]]:
    out: list[tuple[str, list[dict[str, Any]]]] = []
    for cmd in [*sb.commands(), *sb.commands(guild)]:
        if cmd.get("type", 1) == 1:
            out.extend(leaves(cmd.get("options") or [], cmd["name"]))
    return out


def filler(table: Any, opt: dict[str, Any]) -> Any:
    """A valid value for a required option the test is not about."""
    if opt.get("choices"):
        return opt["choices"][0]["value"]
    if opt["type"] in NUMBER_TYPES:
        return opt.get("min_value", 1)
    return {
        3: "x",
        5: True,
        6: table.users[0],
        7: table.channel,
        8: table.guild.everyone,
        9: table.users[0],
        11: Upload("x.txt", b"x"),
    }[opt["type"]]


def bounded(sb: Any, guild: Any) -> list[tuple[str, list[dict[str, Any]], dict[str, Any]]]:
    return [
        (path, options, opt)
        for path, options in all_leaves(sb, guild)
        for opt in options
        if opt["type"] in NUMBER_TYPES and not opt.get("choices")
    ]


def call(table: Any, options: list[dict[str, Any]], opt: dict[str, Any], value: Any) -> Any:
    given = {o["name"]: filler(table, o) for o in options if o.get("required")}
    given[opt["name"]] = value
    return given


def steps(opt: dict[str, Any]) -> list[float]:
    return [1] if opt["type"] == 4 else [1, 0.0001]


async def test_every_number_option_declares_both_bounds(table: Any, bot: Any) -> None:
    sb = table.sb
    numbers = [
        (path, opt)
        for path, options in all_leaves(sb, table.guild)
        for opt in options
        if opt["type"] in NUMBER_TYPES
    ]
    assert len(numbers) >= 20  # the hours of both games' options, card numbers, counts…
    unbounded = [
        f"/{path} {opt['name']}"
        for path, opt in numbers
        if not opt.get("choices") and ("min_value" not in opt or "max_value" not in opt)
    ]
    assert unbounded == []


async def test_the_driver_refuses_values_beyond_each_bound(table: Any, bot: Any) -> None:
    sb = table.sb
    checked = 0
    for path, options, opt in bounded(sb, table.guild):
        for step in steps(opt):
            for value in (opt["min_value"] - step, opt["max_value"] + step):
                with pytest.raises(SandboxError, match="refuses"):
                    await sb.slash(
                        table.mod, path, channel=table.channel, **call(table, options, opt, value)
                    )
                checked += 1
    assert checked >= 60, checked
    assert sb.interactions == []  # nothing reached the bot


async def test_the_bot_refuses_them_too_and_changes_nothing(table: Any, bot: Any) -> None:
    """A modified client sends out-of-bounds values: the bot answers privately and does
    nothing; at the bounds themselves, that answer never comes."""
    sb = table.sb
    sb.enforce_option_bounds = False
    before = len(sb.channel_messages(table.channel))
    for path, options, opt in bounded(sb, table.guild):
        low, high = opt["min_value"], opt["max_value"]
        for value in (low - steps(opt)[-1], high + 1):
            ix = await sb.slash(
                table.mod, path, channel=table.channel, **call(table, options, opt, value)
            )
            reply = await ix.reply_message(10)
            assert reply is not None and reply.ephemeral, (path, opt["name"], value)
            assert "must be between" in reply.text, (path, opt["name"], value, reply.text)
            assert f"{shown(low)} and {shown(high)}" in reply.text
    assert len(sb.channel_messages(table.channel)) == before
    async with bot.sessions() as s:
        from db import repo

        assert await repo.active_game_in_channel(s, table.channel.id) is None

    sb.enforce_option_bounds = True
    for path, options, opt in bounded(sb, table.guild):
        for value in (opt["min_value"], opt["max_value"]):
            ix = await sb.slash(
                table.mod, path, channel=table.channel, **call(table, options, opt, value)
            )
            message = await ix.reply_message(10)
            text = text_of(message) if message is not None else ""
            assert "must be between" not in text, (path, opt["name"], value)
            # Whatever a command then did, start each one from an empty channel again.
            if "resistance new" in path or "refutation new" in path:
                await sb.slash(table.mod, path.split()[0] + " cancel", channel=table.channel)


async def test_french_answer_for_an_out_of_bounds_value(table: Any, bot: Any) -> None:
    sb = table.sb
    sb.enforce_option_bounds = False
    chloe = next(u for u in table.users if u.locale == "fr")
    ix = await sb.slash(chloe, "refutation card", channel=table.channel, number=0)
    reply = await ix.reply_message(10)
    assert reply is not None and reply.ephemeral
    # named as she sees the parameter (/réfutation carte numéro:…), numbers written the French
    # way (U+202F between thousands)
    assert "numéro doit être entre 1 et 1\u202f000\u202f000 (vous avez donné 0)" in reply.text
