"""The decks the bot knows, by NAME: the default deck, the ``<name>.toml`` files of the
configured ``decks_dir``, and the decks a guild's moderators upload. No command takes a path.

A deck is checked before it is used: parsed (``games.refutation.rules.deck.parse_deck_bytes``, which
refuses hostile files) and rendered the way the game renders every card, its page, its reference
page, the largest hand and the vote message, each measured against Discord's limits
(``bot.limits``). Untrusted decks (uploads, files of ``decks_dir``) are checked in a separate
process (``python -m games.refutation.deck_worker``) that is killed after ``check_seconds``:
the event loop never parses them. A checked deck's text is stored in the database under the SHA-256
of its bytes, and a game keeps that hash: its deck never changes and never disappears.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import re
import stat
import subprocess
import sys
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import discord
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot import limits
from bot.errors import UserError
from bot.i18n import t
from games.refutation.decks import tables
from games.refutation.decks.settings import DEFAULT as DEFAULT
from games.refutation.decks.settings import NAME as NAME
from games.refutation.decks.settings import DeckSettings, deck_files
from games.refutation.rules import Deck
from games.refutation.rules.deck import (
    default_deck_path,
    parse_deck,
    parse_deck_bytes,
)

# NAME and DEFAULT (a deck's name, the default deck's) live with the [decks] settings: the
# config's check of the deck it names reads them too (games/refutation/decks/settings.py).
CACHE_SIZE = 32
CONCURRENT_CHECKS = 2
ROOT = Path(__file__).resolve().parents[1]


class DeckRefused(Exception):
    """A deck that breaks a limit: ``key`` (``decks.limit.*``, ``decks.error.*``) and params."""

    def __init__(self, key: str, /, **params: Any) -> None:
        super().__init__(key)
        self.key = key
        self.params = params


# -- reading a file without trusting it -------------------------------------------------------


def read_capped(path: Path, max_bytes: int) -> bytes:
    """A deck file's bytes. Opened non-blocking (a FIFO does not freeze anything), refused
    unless it is a regular file, refused by its size before reading, never read past the cap.
    Raises ``DeckRefused`` (``decks.error.not_a_file`` / ``not_found`` / ``unreadable`` /
    ``refutation.deck_error.too_large``)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise DeckRefused("refutation.decks.error.not_found") from None
    except OSError:
        raise DeckRefused("refutation.decks.error.unreadable") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise DeckRefused("refutation.decks.error.not_a_file")
        if info.st_size > max_bytes:
            raise DeckRefused("refutation.deck_error.too_large", size=info.st_size, max=max_bytes)
        chunks: list[bytes] = []
        left = max_bytes + 1
        while left > 0:
            chunk = os.read(fd, min(left, 65536))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
    except OSError:
        raise DeckRefused("refutation.decks.error.unreadable") from None
    finally:
        os.close(fd)
    if len(data) > max_bytes:  # the file grew between fstat and read
        raise DeckRefused("refutation.deck_error.too_large", size=len(data), max=max_bytes)
    return data


def name_from_filename(filename: str) -> str | None:
    """The deck name an uploaded file gets: its name without ``.toml``, lower-case, other
    characters as ``-``; None if nothing usable is left."""
    stem = filename.rsplit("/", 1)[-1]
    stem = stem[:-5] if stem.lower().endswith(".toml") else stem
    slug = re.sub(r"[^a-z0-9_-]+", "-", stem.lower()).strip("-_")[:32].rstrip("-_")
    return slug if NAME.fullmatch(slug) else None


def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# -- running the check in a separate process --------------------------------------------------


def _worker() -> tuple[list[str], dict[str, str]]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    return [sys.executable, "-m", "games.refutation.deck_worker"], env


def _verdict(out: bytes, returncode: int | None) -> dict[str, Any]:
    try:
        verdict = json.loads(out.decode("utf-8"))
        if (
            isinstance(verdict, dict)
            and isinstance(verdict.get("ok"), bool)
            and (verdict["ok"] or isinstance(verdict.get("key"), str))
        ):
            return verdict
    except (ValueError, UnicodeDecodeError):
        pass
    return {
        "ok": False,
        "key": "refutation.decks.error.crashed",
        "params": {"code": returncode or 0},
    }


