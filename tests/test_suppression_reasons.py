"""Suppressions with a reason (``# kdacheck: ignore[CODE] -- why``), shown in the JSON, SARIF and
full reports; ``--ignore-noqa`` reads every file as if it had no suppression comment."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from kdacheck.lint_command import run_lint

SCRIPT = ("python3 -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct \\\n"
          "  --tp 4 \\\n  --trust-remote-code\n")
GATE = {"select": ["ARG003"], "failure_threshold": "info", "offline": True}


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "run.sh").write_text("# kdacheck: ignore[ARG003] -- the fleet's SGLang 0.5.19 has no --tp-size clash\n" + SCRIPT,
                                     encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _lint(capsys: pytest.CaptureFixture[str], fmt: str, **extra: object) -> tuple[int, str]:
    capsys.readouterr()
    code = run_lint(paths=["run.sh"], output_format=fmt, **GATE, **extra)
    return code, capsys.readouterr().out


REASON = "the fleet's SGLang 0.5.19 has no --tp-size clash"


def test_the_reason_is_in_json_sarif_and_full(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _lint(capsys, "json")
    [file] = json.loads(out)["files"]
    assert code == 0 and file["findings"] == []
    [s] = file["suppressed"]
    assert s["code"] == "ARG003" and s["suppression"] == {"line": 1, "reason": REASON}

    code, out = _lint(capsys, "sarif")
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((Path(__file__).parent / "data" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    assert not list(jsonschema.Draft4Validator(schema).iter_errors(json.loads(out)))
    [result] = json.loads(out)["runs"][0]["results"]
    assert result["ruleId"] == "ARG003" and result["suppressions"] == [{"kind": "inSource", "justification": REASON}]

    code, out = _lint(capsys, "full", color="never")
    assert f"run.sh:3:3: suppressed ARG003 (line 1: {REASON})" in out
    assert "1 suppressed" in out.splitlines()[-1]


def test_a_suppression_without_a_reason_has_none(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "run.sh").write_text("# kdacheck: ignore[ARG003]   <- no reason\n" + SCRIPT, encoding="utf-8")
    [s] = json.loads(_lint(capsys, "json")[1])["files"][0]["suppressed"]
    assert s["suppression"] == {"line": 1, "reason": None}
    [result] = json.loads(_lint(capsys, "sarif")[1])["runs"][0]["results"]
    assert result["suppressions"] == [{"kind": "inSource"}]


def test_ignore_noqa_reports_what_comments_suppress(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _lint(capsys, "json", ignore_noqa=True)
    doc = json.loads(out)
    assert code == 1 and [f["code"] for f in doc["files"][0]["findings"]] == ["ARG003"]
    assert "suppressed" not in doc["files"][0] and doc["summary"]["suppressed"] == 0
    assert doc["summary"]["unused_suppressions"] == 0  # the comments are not read at all


def test_no_suppression_leaves_every_report_as_it_was(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "run.sh").write_text(SCRIPT, encoding="utf-8")
    doc = json.loads(_lint(capsys, "json")[1])
    assert "suppressed" not in doc["files"][0]
    assert all("suppressions" not in r for r in json.loads(_lint(capsys, "sarif")[1])["runs"][0]["results"])
