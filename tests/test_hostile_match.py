"""File discovery and pattern matching on hostile trees, each class as its own ``kdacheck``
process (benchmarks/hostile.py's launcher: exit code, the message that says why, no traceback,
peak memory), and an ``outside`` folder hashed before and after where a link points at it.

The classes: ``.gitignore`` lines git reads differently from ``str.splitlines`` (form feed,
lone CR, U+2028), a line over 4,096 characters, POSIX classes, a ``.gitignore`` that is a
link to ``/dev/zero`` or out of the repository, 1,000 ``per-file-ignores`` globs against 5,000
findings, 100,000 ``exclude`` globs (and one more), a 20,000-line ``.gitignore``, 1,100 nested
folders, and a command-line glob over a symlinked folder.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import tree_state

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import hostile

from kdacheck import config, discover, gitignore
from kdacheck.findings import InputError

KIMI = hostile.KIMI
SPEC = hostile.SPEC


def _outside(tmp: Path) -> Path:
    out = tmp.parent / f"{tmp.name}-outside"
    out.mkdir(exist_ok=True)
    (out / "secret.sh").write_text(f"{KIMI} --tp-size 3 # outside-secret\n")
    (out / "list").write_text("*\n")
    return out


def _launch(tmp: Path, rel: str = "deploy/run.sh") -> None:
    (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
    (tmp / rel).write_text(f"{KIMI} {SPEC}\n")


def _gitignore_bytes(data: bytes, rel: str = "deploy/run.sh") -> hostile.Callable[[Path], tuple[list[str], str | None]]:
    def setup(tmp: Path) -> tuple[list[str], str | None]:
        hostile._repo(tmp)
        _launch(tmp, rel)
        (tmp / ".gitignore").write_bytes(data)
        return ["lint", "."], None

    return setup


def _posix(tmp: Path) -> tuple[list[str], str | None]:
    hostile._repo(tmp)
    _launch(tmp, "1run.sh")
    _launch(tmp, "run.sh")
    (tmp / ".gitignore").write_text("[[:digit:]]*.sh\n")
    return ["lint", "."], None


def _link_gitignore(target: str | None) -> hostile.Callable[[Path], tuple[list[str], str | None]]:
    def setup(tmp: Path) -> tuple[list[str], str | None]:
        hostile._repo(tmp)
        _launch(tmp, "sub/run.sh")
        (tmp / "sub" / ".gitignore").symlink_to(target or str(_outside(tmp) / "list"))
        return ["lint", "."], None

    return setup


def _per_file_ignores(tmp: Path) -> tuple[list[str], str | None]:
    hostile._repo(tmp)
    table = "".join(f'"legacy{i}/*.sh" = ["ARG003"]\n' for i in range(999)) + '"*.sh" = ["SPEC"]\n'
    (tmp / "kdacheck.toml").write_text("[per-file-ignores]\n" + table)
    line = f"{KIMI} --bogus-a 1 --bogus-b 1 --bogus-c 1 --bogus-d 1 --bogus-e 1\n"
    (tmp / "run.sh").write_text(line * 1000)  # 5,000 ARG001 findings
    return ["lint", "run.sh", "--output-format", "concise"], None


def _excludes(n: int) -> hostile.Callable[[Path], tuple[list[str], str | None]]:
    def setup(tmp: Path) -> tuple[list[str], str | None]:
        hostile._repo(tmp)
        for d in range(10):
            for f in range(100):
                _launch(tmp, f"d{d}/r{f}.sh")
        globs = [(f"n{i:x}", f"*.{i:x}", f"b{i:x}/", f"/d/{i:x}")[i % 4] for i in range(n - 1)] + ["d9/"]
        (tmp / "kdacheck.toml").write_text("exclude = [" + ",".join(f'"{g}"' for g in globs) + "]\n")
        return ["lint", ".", "--output-format", "concise", "--statistics"], None

    return setup


def _long_gitignore(tmp: Path) -> tuple[list[str], str | None]:
    hostile._repo(tmp)
    for d in range(10):
        for f in range(100):
            _launch(tmp, f"d{d}/r{f}.sh")
    lines = [(f"n{i}.sh", f"*.e{i}", f"b{i}/", f"/d/{i}.yaml", f"g{i}*x.sh")[i % 5] for i in range(19_999)] + ["d9/"]
    (tmp / ".gitignore").write_text("\n".join(lines) + "\n")
    return ["lint", ".", "--output-format", "concise", "--statistics"], None


def _deep(tmp: Path) -> tuple[list[str], str | None]:
    hostile._repo(tmp)
    d = tmp
    for _ in range(1100):
        d = d / "d"
        os.mkdir(d)
    (d / "run.sh").write_text(f"{KIMI}\n")
    return ["lint", "."], None


def _glob_through_link(tmp: Path) -> tuple[list[str], str | None]:
    hostile._repo(tmp)
    _launch(tmp, "deploy/run.sh")
    (tmp / "deploy" / "linked").symlink_to(_outside(tmp), target_is_directory=True)
    return ["lint", "deploy/**/*.sh"], None


CASES = [
    hostile.Case("gitignore-form-feed", "`# build outputs\\fdeploy/` in .gitignore (git: a comment)", _gitignore_bytes(b"# build outputs\x0cdeploy/\n"), (0, 1), "Checked 1 file"),
    hostile.Case("gitignore-lone-cr", "`# old\\rdeploy/` (a lone CR: one line to git)", _gitignore_bytes(b"# old\rdeploy/\n"), (0, 1), "Checked 1 file"),
    hostile.Case("gitignore-u2028", "`# x U+2028 deploy/`", _gitignore_bytes("# x\u2028deploy/\n".encode()), (0, 1), "Checked 1 file"),
    hostile.Case("gitignore-crlf", "`deploy/\\r\\n` (CRLF: the CR is dropped)", _gitignore_bytes(b"deploy/\r\n", "keep/run.sh"), (0, 1), "Checked 1 file"),
    hostile.Case("gitignore-5000-chars", "a 5,000-character line `*` + spaces + `x` (once cut to `*`)", _gitignore_bytes(b"*" + b" " * 4999 + b"x\n"), (0, 1), "Checked 1 file"),
    hostile.Case("gitignore-posix-class", "`[[:digit:]]*.sh` beside `1run.sh` and `run.sh`", _posix, (0, 1), "Checked 1 file"),
    hostile.Case("gitignore-dev-zero", "`sub/.gitignore -> /dev/zero`", _link_gitignore("/dev/zero"), (2,), "outside the repository"),
    hostile.Case("gitignore-link-out", "`sub/.gitignore -> ../outside/list`", _link_gitignore(None), (2,), "outside the repository"),
    hostile.Case("per-file-ignores-1000x5000", "1,000 per-file-ignores globs, 5,000 findings", _per_file_ignores, (1,), "5000 errors"),
    hostile.Case("exclude-100000", "100,000 `exclude` globs, 1,000 files", _excludes(100_000), (0, 1), "findings in 900 files"),
    hostile.Case("exclude-100001", "100,001 `exclude` globs", _excludes(100_001), (2,), "the limit is 100,000"),
    hostile.Case("gitignore-20000-lines", "a 20,000-line .gitignore, 1,000 files", _long_gitignore, (0, 1), "findings in 900 files"),
    hostile.Case("folders-1100-deep", "1,100 nested folders", _deep, (2,), "nested deeper than 256 levels"),
    hostile.Case("glob-through-link", "`lint 'deploy/**/*.sh'` with `deploy/linked -> outside`", _glob_through_link, (0, 1), "Checked 1 file"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_hostile_match_class(case: hostile.Case, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    outside = tmp_path / "repo-outside"
    before = tree_state(outside) if outside.exists() else None
    m = hostile.measure(case, repo)
    _remove_deep(repo)
    assert m.code in case.codes, (m.code, m.output[-2000:])
    assert case.says in m.output, m.output[-2000:]
    assert "internal error" not in m.output and "Traceback" not in m.output
    assert "outside-secret" not in m.output and "secret.sh" not in m.output
    assert m.peak_mb < hostile.MEMORY_LIMIT_MB, m.peak_mb
    if outside.exists():
        assert before is None or tree_state(outside) == before
    if case.name in ("gitignore-dev-zero", "gitignore-link-out"):
        assert "sub/.gitignore" in m.output  # the file is named


def _remove_deep(repo: Path) -> None:
    """1,100 nested folders: removed by rm, whose walk is not recursive (pytest's rmtree is)."""
    if (repo / "d").is_dir():
        subprocess.run(["rm", "-rf", str(repo / "d")], check=False, timeout=60)


def test_deep_message_names_the_folder(tmp_path: Path) -> None:
    m = hostile.measure(CASES[[c.name for c in CASES].index("folders-1100-deep")], tmp_path)
    _remove_deep(tmp_path)
    assert "/d/d/d" in m.output and m.output.count("\n") < 20


# --- operations, not seconds ---------------------------------------------------------------


def test_indexed_shapes_run_no_nfa(tmp_path: Path) -> None:
    """Names, ``*.ext``, ``dir/`` and anchored paths are dictionary look-ups: 100,000 of them
    against 1,000 files run the NFA zero times."""
    for d in range(10):
        for f in range(100):
            (tmp_path / f"d{d}").mkdir(exist_ok=True)
            (tmp_path / f"d{d}" / f"r{f}.sh").write_text("")
    pats = [gitignore.compile_pattern(g, str(tmp_path)) for g in
            [(f"n{i}", f"*.e{i}", f"b{i}/", f"/d/{i}")[i % 4] for i in range(100_000)] + ["d9/", "!d9/r1.sh"]]
    gitignore.NFA_RUNS[0] = 0
    found = discover.walk(str(tmp_path), [p for p in pats if p])
    assert len(found) == 900 and gitignore.NFA_RUNS[0] == 0


def test_per_file_ignores_match_once_per_file(tmp_path: Path) -> None:
    """1,000 globs, 5,000 findings: the globs are matched once for the file (at most 1,000
    NFA runs, far fewer once indexed by their literal start), then each finding is a look-up."""
    table = "".join(f'"legacy{i}/*.sh" = ["ARG003"]\n' for i in range(999)) + '"*.sh" = ["SPEC"]\n'
    (tmp_path / "kdacheck.toml").write_text("[per-file-ignores]\n" + table)
    config.reset()
    opts = config.options(config.for_folder(str(tmp_path)), config.Overrides())
    gitignore.NFA_RUNS[0] = 0
    path = str(tmp_path / "legacy7" / "run.sh")
    got = [config.ignored_here(opts, path, c) for c in ("ARG003", "SPEC002", "ARG001") * 1667]
    assert got[:3] == [True, True, False]
    assert gitignore.NFA_RUNS[0] <= 2


def test_wildcard_budget_is_an_input_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Patterns no index narrows (wildcards at both ends) run for every path, within a budget."""
    (tmp_path / ".git").mkdir()
    for f in range(50):
        (tmp_path / f"r{f}.sh").write_text("")
    (tmp_path / ".gitignore").write_text("".join(f"*{i}?x*\n" for i in range(100)))
    monkeypatch.setattr(gitignore, "MAX_NFA_RUNS", 1000)
    discover.reset()
    gitignore.NFA_RUNS[0] = 0
    with pytest.raises(InputError, match=r"\.gitignore: over 1,000 wildcard matches"):
        discover.walk(str(tmp_path))


def test_long_lines_cost_bits_not_recursion() -> None:
    """A 1 MiB line of ``*a`` pairs against a 4,000-byte path: one NFA run, no recursion."""
    p = gitignore.compile_pattern("*a" * 500_000, "/r")
    assert p is not None and not gitignore.ignored("/r/" + "a" * 4000, False, [p])
    q = gitignore.compile_pattern("*a" * 2000, "/r")
    assert q is not None and gitignore.ignored("/r/" + "a" * 2000, False, [q])
