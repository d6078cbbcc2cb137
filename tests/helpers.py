"""Small helpers shared by the tests: lint a command line or text, list the codes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from kdacheck.findings import Finding, Severity
from kdacheck.flags import NEWEST
from kdacheck.gpus import gpu as get_gpu
from kdacheck.lint import Options, lint_text
from kdacheck.resolve import Resolved
from kdacheck.results import FileResult


def lint(text: str, version: str = NEWEST, gpu: str | None = None, model: str | None = None, path: str = "<cmd>",
         share: float | None = None) -> FileResult:
    opts = Options(version=version, gpu=get_gpu(gpu) if gpu else None, model=model)
    if share is not None:
        opts.mem005_share = share
    return lint_text(text, path, opts, ".")


def lint_ok(text: str, version: str = NEWEST, gpu: str | None = None, model: str | None = None, path: str = "<cmd>",
            share: float | None = None) -> FileResult:
    """``lint`` for input that must be read and checked (no file-level error)."""
    result = lint(text, version, gpu, model, path, share)
    assert result.error is None, result.error
    return result


def codes(result: FileResult, severity: Severity | None = None) -> list[str]:
    return sorted({f.code for f in result.findings if severity is None or f.severity == severity})


def finding(result: FileResult, code: str) -> Finding:
    found = [f for f in result.findings if f.code == code]
    assert found, f"no {code} in {codes(result)}"
    return found[0]


def only(result: FileResult, code: str) -> list[Finding]:
    return [f for f in result.findings if f.code == code]


def resolved(text: str, **kw: object) -> Resolved:
    result = lint(text, **kw)  # type: ignore[arg-type]
    assert result.error is None, result.error
    assert len(result.resolved) == 1
    return result.resolved[0]


LAUNCH = "python -m sglang.launch_server"
KIMI = f"{LAUNCH} --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct"


def python_with(tmp: Path, *sites: Path, kdacheck: bool = True) -> Path:
    """A throwaway interpreter (a venv without pip, under ``tmp``) that imports what this test
    run's interpreter imports plus the folders ``sites`` (a stand-in SGLang): kdacheck's
    children run ``python -I``, which ignores PYTHONPATH, so a stand-in has to be where
    site-packages are. ``kdacheck`` False: this checkout is not on its path (only the
    dependencies are), as where kdacheck runs from a checkout on PYTHONPATH."""
    import subprocess
    import sys
    import sysconfig

    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, capture_output=True, timeout=120)
    site = venv / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"
    ours = Path(sysconfig.get_paths()["purelib"])
    root = Path(__file__).resolve().parent.parent
    lines = [f"import site; site.addsitedir({str(s)!r})" for s in (*sites, ours)]
    if kdacheck:
        lines.append(f"import sys; sys.path.append({str(root)!r})")
    else:  # the editable install's finder (in ``ours``) would find this checkout: hide it
        lines.append("import sys; sys.meta_path[:] = [f for f in sys.meta_path if 'editable' not in getattr(f, '__module__', '')]")
    (site / "zz-kdacheck-test.pth").write_text("\n".join(lines) + "\n")
    return venv / "bin" / "python"


def console_script(python: Path, folder: Path) -> Path:
    """A ``kdacheck`` console script for ``python`` in ``folder``, as pip writes it (its shebang
    runs the interpreter on the script: its folder, not the working directory, is on sys.path)."""
    script = folder / "kdacheck"
    script.write_text(f"#!{python}\nimport sys\nfrom kdacheck.main import main\nif __name__ == '__main__':\n    sys.exit(main())\n")
    script.chmod(0o755)
    return script


def count_calls(fn: Callable[[], object]) -> int:
    """How many Python and C function calls ``fn()`` makes: an operation count, for tests that
    check that work does not grow with the input (a wall-clock limit fails on a loaded machine)."""
    import sys

    calls = 0

    def profile(_frame: object, event: str, _arg: object) -> None:
        nonlocal calls
        if event in ("call", "c_call"):
            calls += 1

    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return calls


def tree_state(folder: Path) -> dict[str, tuple[str, int, int, int]]:
    """Every entry below ``folder``: its bytes' sha256 (a link: its target), mode, owner, group;
    equal before and after a hostile run when nothing there was written, replaced or re-owned."""
    import hashlib
    import os

    out = {}
    for p in sorted(folder.rglob("*")):
        st = p.lstat()
        body = os.readlink(p).encode() if p.is_symlink() else b"" if p.is_dir() else p.read_bytes()
        out[str(p.relative_to(folder))] = (hashlib.sha256(body).hexdigest(), st.st_mode, st.st_uid, st.st_gid)
    return out
