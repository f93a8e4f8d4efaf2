"""activity: each player's posts in a game's place; a player's misses in all; a lobby's role

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-03 06:00:00

The posts are counted in memory from the message events and written here in batches
(bot/activity.py): one row per player of a game, today's and this round's counts, the last post.
``players.missed_total`` counts every deadline a player let pass (``missed`` only those in a
row); ``guild_settings.lobby_role_id`` is the role a new lobby mentions (``/settings
lobby_role``).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "activity",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("posts", sa.Integer(), nullable=False),
        sa.Column("day", sa.String(length=10), nullable=False),
        sa.Column("day_posts", sa.Integer(), nullable=False),
        sa.Column("round_key", sa.String(length=32), nullable=False),
        sa.Column("round_posts", sa.Integer(), nullable=False),
        sa.Column("last_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_activity_game_id_games"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("game_id", "user_id", name=op.f("pk_activity")),
    )
    with op.batch_alter_table("players") as batch:
        batch.add_column(
            sa.Column("missed_total", sa.Integer(), server_default="0", nullable=False)
        )
    with op.batch_alter_table("guild_settings") as batch:
        batch.add_column(sa.Column("lobby_role_id", sa.BigInteger(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("guild_settings") as batch:
        batch.drop_column("lobby_role_id")
    with op.batch_alter_table("players") as batch:
        batch.drop_column("missed_total")
    op.drop_table("activity")
