"""bot state (key/value) and the members_host guild setting

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30 10:05:00

``bot_state``: small facts the bot keeps about itself, e.g. the hash of the command tree last
synced to Discord (commands are synced only when it changes). ``guild_settings.members_host``:
whether any member may open a game (and then moderates the games they opened).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "bot_state",
        sa.Column("key", sa.String(length=200), nullable=False),
        sa.Column("value", sa.Text(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_bot_state")),
    )
    with op.batch_alter_table("guild_settings") as batch:
        batch.add_column(
            sa.Column("members_host", sa.Boolean(), nullable=False, server_default=sa.false())
        )


def downgrade() -> None:
    with op.batch_alter_table("guild_settings") as batch:
        batch.drop_column("members_host")
    op.drop_table("bot_state")
