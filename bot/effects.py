"""What a game action does on Discord, as data: typed, frozen, JSON round-trip.

The services decide *what* must happen and return these records; :mod:`bot.dispatcher` is the
only code that talks to Discord. A record is written to the ``outbox`` table in the same
transaction as the state change that caused it (see :meth:`bot.service.GameService.
commit_outcome`), so a crash after the commit delays an effect, never loses it.

Views travel as data too: a :class:`View` names a kind and its (JSON) arguments, e.g.
``View("rs_vote", (game_id, proposal, on_team, lang))``; the cogs register one builder per kind
with the dispatcher, which builds the ``discord.ui.View`` when it sends the message. Embeds are
the plain dicts Discord's API takes (``discord.Embed.from_dict`` reads them).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any, ClassVar

from bot.limits import MESSAGE_CONTENT as MESSAGE_LIMIT


class Permanent(Exception):
    """Discord refused for good (or the record cannot be delivered): the dispatcher records
    it and goes on with the game's next record."""


@dataclass(frozen=True)
class View:
    """A view to build at delivery: the builder registered for ``kind``, called with ``args``."""

    kind: str
    args: tuple[Any, ...] = ()


@dataclass(frozen=True)
class Attachment:
    """A file to build at delivery: the builder registered for ``kind``, called with ``args``
    (e.g. ``Attachment("record", (game_id, lang))``: the game's record as Markdown)."""

    kind: str
    args: tuple[Any, ...] = ()


@dataclass(frozen=True)
class Record:
    """Base of every effect record."""

    KIND: ClassVar[str] = ""

    def payload(self) -> dict[str, Any]:
        data = asdict(self)
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, View):
                data[f.name] = {"kind": value.kind, "args": list(value.args)}
            elif f.name == "files":
                data[f.name] = [{"kind": a.kind, "args": list(a.args)} for a in value]
            elif isinstance(value, tuple):
                data[f.name] = list(value)
        return data


@dataclass(frozen=True)
class Post(Record):
    """A public message (split at line boundaries past 2,000 characters; embeds by tens).

    ``slot``: remember the (last) message's id under that purpose (``leader_list``, ``lobby``,
    ``vote``); ``pin``: pin it; ``unpin_previous``: unpin the message the slot held before.
    ``files`` and ``view`` go with the last message; ``mention``: the one member the post
    calls to act, pinged by its last message (every other mention is disabled);
    ``mention_role``: the one role it calls (a new lobby's ``lobby_role``), likewise.
    """

    KIND: ClassVar[str] = "post"
    channel_id: int
    text: str
    embeds: tuple[Mapping[str, Any], ...] = ()
    view: View | None = None
    files: tuple[Attachment, ...] = ()
    mention: int | None = None
    mention_role: int | None = None
    slot: str | None = None
    pin: bool = False
    unpin_previous: bool = False


@dataclass(frozen=True)
class DirectMessage(Record):
    """A DM (split like a post)."""

    KIND: ClassVar[str] = "dm"
    user_id: int
    text: str
    embeds: tuple[Mapping[str, Any], ...] = ()
    view: View | None = None


@dataclass(frozen=True)
class EditSlot(Record):
    """Edit the message held in ``slot`` in place (``text`` None: keep the content;
    ``clear_view``: remove its buttons). With ``repost``, a slot that is empty or whose message
    Discord refuses to edit is posted anew in ``channel_id`` (with ``view``), pinned if ``pin``,
    and the old message unpinned. ``live``: a view kept current (a vote count), whose next
    edit supersedes this one: the action that makes it answers without waiting for it."""

    KIND: ClassVar[str] = "edit"
    channel_id: int
    slot: str
    text: str | None = None
    clear_view: bool = False
    view: View | None = None
    repost: bool = False
    pin: bool = False
    live: bool = False


@dataclass(frozen=True)
class Pin(Record):
    """Pin (or unpin) the message held in ``slot``."""

    KIND: ClassVar[str] = "pin"
    slot: str
    pin: bool = True


@dataclass(frozen=True)
class DebateLock(Record):
    """Close (``locked``) or reopen the debate where the game lives.

    A thread or forum post is locked / unlocked (Manage Threads). In a text channel each
    player's member overwrite is recorded (or its absence) and Send Messages denied on top of
    it; reopening restores exactly what was recorded (Manage Roles)."""

    KIND: ClassVar[str] = "debate"
    place_id: int
    user_ids: tuple[int, ...]
    locked: bool


@dataclass(frozen=True)
class Notice(Record):
    """The bot's own word about the game's Discord side (a permission it is missing): posted
    in ``channel_id`` if given, else sent by DM to ``user_id``. A notice Discord refuses is
    recorded and left there: it never causes another notice, and resync does not send it
    again."""

    KIND: ClassVar[str] = "notice"
    text: str
    channel_id: int | None = None
    user_id: int | None = None


