"""handled_interactions: the interactions whose action committed, with their answer

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01 19:30:00

Discord may deliver the same INTERACTION_CREATE again (after a RESUME): a redelivered
``/resistance extend`` moved the deadline twice. Each action's transaction now records the
interaction it consumed; a redelivery finds it and is answered as the first was, without acting
again. Rows are kept a few days (the scheduler's sweep prunes them).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "handled_interactions",
        sa.Column("id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("reply", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
            name=op.f("fk_handled_interactions_game_id_games"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_handled_interactions")),
    )
    op.create_index(
        op.f("ix_handled_interactions_created_at"),
        "handled_interactions",
        ["created_at"],
        unique=False,
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_handled_interactions_created_at"), table_name="handled_interactions")
    op.drop_table("handled_interactions")
