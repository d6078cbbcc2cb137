"""Start-up cost of ``kdacheck lint`` on one file, as whole processes.

    python benchmarks/lint_startup.py [--runs 30] [--example examples/kimi-linear-dspark.yaml]

Times, interleaved run by run so that machine noise hits all of them alike:

- ``floor``: ``python -c "import typer, rich, yaml"`` (the libraries kdacheck cannot avoid);
- ``typer-hello``: a one-command Typer app with one option, invoked (what any Typer CLI pays
  per call: Typer 0.29 coerces parameters through Pydantic);
- ``lint``: ``python -m kdacheck lint EXAMPLE`` (the fast start of kdacheck.fastpath);
- ``lint-typer``: the same with ``KDACHECK_NO_FASTPATH=1`` (through Typer's parser).

Prints min and median of each and the median ratio lint / floor (target ≤ 1.1).
Bytecode is written on the warm-up run (PYTHONDONTWRITEBYTECODE is dropped), as after an install.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HELLO = (
    "import typer\n"
    "app = typer.Typer()\n"
    "@app.command()\n"
    "def hello(name: str = 'x', n: int = 1) -> None:\n"
    "    print(name * n)\n"
    "app(['--name', 'y'])\n"
)


def once(cmd: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=ROOT)
    dt = time.perf_counter() - t0
    if p.returncode not in (0, 1):
        raise SystemExit(f"{cmd} exited {p.returncode}")
    return dt


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--example", default=str(ROOT / "examples" / "kimi-linear-dspark.yaml"))
    ap.add_argument("--json", help="write the numbers here")
    a = ap.parse_args()

    env = {**os.environ, "NO_COLOR": "1", "GITHUB_ACTIONS": ""}
    env.pop("KDACHECK_NO_FASTPATH", None)
    # An installed package has its bytecode compiled (pip does it); a checkout run with
    # PYTHONDONTWRITEBYTECODE=1 would compile every kdacheck module on every run (~60 ms).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    py = sys.executable
    cases = {
        "floor": ([py, "-c", "import typer, rich, yaml"], env),
        "typer-hello": ([py, "-c", HELLO], env),
        "lint": ([py, "-m", "kdacheck", "lint", a.example], env),
        "lint-typer": ([py, "-m", "kdacheck", "lint", a.example], {**env, "KDACHECK_NO_FASTPATH": "1"}),
    }
    times: dict[str, list[float]] = {k: [] for k in cases}
    for cmd, e in cases.values():  # warm the page cache and the .pyc files
        once(cmd, e)
    for _ in range(a.runs):
        for name, (cmd, e) in cases.items():
            times[name].append(once(cmd, e))
    out: dict[str, object] = {
        "date": time.strftime("%Y-%m-%d"),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "runs": a.runs,
        "example": os.path.relpath(a.example, ROOT),
    }
    for name, ts in times.items():
        out[name] = {"min_ms": round(1000 * min(ts), 1), "median_ms": round(1000 * statistics.median(ts), 1)}
        print(f"{name:12s} min {1000 * min(ts):7.1f} ms   median {1000 * statistics.median(ts):7.1f} ms")
    ratio = statistics.median(times["lint"]) / statistics.median(times["floor"])
    ratio_min = min(times["lint"]) / min(times["floor"])
    out["ratio_median"] = round(ratio, 2)
    out["ratio_min"] = round(ratio_min, 2)
    print(f"lint / floor: median {ratio:.2f}, min {ratio_min:.2f} (target median ≤ 1.1)")
    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