def _timeout(seconds: float) -> dict[str, Any]:
    return {
        "ok": False,
        "key": "refutation.decks.error.timeout",
        "params": {"seconds": f"{seconds:g}"},
    }


async def check_off_loop(data: bytes, seconds: float, max_bytes: int) -> dict[str, Any]:
    """The check of ``data`` in a separate process, killed after ``seconds``."""
    command, env = _worker()
    proc = await asyncio.create_subprocess_exec(
        *command,
        str(max_bytes),
        str(seconds),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        env=env,
    )
    try:
        out, _ = await asyncio.wait_for(proc.communicate(data), seconds)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        return _timeout(seconds)
    return _verdict(out, proc.returncode)


def check_in_process(data: bytes, seconds: float, max_bytes: int) -> dict[str, Any]:
    """The same, blocking (the command line)."""
    command, env = _worker()
    try:
        done = subprocess.run(
            [*command, str(max_bytes), str(seconds)],
            input=data,
            capture_output=True,
            env=env,
            timeout=seconds,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return _timeout(seconds)
    return _verdict(done.stdout, done.returncode)


def problem_text(verdict: dict[str, Any], lang: str, *, markdown: bool = True) -> str:
    """The refusal of a check, in ``lang``, one line (Discord markdown escaped when asked)."""
    params = dict(verdict.get("params") or {})
    key = str(verdict.get("key"))
    if key.startswith("refutation.decks.limit."):
        params["page"] = t(
            f"refutation.decks.page.{params.get('page')}", lang, number=params.get("number")
        )
        params["part"] = t(f"refutation.decks.part.{params.get('part')}", lang)
        params["lang"] = t(f"settings.language_name.{params.get('lang')}", lang)
    if markdown:
        params = {
            k: discord.utils.escape_markdown(v) if isinstance(v, str) else v
            for k, v in params.items()
        }
    try:
        text = t(key, lang, **params)
    except (KeyError, IndexError, ValueError):
        text = t("refutation.decks.error.crashed", lang, code=0)
    return " ".join(text.split())


# -- the registry -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Known:
    """A deck name and where it comes from: ``default``, ``file`` or ``upload``."""

    name: str
    origin: str


Sessions = async_sessionmaker[AsyncSession]


class DeckRegistry:
    def __init__(self, settings: DeckSettings | None = None) -> None:
        self.settings = settings or DeckSettings()
        self._parsed: OrderedDict[str, Deck] = OrderedDict()
        self._checked: dict[str, str] = {}  # decks_dir files that passed: hash -> deck id
        self._default: tuple[str, str, str] | None = None  # (sha256, deck id, text)
        # At most two checks at once (the machine's cores are the bot's too): a burst of
        # uploads waits its turn instead of starting a process each.
        self._checks = asyncio.Semaphore(CONCURRENT_CHECKS)

    async def check(self, data: bytes) -> dict[str, Any]:
        """The check of untrusted ``data`` in a separate process, a few at a time."""
        async with self._checks:
            return await check_off_loop(data, self.settings.check_seconds, self.max_bytes)

    @property
    def max_bytes(self) -> int:
        return self.settings.max_kb * 1024

    def dir_names(self) -> list[str]:
        """The decks of ``decks_dir``: its ``<name>.toml`` files with a valid name."""
        return deck_files(self.settings.decks_dir)

    async def known(self, sessions: Sessions, guild_id: int) -> list[Known]:
        """Every deck a guild may choose: the default deck, the files, its uploads."""
        async with sessions() as s:
            uploads = [d.name for d in await tables.guild_decks(s, guild_id)]
        files = [n for n in self.dir_names() if n not in uploads]
        return [
            Known(DEFAULT, "default"),
            *(Known(n, "file") for n in files),
            *(Known(n, "upload") for n in uploads),
        ]

    async def resolve(
        self, sessions: Sessions, guild_id: int, name: str, lang: str = "en"
    ) -> tuple[str, str]:
        """The name and content hash of the deck ``name`` for this guild, its text stored in
        the database. An upload of the guild wins over a file of the same name. Raises
        ``UserError`` (unknown, unreadable or broken deck)."""
        name = name.strip().lower()
        if not NAME.fullmatch(name):
            raise UserError("refutation.decks.error.unknown", name=_shown(name))
        async with sessions() as s:
            upload = await tables.guild_deck(s, guild_id, name)
        if upload is not None:
            return name, upload.sha256
        if name == DEFAULT:
            sha, deck_id, text = await self._default_deck()
        else:
            if name not in self.dir_names():
                raise UserError("refutation.decks.error.unknown", name=_shown(name))
            assert self.settings.decks_dir
            path = Path(self.settings.decks_dir) / f"{name}.toml"
            try:
                data = await asyncio.to_thread(read_capped, path, self.max_bytes)
            except DeckRefused as exc:
                verdict = {"key": exc.key, "params": exc.params}
                raise UserError(
                    "refutation.decks.error.broken", name=name, problem=problem_text(verdict, lang)
                ) from None
            sha = sha256_of(data)
            if sha not in self._checked:
                verdict = await self.check(data)
                if not verdict["ok"]:
                    raise UserError(
                        "refutation.decks.error.broken",
                        name=name,
                        problem=problem_text(verdict, lang),
                    )
                self._checked[sha] = str(verdict["id"])
            deck_id, text = self._checked[sha], data.decode("utf-8")
        async with sessions.begin() as s:
            await tables.store_deck_content(s, sha, deck_id, text)
        return name, sha

    async def _default_deck(self) -> tuple[str, str, str]:
        if self._default is None:
            data = await asyncio.to_thread(default_deck_path().read_bytes)
            deck = await asyncio.to_thread(parse_deck_bytes, data)  # shipped and tested
            sha = sha256_of(data)
            self._remember(sha, deck)
            self._default = (sha, deck.id, data.decode("utf-8"))
        return self._default

    def _remember(self, sha: str, deck: Deck) -> None:
        self._parsed[sha] = deck
        self._parsed.move_to_end(sha)
        while len(self._parsed) > CACHE_SIZE:
            self._parsed.popitem(last=False)

    async def by_hash(self, s: AsyncSession, sha: str) -> Deck:
        """The stored deck with this hash, parsed once (in a thread: it passed the check)."""
        deck = self._parsed.get(sha)
        if deck is not None:
            self._parsed.move_to_end(sha)
            return deck
        text = await tables.deck_content(s, sha)
        if text is None:
            raise UserError("refutation.decks.error.missing")
        deck = await asyncio.to_thread(parse_deck, text.removeprefix("\ufeff"))
        self._remember(sha, deck)
        return deck

    async def admit(self, sessions: Sessions, guild_id: int, name: str) -> None:
        """Refuse an upload by its name before its file is read: a name of the bot's decks,
        or one upload too many for the guild."""
        if not NAME.fullmatch(name) or name == DEFAULT or name in self.dir_names():
            raise UserError("refutation.decks.error.name_taken", name=_shown(name))
        async with sessions() as s:
            uploads = {d.name for d in await tables.guild_decks(s, guild_id)}
        if name not in uploads and len(uploads) >= self.settings.uploads_per_guild:
            raise UserError("refutation.decks.error.too_many", max=self.settings.uploads_per_guild)

    async def upload(
        self,
        sessions: Sessions,
        guild_id: int,
        name: str,
        data: bytes,
        uploaded_by: int,
        lang: str,
    ) -> dict[str, Any]:
        """Check an uploaded deck off the event loop and store it as the guild's ``name``.
        Returns the check's verdict (counts); raises ``UserError`` and stores nothing when the
        deck is refused."""
        await self.admit(sessions, guild_id, name)
        if len(data) > self.max_bytes:
            verdict = {
                "key": "refutation.deck_error.too_large",
                "params": {"size": len(data), "max": self.max_bytes},
            }
            raise UserError("refutation.decks.upload.refused", problem=problem_text(verdict, lang))
        verdict = await self.check(data)
        if not verdict["ok"]:
            raise UserError("refutation.decks.upload.refused", problem=problem_text(verdict, lang))
        sha = str(verdict["sha256"])
        async with sessions.begin() as s:
            await tables.store_deck_content(s, sha, str(verdict["id"]), data.decode("utf-8"))
            await tables.save_guild_deck(s, guild_id, name, sha, uploaded_by)
        return verdict


def _shown(name: str) -> str:
    return discord.utils.escape_markdown(limits.cut(name, 40))
