"""What changed on Discord while the bot was offline: games whose place or server is gone.

Discord sends no event for what happened while the bot was not connected, so the first
``on_ready`` of a process looks, for every lobby or running game of the guilds this process's
shards own:

- the guild is absent from what READY listed (discord.py keeps every guild of READY, those that
  are down as ``guild.unavailable``): the bot was removed from it → the game is cancelled;
  an unavailable guild is an outage, its games are left alone;
- the game's place (its channel, the thread it was opened in, or its forum post) is not in the
  cache: GUILD_CREATE gives every channel, but only the active threads the bot can see, so the
  place is fetched once; 404 Unknown Channel (10003) → deleted, the game is cancelled; 403 or
  any other error → kept, logged (a permission or an outage is not a deletion).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

import discord
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.i18n import counted
from db import repo

log = logging.getLogger(__name__)

UNKNOWN_CHANNEL = 10003


@dataclass(frozen=True)
class Gone:
    """A game to cancel: ``reason`` names the catalogue message its creator gets
    (``common.lifecycle.<reason>``), ``where`` the place it names."""

    game_id: int
    kind: str
    reason: str
    where: str


async def gone_while_offline(
    client: discord.Client,
    sessions: async_sessionmaker[AsyncSession],
    owns: Callable[[int], bool],
) -> list[Gone]:
    """The games of this process's guilds whose server or place went away while it was
    offline (see the module docstring); call once READY's guilds are known."""
    async with sessions() as s:
        places = await repo.active_game_places(s)
    gone: list[Gone] = []
    for game_id, kind, guild_id, place_id in places:
        if not owns(guild_id):
            continue
        guild = client.get_guild(guild_id)
        where = f"<#{place_id}>"
        if guild is None:
            gone.append(Gone(game_id, kind, "bot_removed_offline", where))
        elif guild.unavailable or guild.get_channel_or_thread(place_id) is not None:
            continue  # an outage (the guild comes back), or the place is there
        elif await deleted(client, place_id):
            gone.append(Gone(game_id, kind, "place_deleted", where))
    if gone:
        log.info("%s lost their place while the bot was offline", counted(len(gone), "game"))
    return gone


async def deleted(client: discord.Client, place_id: int) -> bool:
    """Whether Discord says the (uncached) channel or thread no longer exists: only Unknown
    Channel says so."""
    try:
        await client.fetch_channel(place_id)
    except discord.NotFound as exc:
        if exc.code == UNKNOWN_CHANNEL:
            return True
        log.warning("place %s: 404 (%s) at start, kept", place_id, exc.code)
    except discord.HTTPException as exc:
        log.warning("place %s: %s (%s) at start, kept", place_id, exc.status, exc.code)
    return False
