"""The Refutation Game's own tables: the decks' texts by hash and each guild's uploads, with
their repository functions. They are defined on the store's metadata (``db.models.Base``), so
the one Alembic tree (migrations/) migrates them with the core's tables; the plugin lists them
(``GamePlugin.tables``). The schema is the one earlier versions wrote: nothing is migrated."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, ForeignKey, String, Text, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Mapped, mapped_column

from db.models import Base
from db.repo import dialect_insert
from db.types import utcnow


class DeckContent(Base):
    """The text of a deck that passed the check, by the SHA-256 of its UTF-8 bytes. Never
    changed nor deleted while a game refers to it: a game keeps the hash of its deck."""

    __tablename__ = "deck_contents"

    sha256: Mapped[str] = mapped_column(String(64), primary_key=True)
    deck_id: Mapped[str] = mapped_column(String(64))
    content: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class GuildDeck(Base):
    """A deck a guild's moderator uploaded, by name within the guild."""

    __tablename__ = "guild_decks"

    guild_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    sha256: Mapped[str] = mapped_column(
        String(64), ForeignKey("deck_contents.sha256", ondelete="RESTRICT")
    )
    uploaded_by: Mapped[int] = mapped_column(BigInteger)
    uploaded_at: Mapped[datetime] = mapped_column(default=utcnow)


async def store_deck_content(
    s: AsyncSession, sha256: str, deck_id: str, content: str, *, at: datetime | None = None
) -> None:
    """Keep a checked deck's text under its hash (nothing happens if it is already there)."""
    stmt = (
        dialect_insert(s, DeckContent)
        .values(sha256=sha256, deck_id=deck_id, content=content, created_at=at or utcnow())
        .on_conflict_do_nothing(index_elements=[DeckContent.sha256])
    )
    await s.execute(stmt)


async def deck_content(s: AsyncSession, sha256: str) -> str | None:
    stmt = select(DeckContent.content).where(DeckContent.sha256 == sha256)
    return (await s.execute(stmt)).scalar_one_or_none()


async def guild_deck(s: AsyncSession, guild_id: int, name: str) -> GuildDeck | None:
    return await s.get(GuildDeck, (guild_id, name))


async def guild_decks(s: AsyncSession, guild_id: int) -> list[GuildDeck]:
    """The decks uploaded in a guild, by name."""
    stmt = select(GuildDeck).where(GuildDeck.guild_id == guild_id).order_by(GuildDeck.name)
    return list((await s.scalars(stmt)).all())


async def save_guild_deck(
    s: AsyncSession,
    guild_id: int,
    name: str,
    sha256: str,
    uploaded_by: int,
    *,
    at: datetime | None = None,
) -> None:
    """Add or replace the guild's upload ``name`` (games already opened keep their copy)."""
    ins = dialect_insert(s, GuildDeck)
    stmt = ins.values(
        guild_id=guild_id,
        name=name,
        sha256=sha256,
        uploaded_by=uploaded_by,
        uploaded_at=at or utcnow(),
    )
    stmt = stmt.on_conflict_do_update(
        index_elements=[GuildDeck.guild_id, GuildDeck.name],
        set_={
            "sha256": stmt.excluded.sha256,
            "uploaded_by": stmt.excluded.uploaded_by,
            "uploaded_at": stmt.excluded.uploaded_at,
        },
    )
    await s.execute(stmt)
