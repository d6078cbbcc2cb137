"""The composite Action's lint step, run in bash with a stand-in ``python`` that records its
arguments: paths and extra args are split on spaces but never glob-expanded."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent


def lint_script() -> str:
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    (step,) = [s for s in action["runs"]["steps"] if s.get("id") == "lint"]
    return str(step["run"])


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_paths_reach_kdacheck_unexpanded(tmp_path: Path) -> None:
    (tmp_path / "deploy" / "a").mkdir(parents=True)
    (tmp_path / "deploy" / "top.yaml").write_text("x: 1\n")
    (tmp_path / "deploy" / "a" / "deep.yaml").write_text("x: 1\n")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "python"  # the step runs `python -I -m kdacheck`: a stand-in Python records its arguments
    fake.write_text('#!/usr/bin/env bash\nprintf "%s\\n" "$@" > "$KDA_RECORD"\n')
    fake.chmod(0o755)
    record, output = tmp_path / "args.txt", tmp_path / "github_output"
    env = {
        **os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "KDA_RECORD": str(record),
        "KDA_PATHS": "deploy/**/*.yaml deploy/*.yaml", "KDA_ARGS": "--select KDA*", "KDA_SGLANG": "", "KDA_GPU": "",
        "KDA_THRESHOLD": "", "KDA_UPLOAD": "false", "KDA_SARIF": "", "GITHUB_OUTPUT": str(output), "RUNNER_TEMP": str(tmp_path),
    }
    subprocess.run(["bash", "-e", "-c", lint_script()], cwd=tmp_path, env=env, check=True, timeout=60)
    args = record.read_text().splitlines()
    assert args == ["-I", "-m", "kdacheck", "lint", "--select", "KDA*", "--output-format", "github", "deploy/**/*.yaml", "deploy/*.yaml"]
    assert "exit-code=0" in output.read_text()


def test_container_image_installs_the_linter_from_this_tree() -> None:
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    lines = [ln.strip() for ln in (root / "Dockerfile").read_text().splitlines() if ln.strip() and not ln.startswith("#")]
    copies = [ln.split()[1:-1] for ln in lines if ln.startswith("COPY")]
    assert all((root / p).exists() for c in copies for p in c)  # only files of this repository
    assert any("pip install --no-cache-dir /opt/kdacheck" in ln for ln in lines)  # no extras: no torch in the image
    assert lines[-2:] == ['ENTRYPOINT ["python", "-I", "-m", "kdacheck"]', 'CMD ["lint", "."]'] and "USER kdacheck" in lines
