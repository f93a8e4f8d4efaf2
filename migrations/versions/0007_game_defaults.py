"""per-game guild defaults in one JSON column keyed by kind

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-30 13:00:00

``guild_settings.resistance_defaults`` and ``refutation_defaults`` become one column,
``game_defaults``: ``{"resistance": {...}, "refutation": {...}}`` (a game whose guild set no
default has no key), so a new game keeps its defaults without a column of its own. The values
are carried over; the downgrade puts them back in the two columns (the defaults of any other
game are lost then: those columns are all that schema had).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

#: the kinds that had a column of their own, and those columns
COLUMNS = {"resistance": "resistance_defaults", "refutation": "refutation_defaults"}

guild_settings = sa.table(
    "guild_settings",
    sa.column("guild_id", sa.BigInteger()),
    sa.column("game_defaults", sa.JSON()),
    *(sa.column(name, sa.JSON()) for name in COLUMNS.values()),
)


def _rows(*names: str) -> list[Any]:
    columns = [guild_settings.c.guild_id, *(guild_settings.c[n] for n in names)]
    return list(op.get_bind().execute(sa.select(*columns)).all())


def _set(guild_id: int, **values: Any) -> None:
    op.get_bind().execute(
        guild_settings.update().where(guild_settings.c.guild_id == guild_id).values(**values)
    )


def upgrade() -> None:
    with op.batch_alter_table("guild_settings") as batch:
        batch.add_column(sa.Column("game_defaults", sa.JSON(), nullable=True))
    for guild_id, *values in _rows(*COLUMNS.values()):
        kept = {kind: dict(v) for kind, v in zip(COLUMNS, values, strict=True) if v}
        _set(guild_id, game_defaults=kept)
    with op.batch_alter_table("guild_settings") as batch:
        batch.alter_column("game_defaults", existing_type=sa.JSON(), nullable=False)
        for name in COLUMNS.values():
            batch.drop_column(name)


def downgrade() -> None:
    with op.batch_alter_table("guild_settings") as batch:
        for name in COLUMNS.values():
            batch.add_column(sa.Column(name, sa.JSON(), nullable=True))
    for guild_id, by_kind in _rows("game_defaults"):
        _set(
            guild_id,
            **{name: dict((by_kind or {}).get(kind) or {}) for kind, name in COLUMNS.items()},
        )
    with op.batch_alter_table("guild_settings") as batch:
        for name in COLUMNS.values():
            batch.alter_column(name, existing_type=sa.JSON(), nullable=False)
        batch.drop_column("game_defaults")
