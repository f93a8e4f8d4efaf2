"""Where a game's public messages go, and the messages every game posts the same way."""

from __future__ import annotations

from bot.effects import Attachment, DebateLock, Post
from bot.i18n import first_defined
from db.models import Game, Player


def where(game: Game) -> int:
    """The channel or forum post where the game's public messages go."""
    return game.thread_id or game.channel_id


def link(game: Game) -> str:
    """A link to the game's channel or post that works from a DM."""
    return f"https://discord.com/channels/{game.guild_id}/{where(game)}"


def announce(game: Game, text: str, *, mention: int | None = None) -> Post:
    """A public message where the game lives; ``mention``: the one member it calls to act
    (pinged; a ``<@id>`` of anyone else in it never pings)."""
    return Post(where(game), text, mention=mention)


def debate_lock(game: Game, players: list[Player], *, lock: bool) -> DebateLock:
    """Close (or reopen) the debate: lock the thread or forum post the game lives in, or
    deny Send Messages to the players in its text channel (restoring what was there)."""
    return DebateLock(where(game), tuple(p.user_id for p in players), lock)


def archive_post(game: Game) -> Post:
    """A post with the game's record attached (the end of a game, a cancellation): its
    words are the game's own (``<kind>.archive.posted``), else the common ones."""
    keys = (f"{game.kind}.archive.posted", "archive.posted")
    text = first_defined(keys, game.lang) or ""
    return Post(where(game), text, files=(Attachment("record", (game.id, game.lang)),))
