"""Wall time of ``kdacheck plan`` for the five plans of issue 26, as whole processes.

    python benchmarks/plan_speed.py [--runs 3] [--json FILE]

Each case runs ``python -m kdacheck plan --model M --gpu G --tp N --sglang-version 0.5.23
--output-format json --budget-s 60`` (a budget far above the target, so that the search is the
whole search and the time is what it costs); prints the median and the largest wall time per
case, the candidates linted and kept. The target (issue 26): each within 10 s on a CPU.
The tests count candidates, never seconds (tests/test_plan.py).
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
MODELS = ROOT / "tests" / "data" / "models"
CASES = (
    ("Kimi-Linear-48B tp 4 H200", str(MODELS / "kimi-linear-48b"), "h200", 4),
    ("Qwen3-Next-80B tp 4 H200", str(MODELS / "qwen3-next-80b"), "h200", 4),
    ("Qwen3.5-397B tp 8 H200", str(MODELS / "qwen3.5-397b-a17b"), "h200", 8),
    ("Nemotron-3-Nano FP8 tp 1 L40S", str(MODELS / "nemotron-3-nano-fp8"), "l40s", 1),
    ("DeepSeek-V3.2 tp 8 H200", str(MODELS / "deepseek-v3.2"), "h200", 8),
)
TARGET_S = 10.0


def one(model: str, gpu: str, tp: int) -> tuple[float, dict[str, int]]:
    argv = [sys.executable, "-m", "kdacheck", "plan", "--model", model, "--gpu", gpu, "--tp", str(tp),
            "--sglang-version", "0.5.23", "--output-format", "json", "--budget-s", "60"]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    t0 = time.perf_counter()
    p = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, env=env, timeout=600)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        raise SystemExit(f"{model}: exit {p.returncode}: {p.stderr[-500:]}")
    return wall, json.loads(p.stdout)["counts"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json", metavar="FILE")
    a = ap.parse_args()
    rows = []
    print(f"{'case':32} {'median s':>9} {'max s':>7} {'linted':>7} {'kept':>6}  target {TARGET_S:g} s")
    for label, model, gpu, tp in CASES:
        walls, counts = [], {}
        for _ in range(max(1, a.runs)):
            w, counts = one(model, gpu, tp)
            walls.append(w)
        row = {"case": label, "median_s": statistics.median(walls), "max_s": max(walls),
               "linted": counts["linted"], "kept": counts["kept"], "within_target": max(walls) <= TARGET_S}
        rows.append(row)
        print(f"{label:32} {row['median_s']:9.2f} {row['max_s']:7.2f} {row['linted']:7d} {row['kept']:6d}"
              + ("" if row["within_target"] else "  OVER"))
    if a.json:
        Path(a.json).write_text(json.dumps({"machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
                                            "runs": a.runs, "rows": rows}, indent=2) + "\n")


if __name__ == "__main__":
    main()
