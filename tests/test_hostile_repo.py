"""kdacheck on a stranger's pull request: nothing outside the tree read, nothing raw shown,
every read, loop and allocation bounded (docs/robustness.md)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kdacheck.report import FORMATS

ROOT = Path(__file__).resolve().parent.parent
KIMI = "python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --tp-size 3"  # KDA007: exit 1


def _kdacheck(*args: str, cwd: Path, stdin: bytes | None = None, timeout: float = 60) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    env.pop("GITHUB_ACTIONS", None)
    return subprocess.run([sys.executable, "-m", "kdacheck", *args], cwd=cwd, input=stdin, capture_output=True,
                          timeout=timeout, env=env)


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_config_outside_the_repository_is_not_read(tmp_path: Path, fmt: str) -> None:
    secret = tmp_path / "secret.yaml"
    secret.write_text("tp-size: AKIAIOSFODNN7EXAMPLE\nhunter2-password: swordfish\n")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".git").mkdir()
    (repo / "run.sh").write_text(f"python -m sglang.launch_server --config {secret} --tp-size 2\n"
                                 "python -m sglang.launch_server --config ../secret.yaml\n")
    p = _kdacheck("lint", "run.sh", "--output-format", fmt, cwd=repo)
    out = (p.stdout + p.stderr).decode()
    assert p.returncode == 2, out
    assert "outside the repository" in out and "not read" in out
    assert "AKIA" not in out and "swordfish" not in out and "hunter2" not in out


ADAPTIVE = ("python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --tp-size 2 "
            "--speculative-algorithm EAGLE --speculative-adaptive --speculative-adaptive-config {}\n")


@pytest.mark.parametrize("fmt", ["full", "github", "sarif"])
def test_adaptive_config_outside_the_repository_is_not_read(tmp_path: Path, fmt: str) -> None:
    secret = tmp_path / "secret.json"
    secret.write_text('{"1": {"candidate_steps": [1, 3, 7]}, "token": "AKIAIOSFODNN7EXAMPLE"}')
    repo = tmp_path / "repo"
    (repo / "deploy").mkdir(parents=True)
    (repo / ".git").mkdir()
    for target in (str(secret), "../../secret.json"):
        (repo / "deploy" / "run.sh").write_text(ADAPTIVE.format(target))
        p = _kdacheck("lint", "deploy/run.sh", "--output-format", fmt, cwd=repo)
        out = (p.stdout + p.stderr).decode()
        assert p.returncode == 2, out
        assert "--speculative-adaptive-config" in out and "outside the repository" in out and "not read" in out
        assert "AKIA" not in out and "1, 3, 7" not in out


def test_adaptive_config_is_read_beside_the_launch_file(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "deploy").mkdir()
    (tmp_path / "deploy" / "adaptive.json").write_text('{"1": {"candidate_steps": [2, 5]}, "8": {"candidate_steps": [9]}}')
    (tmp_path / "deploy" / "run.sh").write_text(ADAPTIVE.format("adaptive.json"))
    p = _kdacheck("lint", "deploy/run.sh", "--show-resolved", "--output-format", "json", cwd=tmp_path)
    doc = json.loads(p.stdout)
    values = doc["files"][0]["commands"][0]["values"]
    assert values["kdacheck.adaptive_candidates"]["value"] == [2, 5, 9], values["kdacheck.adaptive_candidates"]


@pytest.mark.slow
def test_names_with_newlines_and_escapes_are_shown_escaped(tmp_path: Path) -> None:
    (tmp_path / "x\n::error file=a.sh::pwned\x1b]0;t\x07.sh").write_text(KIMI + "\n")
    (tmp_path / "dep.yaml").write_text(
        'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: "ev\\e]0;owned\\a::error::x"\nspec:\n  template:\n'
        '    spec:\n      containers:\n        - name: sglang\n          command: ["python", "-m", "sglang.launch_server",'
        ' "--model-path", "moonshotai/Kimi-Linear-48B-A3B-Instruct", "--tp", "2"]\n')
    (tmp_path / os.fsdecode(b"bad\xff.sh")).write_text(KIMI + "\n")
    for fmt in FORMATS:
        p = _kdacheck("lint", ".", "--output-format", fmt, cwd=tmp_path)
        out = p.stdout.decode("utf-8")  # valid UTF-8 whatever the file names hold
        assert p.returncode == 1, (fmt, out, p.stderr)
        assert "\x1b" not in out and "\x07" not in out, fmt
        if fmt in ("full", "concise", "junit"):
            assert not [ln for ln in out.splitlines() if ln.startswith("::")], fmt
        if fmt in ("json", "sarif"):
            json.loads(out)
        if fmt == "github":  # only kdacheck's own workflow commands, one per finding line
            assert all(ln.startswith(("::warning ", "::error ", "::notice ", "::group::", "::endgroup::")) for ln in out.splitlines() if ln.startswith("::"))
            assert "::error file=a.sh::pwned" not in out


def test_stdin_stops_at_the_budget(tmp_path: Path) -> None:
    p = _kdacheck("lint", "-", cwd=tmp_path, stdin=b"\0" * (11 << 20))
    assert p.returncode == 2 and b"over the" in p.stderr + p.stdout


def test_backtracking_gitignore_line_is_linear(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("****************x\n[z-a]\n[!]\n")
    (tmp_path / ("a" * 35 + ".sh")).write_text(KIMI + "\n")
    p = _kdacheck("lint", ".", cwd=tmp_path)  # the matcher's steps: tests/test_hostile_budgets.py counts them
    assert p.returncode == 1, p.stderr  # the file is linted (no line above ignores it), no internal error
    assert b"internal error" not in p.stderr + p.stdout


def test_huge_model_counts_end_fast_with_an_error_naming_the_field(tmp_path: Path) -> None:
    data = json.loads((ROOT / "tests/data/models/kimi-linear-48b/config.json").read_text())
    data["linear_attn_config"]["num_heads"] = 10**15 + 1
    (tmp_path / "config.json").write_text(json.dumps(data))
    p = _kdacheck("lint", "--model", str(tmp_path), "--cmd", KIMI, cwd=tmp_path)  # the timeout: a hang guard
    assert p.returncode == 2 and b"num_heads" in p.stderr + p.stdout


def test_run_takes_the_files_counts_under_its_limits(tmp_path: Path) -> None:
    (tmp_path / "run.sh").write_text("python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct "
                                     "--speculative-algorithm EAGLE --speculative-num-steps 19999 --speculative-eagle-topk 1 "
                                     "--speculative-num-draft-tokens 20000\n")
    p = _kdacheck("run", "--args", "run.sh", "--device", "cpu", cwd=tmp_path)  # refused before any kernel runs
    assert p.returncode == 2 and b"must be between" in p.stderr


def test_settings_that_are_not_utf8_or_too_large_stop_the_run(tmp_path: Path) -> None:
    # A pyproject.toml with kdacheck's table that cannot be read is said out loud (exit 2),
    # never skipped so that the run goes on without the repository's settings.
    (tmp_path / "run.sh").write_text(KIMI + "\n")
    (tmp_path / "pyproject.toml").write_bytes(b'[tool.kdacheck]\nselect = ["\xff"]\n')
    r = _kdacheck("lint", "run.sh", cwd=tmp_path)
    assert r.returncode == 2 and b"not UTF-8" in r.stderr and b"pyproject.toml" in r.stderr
    (tmp_path / "pyproject.toml").unlink()
    (tmp_path / "kdacheck.toml").write_bytes(b"# " + b"x" * (2 << 20) + b"\n")
    r = _kdacheck("lint", "run.sh", cwd=tmp_path)
    assert r.returncode == 2 and b"over the 1,048,576-byte limit" in r.stderr


def test_closed_pipe_and_ascii_terminal_keep_the_exit_code(tmp_path: Path) -> None:
    (tmp_path / "run.sh").write_text("python -m sglang.launch_server --tp-size 2\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1", "PYTHONIOENCODING": "ascii"}
    env.pop("GITHUB_ACTIONS", None)
    proc = subprocess.Popen([sys.executable, "-m", "kdacheck", "lint", "run.sh", "--show-resolved"], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.read(1)
    proc.stdout.close()  # `| head -c1`
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 0, err
    assert b"Error" not in err and b"internal error" not in err
    r = _kdacheck("lint", "run.sh", cwd=tmp_path)
    out = subprocess.run([sys.executable, "-m", "kdacheck", "lint", "run.sh"], cwd=tmp_path, capture_output=True, env=env, timeout=60)
    assert out.returncode == r.returncode == 0 and b"\\u2713 starts" in out.stdout


def test_adaptive_config_name_too_long_for_the_file_system(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "run.sh").write_text(ADAPTIVE.format("a" * 5000))
    p = _kdacheck("lint", "run.sh", cwd=tmp_path)
    out = (p.stdout + p.stderr).decode()
    assert p.returncode in (0, 1), out
    assert "internal error" not in out and "were not checked" in out


def test_run_byte_budget_and_folder_size_are_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kdacheck import discover, lint
    from kdacheck.config import Overrides
    from kdacheck.findings import InputError

    for i in range(3):
        (tmp_path / f"r{i}.sh").write_text(KIMI + "\n" + "# pad\n" * 200)
    monkeypatch.setattr(lint, "RUN_BYTES", 3000)  # each file is about 1,300 bytes
    results = lint.LintRun([str(tmp_path)], None, Overrides()).lint()
    assert [r.error is not None and "budget" in r.error for r in results] == [False, False, True]
    monkeypatch.setattr(discover, "MAX_ENTRIES", 2)
    with pytest.raises(InputError, match="over 2 files and folders"):
        discover.walk(str(tmp_path))


def test_model_folders_a_launch_names_stay_inside_the_repository(tmp_path: Path) -> None:
    outside = tmp_path / "outside-model"
    outside.mkdir()
    (outside / "config.json").write_text('{"architectures": ["KimiLinearForCausalLM"], "num_hidden_layers": 27, "secret_key": 1}')
    repo = tmp_path / "repo"
    (repo / "deploy" / "models" / "kimi").mkdir(parents=True)
    (repo / ".git").mkdir()
    (repo / "deploy" / "models" / "kimi" / "config.json").write_text((ROOT / "tests/data/models/kimi-linear-48b/config.json").read_text())
    spec = "--speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4"
    (repo / "deploy" / "out.sh").write_text(f"python -m sglang.launch_server --model-path {outside} {spec}\n")
    (repo / "deploy" / "in.sh").write_text(f"python -m sglang.launch_server --model-path models/kimi --tp-size 2 {spec}\n")
    p = _kdacheck("lint", "deploy/out.sh", cwd=repo)
    out = (p.stdout + p.stderr).decode()
    assert p.returncode == 2 and "--model-path" in out and "outside the repository" in out and "secret_key" not in out
    doc = json.loads(_kdacheck("lint", "deploy/in.sh", "--output-format", "json", cwd=repo).stdout)
    assert doc["files"][0]["commands"][0]["model_source"].startswith("--model-path: deploy/models/kimi/config.json")
    assert _kdacheck("lint", "deploy/out.sh", "--allow-outside", cwd=repo).returncode in (0, 1)
