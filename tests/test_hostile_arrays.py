"""Hostile bash arrays: each case runs in a child process with a generous timeout (no
wall-clock assertion) and must end with its exit code and a clear message, no traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from kdacheck.findings import InputError
from kdacheck.readers.shell import MAX_ARRAY, read_shell

LAUNCH = "python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct"

CASES = {
    "nested": ("A=(" + "B=(" * 1000 + "x" + ")" * 1001 + "\n" + LAUNCH + "\n", 2, "inside the array assignment"),
    "parens-inside": ("A=(" + "( " * 5000 + "x" + " )" * 5000 + ")\n" + LAUNCH + ' "${A[@]}"\n', 1, "ARG"),
    "huge": ("A=(" + " x" * 60_000 + ")\n" + LAUNCH + "\n", 2, "more than 50,000 shell words"),
    "self-reference": ("A=(--tp-size)\n" + 'A=("${A[@]}" "${A[@]}")\n' * 40 + LAUNCH + ' "${A[@]}"\n', 2,
                       f"grows past {MAX_ARRAY:,} elements"),
    "appends": ("A=()\n" + "A+=(--host 0.0.0.0)\n" * 10_000 + LAUNCH + ' "${A[@]}"\n', None, "Checked 1 file"),
    "unterminated": ("A=(x y\n" + LAUNCH + "\n", 2, "unterminated `(` of the array `A`"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_array(name: str, tmp_path: Path) -> None:
    text, code, message = CASES[name]
    path = tmp_path / f"{name}.sh"
    path.write_text(text, encoding="utf-8")
    p = subprocess.run([sys.executable, "-m", "kdacheck", "lint", "--output-format", "concise", str(path)],
                       capture_output=True, text=True, timeout=300)
    out = p.stdout + p.stderr
    assert "Traceback" not in out, out[-2000:]
    assert message in out, out[-2000:]
    assert p.returncode == code if code is not None else p.returncode in (0, 1), (p.returncode, out[-2000:])


def test_appends_are_counted() -> None:
    """10,000 appends make one array of 20,000 elements: the work is the elements, bounded."""
    cmds = read_shell("A=()\n" + "A+=(--host 0.0.0.0)\n" * 10_000 + LAUNCH + ' "${A[@]}"\n', "a.sh")
    assert len(cmds) == 1 and len(cmds[0].tokens) == 2 + 20_000


def test_doubling_is_refused_in_process() -> None:
    with pytest.raises(InputError, match="grows past"):
        read_shell("A=(x)\n" + 'A=("${A[@]}" "${A[@]}")\n' * 40, "a.sh")
