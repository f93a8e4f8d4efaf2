"""Every error the engine and the deck loader can raise has a message in both languages."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from bot.i18n import catalogue, placeholders
from games.refutation import rules
from games.refutation.rules import DECK_ERROR_KEYS, DECK_ERRORS, ERROR_KEYS
from games.refutation.rules.errors import ERROR_CLASSES

SOURCES = sorted(Path(rules.__file__).parent.glob("*.py"))


@pytest.mark.parametrize("key", ERROR_KEYS + DECK_ERROR_KEYS)
def test_key_in_both_languages_with_the_same_placeholders(key: str) -> None:
    en, fr = catalogue("en"), catalogue("fr")
    assert key in en and key in fr
    assert placeholders(en[key]) == placeholders(fr[key])


def test_no_stale_keys() -> None:
    known = set(ERROR_KEYS) | set(DECK_ERROR_KEYS)
    for lang in ("en", "fr"):
        ours = {
            k
            for k in catalogue(lang)
            if k.startswith(("refutation.error.", "refutation.deck_error."))
        }
        assert ours == known, lang


@pytest.mark.parametrize("name", sorted(DECK_ERRORS))
def test_deck_error_placeholders_are_its_params(name: str) -> None:
    assert placeholders(catalogue("en")[f"refutation.deck_error.{name}"]) == set(DECK_ERRORS[name])


def _calls() -> list[tuple[str, set[str], str]]:
    """(error name, keyword names, where) for every error raised in the package's source."""
    classes = {cls.__name__ for cls in ERROR_CLASSES}
    out: list[tuple[str, set[str], str]] = []
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
                continue
            keywords = {kw.arg for kw in node.keywords if kw.arg}
            where = f"{path.name}:{node.lineno}"
            if node.func.id in classes:
                out.append((node.func.id, keywords, where))
            elif node.func.id == "DeckError":
                first = node.args[0]
                assert isinstance(first, ast.Constant) and isinstance(first.value, str), where
                out.append((f"deck:{first.value}", keywords, where))
    return out


def test_every_raise_fills_exactly_the_placeholders() -> None:
    by_name = {cls.__name__: cls.KEY for cls in ERROR_CLASSES}
    en = catalogue("en")
    calls = _calls()
    assert len(calls) > 40
    for name, keywords, where in calls:
        if name.startswith("deck:"):
            deck_name = name.removeprefix("deck:")
            assert deck_name in DECK_ERRORS, where
            assert keywords == set(DECK_ERRORS[deck_name]), where
        else:
            assert placeholders(en[by_name[name]]) <= keywords, where


def test_error_classes_keys_are_unique() -> None:
    assert len(set(ERROR_KEYS)) == len(ERROR_KEYS)
    assert all(re.fullmatch(r"refutation\.error\.[a-z_]+", key) for key in ERROR_KEYS)
