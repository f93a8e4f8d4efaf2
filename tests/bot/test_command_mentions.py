"""A command the text names is one the reader can type: in the English catalogue its English
name, in the French catalogue its French name (the one Discord shows a French client)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

LOCALES = Path(__file__).resolve().parents[2] / "bot" / "locales"
MENTION = re.compile(r"`(/[^`\s]+(?: [a-zà-ÿ_]+)*)")


def command_paths() -> dict[str, set[str]]:
    """Every command path (``/group sub``, with its groups), in English and in French, from
    the French command catalogue (whose keys are the English names)."""
    tree = tomllib.loads((LOCALES / "fr" / "commands.toml").read_text(encoding="utf-8"))
    paths: dict[str, set[str]] = {"en": set(), "fr": set()}

    def walk(node: dict[str, Any], en: str, fr: str) -> None:
        paths["en"].add(en)
        paths["fr"].add(fr)
        for key, child in node.items():
            if isinstance(child, dict) and key != "params" and "name" in child:
                walk(child, f"{en} {key}", f"{fr} {child['name']}")

    for key, node in tree.items():
        if key != "choices":
            walk(node, f"/{key}", f"/{node['name']}")
    return paths


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_every_command_a_text_names_exists_in_the_texts_language(lang: str) -> None:
    known = command_paths()[lang]
    wrong = []
    for path in sorted((LOCALES / lang).glob("*.toml")):
        if path.name == "commands.toml":
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for match in MENTION.finditer(line):
                words = match.group(1).split()
                # The longest prefix that is a command (the rest are option names).
                longest = max(
                    (k for k in range(1, len(words) + 1) if " ".join(words[:k]) in known), default=0
                )
                leaf = longest and not any(
                    p.startswith(" ".join(words[:longest]) + " ") for p in known
                )
                if not leaf and " ".join(words) not in known:
                    wrong.append(f"{path.name}:{number}: {match.group(1)}")
    assert not wrong, wrong
