"""``[internals] bypasses``: every bypass by default, none with false, the ones a list names
(anything else refused: tests/bot/test_config_keys.py); docs/operations.md's configuration
table and config.example.toml name every key of every section and every bypass."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

from adapters.switch import BYPASSES, DIRECT_VOTES, OWN_CALLBACKS, RETIRED
from bot.config import _TABLES, InternalsSettings
from tests.bot.test_config_shards import settings_from
from tests.paths import ROOT


def test_every_bypass_by_default_none_with_false_the_listed_ones(tmp_path: Path) -> None:
    assert settings_from(tmp_path, "").internals.bypasses == frozenset(BYPASSES)
    assert settings_from(tmp_path, "[internals]\nbypasses = true\n").internals.bypasses == set(
        BYPASSES
    )
    assert settings_from(tmp_path, "[internals]\nbypasses = false\n").internals.bypasses == set()
    body = f'[internals]\nbypasses = ["{DIRECT_VOTES}", "{OWN_CALLBACKS}"]\n'
    assert settings_from(tmp_path, body).internals.bypasses == {DIRECT_VOTES, OWN_CALLBACKS}
    # a bypass removed since is read without it, not refused (an older configuration starts)
    body = f'[internals]\nbypasses = ["{RETIRED[0]}", "{DIRECT_VOTES}"]\n'
    assert settings_from(tmp_path, body).internals.bypasses == {DIRECT_VOTES}


def test_the_operations_table_and_the_example_name_every_key_and_bypass() -> None:
    rows = {
        line.split("|")[1].strip(): line
        for line in (ROOT / "docs" / "operations.md").read_text(encoding="utf-8").splitlines()
        if line.startswith("| `[")
    }
    sections = [(name, cls) for name, cls, _ in _TABLES] + [("internals", InternalsSettings)]
    example = (ROOT / "config.example.toml").read_text(encoding="utf-8")
    for name, cls in sections:
        assert f"[{name}]" in example, f"config.example.toml has no [{name}]"
        for key in (f.name for f in fields(cls)):
            assert key in rows[f"`[{name}]`"], f"docs/operations.md does not name [{name}] {key}"
            assert f"\n{key} =" in example or f"\n# {key} =" in example, f"{key} not in the example"
    for bypass in BYPASSES:
        assert f'"{bypass}"' in example, f"config.example.toml does not name the bypass {bypass}"
