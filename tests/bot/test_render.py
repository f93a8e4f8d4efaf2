"""The renderers (bot/render/, games/<kind>/render.py) are pure: they import no database, no
service and no dispatcher. Read from their source, so that no game is imported here; each game's
renderings are tested with the game (games/<kind>/tests/test_render.py)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

ALLOWED = ("__future__", "collections", "datetime", "typing", "discord", "games", "bot.")
FORBIDDEN = (
    "bot.service",
    "games.resistance.service",
    "games.refutation.service",
    "games.resistance.avalon",
    "bot.dispatcher",
)

RENDERERS = {
    path.parent.name if path.name == "render.py" else path.stem: path
    for path in [*ROOT.glob("bot/render/[!_]*.py"), *ROOT.glob("games/*/render.py")]
}


@pytest.mark.parametrize("module", sorted(RENDERERS))
def test_renderers_import_no_database_no_service(module: str) -> None:
    path = RENDERERS[module]
    imported: list[str] = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            imported += [f"{node.module}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            imported += [alias.name for alias in node.names]
    assert "bot.limits" in imported or module != "refutation"  # the walk sees the imports
    for name in imported:
        assert name.startswith(ALLOWED) and not name.startswith(FORBIDDEN), name
