"""``kdacheck plan`` on hostile input: what ``--emit ... -o FILE`` writes goes only through
``kdacheck.writes`` (inside the working directory's repository, never through a link, never
outside), ``--args`` is read through ``kdacheck.confine``, and what reaches the terminal is
sanitised. Each case runs beside an "outside" folder hashed before and after."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from kdacheck.cli import app
from tests.helpers import tree_state

ROOT = Path(__file__).resolve().parent.parent
MODEL = str(ROOT / "tests" / "data" / "models" / "deepseek-v3.2")  # the quickest plan of the five
runner = CliRunner()


def _plan(*extra: str) -> object:
    return runner.invoke(app, ["plan", "--model", MODEL, "--gpu", "h200", "--tp", "8", "--sglang-version", "0.5.23",
                               "--budget-s", "120", *extra])


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    r = tmp_path / "repo"
    (r / ".git").mkdir(parents=True)
    monkeypatch.chdir(r)
    return r


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    o = tmp_path / "outside"
    o.mkdir()
    (o / "plan.yaml").write_text("precious\n")
    return o


@pytest.mark.parametrize("target", ["plan.yaml", "missing.yaml"])  # a live link, a dangling one
def test_emit_onto_a_committed_link_is_refused(repo: Path, outside: Path, target: str) -> None:
    (repo / "plan.yaml").symlink_to(Path("..") / "outside" / target)
    before = tree_state(outside)
    r = _plan("--emit", "yaml", "-o", "plan.yaml")
    assert r.exit_code == 2, r.output
    assert "plan.yaml: a symbolic link: not written" in r.stderr
    assert tree_state(outside) == before
    assert (repo / "plan.yaml").is_symlink()


def test_emit_through_a_linked_folder_is_refused(repo: Path, outside: Path) -> None:
    (repo / "deploy").symlink_to(outside)
    before = tree_state(outside)
    r = _plan("--emit", "shell", "-o", "deploy/plan.yaml")
    assert r.exit_code == 2, r.output
    assert "not written" in r.stderr
    assert tree_state(outside) == before


def test_emit_outside_the_repository_is_refused(repo: Path, outside: Path) -> None:
    before = tree_state(outside)
    r = _plan("--emit", "yaml", "-o", "../outside/plan.yaml")
    assert r.exit_code == 2, r.output
    assert "outside the repository" in r.stderr
    assert tree_state(outside) == before


def test_emit_onto_a_folder_is_refused(repo: Path) -> None:
    (repo / "plan.yaml").mkdir()
    r = _plan("--emit", "yaml", "-o", "plan.yaml")
    assert r.exit_code == 2, r.output
    assert "not written" in r.stderr


def test_emit_writes_a_new_file_inside(repo: Path) -> None:
    r = _plan("--emit", "yaml", "-o", "sub/../plan.yaml")
    assert r.exit_code == 0, r.output
    assert (repo / "plan.yaml").read_text().count("\n") > 3
    assert not list(repo.glob(".kdacheck-*.tmp"))


def test_args_file_linking_outside_is_refused(repo: Path, outside: Path) -> None:
    (outside / "run.sh").write_text("python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 --context-length 9\n")
    (repo / "run.sh").symlink_to(outside / "run.sh")
    r = _plan("--args", "run.sh")
    assert r.exit_code == 2, r.output
    assert "run.sh" in r.stderr and "Traceback" not in r.output


def test_control_characters_never_reach_the_terminal(repo: Path) -> None:
    r = runner.invoke(app, ["plan", "--model", "evil\x1b]0;pwned\x07\x1b[2J", "--gpu", "h200", "--tp", "8"])
    assert r.exit_code == 2
    assert "\x1b" not in r.output and "\x07" not in r.output
    r = runner.invoke(app, ["plan", "--model", "kimi-linear", "--gpu", "h\x1b[31m200", "--tp", "4"])
    assert r.exit_code == 2
    assert "\x1b" not in r.output


def test_a_hostile_draft_path_is_shown_escaped(repo: Path) -> None:
    r = _plan("--draft", "EAGLE=org/x\x1b[31mred", "--top", "40")
    assert "\x1b" not in r.output
    assert r.exit_code in (0, 2)


def test_an_args_file_that_is_not_a_launch_exits_2(repo: Path) -> None:
    (repo / "notes.sh").write_text("echo hello\n")
    r = _plan("--args", "notes.sh")
    assert r.exit_code == 2, r.output
    assert "notes.sh" in r.stderr
