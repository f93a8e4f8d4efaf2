"""The French/English catalogue: the same messages, with the same placeholders, in both."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from bot.i18n import MissingMessage, catalogue, lang_of, placeholders, t

ROOT = Path(__file__).resolve().parents[2]


def test_both_languages_have_the_same_keys_and_placeholders() -> None:
    en = {k: v for k, v in catalogue("en").items() if not k.startswith("commands.")}
    fr = {k: v for k, v in catalogue("fr").items() if not k.startswith("commands.")}
    assert set(en) == set(fr), sorted(set(en) ^ set(fr))
    for key in en:
        assert placeholders(en[key]) == placeholders(fr[key]), key


def test_every_key_used_in_the_app_exists() -> None:
    """Literal keys passed to t(), UserError() or GameError() in bot/ and cogs/."""
    known = set(catalogue("en"))
    used: set[str] = set()
    for path in [*ROOT.glob("bot/*.py"), *ROOT.glob("cogs/*.py")]:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and node.args:
                name = getattr(node.func, "id", getattr(node.func, "attr", ""))
                first = node.args[0]
                key = first.value if isinstance(first, ast.Constant) else None
                is_key = isinstance(key, str) and re.match(r"^[a-z_]+\.[a-z_.]+$", key)
                if name in {"t", "UserError", "GameError"} and is_key:
                    used.add(str(key))
    missing = sorted(k for k in used if k not in known)
    assert not missing, missing


def test_lookup_and_fallbacks() -> None:
    assert lang_of("fr") == "fr" and lang_of("en-US") == "en" and lang_of(None) == "en"
    assert t("common.lobby.join_button", "fr") == "Rejoindre"
    assert t("common.lobby.join_button", "de") == "Join"  # any other language: English
    with pytest.raises(MissingMessage):
        t("common.nope", "en")
