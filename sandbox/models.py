"""The sandbox's state: users, guilds, roles, members, channels, messages.

Each object renders itself as the JSON payload Discord would send (``payload()``); the
driver-side helpers on :class:`Guild` and :class:`Channel` dispatch the matching gateway events
when the bot is already connected.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from . import util
from .util import snowflake

if TYPE_CHECKING:
    from .core import Sandbox

# Channel types
GUILD_TEXT = 0
DM = 1
GUILD_CATEGORY = 4
PUBLIC_THREAD = 11
PRIVATE_THREAD = 12
GUILD_FORUM = 15
THREAD_TYPES = (10, PUBLIC_THREAD, PRIVATE_THREAD)

EPHEMERAL = 1 << 6
LOADING = 1 << 7
COMPONENTS_V2 = 1 << 15
#: Channel flag: a forum post must carry a tag (``applied_tags``), else 40067.
REQUIRE_TAG = 1 << 4

#: Discord's default upload limit per file (10 MiB since 16 January 2025; boosts raise it) and
#: the maximum request size when sending a message (25 MiB). Over either: 413 / 40005.
ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024
MAX_REQUEST_SIZE = 25 * 1024 * 1024
#: Files per message (Discord: 10).
MAX_ATTACHMENTS = 10


@dataclass(frozen=True)
class Upload:
    """A file a user attaches to a slash command's ATTACHMENT option (``sb.slash(..., file=
    Upload("deck.toml", data))``). ``content_type`` defaults to what Discord detects from the
    name and the bytes."""

    filename: str
    data: bytes
    content_type: str | None = None
    description: str | None = None

    @property
    def size(self) -> int:
        return len(self.data)


@dataclass(frozen=True)
class StoredFile:
    """An attachment's bytes, served by the sandbox's CDN routes."""

    data: bytes
    content_type: str | None


@dataclass(eq=False)
class User:
    """A Discord user. ``dms_open=False`` makes DMs from the bot fail with 50007."""

    id: int
    name: str
    bot: bool = False
    dms_open: bool = True
    locale: str = "en-US"
    discriminator: str = "0"
    dm_channel_id: int | None = None

    @property
    def username(self) -> str:
        # Users have lowercase unique usernames (display name in global_name); bots keep theirs.
        return self.name if self.bot else self.name.lower().replace(" ", "_")

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "username": self.username,
            "global_name": None if self.bot else self.name,
            "discriminator": self.discriminator,
            "avatar": None,
            "avatar_decoration_data": None,
            "banner": None,
            "accent_color": None,
            "bot": self.bot,
            "system": False,
            "public_flags": 0,
            "flags": 0,
        }

    def __repr__(self) -> str:
        return f"<User {self.name} id={self.id}>"


@dataclass(eq=False)
class Role:
    id: int
    guild_id: int
    name: str
    permissions: int = 0
    position: int = 0
    color: int = 0
    hoist: bool = False
    mentionable: bool = False
    managed: bool = False
    bot_id: int | None = None

    @property
    def mention(self) -> str:
        return f"<@&{self.id}>"

    def payload(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.id),
            "name": self.name,
            "color": self.color,
            "colors": {
                "primary_color": self.color,
                "secondary_color": None,
                "tertiary_color": None,
            },
            "hoist": self.hoist,
            "icon": None,
            "unicode_emoji": None,
            "position": self.position,
            "permissions": str(self.permissions),
            "managed": self.managed,
            "mentionable": self.mentionable,
            "flags": 0,
        }
        if self.bot_id is not None:
            data["tags"] = {"bot_id": str(self.bot_id)}
        return data

    def __repr__(self) -> str:
        return f"<Role {self.name} id={self.id}>"


@dataclass(eq=False)
class Member:
    user: User
    guild_id: int
    roles: list[int] = field(default_factory=list)
    nick: str | None = None
    joined_at: datetime = field(default_factory=util.now)

    def payload(self, *, with_user: bool = True) -> dict[str, Any]:
        data: dict[str, Any] = {
            "nick": self.nick,
            "avatar": None,
            "banner": None,
            "roles": [str(r) for r in self.roles],
            "joined_at": util.iso(self.joined_at),
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "flags": 0,
            "pending": False,
            "communication_disabled_until": None,
        }
        if with_user:
            data["user"] = self.user.payload()
        return data


@dataclass(eq=False)
class Overwrite:
    id: int
    type: int  # 0 role, 1 member
    allow: int = 0
    deny: int = 0

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "type": self.type,
            "allow": str(self.allow),
            "deny": str(self.deny),
        }


@dataclass(eq=False)
class Channel:
    """A guild channel, a thread, or a DM channel."""

    sb: Sandbox = field(repr=False)
    id: int
    type: int
    name: str | None = None
    guild_id: int | None = None
    parent_id: int | None = None
    position: int = 0
    topic: str | None = None
    overwrites: dict[int, Overwrite] = field(default_factory=dict)
    # threads
    owner_id: int | None = None
    archived: bool = False
    locked: bool = False
    invitable: bool = True
    auto_archive_duration: int = 4320
    archive_timestamp: datetime | None = None
    created_at: datetime = field(default_factory=util.now)
    applied_tags: list[int] = field(default_factory=list)
    thread_flags: int = 0
    channel_flags: int = 0  # forums: REQUIRE_TAG
    member_ids: set[int] = field(default_factory=set)
    # forums
    available_tags: list[dict[str, Any]] = field(default_factory=list)
    # DMs
    recipient_id: int | None = None
    last_message_id: int | None = None
    message_count: int = 0

    @property
    def is_thread(self) -> bool:
        return self.type in THREAD_TYPES

    @property
    def is_dm(self) -> bool:
        return self.type == DM

    @property
    def mention(self) -> str:
        return f"<#{self.id}>"

    @property
    def guild(self) -> Guild | None:
        return self.sb.guilds.get(self.guild_id) if self.guild_id else None

    @property
    def parent(self) -> Channel | None:
        return self.sb.channels.get(self.parent_id) if self.parent_id else None

    @property
    def permission_overwrites(self) -> dict[int, Overwrite]:
        return self.overwrites

    # ---- driver helpers -------------------------------------------------
    def add_thread(self, name: str, *, owner: User | None = None, private: bool = False) -> Channel:
        """Create a thread under this text or forum channel (as if a user made it)."""
        guild = self.guild
        assert guild is not None
        thread = guild._new_channel(
            PRIVATE_THREAD if private else PUBLIC_THREAD,
            name,
            parent_id=self.id,
            owner_id=(owner or guild.owner).id,
        )
        self.sb._dispatch_thread_create(thread)
        return thread

    def set_permissions(
        self, target: Role | User | Member, *, allow: int = 0, deny: int = 0
    ) -> None:
        """Set (or, with allow=deny=0, remove) an overwrite and dispatch CHANNEL_UPDATE."""
        if isinstance(target, Role):
            ow = Overwrite(target.id, 0, allow, deny)
        else:
            user = target.user if isinstance(target, Member) else target
            ow = Overwrite(user.id, 1, allow, deny)
        if allow == 0 and deny == 0:
            self.overwrites.pop(ow.id, None)
        else:
            self.overwrites[ow.id] = ow
        self.sb._dispatch_channel_update(self)

    def set_flags(self, flags: int) -> None:
        """Change the channel's flags (e.g. ``REQUIRE_TAG`` on a forum): CHANNEL_UPDATE."""
        self.channel_flags = flags
        self.sb._dispatch_channel_update(self)

    def tag_id(self, name: str) -> int:
        """The id of this forum's tag called ``name``."""
        return int(next(t["id"] for t in self.available_tags if t["name"] == name))

    def payload(self, *, for_user: int | None = None) -> dict[str, Any]:
        if self.type == DM:
            recipient = self.sb.users[self.recipient_id or 0]
            return {
                "id": str(self.id),
                "type": DM,
                "last_message_id": str(self.last_message_id) if self.last_message_id else None,
                "flags": 0,
                "recipients": [recipient.payload()],
            }
        data: dict[str, Any] = {
            "id": str(self.id),
            "type": self.type,
            "guild_id": str(self.guild_id),
            "name": self.name,
            "parent_id": str(self.parent_id) if self.parent_id else None,
            "last_message_id": str(self.last_message_id) if self.last_message_id else None,
            "rate_limit_per_user": 0,
            "flags": self.thread_flags if self.is_thread else self.channel_flags,
        }
        if self.is_thread:
            meta: dict[str, Any] = {
                "archived": self.archived,
                "auto_archive_duration": self.auto_archive_duration,
                "archive_timestamp": util.iso(self.archive_timestamp or self.created_at),
                "locked": self.locked,
                "create_timestamp": util.iso(self.created_at),
            }
            if self.type == PRIVATE_THREAD:
                meta["invitable"] = self.invitable
            data.update(
                owner_id=str(self.owner_id),
                message_count=self.message_count,
                member_count=min(len(self.member_ids), 50),
                total_message_sent=self.message_count,
                thread_metadata=meta,
            )
            parent = self.parent
            if parent is not None and parent.type == GUILD_FORUM:
                data["applied_tags"] = [str(t) for t in self.applied_tags]
            if for_user is not None and for_user in self.member_ids:
                data["member"] = {
                    "id": str(self.id),
                    "user_id": str(for_user),
                    "join_timestamp": util.iso(self.created_at),
                    "flags": 1,
                }
            return data
        data.update(
            position=self.position,
            permission_overwrites=[o.payload() for o in self.overwrites.values()],
            nsfw=False,
        )
        if self.type == GUILD_TEXT:
            data.update(topic=self.topic, default_auto_archive_duration=4320)
        elif self.type == GUILD_FORUM:
            data.update(
                topic=self.topic,
                available_tags=self.available_tags,
                default_reaction_emoji=None,
                default_thread_rate_limit_per_user=0,
                default_sort_order=None,
                default_forum_layout=0,
                default_auto_archive_duration=4320,
                template="",
            )
        return data

    def __repr__(self) -> str:
        return f"<Channel #{self.name or 'dm'} type={self.type} id={self.id}>"


