"""Whether a volunteer of the replacement list can still answer: a DM the bot can send, a
member of the game's server.

Discord refuses a DM (403, 50007) to a user whose DMs are closed and to one who shares no
server with the bot any more; the bot has no members intent, so whether someone is still a
member is asked of Discord (a member that is not there is 404, Unknown Member). A volunteer who
cannot answer never holds a seat up: ``standby`` probes the DM first (as ``start`` does), an
offer Discord refuses passes at once to the next volunteer, and a volunteer who left the server
is refused the seat, which passes on.
"""

from __future__ import annotations

import logging

import discord

from bot.courier import Courier

log = logging.getLogger(__name__)

#: The view of a seat's offer (Accept / Decline, cogs/lobby.py): its args are the game's kind,
#: the game, the offer's deadline and the volunteer's language.
OFFER_VIEW = "standby_offer"


async def can_dm(courier: Courier, user_id: int, probe: str) -> bool:
    """Send ``probe`` by DM: whether Discord took it (the probe of ``start``)."""
    return await courier.dm(user_id, probe) is not None


async def is_member(courier: Courier, guild_id: int, user_id: int) -> bool:
    """Whether ``user_id`` is still a member of ``guild_id``; a failure to ask (Discord out
    of reach, the server unknown here) is taken as yes: the seat's own DMs tell then."""
    guild = courier.client.get_guild(guild_id)
    if guild is None:
        return True
    try:
        await guild.fetch_member(user_id)
    except discord.NotFound:
        return False
    except discord.HTTPException as exc:
        log.warning("could not tell whether user %s is a member of %s: %s", user_id, guild_id, exc)
    return True
