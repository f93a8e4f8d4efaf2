"""The one place that performs game effects on Discord: it delivers the ``outbox`` table.

- A game's rows are delivered strictly in ``seq`` order (the result before the next leader's
  call), one worker task per game with something pending; games never wait for each other.
- Woken after every commit that wrote rows (:meth:`Dispatcher.wake`), at start (everything
  pending), by PostgreSQL ``NOTIFY`` when another process wrote rows of a game it owns, and by a
  periodic sweep.
- Only the process that owns the game's guild (``owns``, the shard formula) delivers its rows. A
  row is claimed for a lease before it is delivered (PostgreSQL: several processes), and a
  process that starts releases the claims on the rows of its guilds (their previous owner is
  gone).
- Posts and DMs carry a ``nonce`` derived from the row's idempotency key, which discord.py
  sends with ``enforce_nonce``: a retry after a crash gets the message created the first time
  instead of a second one. A post split in several messages remembers how many were sent.
  Edits, pins, thread locks and permission overwrites are idempotent by nature.
- 429: wait ``Retry-After``; 5xx and network errors: exponential backoff, the game's later rows
  wait; a permanent refusal (403 — 50001, 50007, 50013 —, 404, any other 4xx) is recorded on the
  row (``failed``, ``last_error``), never retried, and the game's next row goes on. A missing
  permission is named in the game's channel (or by DM to the game's creator when the bot
  cannot post there) by a ``Notice`` row written in the transaction that records the refusal;
  ``/<game> resync`` re-applies the state once it is fixed.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
import socket
import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import aiohttp
import discord
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot import limits, metrics
from bot.clock import utcnow
from bot.effects import (
    Attachment,
    DebateLock,
    DirectMessage,
    EditSlot,
    Notice,
    Permanent,
    Pin,
    Post,
    Record,
    View,
    from_payload,
    split_message,
)
from bot.english import counted
from bot.i18n import t
from bot.notices import permission_names, to_notice
from bot.spaces import NEEDED, Spaces, deny_on_top, member_overwrites, put_back, silenced_in
from db import repo
from db.models import EffectStatus, Game, Outbox

log = logging.getLogger(__name__)

LEASE = timedelta(seconds=120)  # a claimed row is another process's for this long
MAX_ATTEMPTS = 30  # tries of a row that keeps failing for a passing reason (~25 min)
MAX_BACKOFF = 60.0
MAX_RETRY_AFTER = 600.0
SWEEP_SECONDS = 30.0
SEND = discord.Permissions(send_messages=True, send_messages_in_threads=True).value
THREAD_TYPES = {10, 11, 12}

ViewBuilder = Callable[..., discord.ui.View]
FileBuilder = Callable[..., Awaitable[discord.File]]
RefusalHandler = Callable[..., Awaitable[None]]


@dataclass(frozen=True)
class Lacking:
    """The permissions a refused record lacked, of those it ``needed``, and whether the bot
    can still post in the game's place (where its notice goes, else by DM)."""

    permissions: list[str]
    needed: list[str]
    can_post: bool


def messages_of(
    text: str, embeds: tuple[Mapping[str, Any], ...]
) -> list[tuple[str, list[discord.Embed]]]:
    """The Discord messages one post or DM becomes: the text's pieces (split between lines),
    the first embeds with the last piece, then further messages of embeds, within Discord's
    limits (10 embeds and 6,000 characters a message)."""
    pieces = split_message(text) or [""]
    chunks = limits.embed_chunks([discord.Embed.from_dict(e) for e in embeds])
    out: list[tuple[str, list[discord.Embed]]] = [(p, []) for p in pieces]
    if chunks:
        out[-1] = (out[-1][0], chunks[0])
        out += [("", chunk) for chunk in chunks[1:]]
    return out


#: What makes two edits edits of the same message, done the same way (EditSlot's fields).
SLOT_KEY = ("channel_id", "slot", "clear_view", "repost", "pin")


def covers(later: dict[str, Any], earlier: dict[str, Any]) -> bool:
    """Whether the ``later`` edit leaves nothing of the ``earlier`` one to see: it sets the
    content and the view if the earlier one did."""
    return all(later.get(k) is not None or earlier.get(k) is None for k in ("text", "view"))


