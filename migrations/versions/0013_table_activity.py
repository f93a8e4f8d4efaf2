"""activity, mod_actions: posts in a game's place, the moderators' log; a lobby's role

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-03 06:00:00

The posts are counted in memory from the message events and written here in batches
(bot/activity.py): one row per player of a game, today's and this round's counts, the last post.
``players.missed_total`` counts every deadline a player let pass (``missed`` only those in a
row); ``guild_settings.lobby_role_id`` is the role a new lobby mentions (``/settings
lobby_role``). ``mod_actions``: each moderator action, who, when, what and why (bot/modlog.py),
posted in ``guild_settings.mod_log_channel_id`` (``/settings mod_log``).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
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
    op.create_table(
        "mod_actions",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("moderator_id", sa.BigInteger(), nullable=False),
        sa.Column("moderator_name", sa.String(length=100), nullable=False),
        sa.Column("action", sa.String(length=32), nullable=False),
        sa.Column("detail", sa.JSON(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
            name=op.f("fk_mod_actions_game_id_games"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mod_actions")),
    )
    op.create_index("ix_mod_actions_game_id", "mod_actions", ["game_id"])
    with op.batch_alter_table("players") as batch:
        batch.add_column(
            sa.Column("missed_total", sa.Integer(), server_default="0", nullable=False)
        )
    with op.batch_alter_table("guild_settings") as batch:
        batch.add_column(sa.Column("lobby_role_id", sa.BigInteger(), nullable=True))
        batch.add_column(sa.Column("mod_log_channel_id", sa.BigInteger(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("guild_settings") as batch:
        batch.drop_column("mod_log_channel_id")
        batch.drop_column("lobby_role_id")
    with op.batch_alter_table("players") as batch:
        batch.drop_column("missed_total")
    op.drop_index("ix_mod_actions_game_id", table_name="mod_actions")
    op.drop_table("mod_actions")
    op.drop_table("activity")
