"""The pre-commit hook, run the way users run it: ``pre-commit try-repo`` in a git repository.

try-repo builds the hook's environment from this repository's HEAD (pip install of kdacheck
and its dependencies from PyPI), so it needs the network and takes a while: marked slow.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
CI = ROOT / "tests" / "data" / "ci"


def test_hook_definition() -> None:
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "kdacheck" and hook["entry"] == "python -I -m kdacheck lint --only-launch-files --force-exclude" and hook["language"] == "python"
    import re

    files, exclude = re.compile(hook["files"]), re.compile(hook["exclude"])
    from kdacheck.discover import is_container_file_name

    for name in ("a.yaml", "b.yml", "run.sh", "x/y.bash", "serve.ipynb", "Dockerfile", "docker/Containerfile", "Dockerfile.cuda", "x/serve.Dockerfile"):
        assert files.search(name) and not exclude.search(name), name
    for name in ("a.py", "yaml.txt", "MyDockerfile", "Dockerfile.md", "x/Dockerfile.j2", "dockerfile.py"):
        assert not files.search(name) or exclude.search(name), name
    # by suffix, the hook passes exactly kdacheck.suffixes.HOOK_SUFFIXES (their one home)
    from kdacheck.suffixes import HOOK_SUFFIXES, LINT_SUFFIXES

    tried = {*LINT_SUFFIXES, ".py", ".md", ".toml", ".cfg", ".ini", ".ipynb", ".j2", ".tpl", ".env", ".zsh", ".jsonl", ".conf"}
    passed = {s for s in tried if files.search(f"x/a{s}") and not exclude.search(f"x/a{s}")}
    assert passed == set(HOOK_SUFFIXES), f".pre-commit-hooks.yaml files: {sorted(passed)} vs kdacheck.suffixes.HOOK_SUFFIXES"
    # the hook passes the container builds kdacheck's own folder walk reads by name
    for name in ("Dockerfile", "Containerfile", "Dockerfile.cuda", "serve.Dockerfile", "Dockerfile.md", "Dockerfile.j2"):
        assert bool(files.search(name) and not exclude.search(name)) == is_container_file_name(name), name


def _pre_commit() -> list[str]:
    try:
        import pre_commit  # noqa: F401
    except ImportError:
        pytest.skip("pre-commit is not installed (pip install pre-commit)")
    return [sys.executable, "-m", "pre_commit"]


@pytest.mark.slow
def test_try_repo_runs_the_hook(tmp_path: Path) -> None:
    pre_commit = _pre_commit()
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    if subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True).returncode:
        pytest.skip("try-repo needs this checkout to be a git repository with a commit")
    repo = tmp_path / "deploy"
    repo.mkdir()
    shutil.copy(CI / "warn" / "spec002.sh", repo / "spec002.sh")
    (repo / "clean.yaml").write_text(
        "model-path: moonshotai/Kimi-Linear-48B-A3B-Instruct\nspeculative-algorithm: EAGLE\n"
        "speculative-num-steps: 3\nspeculative-eagle-topk: 1\nspeculative-num-draft-tokens: 4\n"
    )
    # an ordinary repository around them: none of these is a launch configuration
    (repo / ".github" / "workflows").mkdir(parents=True)
    shutil.copy(CI / "other" / "workflow.yaml", repo / ".github" / "workflows" / "ci.yaml")
    shutil.copy(CI / "other" / "values.yaml", repo / "values.yaml")
    (repo / ".pre-commit-config.yaml").write_text("repos:\n  - repo: local\n    hooks: []\n")
    (repo / "mkdocs.yml").write_text("site_name: deploy\nnav:\n  - Home: index.md\ntheme:\n  name: material\n")
    (repo / "build.sh").write_text("#!/bin/sh\nset -e\ndocker build -t serving:latest .\n")
    # the findings checked stay the same as other rules are added
    (repo / "kdacheck.toml").write_text('select = ["ARG", "SPEC001", "SPEC002"]\n')
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache"), "NO_COLOR": "1", "GIT_AUTHOR_NAME": "t",
           "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    env.pop("GITHUB_ACTIONS", None)
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True, env=env)
    subprocess.run(["git", "add", "."], cwd=repo, check=True, env=env)

    def run(*files: str) -> subprocess.CompletedProcess[str]:
        cmd = [*pre_commit, "try-repo", str(ROOT), "kdacheck", "--verbose", "--files", *files]
        return subprocess.run(cmd, cwd=repo, env=env, capture_output=True, text=True, timeout=600)

    bad = run("spec002.sh")
    if "Could not find a version" in bad.stdout + bad.stderr or "Network is unreachable" in bad.stdout + bad.stderr:
        pytest.skip("no access to PyPI to build the hook's environment")
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "spec002.sh:8:3: [*] SPEC002" in bad.stdout  # [*]: --fix fixes it
    good = run("clean.yaml", ".github/workflows/ci.yaml", "values.yaml", ".pre-commit-config.yaml", "mkdocs.yml", "build.sh")
    assert good.returncode == 0, good.stdout + good.stderr  # the other files are skipped, not read as --config
