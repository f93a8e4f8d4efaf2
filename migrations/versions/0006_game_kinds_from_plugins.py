"""game kinds from the plugins: no CHECK on games.kind

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-30 12:45:00

A game's kind was checked by the database against the two games' names: a third game needed a
migration. The registered plugins (bot.plugins) are now the one list of kinds and the
application checks a kind against it, so the CHECK goes. Going down puts it back, which the
database refuses while a game of another kind (a plugin's) is stored.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # SQLite: batch mode copies the table without the constraint (its other CHECKs, indexes and
    # foreign keys are copied with it).
    with op.batch_alter_table("games") as batch:
        batch.drop_constraint(op.f("ck_games_kind"), type_="check")


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.create_check_constraint(
            op.f("ck_games_kind"), sa.text("kind IN ('resistance', 'refutation')")
        )