@dataclass(eq=False)
class Guild:
    sb: Sandbox = field(repr=False)
    id: int
    name: str
    owner_id: int
    locale: str = "en-US"
    roles: dict[int, Role] = field(default_factory=dict)
    members: dict[int, Member] = field(default_factory=dict)
    channel_ids: list[int] = field(default_factory=list)
    bot_role_id: int = 0
    #: a Discord outage (``Sandbox.set_outage``): READY lists the guild, no GUILD_CREATE follows
    outage: bool = False

    # ---- accessors --------------------------------------------------------
    @property
    def everyone(self) -> Role:
        return self.roles[self.id]

    @property
    def bot_role(self) -> Role:
        return self.roles[self.bot_role_id]

    @property
    def owner(self) -> User:
        return self.sb.users[self.owner_id]

    @property
    def bot_member(self) -> Member:
        return self.members[self.sb.bot_user.id]

    @property
    def channels(self) -> list[Channel]:
        return [self.sb.channels[c] for c in self.channel_ids if not self.sb.channels[c].is_thread]

    @property
    def threads(self) -> list[Channel]:
        return [self.sb.channels[c] for c in self.channel_ids if self.sb.channels[c].is_thread]

    @property
    def shard_id_for(self) -> int:
        return self.id >> 22

    def member(self, user: User | int) -> Member | None:
        return self.members.get(user if isinstance(user, int) else user.id)

    # ---- driver helpers ---------------------------------------------------
    def _new_channel(self, type_: int, name: str, **kwargs: Any) -> Channel:
        channel = Channel(self.sb, snowflake(), type_, name=name, guild_id=self.id, **kwargs)
        if channel.is_thread:
            channel.member_ids.add(channel.owner_id or 0)
        else:
            channel.position = len(self.channels)
        self.sb.channels[channel.id] = channel
        self.channel_ids.append(channel.id)
        return channel

    def add_text_channel(
        self, name: str, *, topic: str | None = None, category: Channel | None = None
    ) -> Channel:
        channel = self._new_channel(
            GUILD_TEXT, name, topic=topic, parent_id=category.id if category else None
        )
        self.sb._dispatch_channel_create(channel)
        return channel

    def add_forum_channel(
        self,
        name: str,
        *,
        tags: list[str] | None = None,
        category: Channel | None = None,
        require_tag: bool = False,
    ) -> Channel:
        """A forum channel with these tags; ``require_tag``: every post needs one (40067)."""
        channel = self._new_channel(
            GUILD_FORUM,
            name,
            parent_id=category.id if category else None,
            channel_flags=REQUIRE_TAG if require_tag else 0,
        )
        channel.available_tags = [
            {
                "id": str(snowflake()),
                "name": t,
                "moderated": False,
                "emoji_id": None,
                "emoji_name": None,
            }
            for t in tags or []
        ]
        self.sb._dispatch_channel_create(channel)
        return channel

    def add_category(self, name: str) -> Channel:
        channel = self._new_channel(GUILD_CATEGORY, name)
        self.sb._dispatch_channel_create(channel)
        return channel

    def add_role(
        self,
        name: str,
        *,
        permissions: int = 0,
        color: int = 0,
        hoist: bool = False,
        mentionable: bool = False,
    ) -> Role:
        role = Role(
            snowflake(),
            self.id,
            name,
            permissions=permissions,
            position=len(self.roles),
            color=color,
            hoist=hoist,
            mentionable=mentionable,
        )
        self.roles[role.id] = role
        self.sb._dispatch_guild_event(
            self, "GUILD_ROLE_CREATE", {"guild_id": str(self.id), "role": role.payload()}
        )
        return role

    def set_role_permissions(self, role: Role, permissions: int) -> None:
        """Change a role's permissions (e.g. ``guild.bot_role``) and dispatch GUILD_ROLE_UPDATE."""
        role.permissions = permissions
        self.sb._dispatch_guild_event(
            self, "GUILD_ROLE_UPDATE", {"guild_id": str(self.id), "role": role.payload()}
        )

    def add_member(
        self, user: User, *, roles: list[Role] | None = None, nick: str | None = None
    ) -> Member:
        member = Member(user, self.id, [r.id for r in roles or []], nick=nick)
        self.members[user.id] = member
        self.sb._dispatch_member_add(self, member)
        return member

    def add_member_roles(self, user: User, *roles: Role) -> None:
        member = self.members[user.id]
        for role in roles:
            if role.id not in member.roles:
                member.roles.append(role.id)
        self.sb._dispatch_member_update(self, member)

    def delete_channel(self, channel: Channel) -> None:
        """Delete a channel (CHANNEL_DELETE; its threads and posts go with it) or a thread or
        forum post (THREAD_DELETE, Discord's shape: id, guild_id, parent_id, type)."""
        gone = [channel] + [t for t in self.threads if t.parent_id == channel.id]
        for c in gone:
            self.sb.channels.pop(c.id, None)
            if c.id in self.channel_ids:
                self.channel_ids.remove(c.id)
        if channel.is_thread:
            data = {
                "id": str(channel.id),
                "guild_id": str(self.id),
                "parent_id": str(channel.parent_id),
                "type": channel.type,
            }
            self.sb._dispatch_guild_event(self, "THREAD_DELETE", data)
        else:
            self.sb._dispatch_guild_event(self, "CHANNEL_DELETE", channel.payload())

    def remove_member_roles(self, user: User, *roles: Role) -> None:
        member = self.members[user.id]
        member.roles = [r for r in member.roles if r not in {role.id for role in roles}]
        self.sb._dispatch_member_update(self, member)

    def remove_member(self, user: User) -> None:
        self.members.pop(user.id, None)
        self.sb._dispatch_guild_event(
            self,
            "GUILD_MEMBER_REMOVE",
            {"guild_id": str(self.id), "user": user.payload()},
            intent=util.INTENT_GUILD_MEMBERS,
        )

    # ---- permissions ------------------------------------------------------
    def base_permissions(self, user_id: int) -> int:
        if user_id == self.owner_id:
            return util.ALL_PERMISSIONS
        member = self.members.get(user_id)
        if member is None:
            return 0
        perms = self.everyone.permissions
        for rid in member.roles:
            role = self.roles.get(rid)
            if role is not None:
                perms |= role.permissions
        if perms & util.ADMINISTRATOR:
            return util.ALL_PERMISSIONS
        return perms

    def permissions_in(self, user_id: int, channel: Channel) -> int:
        """Discord's permission algorithm: base, then @everyone/role/member overwrites."""
        perms = self.base_permissions(user_id)
        if perms == util.ALL_PERMISSIONS:
            return perms
        target = channel.parent if channel.is_thread and channel.parent else channel
        member = self.members.get(user_id)
        if member is None:
            return 0
        ows = target.overwrites
        if (ow := ows.get(self.id)) is not None:
            perms = (perms & ~ow.deny) | ow.allow
        allow = deny = 0
        for rid in member.roles:
            if (ow := ows.get(rid)) is not None and ow.type == 0:
                allow |= ow.allow
                deny |= ow.deny
        perms = (perms & ~deny) | allow
        if (ow := ows.get(user_id)) is not None and ow.type == 1:
            perms = (perms & ~ow.deny) | ow.allow
        if not perms & util.VIEW_CHANNEL:
            return 0
        if not perms & util.SEND_MESSAGES:
            perms &= ~(util.SEND_TTS | util.MENTION_EVERYONE | util.EMBED_LINKS | util.ATTACH_FILES)
        if channel.is_thread:
            if (
                channel.type == PRIVATE_THREAD
                and user_id not in channel.member_ids
                and not perms & util.MANAGE_THREADS
            ):
                return 0
            if not perms & util.SEND_MESSAGES_IN_THREADS:
                perms &= ~(util.EMBED_LINKS | util.ATTACH_FILES)
        return perms

    # ---- payloads -----------------------------------------------------------
    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "name": self.name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "banner": None,
            "description": None,
            "owner_id": str(self.owner_id),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 1,
            "default_message_notifications": 1,
            "explicit_content_filter": 2,
            "roles": [r.payload() for r in self.roles.values()],
            "emojis": [],
            "stickers": [],
            "features": ["COMMUNITY", "NEWS"],
            "mfa_level": 0,
            "application_id": None,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "public_updates_channel_id": None,
            "safety_alerts_channel_id": None,
            "max_members": 500000,
            "max_presences": None,
            "max_video_channel_users": 25,
            "max_stage_video_channel_users": 50,
            "vanity_url_code": None,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "premium_progress_bar_enabled": False,
            "preferred_locale": self.locale,
            "nsfw_level": 0,
            "nsfw": False,
            "incidents_data": None,
            "widget_enabled": False,
        }

    def create_payload(self, *, all_members: bool, new_join: bool = False) -> dict[str, Any]:
        """GUILD_CREATE. At IDENTIFY the guild becomes available (``unavailable: false``);
        a guild the bot just joined has no ``unavailable`` key (discord.py: guild_join)."""
        data = self.payload()
        members = (
            list(self.members.values())
            if all_members
            else [m for m in self.members.values() if m.user.id == self.sb.bot_user.id]
        )
        bot_id = self.sb.bot_user.id
        data.update(
            joined_at=util.iso(self.bot_member.joined_at),
            large=len(self.members) > 250,
            member_count=len(self.members),
            voice_states=[],
            members=[m.payload() for m in members],
            channels=[c.payload() for c in self.channels],
            threads=[
                t.payload(for_user=bot_id)
                for t in self.threads
                if not t.archived and (t.type == PUBLIC_THREAD or bot_id in t.member_ids)
            ],
            presences=[],
            stage_instances=[],
            guild_scheduled_events=[],
            soundboard_sounds=[],
        )
        if not new_join:
            data["unavailable"] = False
        return data

    def __repr__(self) -> str:
        return f"<Guild {self.name} id={self.id}>"


