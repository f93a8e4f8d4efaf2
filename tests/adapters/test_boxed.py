"""Outside adapters/, the project's code (the bot, the sandbox, the bench…) imports only the
public modules of discord.py and SQLAlchemy, and the bot reads no private attribute of anything
but its own classes: a new private use goes into adapters/ (and its docstring and shape test),
not beside the code that needs it. (import-linter sees external packages only whole: this reads
the source.)"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from pathlib import Path

from tests.paths import ROOT

#: the bot's packages (the sandbox and the bench read each other's own internals)
BOT = ("bot", "cogs", "db", "games")
#: every package of the project but the adapters and the tests
PROJECT = sorted(
    path.parent.name
    for path in ROOT.glob("*/__init__.py")
    if path.parent.name not in ("adapters", "tests")
)
#: the documented modules of discord.py and SQLAlchemy the application may import
PUBLIC = {
    "discord",
    "discord.abc",
    "discord.app_commands",
    "discord.ext",
    "discord.ext.commands",
    "discord.ui",
    "discord.utils",
    "sqlalchemy",
    "sqlalchemy.dialects",
    "sqlalchemy.dialects.postgresql",
    "sqlalchemy.dialects.sqlite",
    "sqlalchemy.engine",
    "sqlalchemy.event",
    "sqlalchemy.exc",
    "sqlalchemy.ext.asyncio",
    "sqlalchemy.orm",
    "sqlalchemy.orm.attributes",
    "sqlalchemy.pool",
    "sqlalchemy.types",
}
#: the standard library's names with an underscore that are not private: in annotations
#: (argparse's), and os._exit, documented (the exit of a second stop signal, bot/stopping.py)
ALLOWED = {"argparse._SubParsersAction", "os._exit"}


def modules(packages: Iterable[str]) -> Iterator[Path]:
    for package in packages:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "tests" not in path.relative_to(ROOT).parts:
                yield path


def imported(tree: ast.AST) -> Iterator[tuple[int, str]]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from ((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            yield node.lineno, node.module


def private_reads(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """``x._name`` where the module never uses ``self._name`` or ``cls._name`` (an attribute
    of its own classes)."""
    attributes = [node for node in ast.walk(tree) if isinstance(node, ast.Attribute)]
    own = {
        node.attr
        for node in attributes
        if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")
    }
    for node in attributes:
        if node.attr.startswith("_") and not node.attr.startswith("__") and node.attr not in own:
            text = ast.unparse(node)
            if text not in ALLOWED:
                yield node.lineno, text


def test_the_project_imports_only_public_modules_of_the_libraries() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line} imports {name}"
        for path in modules(PROJECT)
        for line, name in imported(ast.parse(path.read_text(encoding="utf-8")))
        if name.split(".")[0] in ("discord", "sqlalchemy") and name not in PUBLIC
    ]
    assert found == [], "private modules used outside adapters/: " + "; ".join(found)


def test_the_bot_reads_no_private_attribute_of_another_library() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line} reads {text}"
        for path in modules(BOT)
        for line, text in private_reads(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert found == [], "private attributes read outside adapters/: " + "; ".join(found)
