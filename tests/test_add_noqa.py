"""``kdacheck lint --add-noqa``: a suppression comment for every current finding, in the file's
own comment syntax, only where a comment is one; JSON and strings said, file by file."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from kdacheck import noqa
from kdacheck.lint_command import run_lint
from kdacheck.results import FileResult

SCRIPT = ("#!/usr/bin/env bash\nset -e\n"
          "python3 -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct \\\n"
          "  --tp 4 \\\n  --trust-remote\n")
CONFIG = ("model-path: moonshotai/Kimi-Linear-48B-A3B-Instruct\n"
          "tp_size: 4            # four H200s\n"
          "trust-remote-code: true\n"
          "speculative_num_steps: 3\n")
GATE = {"select": ["ARG"], "offline": True, "failure_threshold": "info"}


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "run.sh").write_text(SCRIPT, encoding="utf-8")
    (tmp_path / "cfg.yaml").write_text(CONFIG, encoding="utf-8")
    (tmp_path / "c.json").write_text('{"model-path": "moonshotai/Kimi-Linear-48B-A3B-Instruct", "tp_size": 4}\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _summary(capsys: pytest.CaptureFixture[str], **extra: object) -> tuple[int, dict, str]:
    capsys.readouterr()
    paths = sorted(p.name for p in Path.cwd().iterdir() if p.is_file())
    code = run_lint(paths=paths, output_format="json", **GATE, **extra)
    out, err = capsys.readouterr()
    return code, json.loads(out)["summary"], err


def test_add_noqa_comments_every_finding_in_shell_and_yaml_and_says_json(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, before, _ = _summary(capsys)
    assert code == 1 and before["errors"] == 3 and before["info"] == 2  # ARG006 x2 (yaml) + 1 (json), ARG003 x2
    code, after, err = _summary(capsys, add_noqa=True)
    assert "c.json: JSON has no comments: 1 finding(s) left" in err
    assert "added suppressions for 4 findings in 2 files" in err
    assert code == 1 and after["errors"] == 1 and after["info"] == 0 and after["suppressed"] == 4  # the JSON one is left
    assert after["unused_suppressions"] == 0
    shell = (repo / "run.sh").read_text(encoding="utf-8")
    assert shell == SCRIPT.replace("python3", "# kdacheck: ignore[ARG003]\npython3", 1)  # above the command, not inside it
    yaml = (repo / "cfg.yaml").read_text(encoding="utf-8")
    assert yaml.count("# kdacheck: ignore[ARG006]\n") == 2 and "# four H200s" in yaml  # above each key, comments kept
    # nothing left to add: a second run writes nothing
    snapshot = {p.name: p.read_bytes() for p in repo.iterdir() if p.is_file()}
    _summary(capsys, add_noqa=True)
    assert snapshot == {p.name: p.read_bytes() for p in repo.iterdir() if p.is_file()}


def test_crlf_and_an_existing_comment_are_kept(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "cfg.yaml").unlink()
    (repo / "c.json").unlink()
    (repo / "run.sh").write_bytes(SCRIPT.replace("python3", "# kdacheck: ignore[KDA009] -- known\npython3", 1).replace("\n", "\r\n").encode())
    code, after, _ = _summary(capsys, add_noqa=True)
    assert code == 0 and after["suppressed"] == 2
    data = (repo / "run.sh").read_bytes()
    assert b"# kdacheck: ignore[ARG003,KDA009] -- known\r\npython3" in data and b"\n" not in data.replace(b"\r\n", b"")


def test_a_comment_that_would_change_what_is_read_is_not_written(repo: Path) -> None:
    """Should a comment land inside a string, the launch would read differently: nothing written."""
    from kdacheck import config
    from kdacheck.lint import lint_text

    opts = config.options(config.EMPTY, config.Overrides(select=("ARG",), offline=True))
    r = lint_text(SCRIPT, "run.sh", opts, ".")
    assert r.findings

    def changed(text: str, path: str) -> FileResult:
        return lint_text(text.replace("--trust-remote", "--trust-remote-code"), path, opts, ".")

    added = noqa.plan([r], lambda p: (SCRIPT.encode(), SCRIPT), changed)
    assert not added.files and added.covered == 0
    assert added.notes == ["run.sh: a comment cannot go where its launches are (inside a quoted or block scalar): "
                           "not changed, 2 finding(s) left (use --baseline)"]


def test_add_noqa_refuses_standard_input_and_fix(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_lint(paths=["-"], add_noqa=True) == 2
    assert run_lint(paths=["run.sh"], add_noqa=True, fix=True) == 2
    assert "--add-noqa writes comments into the files named" in capsys.readouterr().err
