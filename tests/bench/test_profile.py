"""``--profile``: each step's profile, or why py-spy recorded none (bench/child.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bench.child import profile_summary, spy_errors, spy_failure, spy_on

# What py-spy 0.4 prints where it cannot read the target's memory (seen in a container).
REFUSED = """Error: Failed to find python version from target process

Stack backtrace:
   0: anyhow::error::<impl anyhow::Error>::msg
   1: py_spy::python_process_info::get_python_version
"""


def test_a_refusal_is_told_by_its_error_line(tmp_path: Path) -> None:
    profile = tmp_path / "step-child.txt"
    spy_errors(profile).write_text(REFUSED, encoding="utf-8")
    assert spy_failure(profile) == "Failed to find python version from target process"


def test_a_recorded_profile_is_no_failure(tmp_path: Path) -> None:
    profile = tmp_path / "step-child.txt"
    profile.write_text("<module> (x.py:1);select (selectors.py:2) 3\nrun (y.py:4) 1\n")
    spy_errors(profile).write_text("some warning\n", encoding="utf-8")
    assert profile_summary(profile) is not None
    assert spy_failure(profile) is None


@pytest.mark.timeout(60)
def test_py_spy_either_records_or_says_why(tmp_path: Path) -> None:
    # a target that works a few seconds, then ends: py-spy ends with it, or at once if refused
    child = subprocess.Popen([sys.executable, "-c", "sum(range(10**8))"])
    profile = tmp_path / "worker.txt"
    try:
        spy = spy_on(child.pid, profile)
        assert spy is not None, "py-spy comes with the dev extra"
        spy.wait(50)
    finally:
        child.kill()
        child.wait()
    assert profile_summary(profile) is not None or spy_failure(profile)
