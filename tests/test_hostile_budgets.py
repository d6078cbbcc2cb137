"""Each hostile class of docs/robustness.md, as its own process: exit code, the message that
says why, within the peak-memory budget (benchmarks/hostile.py holds the cases and prints the
measured table, times included). No wall-clock limit here: the work that must stay bounded is
counted instead (files read, the gitignore matcher's steps), and the subprocess timeout is a
hang guard only."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from kdacheck import gitignore
from kdacheck.flags import NEWEST

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import hostile


@pytest.mark.slow
@pytest.mark.parametrize("case", hostile.CASES, ids=lambda c: c.name)
def test_hostile_class_within_budget(case: hostile.Case, tmp_path: Path) -> None:
    m = hostile.measure(case, tmp_path)
    assert m.code in case.codes, (m.code, m.output[-2000:])
    assert case.says in m.output, m.output[-2000:]
    assert "internal error" not in m.output and "Traceback" not in m.output
    assert m.peak_mb < hostile.MEMORY_LIMIT_MB, m.peak_mb
    if case.name in ("config-outside", "config-passwd"):
        assert "root:" not in m.output and "/etc/passwd\n" not in m.output  # nothing of the file outside
    if case.name == "newline-name":
        assert "\x1b" not in m.output and not [ln for ln in m.output.splitlines() if ln.startswith("::")]


def test_a_config_named_many_times_is_read_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """config-1000-times: the 0.9 MB --config is read (and parsed) once, not once per launch line."""
    from kdacheck.lint import Options, lint_path
    from kdacheck.readers import detect

    hostile.CASES_BY_NAME["config-1000-times"].setup(tmp_path)  # args.yaml and run.sh
    reads: list[str] = []
    real = detect.read_bytes
    monkeypatch.setattr(detect, "read_bytes", lambda path, *a: reads.append(Path(path).name) or real(path, *a))
    monkeypatch.chdir(tmp_path)
    result = lint_path("run.sh", Options(version=NEWEST))
    assert result.error is None and len(result.resolved) == 1000, result.error
    assert reads.count("args.yaml") == 1, reads.count("args.yaml")


def _glob_steps(pattern: str, path: str) -> int:
    """Lines of gitignore.py run to match ``path``: the matcher's steps, counted."""
    glob = gitignore.Glob(pattern.encode(), 0)
    steps = 0

    def trace(frame, event, _arg):  # type: ignore[no-untyped-def]
        nonlocal steps
        if frame.f_code.co_filename != gitignore.__file__:
            return None
        steps += event == "line"
        return trace

    sys.settrace(trace)
    try:
        glob.match(path.encode())
    finally:
        sys.settrace(None)
    return steps


@pytest.mark.parametrize("pattern", ["****************x", "*a*a*a*a*a*a*a*a*b", "**/a*a*a*a*b", "[a-z]*?*[!b]*x"])
def test_gitignore_matcher_steps_are_linear_in_the_path(pattern: str) -> None:
    """gitignore-backtracking: the matcher is an NFA, so a pattern that makes a backtracking
    matcher exponential costs steps in proportion to the path (10x the path: at most 15x)."""
    short, long = _glob_steps(pattern, "a" * 35 + ".sh"), _glob_steps(pattern, "a" * 350 + ".sh")
    assert short > 0 and long <= 15 * short, (short, long)
