"""The token checked before the bot starts, as discord.py's login checks it.

``Client.login`` also asks for the application and runs the client's ``setup_hook``; the bot
checks its token before it touches the database, with discord.py's own ``GET /users/@me``:
``discord.http.HTTPClient.static_login`` (an undocumented module), on a client of its own.
"""

from __future__ import annotations

import asyncio

import discord.http


async def static_login(token: str) -> None:
    """Log in with ``token`` and close: raises what discord.py's login raises
    (``LoginFailure`` for a refused token, aiohttp's errors for an endpoint out of reach)."""
    http = discord.http.HTTPClient(asyncio.get_running_loop())
    try:
        await http.static_login(token)
    finally:
        await http.close()
