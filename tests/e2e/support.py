"""End-to-end fixtures: the sandbox, a guild with players, and the real bot on a SQLite file.

A plugin of every test folder (the root conftest.py's ``pytest_plugins``), as the migrated
template database they take is (``sqlite_template``, tests/db/support.py)."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import discord
import pytest

from sandbox import Sandbox
from tests import harness
from tests.harness import running_bot, sqlite_url

NAMES = ["alice", "Bob", "Chloé", "david", "Émile", "Fatou", "Gus", "hana", "Ivo", "Jade", "Karl"]


@dataclass
class Table:
    """A guild with a game channel, a moderator and would-be players."""

    sb: Any
    guild: Any
    channel: Any
    forum: Any
    mod: Any
    users: list[Any]
    db: Path
    extra: dict[str, Any] = field(default_factory=dict)

    def url(self) -> str:
        return sqlite_url(self.db)


@pytest.fixture
async def sb() -> AsyncIterator[Any]:
    """The sandbox; every request the bot made during the test must pass Discord's OpenAPI
    spec (sandbox/spec.py): each e2e test proves the bot's payloads."""
    async with Sandbox() as sandbox:
        yield sandbox
    refused = [(r.method, r.path, r.error) for r in sandbox.spec_violations()]
    assert refused == [], f"requests Discord's spec refuses: {refused}"


@pytest.fixture(params=["bypasses", "public paths"])
def public_paths(request: pytest.FixtureRequest) -> Iterator[None]:
    """Each test twice: the bot with every bypass, then with none (``[internals] bypasses =
    false``: discord.py's, SQLAlchemy's and CPython's public paths only). Use it before the
    fixtures that start a bot (``pytestmark = pytest.mark.usefixtures("public_paths")``)."""
    harness.KEPT[0] = frozenset() if request.param == "public paths" else None
    try:
        yield
    finally:
        harness.KEPT[0] = None


@pytest.fixture
def table(sb: Any, tmp_path: Path, sqlite_template: Path) -> Table:
    """The guild, and the bot's database: a copy of the template migrated once per test
    process (the bot's start finds it at the head and leaves it alone)."""
    db = tmp_path / "bot.sqlite3"
    shutil.copyfile(sqlite_template, db)
    guild = sb.add_guild("Play-by-post")
    mods = guild.add_role("Game masters", permissions=discord.Permissions(manage_guild=True).value)
    mod = sb.add_user("Moderator")
    guild.add_member(mod, roles=[mods])
    users = []
    for name in NAMES:
        user = sb.add_user(name, locale="fr" if name == "Chloé" else "en-US")
        guild.add_member(user)
        users.append(user)
    channel = guild.add_text_channel("resistance")
    forum = guild.add_forum_channel("games")
    return Table(sb, guild, channel, forum, mod, users, db)


@pytest.fixture
async def bot(table: Table) -> AsyncIterator[Any]:
    async with running_bot(table.sb, table.url()) as running:
        yield running