def _embed_text(embed: dict[str, Any]) -> list[str]:
    parts: list[str] = []
    for key in ("title", "description"):
        if embed.get(key):
            parts.append(str(embed[key]))
    for key in ("author", "footer"):
        sub = embed.get(key) or {}
        text = sub.get("name") or sub.get("text")
        if text:
            parts.append(str(text))
    for f in embed.get("fields") or []:
        parts.append(f"{f.get('name', '')}\n{f.get('value', '')}")
    return parts


def _component_text(components: list[dict[str, Any]]) -> list[str]:
    parts: list[str] = []
    for c in components:
        if c.get("type") == 10 and c.get("content"):
            parts.append(str(c["content"]))
        parts.extend(_component_text(c.get("components") or []))
        if isinstance(c.get("accessory"), dict):
            parts.extend(_component_text([c["accessory"]]))
    return parts


def iter_components(components: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every component, depth first (rows, sections, containers and their children)."""
    out: list[dict[str, Any]] = []
    for c in components:
        out.append(c)
        out.extend(iter_components(c.get("components") or []))
        if isinstance(c.get("accessory"), dict):
            out.append(c["accessory"])
    return out


@dataclass(eq=False)
class Message:
    """A stored message. ``ephemeral_to`` is the only user who can see an ephemeral message."""

    sb: Sandbox = field(repr=False)
    id: int
    channel_id: int
    author_id: int
    content: str = ""
    embeds: list[dict[str, Any]] = field(default_factory=list)
    components: list[dict[str, Any]] = field(default_factory=list)
    attachments: list[dict[str, Any]] = field(default_factory=list)
    flags: int = 0
    type: int = 0
    pinned: bool = False
    pinned_at: datetime | None = None
    guild_id: int | None = None
    created_at: datetime = field(default_factory=util.now)
    edited_at: datetime | None = None
    edit_count: int = 0
    marked_old: bool = False
    deleted: bool = False
    ephemeral_to: int | None = None
    webhook_id: int | None = None
    interaction_id: int | None = None
    interaction_meta: dict[str, Any] | None = None
    reference: dict[str, Any] | None = None
    mentions: list[int] = field(default_factory=list)
    mention_roles: list[int] = field(default_factory=list)
    allowed_mentions: dict[str, Any] | None = None
    tts: bool = False
    nonce: str | int | None = None

    @property
    def author_is_bot(self) -> bool:
        return self.author_id == self.sb.bot_user.id

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL)

    @property
    def loading(self) -> bool:
        return bool(self.flags & LOADING)

    @property
    def is_old(self) -> bool:
        return self.marked_old or util.now() - self.created_at > timedelta(hours=1)

    @property
    def text(self) -> str:
        """Content, embed titles/descriptions/fields/author/footer and text displays."""
        parts = [self.content] if self.content else []
        for e in self.embeds:
            parts.extend(_embed_text(e))
        parts.extend(_component_text(self.components))
        return "\n".join(parts)

    def contains(self, needle: str) -> bool:
        return needle.lower() in self.text.lower()

    @property
    def all_components(self) -> list[dict[str, Any]]:
        return iter_components(self.components)

    @property
    def buttons(self) -> list[dict[str, Any]]:
        return [c for c in self.all_components if c.get("type") == 2]

    @property
    def selects(self) -> list[dict[str, Any]]:
        return [c for c in self.all_components if c.get("type") in (3, 5, 6, 7, 8)]

    @property
    def labels(self) -> list[str]:
        return [str(b.get("label") or "") for b in self.buttons]

    @property
    def channel(self) -> Channel:
        return self.sb.channels[self.channel_id]

    @property
    def filenames(self) -> list[str]:
        """The attachments' file names, in order."""
        return [str(a["filename"]) for a in self.attachments]

    def file(self, filename: str | None = None) -> bytes:
        """The bytes of the attachment named ``filename`` (default: the only one)."""
        if filename is None:
            if len(self.attachments) != 1:
                raise LookupError(f"message {self.id} has {len(self.attachments)} attachments")
            return self.sb.attachment_data(self.attachments[0])
        for att in self.attachments:
            if att["filename"] == filename:
                return self.sb.attachment_data(att)
        raise LookupError(f"message {self.id} has no attachment {filename!r} ({self.filenames})")

    def payload(self, *, for_gateway: bool = False) -> dict[str, Any]:
        author = self.sb.users[self.author_id]
        data: dict[str, Any] = {
            "id": str(self.id),
            "channel_id": str(self.channel_id),
            "author": author.payload(),
            "content": self.content,
            "timestamp": util.iso(self.created_at),
            "edited_timestamp": util.iso(self.edited_at),
            "tts": self.tts,
            "mention_everyone": False,
            "mentions": [self.sb.users[u].payload() for u in self.mentions if u in self.sb.users],
            "mention_roles": [str(r) for r in self.mention_roles],
            "attachments": self.attachments,
            "embeds": self.embeds,
            "reactions": [],
            "pinned": self.pinned,
            "type": self.type,
            "flags": self.flags,
            "components": self.components,
        }
        if self.nonce is not None:
            data["nonce"] = self.nonce
        if self.webhook_id is not None:
            data["webhook_id"] = str(self.webhook_id)
            data["application_id"] = str(self.webhook_id)
        if self.interaction_meta is not None:
            data["interaction_metadata"] = self.interaction_meta
        if self.reference is not None:
            data["message_reference"] = self.reference
            ref = self.sb.messages.get(int(self.reference["message_id"]))
            if ref is not None and self.type == 19:
                data["referenced_message"] = None if ref.deleted else ref.payload()
        channel = self.sb.channels.get(self.channel_id)
        if channel is not None and channel.is_thread:
            data["position"] = max(0, channel.message_count - 1)
        if for_gateway and self.guild_id is not None:
            data["guild_id"] = str(self.guild_id)
            guild = self.sb.guilds.get(self.guild_id)
            member = guild.members.get(self.author_id) if guild else None
            if member is not None and self.webhook_id is None:
                data["member"] = member.payload(with_user=False)
        return data

    def __repr__(self) -> str:
        return f"<Message id={self.id} channel={self.channel_id} text={self.text[:60]!r}>"


@dataclass(eq=False)
class Interaction:
    """An interaction the sandbox sent to the bot, and what the bot answered."""

    sb: Sandbox = field(repr=False)
    id: int
    token: str
    type: int
    user: User
    channel: Channel
    payload: dict[str, Any] = field(repr=False, default_factory=dict)
    sent_at: float = 0.0
    acked_at: float | None = None
    # When the visible answer arrived: the callback 4/7 itself, or after a defer the first
    # followup / edit of the original ("thinking..." replaced).
    answered_at: float | None = None
    callback_type: int | None = None
    callbacks: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    original_id: int | None = None
    followup_ids: list[int] = field(default_factory=list)
    message: Message | None = None  # the component's message, for type 3
    choices: list[dict[str, Any]] | None = None
    modal: dict[str, Any] | None = None
    _acked: asyncio.Event = field(default_factory=asyncio.Event, repr=False)

    @property
    def latency(self) -> float | None:
        """Seconds from INTERACTION_CREATE to the first callback."""
        return None if self.acked_at is None else self.acked_at - self.sent_at

    @property
    def answer_latency(self) -> float | None:
        """Seconds from INTERACTION_CREATE to the visible answer (``answered_at``)."""
        return None if self.answered_at is None else self.answered_at - self.sent_at

    @property
    def guild(self) -> Guild | None:
        return self.channel.guild

    async def wait_ack(self, timeout: float = 5.0) -> int:
        """Wait for the first callback; return its type. Raises TimeoutError when none came."""
        try:
            await asyncio.wait_for(self._acked.wait(), timeout)
        except TimeoutError:
            raise TimeoutError(
                f"interaction {self.id} was not acknowledged within {timeout} s"
            ) from None
        assert self.callback_type is not None
        return self.callback_type

    def _answer(self) -> Message | None:
        if self.callback_type in (4, 7):
            if self.callback_type == 7 and self.message is not None:
                return self.message
            return self.sb.messages.get(self.original_id or 0)
        if self.callback_type == 5:
            original = self.sb.messages.get(self.original_id or 0)
            if original is not None and not original.loading:
                return original
        if self.followup_ids:
            return self.sb.messages.get(self.followup_ids[0])
        if (
            self.callback_type == 6
            and self.message is not None
            and self.message.edit_count > self._edits_at_ack
        ):
            return self.message
        return None

    _edits_at_ack: int = 0

    async def reply_message(self, timeout: float = 5.0) -> Message | None:
        """The visible answer as a :class:`Message` (see :meth:`reply`)."""
        await self.wait_ack(timeout)
        if self.callback_type in (8, 9, 1):
            return None
        deadline = util.monotonic() + timeout
        while True:
            answer = self._answer()
            if answer is not None:
                return answer
            remaining = deadline - util.monotonic()
            if remaining <= 0:
                if self.callback_type == 5:
                    raise TimeoutError(f"interaction {self.id}: deferred but never answered")
                return None
            await self.sb._wait_change(remaining)

    async def reply(self, timeout: float = 5.0) -> str | None:
        """The visible answer's text: callback 4/7 content, else the edited original or the
        first followup after a defer (waits for it). ``None`` for autocomplete/modal, or a
        deferred update (type 6) that never showed anything."""
        msg = await self.reply_message(timeout)
        return None if msg is None else msg.text

    @property
    def answer(self) -> Message | None:
        """The visible answer right now (no waiting)."""
        return self._answer()

    @property
    def ephemeral(self) -> bool:
        """Whether the answer is ephemeral (for a defer: whether the defer was)."""
        answer = self._answer()
        if answer is not None:
            return answer.ephemeral
        for ctype, data in self.callbacks:
            if ctype in (4, 5):
                return bool(int((data or {}).get("flags") or 0) & EPHEMERAL)
        return False

    @property
    def followups(self) -> list[Message]:
        return [self.sb.messages[m] for m in self.followup_ids if m in self.sb.messages]


#: What the bot may do in a DM channel (reported as ``app_permissions``).
DM_PERMISSIONS = (
    util.VIEW_CHANNEL
    | util.SEND_MESSAGES
    | util.EMBED_LINKS
    | util.ATTACH_FILES
    | util.READ_MESSAGE_HISTORY
    | util.MENTION_EVERYONE
    | util._P.add_reactions.flag
    | util._P.use_external_emojis.flag
    | util._P.use_application_commands.flag
)


@dataclass
class RequestRecord:
    """One REST call the bot made."""

    method: str
    route: str  # "POST /channels/{channel_id}/messages"
    path: str  # "/channels/123/messages"
    query: dict[str, str]
    json: Any
    status: int
    time: float  # time.monotonic() when the request arrived
    duration: float = 0.0
    error_code: int | None = None
    error: Any = None  # the error body Discord would send ({"message", "code"[, "errors"]})
    spec_refused: bool = False  # refused by the OpenAPI check (sandbox/spec.py)
