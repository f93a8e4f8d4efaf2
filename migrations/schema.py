"""The schema the migrations build, as ``alembic revision --autogenerate`` and the check that
they agree with the models compare it: the store's tables (db.models) and every built-in game's
own (``GamePlugin.tables``: the Refutation Game's decks), all on one metadata."""

from __future__ import annotations

from sqlalchemy import MetaData

from db.models import Base
from games.builtin import builtin_plugins


def target_metadata() -> MetaData:
    """``db.models.Base``'s metadata, with the built-in games' tables defined on it."""
    for plugin in builtin_plugins():
        for table in plugin.tables:
            if table.metadata is not Base.metadata:
                raise ValueError(f"{plugin.kind}: its table {table.name} is not on Base's metadata")
    return Base.metadata
