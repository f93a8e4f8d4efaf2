"""initial schema

Revision ID: 0001
Revises:
Create Date: 2026-11-29 22:04:46

Generated with autogenerate, then reviewed: plain sa.DateTime(timezone=True) instead of the
app's UTCDateTime (a migration must not import application code), indexes created with
op.create_index, downgrade drops the tables (their indexes go with them).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "games",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("channel_id", sa.BigInteger(), nullable=False),
        sa.Column("thread_id", sa.BigInteger(), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("created_by", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("state", sa.JSON(), nullable=True),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("lang", sa.String(length=2), nullable=False),
        sa.CheckConstraint("kind IN ('resistance', 'refutation')", name=op.f("ck_games_kind")),
        sa.CheckConstraint("lang IN ('en', 'fr')", name=op.f("ck_games_lang")),
        sa.CheckConstraint(
            "status IN ('lobby', 'running', 'ended', 'cancelled')", name=op.f("ck_games_status")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_games")),
    )
    op.create_index("ix_games_channel_id_status", "games", ["channel_id", "status"], unique=False)
    op.create_index("ix_games_guild_id", "games", ["guild_id"], unique=False)
    op.create_index(
        "uq_games_active_channel",
        "games",
        ["channel_id"],
        unique=True,
        sqlite_where=sa.text("thread_id IS NULL AND status IN ('lobby', 'running')"),
        postgresql_where=sa.text("thread_id IS NULL AND status IN ('lobby', 'running')"),
    )
    op.create_index(
        "uq_games_active_thread",
        "games",
        ["thread_id"],
        unique=True,
        sqlite_where=sa.text("thread_id IS NOT NULL AND status IN ('lobby', 'running')"),
        postgresql_where=sa.text("thread_id IS NOT NULL AND status IN ('lobby', 'running')"),
    )

    op.create_table(
        "guild_settings",
        sa.Column("guild_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("language", sa.String(length=2), nullable=False),
        sa.Column("moderator_role_id", sa.BigInteger(), nullable=True),
        sa.Column("resistance_defaults", sa.JSON(), nullable=False),
        sa.Column("refutation_defaults", sa.JSON(), nullable=False),
        sa.Column("deck_path", sa.Text(), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("language IN ('en', 'fr')", name=op.f("ck_guild_settings_language")),
        sa.PrimaryKeyConstraint("guild_id", name=op.f("pk_guild_settings")),
    )
    op.create_table(
        "deadlines",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("due_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("resolved_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint(
            "status IN ('open', 'done', 'cancelled')", name=op.f("ck_deadlines_status")
        ),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_deadlines_game_id_games"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_deadlines")),
    )
    op.create_index("ix_deadlines_game_id", "deadlines", ["game_id"], unique=False)
    op.create_index("ix_deadlines_status_due_at", "deadlines", ["status", "due_at"], unique=False)

    op.create_table(
        "events",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("actor_id", sa.BigInteger(), nullable=True),
        sa.Column("kind", sa.String(length=64), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("private_to", sa.BigInteger(), nullable=True),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_events_game_id_games"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_events")),
    )
    op.create_index("ix_events_game_id", "events", ["game_id"], unique=False)

    op.create_table(
        "messages",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("purpose", sa.String(length=64), nullable=False),
        sa.Column("channel_id", sa.BigInteger(), nullable=False),
        sa.Column("message_id", sa.BigInteger(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_messages_game_id_games"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_messages")),
        sa.UniqueConstraint(
            "game_id", "purpose", "user_id", name=op.f("uq_messages_game_id_purpose_user_id")
        ),
    )
    op.create_table(
        "players",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("display_name", sa.String(length=100), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("role", sa.String(length=32), nullable=True),
        sa.Column("locale", sa.String(length=2), nullable=False),
        sa.Column("dm_failed", sa.Boolean(), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("joined_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("locale IN ('en', 'fr')", name=op.f("ck_players_locale")),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_players_game_id_games"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_players")),
        sa.UniqueConstraint("game_id", "user_id", name=op.f("uq_players_game_id_user_id")),
    )
    op.create_index("ix_players_user_id", "players", ["user_id"], unique=False)

    op.create_table(
        "votes",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("round_key", sa.String(length=32), nullable=False),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("value", sa.String(length=100), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_votes_game_id_games"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_votes")),
        sa.UniqueConstraint(
            "game_id",
            "round_key",
            "kind",
            "user_id",
            name=op.f("uq_votes_game_id_round_key_kind_user_id"),
        ),
    )


def downgrade() -> None:
    for table in ("votes", "players", "messages", "events", "deadlines", "guild_settings", "games"):
        op.drop_table(table)
