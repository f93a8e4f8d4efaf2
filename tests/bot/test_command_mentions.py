"""A command the text names is one the reader can type: in the English catalogue its English
name, in the French catalogue its French name (the one Discord shows a French client)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: The core's catalogue and each game's.
LOCALES = [ROOT / "bot" / "locales", *sorted(ROOT.glob("games/*/locales"))]
MENTION = re.compile(r"`(/[^`\s]+(?: [a-zà-ÿ_]+)*)")


def command_paths() -> dict[str, set[str]]:
    """Every command path (``/group sub``, with its groups), in English and in French, from
    the French command catalogues, the core's and the games' (whose keys are the English
    names; a game's ``[settings.<kind>]`` goes under the core's ``[settings]``)."""
    tree: dict[str, Any] = {}
    for locales in LOCALES:
        part = tomllib.loads((locales / "fr" / "commands.toml").read_text(encoding="utf-8"))
        for key, node in part.items():
            if key == "settings" and "settings" in tree:
                tree["settings"].update({k: v for k, v in node.items() if isinstance(v, dict)})
            else:
                tree.setdefault(key, node)
    paths: dict[str, set[str]] = {"en": set(), "fr": set()}

    def walk(node: dict[str, Any], en: str, fr: str) -> None:
        paths["en"].add(en)
        paths["fr"].add(fr)
        for key, child in node.items():
            if isinstance(child, dict) and key != "params" and "name" in child:
                walk(child, f"{en} {key}", f"{fr} {child['name']}")

    for key, node in tree.items():
        if key not in ("choices", "shared"):  # the choices' names, the shared parameters
            walk(node, f"/{key}", f"/{node['name']}")
    return paths


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_every_command_a_text_names_exists_in_the_texts_language(lang: str) -> None:
    known = command_paths()[lang]
    wrong = []
    files = sorted(path for locales in LOCALES for path in (locales / lang).glob("*.toml"))
    assert len(files) > 10
    for path in files:
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
