"""Each hostile class of docs/robustness.md, as its own process: exit code, the message that
says why, within the time and peak-memory budgets (benchmarks/hostile.py holds the cases and
prints the measured table)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import hostile


@pytest.mark.parametrize("case", hostile.CASES, ids=lambda c: c.name)
def test_hostile_class_within_budget(case: hostile.Case, tmp_path: Path) -> None:
    m = hostile.measure(case, tmp_path)
    assert m.code in case.codes, (m.code, m.output[-2000:])
    assert case.says in m.output, m.output[-2000:]
    assert "internal error" not in m.output and "Traceback" not in m.output
    assert m.peak_mb < hostile.MEMORY_LIMIT_MB, m.peak_mb
    assert m.seconds < 5 * hostile.TIME_LIMIT_S, m.seconds  # 2 s measured budget; slack for a loaded CI machine
    if case.name == "config-outside":
        assert "root:" not in m.output  # nothing of /etc/passwd
    if case.name == "newline-name":
        assert "\x1b" not in m.output and not [ln for ln in m.output.splitlines() if ln.startswith("::")]
