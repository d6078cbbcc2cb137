"""Every expansion grows linearly with its input and stays under the per-file memory bound
(benchmarks/growth.py holds the constructs and prints the measured table). Two timings are
compared as a ratio, never against a wall-clock limit."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import growth


@pytest.mark.slow
@pytest.mark.parametrize("c", growth.CONSTRUCTS, ids=lambda c: c.name)
def test_cost_grows_linearly_within_the_memory_bound(c: growth.Construct) -> None:
    one, _two, four = growth.growth(c)
    for m in (one, four):
        if c.refused is None:
            assert m.error is None, m.error
        else:
            assert m.error is not None and c.refused in m.error, m.error
            assert "internal error" not in m.error
    assert four.peak_mb < growth.PEAK_LIMIT_MB, four.peak_mb
    assert four.seconds <= growth.MAX_RATIO_4X * one.seconds, (one.seconds, four.seconds)
