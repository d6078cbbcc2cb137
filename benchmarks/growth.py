"""How the cost of one file grows with its input, construct by construct: every expansion
kdacheck reads (shell words, arrays, Dockerfile scopes, Compose and Kubernetes substitution,
YAML aliases and merge keys, env maps) at 1x, 2x and 4x its input, timed (best of several, in
this process) and its peak memory measured (tracemalloc), and the same construct pushed past its
bound, where the file is refused by name (exit 2) within the same memory.

The constructs are the tests of ``tests/test_growth.py`` (one registry: ``CONSTRUCTS``); the
tests compare two timings as a ratio (4x the input: at most ``MAX_RATIO_4X`` the time, where a
quadratic construct takes 16x) and hold the peak under ``PEAK_LIMIT_MB``, never a wall-clock
limit. This script prints the table for docs/robustness.md:

    python benchmarks/growth.py [--markdown] [NAME ...]
"""

from __future__ import annotations

import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAUNCH = "python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --tp-size 2"
MAX_RATIO_4X = 6.5  # linear is 4; quadratic 16
PEAK_LIMIT_MB = 200  # tracemalloc peak of one file's lint, the documented per-file bound

Files = dict[str, str]  # relative path -> text; the first one is linted


@dataclass(frozen=True)
class Construct:
    name: str
    what: str
    make: Callable[[int], Files]  # n -> files, n in (1, 2, 4) x `base`
    base: int  # the scale of 1x: large enough that a run takes tens of milliseconds
    refused: str | None = None  # at these scales the file is past a bound: exit 2 saying this


def _shell_words(size: int) -> Callable[[int], Files]:
    def make(n: int) -> Files:
        return {"run.sh": "X=" + "a" * size + "\n" + f'{LAUNCH} --served-model-name "{"$X" * n}"\n'}
    return make


def _shell_splice(size: int, times: int) -> Callable[[int], Files]:
    """``A`` of ``size`` x n elements, spliced ``times`` times into ``B``."""
    def make(n: int) -> Files:
        return {"run.sh": "A=(" + " x" * (size * n) + ")\nB=(" + ' "${A[@]}"' * times + f")\n{LAUNCH}\n"}
    return make


def _shell_nested_defaults(n: int) -> Files:
    return {"run.sh": f"{LAUNCH} --served-model-name " + "${A:-" * n + "x" + "}" * n + "\n"}


def _shell_bash_c_scripts(n: int) -> Files:
    """n ``bash -c`` scripts (each a scope of its own), each word 90 KB of a 1 KB ``$X``."""
    script = f"bash -c 'echo \"{'$X' * 90}\" # sglang.launch_server'\n"
    return {"run.sh": "X=" + "a" * 1_000 + "\n" + script * n + f"{LAUNCH}\n"}


CONSTRUCTS: list[Construct] = [
    # --- shell ---
    Construct("shell-words", '`"$X$X…"` in one word, X of 10 B', _shell_words(10), 2_000),
    Construct("shell-words-over", '`"$X$X…"` in one word, X of 100 KB (past 100,000 characters)',
              _shell_words(100_000), 500, "characters"),
    Construct("shell-array-splice", '`B=("${A[@]}" x 3)`, A of 4,000 x n elements', _shell_splice(4_000, 3), 1),
    Construct("shell-array-splice-over", '`B=("${A[@]}" …)` x 1,000 x n, A of 40,000 (past 50,000 elements)',
              lambda n: _shell_splice(40_000, 1_000 * n)(1), 1, "grows past 50,000 elements"),
    Construct("shell-nested-defaults", "`${A:-${A:-…}}` nested n deep (past 200 levels)",
              _shell_nested_defaults, 1_000, "nested more than 200 levels deep"),
    Construct("shell-bash-c-budget", "n `bash -c` scripts, each making a 90 KB word (past the file's 8,000,000 characters)",
              _shell_bash_c_scripts, 100, "the expansions of"),
]
BY_NAME = {c.name: c for c in CONSTRUCTS}


@dataclass
class Measured:
    seconds: float
    peak_mb: float
    error: str | None


def _write(files: Files, tmp: Path) -> Path:
    (tmp / ".git").mkdir(exist_ok=True)
    for name, text in files.items():
        target = tmp / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    return tmp / next(iter(files))


def measure(files: Files, repeat: int = 3) -> Measured:
    """Lint the first of ``files`` in a fresh repository: the best time of ``repeat`` runs, then
    one run under tracemalloc for the peak."""
    sys.path.insert(0, str(ROOT))
    from kdacheck.flags import NEWEST
    from kdacheck.lint import Options, lint_path

    with tempfile.TemporaryDirectory() as d:
        path = _write(files, Path(d))
        best, error = float("inf"), None
        for _ in range(repeat):
            t0 = time.perf_counter()
            error = lint_path(str(path), Options(version=NEWEST)).error
            best = min(best, time.perf_counter() - t0)
        tracemalloc.start()
        try:
            lint_path(str(path), Options(version=NEWEST))
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    return Measured(best, peak / 2**20, error)


def growth(c: Construct, repeat: int = 3) -> list[Measured]:
    return [measure(c.make(c.base * k), repeat) for k in (1, 2, 4)]


def main() -> int:
    names = [a for a in sys.argv[1:] if not a.startswith("--")]
    rows = []
    for c in [BY_NAME[n] for n in names] if names else CONSTRUCTS:
        ms = growth(c)
        rows.append((c, ms))
        print(f"{c.name:<24} " + "  ".join(f"{m.seconds * 1000:7.1f} ms {m.peak_mb:6.1f} MB" for m in ms)
              + f"   x4/x1 {ms[2].seconds / ms[0].seconds:4.1f}   {(ms[2].error or 'read')[:80]}", file=sys.stderr)
    if "--markdown" in sys.argv:
        print("| construct | 1x | 2x | 4x | 4x/1x | result |")
        print("|---|---:|---:|---:|---:|---|")
        for c, ms in rows:
            cells = " | ".join(f"{m.seconds * 1000:.0f} ms, {m.peak_mb:.0f} MB" for m in ms)
            print(f"| `{c.name}`: {c.what} | {cells} | {ms[2].seconds / ms[0].seconds:.1f} | {'exit 2' if c.refused else 'read'} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
