"""Project configuration ([tool.kdacheck] / kdacheck.toml) on a repository-shaped fixture."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kdacheck import config as confmod
from kdacheck.cli import app

runner = CliRunner()

SPEC002_SH = """\
#!/bin/bash
python -m sglang.launch_server \\
  --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct \\
  --speculative-algorithm EAGLE \\
  --speculative-num-steps 3 \\
  --speculative-eagle-topk 1 \\
  --speculative-num-draft-tokens 6 \\
  --bogus-flag 1
"""

BAD_YAML = """\
model-path: moonshotai/Kimi-Linear-48B-A3B-Instruct
speculative-algorithm: EAGLE
speculative-eagle-topk: 2
speculative-num-draft-tokens: 6
bogus-flag: 3  # kdacheck: ignore[ARG001]
"""


def write(root: Path, rel: str, text: str) -> Path:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(textwrap.dedent(text) if not text.startswith("#!") else text)
    return p


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "repo"
    write(root, "pyproject.toml", """\
        [project]
        name = "deployments"

        [tool.kdacheck]
        select = ["ARG001", "SPEC001", "SPEC002"]
        failure-threshold = "error"
        exclude = ["legacy/"]
        mem005-share = 0.2
    """)
    write(root, ".gitignore", "# build output\nbuild/\n*.tmp.yaml\n")
    write(root, "build/generated.yaml", BAD_YAML.replace("  # kdacheck: ignore[ARG001]", ""))
    write(root, "deploy/scratch.tmp.yaml", BAD_YAML)
    write(root, "legacy/old.yaml", BAD_YAML)
    write(root, "deploy/prod/config.yaml", BAD_YAML)
    write(root, "deploy/prod/run.sh", SPEC002_SH)
    write(root, "deploy/.github/workflows/lint.yaml", "on: push\njobs: {}\n")
    write(root, "deploy/helm/values.yaml", "replicaCount: 1\nimage:\n  repository: lmsysorg/sglang\n")
    # a nested configuration wins for its folder
    write(root, "team/kdacheck.toml", 'select = ["ARG", "SPEC002"]\nignore = ["SPEC002"]\n')
    write(root, "team/run.sh", SPEC002_SH)
    monkeypatch.chdir(root)
    return root


def lint(*args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["lint", *args, "--output-format", "concise"], env={"NO_COLOR": "1", "GITHUB_ACTIONS": None})


def findings(output: str) -> list[str]:
    lines = [ln.replace(": [*] ", ": ", 1) for ln in output.splitlines()]  # `[*]`: fixable with --fix
    return [ln.split(" [")[0] for ln in lines if re.match(r"^\S+:\d+:\d+: [A-Z]+\d+ \[", ln)]


def test_repository_fixture_gives_exactly_the_expected_findings(repo: Path) -> None:
    r = lint(".")
    assert findings(r.stdout) == [
        "deploy/prod/config.yaml:3:1: SPEC001",  # ARG001 on line 5 is suppressed inline
        "deploy/prod/run.sh:7:3: SPEC002",
        "deploy/prod/run.sh:8:3: ARG001",
        "team/run.sh:8:3: ARG001",  # team/kdacheck.toml ignores SPEC002
    ], r.stdout
    assert "1 suppressed" in r.stdout
    # failure-threshold = "error" from the file: there are errors, so 1
    assert r.exit_code == 1


def test_threshold_from_file_and_command_line_override(repo: Path) -> None:
    (repo / "deploy/prod/config.yaml").unlink()
    (repo / "deploy/prod/run.sh").write_text(SPEC002_SH.replace(" \\\n  --bogus-flag 1", ""))
    (repo / "team/run.sh").unlink()
    assert lint(".").exit_code == 0  # only a warning, threshold error (from the file)
    assert lint(".", "--failure-threshold", "warning").exit_code == 1
    r = lint(".", "--select", "ARG001")  # --select replaces the file's select
    assert findings(r.stdout) == []


def test_nearest_configuration_wins_and_options_carry_it(repo: Path) -> None:
    s = confmod.for_file(str(repo / "team" / "run.sh"))
    assert s.path is not None and s.path.endswith("kdacheck.toml") and s.ignore == ("SPEC002",)
    top = confmod.for_file(str(repo / "deploy" / "prod" / "run.sh"))
    assert top.path is not None and top.path.endswith("pyproject.toml")
    opts = confmod.options(top, confmod.Overrides(gpu="h200"))
    assert opts.mem005_share == 0.2 and opts.gpu is not None and opts.gpu.name == "h200"
    assert [r.code for r in opts.rules or []] == ["ARG001", "SPEC001", "SPEC002"]


def test_unknown_key_exits_2_naming_the_key_and_place(repo: Path) -> None:
    text = (repo / "pyproject.toml").read_text().replace('mem005-share = 0.2', 'mem005-share = 0.2\nfailure_treshold = "error"')
    (repo / "pyproject.toml").write_text(text)
    line = text.splitlines().index('failure_treshold = "error"') + 1
    r = runner.invoke(app, ["lint", "."], env={"NO_COLOR": "1"})
    assert r.exit_code == 2
    assert "failure_treshold" in r.output
    assert f"pyproject.toml:{line}:" in r.output


def test_unknown_table_and_bad_values_exit_2(repo: Path) -> None:
    (repo / "team/kdacheck.toml").write_text('select = ["ARG"]\n\n[rules]\nx = 1\n')
    r = lint("team")
    assert r.exit_code == 2 and "kdacheck.toml:3:" in r.output and "`rules`" in r.output
    (repo / "team/kdacheck.toml").write_text('gpu = "tpu9000"\n')
    r = lint("team")
    assert r.exit_code == 2 and "kdacheck.toml:1:" in r.output and "tpu9000" in r.output
    (repo / "team/kdacheck.toml").write_text('failure-threshold = "fatal"\n')
    assert lint("team").exit_code == 2
    (repo / "team/kdacheck.toml").write_text("select = [\n")
    r = lint("team")
    assert r.exit_code == 2 and "invalid TOML" in r.output


def test_output_format_from_configuration(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (repo / "team/kdacheck.toml").write_text('output-format = "json"\n')
    monkeypatch.chdir(repo / "team")
    r = runner.invoke(app, ["lint", "run.sh"], env={"NO_COLOR": "1", "GITHUB_ACTIONS": "true"})
    assert r.stdout.lstrip().startswith("{")  # the file's format beats the GitHub default


def test_pyproject_without_table_is_not_a_configuration(tmp_path: Path) -> None:
    write(tmp_path, "pyproject.toml", "[project]\nname = 'x'\n")
    write(tmp_path, "a/kdacheck.toml", "select = ['ARG']\n")
    assert confmod.find(str(tmp_path)) is None
    assert confmod.find(str(tmp_path / "a")) == str(tmp_path / "a" / "kdacheck.toml")


def test_config_knows_every_output_format(tmp_path: Path) -> None:
    from kdacheck.report import FORMATS

    for name in FORMATS:
        (tmp_path / "kdacheck.toml").write_text(f'output-format = "{name}"\n')
        confmod.reset()
        assert confmod.load(str(tmp_path / "kdacheck.toml")).output_format == name
