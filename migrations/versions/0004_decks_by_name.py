"""decks by name: stored deck contents, guild uploads, the guild's deck by name

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30 10:30:00

A deck is chosen by name; a checked deck's text is kept under the SHA-256 of its bytes, and a
game keeps that hash, so its deck can never disappear. ``guild_settings.deck_path`` (a path on
the host, which any member with Manage Server could point anywhere) is dropped: guilds that had
one go back to the configured deck; moderators choose again by name.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "deck_contents",
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("deck_id", sa.String(length=64), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("sha256", name=op.f("pk_deck_contents")),
    )
    op.create_table(
        "guild_decks",
        sa.Column("guild_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("name", sa.String(length=32), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("uploaded_by", sa.BigInteger(), nullable=False),
        sa.Column("uploaded_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["sha256"],
            ["deck_contents.sha256"],
            name=op.f("fk_guild_decks_sha256_deck_contents"),
            ondelete="RESTRICT",
        ),
        sa.PrimaryKeyConstraint("guild_id", "name", name=op.f("pk_guild_decks")),
    )
    with op.batch_alter_table("guild_settings") as batch:
        batch.add_column(sa.Column("deck_name", sa.String(length=32), nullable=True))
        batch.drop_column("deck_path")


def downgrade() -> None:
    with op.batch_alter_table("guild_settings") as batch:
        batch.add_column(sa.Column("deck_path", sa.Text(), nullable=True))
        batch.drop_column("deck_name")
    op.drop_table("guild_decks")
    op.drop_table("deck_contents")
