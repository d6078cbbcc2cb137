"""Pattern matching at its limits: ``exclude`` globs, ``per-file-ignores`` and ``.gitignore``
lines by the thousand, timed in this process (docs/performance.md records the numbers).

    python benchmarks/matching.py [--git]

- ``exclude``: 100,000 globs (names, ``*.ext``, ``dir/``, anchored paths, and 1,000 with
  wildcards inside) in a kdacheck.toml, against a tree of 10,000 files in 100 folders;
- ``per-file-ignores``: 1,000 globs against a file with 5,000 findings (the per-finding check
  of ``lint._lint_text``);
- ``.gitignore``: 20,000 lines of the same shapes over the same tree (``--git``: and
  ``git ls-files --others --exclude-standard`` on it, for comparison).

Runs against whatever ``kdacheck`` is importable (``PYTHONPATH=/path/to/old/checkout`` to
measure another version).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from kdacheck import config, discover
from kdacheck.flags import NEWEST


def _shapes(n: int, generic: int) -> list[str]:
    """``n`` globs of the shapes real ignore files hold; ``generic`` of them with a wildcard
    inside (those run the NFA for every candidate path)."""
    out = []
    for i in range(n - generic):
        h = f"{i:x}"  # short: 100,000 of them fit the 1 MiB a settings file may hold
        out.append((f"n{h}", f"*.{h}", f"b{h}/", f"/d/{h}")[i % 4])
    out += [f"g{i:x}*x" for i in range(generic)]
    return out


def _tree(root: Path, files: int = 10_000, folders: int = 100) -> None:
    for d in range(folders):
        (root / f"d{d}").mkdir(parents=True, exist_ok=True)
        for f in range(files // folders):
            (root / f"d{d}" / f"run{f}.sh").write_bytes(b"")


def _timed(fn: object) -> float:
    t = time.perf_counter()
    fn()  # type: ignore[operator]
    return time.perf_counter() - t


def exclude_case(tmp: Path) -> tuple[float, int]:
    _tree(tmp)
    (tmp / "kdacheck.toml").write_text("exclude = [" + ",".join(f'"{g}"' for g in _shapes(100_000, 1000)) + "]\n")
    config.reset()
    settings = config.for_folder(str(tmp))
    found: list[str] = []
    seconds = _timed(lambda: found.extend(discover.walk(str(tmp), config.exclude_patterns([settings]))))
    return seconds, len(found)


def per_file_case(tmp: Path) -> tuple[float, int]:
    table = "".join(f'"legacy{i}/*.sh" = ["ARG003"]\n' for i in range(999)) + '"*.sh" = ["SPEC"]\n'
    (tmp / "kdacheck.toml").write_text("[per-file-ignores]\n" + table)
    config.reset()
    opts = config.options(config.for_folder(str(tmp)), config.Overrides())
    path = str(tmp / "run.sh")
    dropped: list[bool] = []
    seconds = _timed(lambda: dropped.extend(config.ignored_here(opts, path, c) for c in ("ARG001", "SPEC002") * 2500))
    return seconds, sum(dropped)


def gitignore_case(tmp: Path, git: bool) -> tuple[float, int, float | None]:
    _tree(tmp)
    subprocess.run(["git", "init", "-q", str(tmp)], check=True) if git else (tmp / ".git").mkdir()
    (tmp / ".gitignore").write_text("".join(g + "\n" for g in _shapes(20_000, 200)))
    if hasattr(discover, "reset"):
        discover.reset()
    found: list[str] = []
    seconds = _timed(lambda: found.extend(discover.walk(str(tmp))))
    git_s = None
    if git:
        git_s = _timed(lambda: subprocess.run(["git", "ls-files", "--others", "--exclude-standard"], cwd=tmp, capture_output=True, check=True))
    return seconds, len(found), git_s


def main() -> int:
    git = "--git" in sys.argv and shutil.which("git") is not None
    print(f"kdacheck from {os.path.dirname(discover.__file__)}, version tables {NEWEST}")
    with tempfile.TemporaryDirectory() as d:
        s, n = exclude_case(Path(d))
        print(f"exclude: 100,000 globs x 10,000 files: {s:.2f} s ({n:,} files kept)")
    with tempfile.TemporaryDirectory() as d:
        s, n = per_file_case(Path(d))
        print(f"per-file-ignores: 1,000 globs x 5,000 findings: {s:.2f} s ({n:,} dropped)")
    with tempfile.TemporaryDirectory() as d:
        s, n, g = gitignore_case(Path(d), git)
        print(f".gitignore: 20,000 lines x 10,000 files: {s:.2f} s ({n:,} files kept)" + (f"; git: {g:.2f} s" if g is not None else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