def nonce(key: str, part: int) -> str:
    """The nonce of message ``part`` of the row with idempotency key ``key`` (25 characters,
    Discord's limit)."""
    return hashlib.sha256(f"{key}#{part}".encode()).hexdigest()[:25]


def backoff(attempts: int) -> float:
    return float(min(0.5 * 2 ** max(attempts - 1, 0), MAX_BACKOFF))


def retry_delay(exc: BaseException, attempts: int) -> float | None:
    """How long to wait before trying again; None for a permanent refusal."""
    if isinstance(exc, discord.RateLimited):
        return min(exc.retry_after, MAX_RETRY_AFTER)
    if isinstance(exc, discord.HTTPException):
        if exc.status == 429:
            headers = getattr(exc.response, "headers", {}) or {}
            try:
                wait = float(headers.get("Retry-After", "1"))
            except ValueError:
                wait = 1.0
            return min(max(wait, 0.0), MAX_RETRY_AFTER)
        if exc.status >= 500:
            return backoff(attempts)
        return None
    if isinstance(exc, aiohttp.ClientError | OSError | asyncio.TimeoutError):
        return backoff(attempts)
    return None


def describe(exc: BaseException) -> str:
    if isinstance(exc, discord.HTTPException):
        return f"{exc.status} {exc.code}: {exc.text}"[:500]
    return f"{type(exc).__name__}: {exc}"[:500]


