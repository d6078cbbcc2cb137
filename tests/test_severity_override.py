"""``severity = {CODE = "..."}`` in the settings: a rule's findings at another severity, for the
report and the exit code; an unknown code or severity is exit 2 naming the key."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from kdacheck.lint_command import run_lint

SCRIPT = ("python3 -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct "
          "--tp 4 --trust-remote-code\n")


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "run.sh").write_text(SCRIPT, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _lint(capsys: pytest.CaptureFixture[str]) -> tuple[int, dict, str]:
    capsys.readouterr()
    code = run_lint(paths=["run.sh"], output_format="json", select=["ARG003"], offline=True)
    out, err = capsys.readouterr()
    return code, json.loads(out), err


def test_a_rule_raised_to_error_fails_the_run(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, doc, _ = _lint(capsys)
    assert code == 0 and [f["severity"] for f in doc["files"][0]["findings"]] == ["info"]
    (repo / "kdacheck.toml").write_text('severity = {arg003 = "error"}\n', encoding="utf-8")
    code, doc, _ = _lint(capsys)
    assert code == 1 and [f["severity"] for f in doc["files"][0]["findings"]] == ["error"]
    assert doc["summary"]["errors"] == 1


def test_the_pyproject_table_form_is_read(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "pyproject.toml").write_text('[tool.kdacheck.severity]\nARG003 = "warning"\n', encoding="utf-8")
    code, doc, _ = _lint(capsys)
    assert code == 1 and doc["summary"]["warnings"] == 1


@pytest.mark.parametrize(("table", "named"), [
    ('severity = {NOPE001 = "error"}', "`severity.NOPE001`: no rule has this code"),
    ('severity = {ARG003 = "fatal"}', "`severity.ARG003` = 'fatal': choose from error, warning, info"),
    ('severity = ["ARG003"]', "`severity` must be a table"),
])
def test_an_unknown_code_or_severity_is_exit_2_naming_the_key(repo: Path, capsys: pytest.CaptureFixture[str], table: str, named: str) -> None:
    (repo / "kdacheck.toml").write_text("\n" + table + "\n", encoding="utf-8")
    capsys.readouterr()
    assert run_lint(paths=["run.sh"], select=["ARG003"], offline=True) == 2
    err = capsys.readouterr().err
    assert "kdacheck.toml:2: " + named in err
