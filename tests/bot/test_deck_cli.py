"""``python -m bot deck check FILE``: exit 0 on a good deck, 1 naming the card and the field."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from games.refutation import default_deck_path

ROOT = Path(__file__).resolve().parents[2]


def _check(path: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "DISCORD_TOKEN"}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [sys.executable, "-m", "bot", "deck", "check", str(path)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_default_deck_is_ok(tmp_path: Path) -> None:
    result = _check(default_deck_path(), tmp_path)
    assert result.returncode == 0, result.stderr
    assert "ok" in result.stdout
    assert "25 disinformation" in result.stdout and "10 technique" in result.stdout


def test_a_broken_deck_names_the_card_and_the_field(tmp_path: Path) -> None:
    text = default_deck_path().read_text(encoding="utf-8")
    marker = "number = 12\n"
    assert marker in text
    broken = tmp_path / "broken.toml"
    # Card 12 loses its source link.
    head, tail = text.split(marker, 1)
    card, rest = tail.split("\n[[", 1)
    card = "\n".join(line for line in card.splitlines() if not line.startswith("source ="))
    broken.write_text(head + marker + card + "\n\n[[" + rest, encoding="utf-8")
    result = _check(broken, tmp_path)
    assert result.returncode == 1
    assert "Card 12" in result.stderr and "source" in result.stderr, result.stderr
    assert result.stdout == ""


def test_a_bad_star_count_names_the_relevance_entry(tmp_path: Path) -> None:
    text = default_deck_path().read_text(encoding="utf-8")
    broken = tmp_path / "stars.toml"
    broken.write_text(text.replace("stars = 3", "stars = 4", 1), encoding="utf-8")
    result = _check(broken, tmp_path)
    assert result.returncode == 1
    assert "field stars" in result.stderr and "not 4" in result.stderr, result.stderr


def test_a_missing_file_exits_1(tmp_path: Path) -> None:
    result = _check(tmp_path / "nope.toml", tmp_path)
    assert result.returncode == 1
    assert "nope.toml" in result.stderr
