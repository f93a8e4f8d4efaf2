"""Enforced nonces (as Discord: the same author and nonce within a few minutes returns the
first message) and held requests (to kill a client between Discord's work and its answer)."""

from __future__ import annotations

import asyncio
from typing import Any

import aiohttp

from sandbox import Sandbox


async def post(sb: Sandbox, channel_id: int, body: dict[str, Any]) -> tuple[int, Any]:
    async with (
        aiohttp.ClientSession(headers={"Authorization": f"Bot {sb.token}"}) as http,
        http.post(f"{sb.api_base}/channels/{channel_id}/messages", json=body) as r,
    ):
        return r.status, await r.json()


async def test_an_enforced_nonce_returns_the_first_message(sb: Sandbox) -> None:
    channel = sb.add_guild("G").add_text_channel("c")
    _, first = await post(sb, channel.id, {"content": "a", "nonce": "n1", "enforce_nonce": True})
    _, again = await post(sb, channel.id, {"content": "a", "nonce": "n1", "enforce_nonce": True})
    _, loose = await post(sb, channel.id, {"content": "a", "nonce": "n1"})
    assert again["id"] == first["id"] and loose["id"] != first["id"]
    assert [m.content for m in sb.channel_messages(channel)] == ["a", "a"]
    sb.message(int(first["id"])).deleted = True
    status, body = await post(
        sb, channel.id, {"content": "a", "nonce": "n1", "enforce_nonce": True}
    )
    assert status == 404 and body["code"] == 10008


async def test_a_held_request_waits_and_can_be_dropped(sb: Sandbox) -> None:
    channel = sb.add_guild("G").add_text_channel("c")
    hold = sb.hold_route("POST", rf"/channels/{channel.id}/messages$")
    task = asyncio.create_task(post(sb, channel.id, {"content": "x"}))
    await hold.wait_hit()
    assert sb.channel_messages(channel) == []
    hold.release(drop=True)
    status, _ = await task
    assert status == 503 and sb.channel_messages(channel) == []
    after = sb.hold_route("POST", rf"/channels/{channel.id}/messages$", after=True)
    task = asyncio.create_task(post(sb, channel.id, {"content": "y"}))
    await after.wait_hit()
    assert [m.content for m in sb.channel_messages(channel)] == ["y"]  # done, answer held
    after.release()
    status, _ = await task
    assert status == 200
