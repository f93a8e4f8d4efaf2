"""Column types shared by the models: aware UTC datetimes."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import DateTime
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator


def utcnow() -> datetime:
    """The current time, aware, in UTC (the database layer's own default clock)."""
    return datetime.now(UTC)


def aware_utc(value: datetime) -> datetime:
    """``value`` in UTC; a naive datetime is refused (its zone would be a guess)."""
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(f"naive datetime refused (use an aware UTC datetime): {value!r}")
    return value.astimezone(UTC)


class UTCDateTime(TypeDecorator[datetime]):
    """``DateTime(timezone=True)`` that only accepts aware datetimes and always returns aware UTC.

    A naive datetime is refused (``ValueError`` when the statement runs): nobody can tell which
    zone it meant. Aware values are converted to UTC before they are stored. SQLite has no time
    zones: the value is stored as naive UTC text and UTC is attached again when it is read.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if not isinstance(value, datetime):
            raise TypeError(f"UTCDateTime needs a datetime, got {type(value).__name__}")
        utc = aware_utc(value)
        if dialect.name == "sqlite":
            return utc.replace(tzinfo=None)
        return utc

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if not isinstance(value, datetime):  # pragma: no cover - drivers return datetimes
            raise TypeError(f"UTCDateTime read a {type(value).__name__}")
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)
