"""Point discord.py at a Discord-compatible endpoint (a REST proxy, or the sandbox).

The one place that changes where discord.py connects; used by the ``[discord] api_base`` /
``gateway_url`` configuration and by the tests. Without a call, discord.py talks to Discord.
"""

from __future__ import annotations

import discord.gateway
import discord.http
import yarl

DISCORD_API_BASE = "https://discord.com/api/v10"
DISCORD_GATEWAY_URL = "wss://gateway.discord.gg/"


def point_discord_at(api_base: str, gateway_url: str) -> None:
    """Send every REST call (including interaction callbacks and webhooks) to ``api_base``
    (e.g. ``http://127.0.0.1:8765/api/v10``) and open the gateway at ``gateway_url``.

    ``AutoShardedClient`` without a shard count asks ``GET /gateway/bot`` for the URL, which the
    endpoint answers itself; with a fixed shard count it uses ``DEFAULT_GATEWAY``, set here.
    """
    base = api_base.rstrip("/")
    # discord.webhook.async_ builds its URLs with discord.http.Route too, so Route.BASE covers
    # interaction callbacks, followups and webhook messages.
    discord.http.Route.BASE = base
    webhook_route = getattr(discord.webhook.async_, "Route", None)
    if webhook_route is not None and webhook_route is not discord.http.Route:
        webhook_route.BASE = base  # pragma: no cover - only if discord.py ever splits them
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url)


def reset_discord_endpoints() -> None:
    """Back to Discord's own endpoints."""
    point_discord_at(DISCORD_API_BASE, DISCORD_GATEWAY_URL)