class Dispatcher:
    def __init__(
        self,
        client: discord.Client,
        sessions: async_sessionmaker[AsyncSession],
        *,
        owns: Callable[[int], bool] = lambda guild_id: True,
        sweep_seconds: float = SWEEP_SECONDS,
    ) -> None:
        self.client = client
        self.sessions = sessions
        self.owns = owns
        self.instance = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"[:64]
        self.views: dict[str, ViewBuilder] = {}
        self.files: dict[str, FileBuilder] = {}
        self.refused: dict[str, RefusalHandler] = {}
        self._sweep_seconds = sweep_seconds
        self._workers: dict[int, asyncio.Task[None]] = {}
        self._wakeups: dict[int, asyncio.Event] = {}
        self._finished: dict[int, int] = {}  # game -> highest seq finished by this process
        self._changed: dict[int, asyncio.Event] = {}
        self._sweeper: asyncio.Task[None] | None = None
        self._started = False
        self.attempts = 0  # delivery attempts (tests, diagnostics)
        #: private threads and silenced members (bot/spaces.py)
        self.spaces = Spaces(client, sessions, self._send)

    # -- views ---------------------------------------------------------------------------------

    def register_view(self, kind: str, builder: ViewBuilder) -> None:
        """How to build the ``discord.ui.View`` of ``View(kind, args)``: ``builder(*args)``."""
        self.views[kind] = builder

    def on_refused(self, view: str, handler: RefusalHandler) -> None:
        """What to do when Discord refuses for good a DM whose view is of kind ``view``:
        ``await handler(session, *args)``, in the transaction that records the refusal, so
        that both commit or neither (a seat's offer passes on to the next volunteer)."""
        self.refused[view] = handler

    async def _after_refusal(self, s: AsyncSession, record: Record | None) -> None:
        view = record.view if isinstance(record, DirectMessage) else None
        handler = self.refused.get(view.kind) if view is not None else None
        if view is None or handler is None:
            return
        try:
            async with s.begin_nested():  # a handler that fails leaves the refusal recorded
                await handler(s, *view.args)
        except Exception:
            log.exception("the refusal of a %s DM could not be handled", view.kind)

    def register_file(self, kind: str, builder: FileBuilder) -> None:
        """How to build the file of ``Attachment(kind, args)``: ``await builder(*args)``."""
        self.files[kind] = builder

    async def build_files(self, specs: tuple[Attachment, ...]) -> list[discord.File]:
        files = []
        for spec in specs:
            builder = self.files.get(spec.kind)
            if builder is None:
                raise Permanent(f"no file builder registered for {spec.kind!r}")
            files.append(await builder(*spec.args))
        return files

    def build_view(self, spec: View | None) -> discord.ui.View | None:
        if spec is None:
            return None
        builder = self.views.get(spec.kind)
        if builder is None:
            raise Permanent(f"no view builder registered for {spec.kind!r}")
        return builder(*spec.args)

    # -- lifecycle -----------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._started

    async def start(self) -> None:
        """Take over the rows of the guilds this process owns and deliver what is pending."""
        if self._started:
            return
        self._started = True
        async with self.sessions.begin() as s:
            games = [g for g, guild in await repo.pending_effect_games(s) if self.owns(guild)]
            await repo.release_claims(s, games)
        await self.sweep()
        self._sweeper = asyncio.get_running_loop().create_task(self._sweep_loop(), name="outbox")
        log.info("outbox dispatcher started: %s with effects pending", counted(len(games), "game"))

    async def stop(self, grace: float = 5.0) -> int:
        """Stop: the deliveries in flight may finish (up to ``grace`` seconds), then the rest is
        cancelled (a row cut short stays pending: its nonce makes the next try safe). Returns
        how many games' deliveries were cut short."""
        self._started = False
        if self._sweeper is not None:
            self._sweeper.cancel()
        for event in self._wakeups.values():
            event.set()  # sleeping workers see that the dispatcher stops
        workers = list(self._workers.values())
        cut = [w for w in workers if not w.done()]
        if cut and grace > 0:
            _done, pending = await asyncio.wait(cut, timeout=grace)
            cut = list(pending)
        tasks = [t for t in (self._sweeper, *workers) if t is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._workers.clear()
        self._sweeper = None
        return len(cut)

    async def _sweep_loop(self) -> None:
        while self._started:
            await asyncio.sleep(self._sweep_seconds)
            try:
                await self.sweep()
            except Exception:
                log.exception("outbox sweep failed")

    async def sweep(self) -> int:
        """Start a worker for every owned game with something pending; how many games."""
        async with self.sessions() as s:
            games = await repo.pending_effect_games(s)
        owned = [g for g, guild in games if self.owns(guild)]
        for game_id in owned:
            self.wake(game_id)
        return len(owned)

    def wake(self, game_id: int) -> None:
        """Deliver the game's pending rows (call after the commit that wrote them)."""
        if not self._started:
            return  # start() delivers everything pending
        event = self._wakeups.setdefault(game_id, asyncio.Event())
        event.set()
        worker = self._workers.get(game_id)
        if worker is None or worker.done():
            self._workers[game_id] = asyncio.get_running_loop().create_task(
                self._work(game_id), name=f"outbox-{game_id}"
            )

    async def delivered(self, game_id: int, seq: int, timeout: float) -> bool:
        """Wait (up to ``timeout``) until this process has finished the game's rows up to
        ``seq`` (delivered, or refused for good)."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while self._finished.get(game_id, 0) < seq:
            remaining = end - loop.time()
            if remaining <= 0:
                return False
            event = self._changed.setdefault(game_id, asyncio.Event())
            try:
                await asyncio.wait_for(event.wait(), remaining)
            except TimeoutError:
                return False
        return True

    def _finish(self, game_id: int, seq: int) -> None:
        self._finished[game_id] = max(self._finished.get(game_id, 0), seq)
        event = self._changed.pop(game_id, None)
        if event is not None:
            event.set()

    # -- one game's worker -----------------------------------------------------------------

    async def _work(self, game_id: int) -> None:
        wake = self._wakeups.setdefault(game_id, asyncio.Event())
        try:
            while self._started:
                wake.clear()
                async with self.sessions() as s:
                    rows = await repo.pending_effects(s, game_id)
                if not rows:
                    if wake.is_set():
                        continue
                    return
                row, now = rows[0], utcnow()
                wait = (row.next_try_at - now).total_seconds()
                if (
                    row.claimed_until is not None
                    and row.claimed_by != self.instance
                    and row.claimed_until > now
                ):
                    wait = max(wait, (row.claimed_until - now).total_seconds())
                if wait > 0:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(wake.wait(), wait)
                    continue
                batch = await self._claim(rows, now)
                if not batch:
                    await asyncio.sleep(1.0)
                    continue
                batch = await self._coalesce(batch)
                for row in batch:
                    if not await self._attempt(row):
                        break  # to be tried again later: the game's next rows wait
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("outbox worker of game %s stopped", game_id)
        finally:
            if self._workers.get(game_id) is asyncio.current_task():
                del self._workers[game_id]

    async def _claim(self, rows: list[Outbox], now: datetime) -> list[Outbox]:
        """The rows this process may deliver now: the longest run from the first one that it
        could claim (SQLite: one process, one worker per game, nothing to claim)."""
        async with self.sessions.begin() as s:
            if s.get_bind().dialect.name == "sqlite":
                return rows
            taken = await repo.claim_effects(
                s, [r.id for r in rows], self.instance, now, now + LEASE
            )
        batch: list[Outbox] = []
        for row in rows:
            if row.id not in taken:
                break
            batch.append(row)
        behind = taken - {row.id for row in batch}
        if behind:  # another process holds an earlier row: give these back, it goes on
            async with self.sessions.begin() as s:
                await repo.release_effects(s, behind, self.instance)
        return batch

    async def _coalesce(self, batch: list[Outbox]) -> list[Outbox]:
        """Edits of one message waiting behind one another (a vote count edited on every
        vote, while Discord's rate limit holds the first): each is the whole message, so only
        the last is sent; the earlier ones are dropped as superseded. An edit that keeps the
        content or the view is superseded only by one that keeps them too."""
        last: dict[tuple[Any, ...], Outbox] = {}
        superseded: list[Outbox] = []
        for row in reversed(batch):
            if row.kind != EditSlot.KIND:
                continue
            key = tuple((row.payload or {}).get(k) for k in SLOT_KEY)
            later = last.get(key)
            if later is not None and covers(later.payload or {}, row.payload or {}):
                superseded.append(row)
            else:
                last[key] = row
        if not superseded:
            return batch
        dropped = {row.id for row in superseded}
        async with self.sessions.begin() as s:
            await repo.update_effects(
                s, sorted(dropped), status=EffectStatus.DROPPED.value, last_error="superseded"
            )
        return [row for row in batch if row.id not in dropped]

    async def _attempt(self, row: Outbox) -> bool:
        """One delivery attempt; False when the row is to be tried again later."""
        self.attempts += 1
        attempts = row.attempts + 1
        record: Record | None = None
        try:
            record = from_payload(row.kind, row.payload)
            discord_id = await self.deliver(row, record)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            return await self._failed(row, record, exc, attempts)
        await self._record(
            row,
            status=EffectStatus.DONE.value,
            attempts=attempts,
            discord_id=discord_id,
            last_error=None,
            done_at=utcnow(),
        )
        self._finish(row.game_id, row.seq)
        return True

    async def _failed(
        self, row: Outbox, record: Record | None, exc: Exception, attempts: int
    ) -> bool:
        """An attempt failed: tried again later (False) or refused for good, with the notice
        naming a missing permission (True: the game's next row goes on)."""
        delay = None if isinstance(exc, Permanent) else retry_delay(exc, attempts)
        error = describe(exc)
        what = (row.id, row.game_id, row.seq, row.kind)
        if delay is not None and attempts < MAX_ATTEMPTS:
            log.warning(
                "effect %s (game %s #%s, %s) failed, retrying in %.1f s: %s", *what, delay, error
            )
            await self._record(
                row,
                attempts=attempts,
                next_try_at=utcnow() + timedelta(seconds=delay),
                last_error=error,
            )
            return False
        if not isinstance(exc, discord.HTTPException | Permanent):
            log.exception("effect %s (game %s) could not be delivered", row.id, row.game_id)
        else:
            log.warning("effect %s (game %s #%s, %s) refused: %s", *what, error)
        lacking = None
        if (
            isinstance(exc, discord.Forbidden)
            and exc.code in (50001, 50013)
            and row.kind != Notice.KIND
            and record is not None
        ):
            try:
                lacking = self.lacking(record, await self._place_of(row))
            except Exception:
                log.exception("effect %s: could not tell the missing permission", row.id)
        await self._refused(row, attempts, error, lacking, record)
        metrics.EFFECT_FAILURES.inc()
        self._finish(row.game_id, row.seq)
        return True

    async def _refused(
        self, row: Outbox, attempts: int, error: str, lacking: Lacking | None, record: Record | None
    ) -> None:
        """The row is refused for good; the notice naming a missing permission not named yet,
        if any, is the game's next outbox row, and what the refusal of its DM changes
        (``on_refused``) is done, in the same transaction (once, even across a crash)."""
        async with self.sessions.begin() as s:
            # The game's row lock, as its actions take it, before its last seq is read.
            game = await repo.get_game(s, row.game_id, for_update=True) if lacking else None
            await repo.update_effect(
                s,
                row.id,
                claimed_by=None,
                claimed_until=None,
                status=EffectStatus.FAILED.value,
                attempts=attempts,
                last_error=error,
                done_at=utcnow(),
            )
            notice = None
            if game is not None and lacking is not None:
                try:
                    notice = await self.notice(s, row, game, lacking)
                except Exception:  # the refusal is recorded all the same
                    log.exception("effect %s: could not word the missing permission", row.id)
            if notice is not None:
                await repo.add_effects(
                    s, row.game_id, row.guild_id, [(notice.KIND, notice.payload())], at=utcnow()
                )
            await self._after_refusal(s, record)

    async def _record(self, row: Outbox, **values: Any) -> None:
        """What an attempt did, on the row; the claim is released."""
        async with self.sessions.begin() as s:
            await repo.update_effect(s, row.id, claimed_by=None, claimed_until=None, **values)

    # -- delivery ------------------------------------------------------------------------------

    async def deliver(self, row: Outbox, record: Record) -> int | None:
        """Perform one record; the id of the (last) Discord message it produced, if any."""
        if isinstance(record, Post):
            return await self._post(row, record)
        if isinstance(record, DirectMessage):
            channel = await self.client.create_dm(discord.Object(id=record.user_id))
            return await self._send(row, channel, record.text, record.embeds, record.view)
        if isinstance(record, EditSlot):
            return await self._edit(row, record)
        if isinstance(record, Pin):
            return await self._pin(row, record)
        if isinstance(record, DebateLock):
            await self._debate(row, record)
            return None
        if record.KIND in NEEDED:
            return await self.spaces.deliver(row, record)
        if isinstance(record, Notice):
            if record.channel_id is not None:
                channel = self._channel(record.channel_id)
            elif record.user_id is not None:
                channel = await self.client.create_dm(discord.Object(id=record.user_id))
            else:
                raise Permanent("a notice for nobody")
            return await self._send(row, channel, record.text, (), None)
        raise Permanent(f"unknown effect {row.kind!r}")

    async def _send(
        self,
        row: Outbox,
        channel: Any,
        text: str,
        embeds: tuple[Mapping[str, Any], ...],
        view: View | None,
        files: tuple[Attachment, ...] = (),
        mention: int | None = None,
        role: int | None = None,
    ) -> int | None:
        """Send the messages a text becomes, skipping those already sent (``parts_done``); the
        view and the files go with the last one."""
        parts = messages_of(text, embeds)
        last_id = row.discord_id
        for n, (content, chunk) in enumerate(parts):
            if n < row.parts_done:
                continue
            extra: dict[str, Any] = {}
            if chunk:
                extra["embeds"] = chunk
            if n == len(parts) - 1 and view is not None:
                extra["view"] = self.build_view(view)
            if n == len(parts) - 1 and files:
                extra["files"] = await self.build_files(files)
            allowed = discord.AllowedMentions.none()
            if n == len(parts) - 1 and (mention is not None or role is not None):
                allowed = discord.AllowedMentions(
                    everyone=False,
                    roles=[discord.Object(id=role)] if role is not None else False,
                    users=[discord.Object(id=mention)] if mention is not None else False,
                    replied_user=False,
                )
            try:
                message = await channel.send(
                    content or None,
                    nonce=nonce(row.key, n),
                    allowed_mentions=allowed,
                    **extra,
                )
            except discord.Forbidden as exc:
                if "files" not in extra or exc.code != 50013:
                    raise
                # No Attach Files here: the text at least (the files are dropped).
                del extra["files"]
                message = await channel.send(
                    content or None,
                    nonce=nonce(row.key, n),
                    allowed_mentions=allowed,
                    **extra,
                )
            last_id = message.id
            row.parts_done, row.discord_id = n + 1, last_id
            if len(parts) > 1:
                async with self.sessions.begin() as s:
                    await repo.update_effect(s, row.id, parts_done=n + 1, discord_id=last_id)
        return last_id

    def _channel(self, channel_id: int) -> Any:
        return self.client.get_channel(channel_id) or self.client.get_partial_messageable(
            channel_id
        )

    async def _post(self, row: Outbox, record: Post) -> int | None:
        channel = self._channel(record.channel_id)
        message_id = await self._send(
            row,
            channel,
            record.text,
            record.embeds,
            record.view,
            record.files,
            record.mention,
            record.mention_role,
        )
        if record.slot is not None and message_id is not None:
            await self._into_slot(
                row, record.channel_id, record.slot, message_id, record.pin, record.unpin_previous
            )
        return message_id

    async def _into_slot(
        self, row: Outbox, channel_id: int, slot: str, message_id: int, pin: bool, unpin: bool
    ) -> None:
        """The new message takes the slot: pinned if asked, the old one unpinned."""
        if pin:
            await self._channel(channel_id).get_partial_message(message_id).pin()
        async with self.sessions() as s:
            old = await repo.get_message(s, row.game_id, slot)
        if unpin and old is not None and old.message_id != message_id:
            with contextlib.suppress(discord.NotFound):
                await self._channel(old.channel_id).get_partial_message(old.message_id).unpin()
        async with self.sessions.begin() as s:
            await repo.set_message(s, row.game_id, slot, channel_id, message_id)

    async def _edit(self, row: Outbox, record: EditSlot) -> int | None:
        async with self.sessions() as s:
            old = await repo.get_message(s, row.game_id, record.slot)
        if old is not None and row.parts_done == 0:
            kw: dict[str, Any] = {}
            if record.text is not None:
                kw["content"] = record.text
            if record.clear_view:
                kw["view"] = None
            try:
                await self._channel(old.channel_id).get_partial_message(old.message_id).edit(**kw)
                return old.message_id
            except discord.HTTPException as exc:
                # Gone, too many edits, not ours any more: post it anew if the record says so.
                if exc.status == 429 or exc.status >= 500 or not record.repost:
                    if isinstance(exc, discord.NotFound) and not record.repost:
                        return None
                    raise
                log.info(
                    "slot %s of game %s: edit refused (%s), posting anew",
                    record.slot,
                    row.game_id,
                    describe(exc),
                )
        if not record.repost or record.text is None:
            return None
        channel = self._channel(record.channel_id)
        message_id = await self._send(row, channel, record.text, (), record.view)
        if message_id is not None:
            await self._into_slot(row, record.channel_id, record.slot, message_id, record.pin, True)
        return message_id

    async def _pin(self, row: Outbox, record: Pin) -> int | None:
        async with self.sessions() as s:
            old = await repo.get_message(s, row.game_id, record.slot)
        if old is None:
            return None
        message = self._channel(old.channel_id).get_partial_message(old.message_id)
        await (message.pin() if record.pin else message.unpin())
        return old.message_id

    async def _debate(self, row: Outbox, record: DebateLock) -> None:
        """Lock the thread; or save each player's overwrite, then deny Send Messages on top of
        it; reopening restores what was saved (a missing overwrite is deleted again)."""
        http = self.client.http
        data: dict[str, Any] = dict(await http.get_channel(record.place_id))
        if int(data.get("type", 0)) in THREAD_TYPES:
            reason = "vote in progress" if record.locked else "vote closed: debate reopens"
            await http.edit_channel(record.place_id, locked=record.locked, reason=reason)
            return
        place = record.place_id
        if record.locked:
            current = member_overwrites(data)
            async with self.sessions.begin() as s:
                # A silenced member stays as the silence left them (bot/spaces.py).
                silenced = await silenced_in(s, row.game_id, place)
                users = [uid for uid in record.user_ids if uid not in silenced]
                for uid in users:
                    allow, deny = current.get(uid, (0, 0))
                    await repo.save_overwrite(
                        s, row.game_id, place, uid, present=uid in current, allow=allow, deny=deny
                    )
                saved = {o.user_id: o for o in await repo.saved_overwrites(s, row.game_id, place)}
            for uid in users:
                await deny_on_top(http, place, saved[uid], SEND, "vote in progress")
            return
        async with self.sessions() as s:
            saved_rows = await repo.saved_overwrites(s, row.game_id, place)
        for before in saved_rows:
            await put_back(http, place, before, "vote closed: debate reopens")
            async with self.sessions.begin() as s:
                await repo.forget_overwrite(s, before.id)

    # -- a permission lost mid-game ------------------------------------------------------------

    def needed(self, record: Record, channel: Any) -> list[str]:
        """The permissions the record needs where it acts."""
        in_thread = isinstance(channel, discord.Thread)
        send = "send_messages_in_threads" if in_thread else "send_messages"
        if isinstance(record, Post):
            needed = ["view_channel", send, "embed_links", "read_message_history"]
            return needed + (["pin_messages"] if record.pin else [])
        if isinstance(record, EditSlot):
            return ["view_channel", send, "read_message_history"] + (
                ["pin_messages"] if record.pin else []
            )
        if isinstance(record, Pin):
            return ["view_channel", "read_message_history", "pin_messages"]
        if isinstance(record, DebateLock):
            if in_thread:
                return ["view_channel", "manage_threads"]
            # Discord lets the bot deny in an overwrite only what it holds itself.
            return ["view_channel", "manage_roles", "send_messages"]
        return NEEDED.get(record.KIND, ["view_channel"])

    async def _place_of(self, row: Outbox) -> Any:
        """The channel or thread of the row's game, as discord.py has it (None if unknown)."""
        async with self.sessions() as s:
            game = await repo.get_game(s, row.game_id)
        return self.client.get_channel(game.place_id) if game is not None else None

    def lacking(self, record: Record, channel: Any) -> Lacking:
        """What the record lacked where it acts (discord.py's view of the bot's permissions
        there; all it needs when it has none), and whether the bot can still post there."""
        guild = getattr(channel, "guild", None)
        me = getattr(guild, "me", None)
        needed = self.needed(record, channel)
        # a guild's channel or thread (a DM channel has no guild, so no ``me``)
        if isinstance(channel, discord.abc.GuildChannel | discord.Thread) and me is not None:
            perms = channel.permissions_for(me)
            missing = [p for p in needed if not getattr(perms, p, True)] or needed[1:]
            can_post = perms.view_channel and (
                perms.send_messages_in_threads
                if isinstance(channel, discord.Thread)
                else perms.send_messages
            )
            return Lacking(missing, needed, bool(can_post))
        return Lacking(needed[1:], needed, False)

    async def notice(
        self, s: AsyncSession, row: Outbox, game: Game, lacking: Lacking
    ) -> Notice | None:
        """The notice naming what is missing and not named yet (bot/notices.py): in the game's
        place if the bot can still post there, else by DM to the game's creator. None: all of it
        was named already (the refusal is only logged)."""
        fresh = await to_notice(s, game, lacking.permissions, lacking.needed)
        if not fresh:
            log.info(
                "effect %s (game %s): its missing permission was told already", row.id, game.id
            )
            return None
        lang, place = game.lang, game.place_id
        text = t(
            "common.effects.missing_permission",
            lang,
            what=t(f"common.effects.what_{row.kind}", lang),
            permissions=permission_names(fresh, lang),
            command=f"/{game.kind} resync",
        )
        if lacking.can_post:
            return Notice(text, channel_id=place)
        return Notice(f"<#{place}> — {text}", user_id=game.created_by)
