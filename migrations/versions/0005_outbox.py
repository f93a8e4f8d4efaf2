"""outbox and saved overwrites

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-30 10:00:00

The transactional outbox (every Discord side effect of a game action, written with the state
change and delivered in order per game by bot.dispatcher) and the member overwrites saved
before a text channel's debate is closed (restored exactly when it reopens).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "outbox",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("parts_done", sa.Integer(), nullable=False),
        sa.Column("next_try_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("claimed_by", sa.String(length=64), nullable=True),
        sa.Column("claimed_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("discord_id", sa.BigInteger(), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("done_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint(
            "status IN ('pending', 'done', 'failed', 'dropped')", name=op.f("ck_outbox_status")
        ),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_outbox_game_id_games"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_outbox")),
        sa.UniqueConstraint("game_id", "seq", name=op.f("uq_outbox_game_id_seq")),
        sa.UniqueConstraint("key", name=op.f("uq_outbox_key")),
    )
    op.create_index("ix_outbox_status_game_id", "outbox", ["status", "game_id"], unique=False)
    op.create_table(
        "saved_overwrites",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("channel_id", sa.BigInteger(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("present", sa.Boolean(), nullable=False),
        sa.Column("allow", sa.BigInteger(), nullable=False),
        sa.Column("deny", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
            name=op.f("fk_saved_overwrites_game_id_games"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_saved_overwrites")),
        sa.UniqueConstraint(
            "game_id",
            "channel_id",
            "user_id",
            name=op.f("uq_saved_overwrites_game_id_channel_id_user_id"),
        ),
    )


def downgrade() -> None:
    op.drop_table("saved_overwrites")
    op.drop_index("ix_outbox_status_game_id", table_name="outbox")
    op.drop_table("outbox")
