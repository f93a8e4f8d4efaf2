"""Alembic, configured in code: no ``alembic.ini`` needed, works from any directory.

``alembic.ini`` at the repository root is only a convenience for the ``alembic`` command line
(``alembic revision --autogenerate -m ...``); the bot uses :func:`db.engine.migrate`.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy.engine import URL, Connection, make_url

import migrations


def script_location() -> str:
    """The ``migrations`` package's folder (``__path__``: also right for a namespace package,
    which is what an editable install made before ``__init__.py`` existed looks like)."""
    return str(Path(next(iter(migrations.__path__))).resolve())


def alembic_config(url: str | URL | None = None) -> Config:
    """An Alembic config pointing at the ``migrations`` package (and at ``url`` if given)."""
    config = Config()
    config.set_main_option("script_location", script_location())
    config.set_main_option("path_separator", "os")
    if url is not None:
        rendered = make_url(url).render_as_string(hide_password=False)
        config.set_main_option("sqlalchemy.url", rendered.replace("%", "%%"))
    return config


def upgrade_on_connection(connection: Connection, config: Config, revision: str = "head") -> None:
    """Run ``alembic upgrade`` on an open (sync-facing) connection, in its transaction."""
    config.attributes["connection"] = connection
    command.upgrade(config, revision)
