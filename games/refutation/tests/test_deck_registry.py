"""Decks by name at the service level, on SQLite and PostgreSQL: uploads checked in the worker
process and stored by hash, refusals that store nothing, a replaced or deleted deck that the
games which started with it keep."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.errors import UserError
from bot.service import Actor
from games.builtin import builtin_registry
from games.refutation.decks.registry import DeckRegistry
from games.refutation.decks.settings import DeckSettings
from games.refutation.decks.tables import DeckContent, GuildDeck
from games.refutation.rules import default_deck_path
from games.refutation.service import RefutationService
from games.refutation.settings import DeckSettingsService
from tests.bot.services import quiet_services
from tests.db import queries

pytestmark = pytest.mark.timeout(180)

GUILD = 77
DEFAULT_TEXT = default_deck_path().read_text(encoding="utf-8")
MOD = Actor(id=1, name="mod", lang="en", manages_guild=True)
MEMBER = Actor(id=2, name="member", lang="fr")


def deck(marker: str) -> bytes:
    return DEFAULT_TEXT.replace('id = "climate-default"', f'id = "{marker}"', 1).encode()


def reader(data: bytes) -> Any:
    async def read(limit: int) -> bytes:
        return data[:limit]

    return read


async def never_read(limit: int) -> bytes:
    raise AssertionError("the file was read")


def service(sessions: Any, settings: DeckSettings) -> DeckSettingsService:
    app = quiet_services(sessions, registry=builtin_registry())
    app.sections = {"decks": settings}
    return DeckSettingsService(RefutationService(app))


async def stored(sessions: Any) -> tuple[int, int]:
    async with sessions() as s:
        return await queries.count_rows(s, DeckContent), await queries.count_rows(s, GuildDeck)


async def test_upload_then_replace_keeps_the_first_content(sessions: Any) -> None:
    svc = service(sessions, DeckSettings(check_seconds=60))
    registry = svc.decks
    answer = await svc.upload_deck(MOD, GUILD, "Club.toml", 10, reader(deck("one")))
    assert "Deck `club` saved: 25 disinformation" in answer
    name, first = await registry.resolve(sessions, GUILD, "club")
    assert name == "club"
    await svc.upload_deck(MOD, GUILD, "club.toml", 10, reader(deck("two")))
    _, second = await registry.resolve(sessions, GUILD, "club")
    assert second != first
    registry._parsed.clear()  # as after a restart: both come back from the database
    async with sessions() as s:
        assert (await registry.by_hash(s, first)).id == "one"  # a game that started with it
        assert (await registry.by_hash(s, second)).id == "two"
    assert await stored(sessions) == (2, 1)
    # Another guild does not see this guild's upload.
    with pytest.raises(UserError) as info:
        await registry.resolve(sessions, GUILD + 1, "club")
    assert info.value.key == "refutation.decks.error.unknown"


async def test_refused_uploads_store_nothing(sessions: Any) -> None:
    svc = service(sessions, DeckSettings(check_seconds=60, max_kb=64))
    cases: list[tuple[Actor, str, int, Any, str]] = [
        (MEMBER, "a.toml", 10, never_read, "settings.error.manage_guild"),
        (MOD, "big.toml", 64 * 1024 + 1, never_read, "refutation.decks.upload.refused"),
        (MOD, "default.toml", 10, never_read, "refutation.decks.error.name_taken"),
        (MOD, "***.toml", 10, never_read, "refutation.decks.error.bad_name"),
        (
            MOD,
            "deep.toml",
            10,
            reader(b"x = " + b"[" * 40 + b"]" * 40),
            "refutation.decks.upload.refused",
        ),
        (MOD, "lies.toml", 10, reader(b"#" * (64 * 1024 + 5)), "refutation.decks.upload.refused"),
    ]
    for actor, filename, size, read, key in cases:
        with pytest.raises(UserError) as info:
            await svc.upload_deck(actor, GUILD, filename, size, read)
        assert info.value.key == key, filename
    assert await stored(sessions) == (0, 0)


async def test_uploads_per_guild(sessions: Any) -> None:
    svc = service(sessions, DeckSettings(check_seconds=60, uploads_per_guild=1))
    await svc.upload_deck(MOD, GUILD, "one.toml", 10, reader(deck("one")))
    with pytest.raises(UserError) as info:
        await svc.upload_deck(MOD, GUILD, "two.toml", 10, never_read)
    assert info.value.key == "refutation.decks.error.too_many" and info.value.params == {"max": 1}
    await svc.upload_deck(MOD, GUILD, "one.toml", 10, reader(deck("again")))  # a replacement


async def test_decks_dir_by_name(sessions: Any, tmp_path: Path) -> None:
    folder = tmp_path / "decks"
    folder.mkdir()
    (folder / "club.toml").write_bytes(deck("club"))
    (folder / "default.toml").write_bytes(deck("shadow"))  # never offered: the name is taken
    (folder / "Bad Name.toml").write_bytes(deck("bad"))
    (folder / "notes.txt").write_text("not a deck")
    svc = service(sessions, DeckSettings(decks_dir=str(folder), check_seconds=60))
    registry = svc.decks
    known = await registry.known(sessions, GUILD)
    assert [(k.name, k.origin) for k in known] == [("default", "default"), ("club", "file")]
    _, default = await registry.resolve(sessions, GUILD, "default")
    async with sessions() as s:
        assert (await registry.by_hash(s, default)).id == "climate-default"
    assert "`club`" in await svc.set_deck(MOD, GUILD, "club")
    _, first = await registry.resolve(sessions, GUILD, "club")
    # The file is broken after the fact: a new game is refused, naming the problem; the
    # content a game started with is still there.
    (folder / "club.toml").write_bytes(deck("club").replace(b"stars = 3", b"stars = 9", 1))
    with pytest.raises(UserError) as info:
        await registry.resolve(sessions, GUILD, "club", "fr")
    assert info.value.key == "refutation.decks.error.broken"
    problem = info.value.params["problem"]
    assert "le champ stars doit valoir de 1 à 3, pas 9" in problem, problem
    (folder / "club.toml").unlink()
    with pytest.raises(UserError) as info:
        await registry.resolve(sessions, GUILD, "club")
    assert info.value.key == "refutation.decks.error.unknown"
    registry._parsed.clear()
    async with sessions() as s:
        assert (await registry.by_hash(s, first)).id == "club"
    # An upload named like a file of the folder is refused; an upload wins over a file that
    # appears later with its name.
    (folder / "club.toml").write_bytes(deck("club"))
    with pytest.raises(UserError) as info:
        await svc.upload_deck(MOD, GUILD, "club.toml", 10, never_read)
    assert info.value.key == "refutation.decks.error.name_taken"


async def test_a_missing_content_is_a_clear_error(sessions: Any) -> None:
    registry = DeckRegistry()
    async with sessions() as s:
        with pytest.raises(UserError) as info:
            await registry.by_hash(s, "0" * 64)
    assert info.value.key == "refutation.decks.error.missing"
