"""guild time zone (daily deadline time)

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30 10:10:00

Each guild's IANA time zone for the ``deadline_time`` option; existing guilds get UTC.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("guild_settings") as batch:
        batch.add_column(
            sa.Column("timezone", sa.String(length=64), nullable=False, server_default="UTC")
        )


def downgrade() -> None:
    with op.batch_alter_table("guild_settings") as batch:
        batch.drop_column("timezone")
