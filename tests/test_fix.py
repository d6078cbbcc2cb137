"""``kdacheck lint --fix`` and ``--diff``: the findings' edits, applied to the files as written."""

from __future__ import annotations

import difflib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

if TYPE_CHECKING:
    from kdacheck.findings import Finding

ROOT = Path(__file__).resolve().parent.parent
ERRORS = ROOT / "examples" / "errors"
FIXABLE = ["ARG003-abbreviations.sh", "ARG005-deprecated-spelling.yaml", "ARG006-underscore-keys.yaml",
           "SPEC001-draft-tokens-without-steps.sh", "SPEC002-chain-draft-tokens.sh"]


def _kdacheck(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    env.pop("GITHUB_ACTIONS", None)
    return subprocess.run([sys.executable, "-m", "kdacheck", *args], cwd=cwd, capture_output=True, text=True, timeout=120, env=env)


def _codes(path: Path, cwd: Path) -> set[str]:
    doc = json.loads(_kdacheck("lint", str(path), "--output-format", "json", cwd=cwd).stdout)
    return {f["code"] for file in doc["files"] for f in file["findings"] if not f["message"].startswith("could not be checked")}


@pytest.mark.parametrize("name", FIXABLE)
def test_fix_leaves_the_file_clean_of_its_code_and_unchanged_elsewhere(name: str, tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    f = tmp_path / name
    shutil.copy(ERRORS / name, f)
    os.chmod(f, 0o755)
    code = name.split("-", 1)[0]
    before = f.read_text()
    assert code in _codes(f, tmp_path)

    d = _kdacheck("lint", name, "--diff", cwd=tmp_path)
    assert d.returncode == 1, d.stderr
    assert f.read_text() == before  # --diff writes nothing

    p = _kdacheck("lint", name, "--fix", cwd=tmp_path)
    after = f.read_text()
    assert code not in _codes(f, tmp_path), p.stdout
    assert os.stat(f).st_mode & 0o777 == 0o755
    # only the changed lines differ: comments, quoting and layout are kept
    changed = [ln for ln in difflib.ndiff(before.splitlines(), after.splitlines()) if ln.startswith(("-", "+"))]
    assert changed and len(changed) <= 4, changed
    assert len(before.splitlines()) == len(after.splitlines())
    # --diff printed the same change the fix made
    patch = [ln[1:] for ln in d.stdout.splitlines() if ln.startswith("+") and not ln.startswith("+++")]
    assert patch == [ln[2:] for ln in changed if ln.startswith("+")]
    assert _kdacheck("lint", name, "--diff", cwd=tmp_path).returncode == 0  # nothing left to fix


def test_json_carries_the_edits_with_their_applicability(tmp_path: Path) -> None:
    (tmp_path / "run.sh").write_text("python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --tp 2 --tp-sise 2\n")
    doc = json.loads(_kdacheck("lint", "run.sh", "--output-format", "json", cwd=tmp_path).stdout)
    edits = {f["code"]: f["edits"] for f in doc["files"][0]["findings"] if f["edits"]}
    assert edits["ARG003"] == [{"location": {"path": "run.sh", "line": 1, "column": 85}, "old": "--tp", "new": "--tp-size", "applicability": "safe"}]
    assert edits["ARG001"][0]["new"] == "--tp-size" and edits["ARG001"][0]["applicability"] == "unsafe"


def test_unsafe_fixes_only_when_asked(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    f = tmp_path / "run.sh"
    f.write_text("python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --tensor-paralel-size 2\n")
    p = _kdacheck("lint", "run.sh", "--fix", cwd=tmp_path)
    assert "--tensor-paralel-size" in f.read_text() and "more with --unsafe-fixes" in p.stderr
    _kdacheck("lint", "run.sh", "--fix", "--unsafe-fixes", cwd=tmp_path)
    assert "--tensor-parallel-size 2" in f.read_text()


def test_kubernetes_quoted_args_and_crlf_keep_their_form(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    k8s = tmp_path / "dep.yaml"
    k8s.write_bytes(b'apiVersion: apps/v1\r\nkind: Deployment\r\nmetadata:\r\n  name: kimi\r\nspec:\r\n  template:\r\n    spec:\r\n'
                    b'      containers:\r\n        - name: sglang\r\n          command: ["python3", "-m", "sglang.launch_server",'
                    b' "--model-path", "moonshotai/Kimi-Linear-48B-A3B-Instruct", "--tp", "2"]  # two GPUs\r\n')
    _kdacheck("lint", "dep.yaml", "--fix", cwd=tmp_path)
    assert k8s.read_bytes().endswith(b'"--tp-size", "2"]  # two GPUs\r\n')
    assert b"\r\n" in k8s.read_bytes() and b"\n" not in k8s.read_bytes().replace(b"\r\n", b"")


def test_a_config_outside_the_tree_is_never_written(tmp_path: Path) -> None:
    outside = tmp_path / "shared.yaml"
    outside.write_text("tp_size: 2\n")
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "run.sh").write_text(f"python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --config {outside}\n")
    _kdacheck("lint", "run.sh", "--fix", "--allow-outside", cwd=repo)
    assert outside.read_text() == "tp_size: 2\n"


def _edit_at(line: int, col: int) -> Finding:
    from kdacheck.findings import Edit, Finding, Location, Severity

    loc = Location("f.sh", line, col)
    return Finding("ARG003", Severity.INFO, "abbreviation", loc, edits=(Edit(loc, "--tp", "--tp-size"),))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["--tp", "--tp-size", " ", "2", "#", "\n", "\r\n", "\r", "\f", "\v", "\x85", "\u2028", '"', "x"]),
                max_size=30),
       st.integers(1, 12), st.integers(1, 30))
def test_an_edit_replaces_only_a_whole_old_word_and_never_twice(parts: list[str], line: int, col: int) -> None:
    """Wherever an edit points, in text with any line breaks: the text is unchanged, or its old
    word (not a prefix of a longer one) became the new one and nothing else moved; applied again
    to its own result, it changes nothing (no `--tp-size-size`)."""
    from kdacheck import fix

    before = "".join(parts)
    out = fix.plan([_edit_at(line, col)], False, {"f.sh": before})
    after = out.files.get("f.sh", (before, before))[1]
    if after != before:
        at = [s for s in range(len(before)) if before.startswith("--tp", s) and after == before[:s] + "--tp-size" + before[s + 4:]]
        assert any(s + 4 == len(before) or before[s + 4] not in "-_.abcdefghijklmnopqrstuvwxyz0123456789" for s in at), (before, after)
        again = fix.plan([_edit_at(line, col)], False, {"f.sh": after})
        assert "f.sh" not in again.files or "--tp-size-size" not in again.files["f.sh"][1]
