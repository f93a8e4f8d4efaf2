"""Code a reader keeps in their head: no function of the application over 60 lines (the
emulator under ``sandbox/`` and the tests are not the application)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
APPLICATION = ("adapters", "bot", "cogs", "db", "games", "playtest", "rulebase")
MAX_LINES = 60


def long_functions() -> list[str]:
    found = []
    for package in APPLICATION:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "tests" in path.relative_to(ROOT).parts:
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    lines = (node.end_lineno or node.lineno) - node.lineno + 1
                    if lines > MAX_LINES:
                        where = path.relative_to(ROOT)
                        found.append(f"{where}:{node.lineno} {node.name} ({lines} lines)")
    return found


def test_no_application_function_is_over_60_lines() -> None:
    assert long_functions() == []
