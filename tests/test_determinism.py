"""Determinism: the same input gives byte-identical output in every format.

Run twice in one process, and in two processes with different hash seeds (set and dict
iteration orders differ), over the examples and the hostile corpus: same bytes, findings in
sorted order, no timestamps or durations.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kdacheck import report
from kdacheck.cli import app

pytestmark = pytest.mark.slow  # a process per format and hash seed (python -m pytest -q -m 'not slow' skips them)

ROOT = Path(__file__).resolve().parent.parent
INPUTS = [str(ROOT / "examples"), str(ROOT / "tests" / "data" / "hostile")]
ENV = {"NO_COLOR": "1", "GITHUB_ACTIONS": "", "COLUMNS": "120"}
TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d|timestamp=|\btime=\"\d")


def lint(fmt: str, *paths: str) -> str:
    r = CliRunner().invoke(app, ["lint", "--output-format", fmt, *paths], env=ENV)
    assert r.exit_code in (0, 1, 2), r.output
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    return r.stdout


@pytest.mark.parametrize("fmt", report.FORMATS)
def test_same_bytes_twice(fmt: str) -> None:
    first = lint(fmt, *INPUTS)
    assert first
    assert lint(fmt, *INPUTS) == first
    assert not TIMESTAMP.search(first), TIMESTAMP.search(first)


@pytest.mark.parametrize("fmt", ["json", "concise"])
def test_order_of_the_paths_does_not_matter(fmt: str) -> None:
    files = sorted(str(p) for p in (ROOT / "examples").rglob("*") if p.suffix in (".yaml", ".sh"))[:12]
    assert lint(fmt, *files) == lint(fmt, *reversed(files))


def test_findings_are_sorted() -> None:
    doc = json.loads(lint("json", *INPUTS))
    for f in doc["files"]:
        keys = [(x["location"]["path"], x["location"]["line"], x["location"]["column"], x["code"], x["message"]) for x in f["findings"]]
        assert keys == sorted(keys), f["path"]


@pytest.mark.parametrize("fmt", ["json", "sarif", "full"])
def test_same_bytes_across_hash_seeds(fmt: str) -> None:
    outs = []
    for seed in ("1", "2"):
        env = {**os.environ, **ENV, "PYTHONHASHSEED": seed}
        p = subprocess.run(
            [sys.executable, "-m", "kdacheck", "lint", "--output-format", fmt, *INPUTS],
            capture_output=True, text=True, env=env, cwd=ROOT, timeout=120,
        )
        assert p.returncode in (0, 1, 2), p.stderr
        outs.append(p.stdout)
    assert outs[0] == outs[1]
