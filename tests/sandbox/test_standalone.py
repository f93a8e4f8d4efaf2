"""``python -m sandbox`` serves a demo guild and prints the config that points a bot at it."""

from __future__ import annotations

import asyncio
import re
import sys

import aiohttp
import pytest

pytestmark = pytest.mark.timeout(30)


async def test_python_m_sandbox_serves_a_demo_guild() -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "sandbox",
        "--port",
        "0",
        "--token",
        "demo-token",
        "--quiet",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    try:
        assert proc.stdout is not None
        out = ""
        while "[DMs closed]" not in out:
            line = await asyncio.wait_for(proc.stdout.readline(), 20)
            assert line, out
            out += line.decode()
        api_base = re.search(r'api_base = "([^"]+)"', out)
        assert api_base is not None and 'gateway_url = "ws://127.0.0.1:' in out
        assert 'token = "demo-token"' in out and "#games" in out
        async with aiohttp.ClientSession() as session:
            async with session.get(api_base.group(1) + "/gateway") as resp:
                assert resp.headers["Content-Type"] == "application/json"
                assert (await resp.json())["url"].startswith("ws://127.0.0.1:")
            async with session.get(api_base.group(1) + "/users/@me") as resp:
                assert resp.status == 401
            headers = {"Authorization": "Bot demo-token"}
            async with session.get(api_base.group(1) + "/users/@me", headers=headers) as resp:
                assert resp.status == 200 and (await resp.json())["bot"] is True
                assert resp.headers["X-RateLimit-Bucket"]
    finally:
        proc.terminate()
        await proc.wait()