@dataclass(frozen=True)
class PrivateThread(Record):
    """Open a private thread (not invitable: only the bot adds members) named ``name`` in the
    text channel ``channel_id``, add ``user_ids`` to it, and keep its id under ``slot``, where
    :class:`ThreadPost`, :class:`ThreadMembers` and :class:`ArchiveThread` find it. Delivered
    again (a crash before its id was kept), it takes the bot's active private thread of that
    name in that channel instead of opening a second. Create Private Threads."""

    KIND: ClassVar[str] = "thread"
    channel_id: int
    slot: str
    name: str
    user_ids: tuple[int, ...] = ()


@dataclass(frozen=True)
class ThreadPost(Record):
    """A message in the thread kept under ``slot`` (split like a post)."""

    KIND: ClassVar[str] = "thread_post"
    slot: str
    text: str
    view: View | None = None
    mention: int | None = None


@dataclass(frozen=True)
class ThreadMembers(Record):
    """Add members to (``add``) or take them out of (``remove``) the thread kept under
    ``slot``. Removing is allowed to the creator of a private thread: no Manage Threads."""

    KIND: ClassVar[str] = "thread_members"
    slot: str
    add: tuple[int, ...] = ()
    remove: tuple[int, ...] = ()


@dataclass(frozen=True)
class ArchiveThread(Record):
    """Archive the thread kept under ``slot`` (its members still read it), locked with Manage
    Threads so that nobody reopens it by posting; without Manage Threads it is archived
    only."""

    KIND: ClassVar[str] = "archive_thread"
    slot: str


@dataclass(frozen=True)
class Silence(Record):
    """Keep members from posting in the text channel ``place_id`` and its threads
    (``silenced``), or let them post again. Each one's own member overwrite is recorded (or
    its absence) and Send Messages, Send Messages in Threads (and Add Reactions, where the bot
    has it) are denied on top of it (``bot.spaces.SILENCED``); ``silenced`` False puts back
    exactly what was recorded. Manage Roles. A thread or forum post has no overwrites of its
    own: a game there cannot silence one member (see docs/development.md)."""

    KIND: ClassVar[str] = "silence"
    place_id: int
    user_ids: tuple[int, ...]
    silenced: bool


@dataclass(frozen=True)
class CloseSpaces(Record):
    """The game is over: every member it silenced may post again (exactly as before) and every
    thread it opened is archived. What was silenced and opened is read at delivery, after the
    game's earlier records: nothing the game decided before its end is missed."""

    KIND: ClassVar[str] = "close_spaces"


RECORDS: dict[str, type[Record]] = {
    cls.KIND: cls
    for cls in (
        Post,
        DirectMessage,
        EditSlot,
        Pin,
        DebateLock,
        Notice,
        PrivateThread,
        ThreadPost,
        ThreadMembers,
        ArchiveThread,
        Silence,
        CloseSpaces,
    )
}


def from_payload(kind: str, payload: dict[str, Any]) -> Record:
    """The record an outbox row holds."""
    cls = RECORDS[kind]
    values: dict[str, Any] = {}
    for f in fields(cls):
        if f.name not in payload:
            continue
        value = payload[f.name]
        if f.name == "view" and value is not None:
            value = View(str(value["kind"]), tuple(value.get("args") or ()))
        elif f.name == "files":
            value = tuple(Attachment(str(a["kind"]), tuple(a.get("args") or ())) for a in value)
        elif isinstance(value, list):
            value = tuple(value)
        values[f.name] = value
    return cls(**values)


def split_message(text: str, limit: int = MESSAGE_LIMIT) -> list[str]:
    """``text`` in pieces of at most ``limit`` characters: whole paragraphs where they fit,
    else whole lines, else hard cuts."""
    pieces: list[str] = []
    current = ""

    def add(chunk: str, sep: str) -> None:
        nonlocal current
        candidate = f"{current}{sep}{chunk}" if current else chunk
        if len(candidate) <= limit:
            current = candidate
            return
        if current:
            pieces.append(current)
            current = ""
        if len(chunk) <= limit:
            current = chunk
        elif sep == "\n\n":
            for line in chunk.split("\n"):
                add(line, "\n")
        else:
            pieces.extend(chunk[i : i + limit] for i in range(0, len(chunk) - limit, limit))
            current = chunk[(len(chunk) - 1) // limit * limit :]

    for paragraph in text.split("\n\n"):
        add(paragraph, "\n\n")
    if current:
        pieces.append(current)
    return [p for p in pieces if p.strip()]
