"""``kdacheck lint --baseline`` / ``--write-baseline``: a repository with findings adopts the
gate, fails on a new finding, and not on an old one moved."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from kdacheck import baseline
from kdacheck.lint_command import run_lint

LAUNCH = ("python3 -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct "
          "--tp 4 --trust-remote{more}\n")
GATE = {"select": ["ARG003"], "failure_threshold": "info", "offline": True}  # two ARG003 per file


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    for i in range(10):
        (tmp_path / f"run{i}.sh").write_text("#!/usr/bin/env bash\n" + LAUNCH.format(more=""), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _lint(capsys: pytest.CaptureFixture[str], **extra: object) -> tuple[int, dict]:
    capsys.readouterr()
    code = run_lint(paths=["."], output_format="json", **GATE, **extra)
    return code, json.loads(capsys.readouterr().out)


def test_twenty_findings_adopt_the_gate_then_only_a_new_one_fails(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, doc = _lint(capsys)
    assert code == 1 and doc["summary"]["info"] == 20 and "baselined" not in doc["summary"]

    code, doc = _lint(capsys, write_baseline="kdacheck-baseline.json")
    assert code == 0 and doc["summary"]["info"] == 0 and doc["summary"]["baselined"] == 20
    written = (repo / "kdacheck-baseline.json").read_text(encoding="utf-8")
    assert json.loads(written)["kdacheck_baseline"] == baseline.FORMAT and written.endswith("}\n")
    assert [r["count"] for r in json.loads(written)["findings"]] == [2] * 10  # one row per file, counted

    # an old line moved: blank lines and a comment above it, the launch split differently
    (repo / "run3.sh").write_text("#!/usr/bin/env bash\n\n# serve\n\n" + LAUNCH.format(more="").replace(" --tp", " \\\n  --tp"),
                                  encoding="utf-8")
    code, doc = _lint(capsys, baseline="kdacheck-baseline.json")
    assert code == 0 and doc["summary"]["baselined"] == 20 and doc["summary"]["info"] == 0

    # one new finding: a third abbreviation in a file the baseline holds two for
    (repo / "run5.sh").write_text(LAUNCH.format(more=" --mem-fraction 0.8"), encoding="utf-8")
    code, doc = _lint(capsys, baseline="kdacheck-baseline.json")
    assert code == 1 and doc["summary"]["info"] == 1 and doc["summary"]["baselined"] == 20
    [new] = [f for file in doc["files"] for f in file["findings"]]
    assert new["location"]["path"].endswith("run5.sh") and new["code"] == "ARG003"


def test_the_baseline_is_stable_and_the_summary_line_counts_it(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_lint(paths=["."], write_baseline="b.json", **GATE)
    first = (repo / "b.json").read_bytes()
    capsys.readouterr()
    assert run_lint(paths=["."], write_baseline="b.json", **GATE) == 0
    assert (repo / "b.json").read_bytes() == first
    out = capsys.readouterr().out
    assert "20 in the baseline" in out.splitlines()[-1]


def test_a_bad_or_oversized_baseline_is_exit_2_naming_it(repo: Path, capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    (repo / "b.json").write_text('{"findings": []}', encoding="utf-8")
    assert run_lint(paths=["."], baseline="b.json", **GATE) == 2
    assert "--baseline b.json: not a kdacheck baseline" in capsys.readouterr().err
    assert run_lint(paths=["."], baseline="missing.json", **GATE) == 2
    assert "no such file" in capsys.readouterr().err
    run_lint(paths=["."], write_baseline="b.json", **GATE)
    monkeypatch.setattr(baseline, "MAX_BASELINE_BYTES", 100)
    capsys.readouterr()
    assert run_lint(paths=["."], baseline="b.json", **GATE) == 2
    assert "over the 100-byte limit" in capsys.readouterr().err


def test_a_baseline_outside_the_repository_is_refused(repo: Path, tmp_path_factory: pytest.TempPathFactory,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    outside = tmp_path_factory.mktemp("elsewhere") / "b.json"
    assert run_lint(paths=["."], write_baseline=str(outside), **GATE) == 2
    assert run_lint(paths=["."], baseline=str(outside), **GATE) == 2
    assert "outside the repository" in capsys.readouterr().err


def test_the_settings_baseline_applies_without_the_option(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "ci").mkdir()
    run_lint(paths=["."], write_baseline="ci/baseline.json", **GATE)
    (repo / "kdacheck.toml").write_text('baseline = "ci/baseline.json"\n', encoding="utf-8")
    code, doc = _lint(capsys)
    assert code == 0 and doc["summary"]["baselined"] == 20
    (repo / "kdacheck.toml").write_text('baseline = "ci/none.json"\n', encoding="utf-8")
    code, doc = _lint(capsys, baseline="ci/baseline.json")  # the option wins
    assert code == 0 and doc["summary"]["baselined"] == 20
