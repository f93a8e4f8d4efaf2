"""The words every service speaks: who acts (``Actor``), what an action decided (``Outcome``,
its effects) and the private answer richer than text (``Reply``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import discord

from bot.effects import Record
from bot.errors import UserError
from bot.i18n import Lang, lang_of
from bot.names import clean

# What a service decides: effect records (bot.effects; lists of them are flattened), and
# in-process steps to run once the transaction has committed (e.g. an early close).
AfterCommit = Callable[[], Awaitable[Any]]
Effect = Record | AfterCommit | list[Any]


def flatten(effects: Iterable[Any]) -> list[Any]:
    out: list[Any] = []
    for effect in effects:
        if isinstance(effect, list | tuple):
            out += flatten(effect)
        elif effect is not None:
            out.append(effect)
    return out


NO_ROLES: frozenset[int] = frozenset()  # a DM's actor (no member, no roles)


@dataclass(frozen=True)
class Actor:
    """Who is acting: the parts of a Discord member a service needs."""

    id: int
    name: str
    lang: Lang
    manages_guild: bool = False
    role_ids: frozenset[int] = frozenset()
    #: when the user clicked or typed (the interaction's snowflake time): a click made before
    #: a deadline counts even if it reaches the database after it; None: now
    at: datetime | None = None
    bot: bool = False
    #: where the interaction happened (guild, channel); None: not from an interaction
    place: tuple[int | None, int | None] | None = None
    #: a member of the server (False: a user Discord resolved without a member, someone not
    #: or no longer in the server, whom the bot cannot DM)
    member: bool = True
    #: the interaction that acts (its action is recorded with it, once: see
    #: ``Actions.action``); None: not from an interaction
    interaction_id: int | None = None

    @classmethod
    def of(cls, interaction: discord.Interaction) -> Actor:
        user = interaction.user
        perms = interaction.permissions
        roles = getattr(user, "roles", [])
        return cls(
            id=user.id,
            name=clean(user.display_name),
            lang=lang_of(interaction.locale),
            manages_guild=bool(perms.manage_guild or perms.administrator),
            role_ids=frozenset(r.id for r in roles) if roles else NO_ROLES,
            at=interaction.created_at,
            bot=user.bot,
            place=(interaction.guild_id, interaction.channel_id),
            interaction_id=interaction.id,
        )

    @classmethod
    def of_member(cls, member: discord.abc.User, lang: Lang) -> Actor:
        """A user named in a command's option: a member of the server when Discord resolved
        one (``discord.Member``), else a user who is not in it."""
        return cls(
            id=member.id,
            name=clean(member.display_name),
            lang=lang,
            bot=member.bot,
            member=isinstance(member, discord.Member),
        )


@dataclass
class Outcome:
    """A private answer, the effects it decided, and (once written) where they went:
    ``written`` = (game id, guild id, last seq)."""

    reply: str
    effects: list[Any] = field(default_factory=list)
    written: tuple[int, int, int] | None = None


@dataclass
class Reply:
    """A private answer with embeds (cards) or files (pictures, records), when text alone is
    not enough. ``files`` are built when sent: a ``discord.File`` can be read only once."""

    content: str
    embeds: list[discord.Embed] = field(default_factory=list)
    files: list[Callable[[], discord.File]] = field(default_factory=list)
    view: discord.ui.View | None = None


class TagRequired(UserError):
    """The forum requires a tag on every post, none was given and none is named like the
    game: the moderator is asked privately to choose one of ``tags`` (id, name)."""

    def __init__(self, tags: list[tuple[int, str]]) -> None:
        super().__init__("common.lobby.choose_tag")
        self.tags = tags
