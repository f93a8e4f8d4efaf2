"""The floor: a bare discord.py client that answers the bench's clicks like the bot, and no more.

``python -m bench.floor --config <the bench's config>`` connects to the same sandbox as the bot
would, with the same intents and caches, and answers every click on a vote button
(``rs:vote:<game>:<proposal>:<choice>``; Werewolf's day vote, the select of the living
``choice:ww_vote:<game>:<day>`` and the No elimination button ``ww:none:<game>:<day>``: each
matched by a ``DynamicItem`` through discord.py's own dispatch, as the bot's are) with the call
the bot makes for a fast click: one ephemeral callback of
type 4 (CHANNEL_MESSAGE_WITH_SOURCE) carrying the answer (cogs/interaction.py answers so whenever
its service call ends within its budget; a slower one is deferred, then followed up). No database,
no game logic: what discord.py itself costs on this machine, the floor the bot's figures are divided
by. With ``[metrics] port`` it serves the bot's ``/metrics`` (bot/metrics.py), for its event loop's
lag: what the bench reads of each party in a capacity step."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import logging
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import discord

from adapters.discord_endpoints import point_discord_at
from bot import metrics
from bot.config import MetricsSettings, load_settings
from bot.english import counted

log = logging.getLogger("bench.floor")

# As long as the bot's answer to a team vote ("On record: Accept ..."), for the same payload.
ANSWER = "On record — your vote: **Accept**.\nYou can change your choices until the deadline."
# As long as the bot's answer to a Werewolf day vote (werewolf.vote.done), for a player's name.
DAY_VOTE_ANSWER = "Your vote of day 1 is on record: **g1p10**."


class FloorVote(
    discord.ui.DynamicItem[discord.ui.Item[Any]],
    template=(
        r"rs:vote:\d+:\d+:(?:accept|reject|support|sabotage)"
        r"|(?P<day>ww:none|choice:ww_vote):\d+:\d+"
    ),
):
    """The bot's vote buttons and menu (the Resistance's buttons; Werewolf's select of the
    living and its No elimination button), without the bot behind them."""

    def __init__(self, item: discord.ui.Item[Any], answer: str) -> None:
        super().__init__(item)
        self.answer = answer

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> FloorVote:
        # The clicked item as discord.py rebuilt it from the message, as the bot's items are.
        return cls(item, DAY_VOTE_ANSWER if match["day"] else ANSWER)

    async def callback(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(self.answer, ephemeral=True)


class FloorClient(discord.Client):
    def __init__(self, served: MetricsSettings | None = None) -> None:
        self.served = served
        self.metrics_server: metrics.MetricsServer | None = None
        intents = discord.Intents.default()
        intents.message_content = False
        super().__init__(
            intents=intents,
            allowed_mentions=discord.AllowedMentions.none(),
            max_messages=None,
            chunk_guilds_at_startup=False,
            member_cache_flags=discord.MemberCacheFlags.none(),
        )

    async def setup_hook(self) -> None:
        self.add_dynamic_items(FloorVote)
        if self.served is not None and self.served.port:
            self.metrics_server = metrics.MetricsServer(self, self.served.host, self.served.port)
            await self.metrics_server.start()

    async def close(self) -> None:
        if self.metrics_server is not None:
            await self.metrics_server.stop()
        await super().close()

    async def on_ready(self) -> None:
        # As the bot does (bot/app.py): what start-up loaded stays out of the cyclic GC's full
        # collections, so the floor's p99, the divisor, does not carry pauses the bot avoids.
        gc.collect()
        gc.freeze()
        log.info("floor ready: %s", counted(len(self.guilds), "guild"))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.floor")
    parser.add_argument("--config", type=Path, required=True)
    args = parser.parse_args(argv)
    settings = load_settings(args.config, env={})
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    point_discord_at(settings.discord.api_base, settings.discord.gateway_url)

    async def run() -> None:
        async with FloorClient(settings.metrics) as client:
            await client.start(settings.discord.token)

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(run())
    return 0


if __name__ == "__main__":
    sys.exit(main())
