"""``python -m bot deck check FILE``: exit 0 on a good deck; exit 1 and one line naming the
problem (the card and the field, the limit, the file) on anything else, never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from games.refutation.rules import default_deck_path
from games.refutation.tests.decks import hands_too_long
from tests.paths import ROOT

# Generous: the check's own cap is --seconds; this also counts two Python start-ups on a shared,
# loaded test machine.
WALL = 30.0


def _check(path: Path, cwd: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "DISCORD_TOKEN"}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [sys.executable, "-m", "bot", "deck", "check", str(path), *extra],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_default_deck_is_ok(tmp_path: Path) -> None:
    result = _check(default_deck_path(), tmp_path, "--seconds", "60")
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
    result = _check(broken, tmp_path, "--seconds", "60")
    assert result.returncode == 1
    assert "Card 12" in result.stderr and "source" in result.stderr, result.stderr
    assert result.stdout == ""


def test_a_bad_star_count_names_the_relevance_entry(tmp_path: Path) -> None:
    text = default_deck_path().read_text(encoding="utf-8")
    broken = tmp_path / "stars.toml"
    broken.write_text(text.replace("stars = 3", "stars = 4", 1), encoding="utf-8")
    result = _check(broken, tmp_path, "--seconds", "60")
    assert result.returncode == 1
    assert "field stars" in result.stderr and "not 4" in result.stderr, result.stderr


def test_a_missing_file_exits_1(tmp_path: Path) -> None:
    result = _check(tmp_path / "nope.toml", tmp_path)
    assert result.returncode == 1
    assert "nope.toml" in result.stderr


def _write(data: bytes) -> Callable[[Path], Path]:
    def make(folder: Path) -> Path:
        path = folder / "deck.toml"
        path.write_bytes(data)
        return path

    return make


def _fifo(folder: Path) -> Path:
    path = folder / "fifo.toml"
    os.mkfifo(path)
    return path


def _sparse(folder: Path) -> Path:
    path = folder / "huge.toml"
    with path.open("wb") as fh:
        fh.truncate(20 * 1024**3)
    return path


def _issue_hand_deck(folder: Path) -> Path:
    """The default deck with hands too long to send (decks.hands_too_long)."""
    path = folder / "issue.toml"
    text = default_deck_path().read_text(encoding="utf-8")
    path.write_text(hands_too_long(text), encoding="utf-8")
    return path


HOSTILE_FILES: list[tuple[str, Callable[[Path], Path], str]] = [
    ("dev_zero", lambda _: Path("/dev/zero"), "not a regular file"),
    ("fifo", _fifo, "not a regular file"),
    ("directory", lambda folder: folder, "not a regular file"),
    ("missing", lambda folder: folder / "nope.toml", "does not exist"),
    ("sparse_20_gib", _sparse, "the limit is 262144"),
    ("latin1", _write("[deck]\nid = 'caf\xe9'\n".encode("latin-1")), "not UTF-8"),
    ("deep_nesting", _write(b"x = " + b"[" * 100_000 + b"]" * 100_000), "more than 32 levels deep"),
    ("dotted_50k_parts", _write(b"k" + b".k" * 50_000 + b" = 1\n"), "more than 32 dotted parts"),
    (
        "dotted_50k_keys",
        _write(b"".join(b"k%d.x = 1\n" % i for i in range(50_000))),
        "the limit is 262144",
    ),
    ("etc_passwd", _write(b"root:x:0:0:root:/root:/bin/bash\n"), "not valid TOML"),
    ("digits", _write(b"[deck]\nversion = " + b"9" * 5000), "number too long"),
    ("issue_hand", _issue_hand_deck, "A hand of the largest size"),
]


@pytest.mark.parametrize(
    ("make", "expected"), [pytest.param(m, e, id=case) for case, m, e in HOSTILE_FILES]
)
def test_a_hostile_file_gets_one_line_and_exit_1(
    tmp_path: Path, make: Callable[[Path], Path], expected: str
) -> None:
    path = make(tmp_path)
    started = time.monotonic()
    result = _check(path, tmp_path, "--seconds", "20")
    elapsed = time.monotonic() - started
    assert result.returncode == 1, (result.stdout, result.stderr)
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    assert expected in result.stderr, result.stderr
    assert result.stderr.startswith(f"{path}: ")
    assert elapsed < WALL, elapsed


def test_the_check_is_stopped_at_its_time_cap(tmp_path: Path) -> None:
    started = time.monotonic()
    result = _check(default_deck_path(), tmp_path, "--seconds", "0.05")
    elapsed = time.monotonic() - started
    assert result.returncode == 1
    assert "took more than 0.05 s" in result.stderr and "Traceback" not in result.stderr
    assert elapsed < WALL
