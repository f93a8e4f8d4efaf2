"""Alembic, configured in code: no ``alembic.ini`` needed, works from any directory.

``alembic.ini`` at the repository root is only a convenience for the ``alembic`` command line
(``alembic revision --autogenerate -m ...``); the bot uses :func:`db.engine.migrate`.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy.engine import URL, Connection, make_url

import migrations

if TYPE_CHECKING:  # Alembic is imported when there is something to migrate (or to generate)
    from alembic.config import Config


def script_location() -> str:
    """The ``migrations`` package's folder (``__path__``: also right for a namespace package,
    which is what an editable install made before ``__init__.py`` existed looks like)."""
    return str(Path(next(iter(migrations.__path__))).resolve())


def alembic_config(url: str | URL | None = None) -> Config:
    """An Alembic config pointing at the ``migrations`` package (and at ``url`` if given)."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", script_location())
    config.set_main_option("path_separator", "os")
    if url is not None:
        rendered = make_url(url).render_as_string(hide_password=False)
        config.set_main_option("sqlalchemy.url", rendered.replace("%", "%%"))
    return config


def upgrade_on_connection(connection: Connection, config: Config, revision: str = "head") -> None:
    """Run ``alembic upgrade`` on an open (sync-facing) connection, in its transaction."""
    from alembic import command

    config.attributes["connection"] = connection
    command.upgrade(config, revision)


@cache
def head_revision() -> str | None:
    """The migrations' one head, read from the ``revision`` and ``down_revision`` assignments
    of ``migrations/versions/*.py`` without importing Alembic or the scripts (what a start-up
    compares with the database's ``alembic_version``: at the head, nothing to migrate). None
    when that is not plain (not exactly one head, a value not a literal): Alembic decides."""
    revisions: set[str] = set()
    downs: set[str] = set()
    for path in sorted(Path(script_location(), "versions").glob("*.py")):
        found: dict[str, object] = {}
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            targets: list[ast.expr]
            if isinstance(node, ast.AnnAssign) and node.value is not None:
                targets, value = [node.target], node.value
            elif isinstance(node, ast.Assign):
                targets, value = node.targets, node.value
            else:
                continue
            for target in targets:
                if isinstance(target, ast.Name) and target.id in ("revision", "down_revision"):
                    try:
                        found[target.id] = ast.literal_eval(value)
                    except ValueError:
                        return None
        if not found:
            continue  # not a migration (the package's __init__.py)
        revision, down = found.get("revision"), found.get("down_revision")
        if not isinstance(revision, str):
            return None
        revisions.add(revision)
        for parent in down if isinstance(down, tuple | list) else [down]:
            if parent is not None:
                if not isinstance(parent, str):
                    return None
                downs.add(parent)
    heads = revisions - downs
    return heads.pop() if len(heads) == 1 else None
