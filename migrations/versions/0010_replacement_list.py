"""volunteers (the replacement list) and players.missed (missed deadlines in a row)

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01 21:00:00

On play-by-post forums an absent player is prodded, then replaced from a list of volunteers.
``/<game> standby`` puts a member on a game's list (``volunteers``); a player who lets
``replace_after`` deadlines pass in a row (``players.missed``) has their seat offered to the
first volunteer.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "volunteers",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("display_name", sa.String(length=100), nullable=False),
        sa.Column("locale", sa.String(length=2), nullable=False),
        sa.Column("joined_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_volunteers_game_id_games"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("game_id", "user_id", name=op.f("pk_volunteers")),
    )
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("missed", sa.Integer(), server_default="0", nullable=False))


def downgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.drop_column("missed")
    op.drop_table("volunteers")
