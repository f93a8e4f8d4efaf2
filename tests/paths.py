"""Where the tests find the project's files, wherever the test file itself lives."""

from pathlib import Path

#: the repository's root (README.md, config.example.toml, docs/)
ROOT = Path(__file__).resolve().parents[1]
