"""silenced_members: members a game keeps from posting, with what was there before

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-02 21:00:00

A game may silence a member in its text channel (``bot.effects.Silence``: a dead player no
longer posts); their own overwrite as it was is kept here and put back exactly at the end.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "silenced_members",
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
            name=op.f("fk_silenced_members_game_id_games"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_silenced_members")),
        sa.UniqueConstraint(
            "game_id",
            "channel_id",
            "user_id",
            name=op.f("uq_silenced_members_game_id_channel_id_user_id"),
        ),
    )


def downgrade() -> None:
    op.drop_table("silenced_members")
