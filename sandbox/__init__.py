"""A local Discord emulator (REST API v10 + gateway over loopback) for discord.py bots.

See ``sandbox/README.md``. Typical use::

    async with Sandbox() as sb:
        point_discord_at(sb.api_base, sb.gateway_url)
        guild = sb.add_guild("Guild")
        ...
"""

from .core import Sandbox, SandboxError
from .models import (
    Channel,
    Guild,
    Interaction,
    Member,
    Message,
    Overwrite,
    RequestRecord,
    Role,
    Upload,
    User,
)

__all__ = [
    "Channel",
    "Guild",
    "Interaction",
    "Member",
    "Message",
    "Overwrite",
    "RequestRecord",
    "Role",
    "Sandbox",
    "SandboxError",
    "Upload",
    "User",
]
