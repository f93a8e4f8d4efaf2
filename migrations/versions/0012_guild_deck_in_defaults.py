"""the guild's Refutation deck becomes one of its defaults for that game

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-03 06:10:00

``guild_settings.deck_name`` was the one column of the core's tables that named a game. The
deck is the Refutation Game's ``deck`` option: the guild's choice is now kept where every
guild default of a game is, ``game_defaults["refutation"]["deck"]``. The values are carried
over, and back by the downgrade.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

KIND, OPTION = "refutation", "deck"

guild_settings = sa.table(
    "guild_settings",
    sa.column("guild_id", sa.BigInteger()),
    sa.column("game_defaults", sa.JSON()),
    sa.column("deck_name", sa.String()),
)


def _rows() -> list[Any]:
    columns = (
        guild_settings.c.guild_id,
        guild_settings.c.game_defaults,
        guild_settings.c.deck_name,
    )
    return list(op.get_bind().execute(sa.select(*columns)).all())


def _set(guild_id: int, **values: Any) -> None:
    op.get_bind().execute(
        guild_settings.update().where(guild_settings.c.guild_id == guild_id).values(**values)
    )


def upgrade() -> None:
    for guild_id, defaults, deck in _rows():
        if deck:
            kind = {**((defaults or {}).get(KIND) or {}), OPTION: deck}
            _set(guild_id, game_defaults={**(defaults or {}), KIND: kind})
    with op.batch_alter_table("guild_settings") as batch:
        batch.drop_column("deck_name")


def downgrade() -> None:
    with op.batch_alter_table("guild_settings") as batch:
        batch.add_column(sa.Column("deck_name", sa.String(length=32), nullable=True))
    for guild_id, defaults, _ in _rows():
        kind = dict((defaults or {}).get(KIND) or {})
        deck = kind.pop(OPTION, None)
        if deck is not None:
            rest = {k: v for k, v in (defaults or {}).items() if k != KIND}
            _set(guild_id, deck_name=deck, game_defaults={**rest, **({KIND: kind} if kind else {})})
