"""index deadlines (game_id, kind, status, due_at)

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-30 15:45:00

The vote path reads, with each game's head, its earliest open vote deadline (a correlated
``min(due_at)`` over ``deadlines`` where ``game_id``, ``kind`` and ``status`` match). SQLite's
planner ran that subquery on ``ix_deadlines_status_due_at`` (``status = 'open'``: every open
deadline of every game, walked for each game of the batch): 0.6 ms per game with 2,000 open
deadlines, 143 ms for a batch of 256 games, on the event loop, growing with the number of open
games. This index answers it with one seek (covering); ``ix_deadlines_game_id`` stays (the
planner takes it for ``game_id = ? AND status = ?`` elsewhere).
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

NAME = "ix_deadlines_game_id_kind_status"


def upgrade() -> None:
    op.create_index(NAME, "deadlines", ["game_id", "kind", "status", "due_at"], unique=False)


def downgrade() -> None:
    op.drop_index(NAME, table_name="deadlines")
