"""Lint throughput: 1,000 generated configurations in one ``kdacheck lint`` run.

    python benchmarks/lint_throughput.py [--files 1000] [--format full] [--profile]

Writes a mix of SGLang ``--config`` YAML files, shell launch scripts and Kubernetes
manifests (about a third of each, a quarter of them with findings: wrong topk/draft tokens,
unknown flags, repeated flags, zero counts) into a temporary folder, then times
``python -m kdacheck lint FOLDER`` as a whole process (best and median of ``--repeat``).
``--profile`` runs the same lint in-process under cProfile and prints the top functions.
Target: ≤ 2 s on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODELS = ["moonshotai/Kimi-Linear-48B-A3B-Instruct", "Qwen/Qwen3-Next-80B-A3B-Instruct", "deepseek-ai/DeepSeek-V3.2", "org/other-model"]


def flags_for(rng: random.Random, broken: bool) -> list[str]:
    argv = ["--model-path", rng.choice(MODELS), "--tp-size", str(rng.choice([1, 2, 4, 8]))]
    algo = rng.choice(["EAGLE", "EAGLE3", "NGRAM", None])
    if algo:
        argv += ["--speculative-algorithm", algo]
        if algo != "NGRAM":
            steps = rng.choice([1, 2, 3, 5])
            topk = rng.choice([1, 1, 4])
            draft = steps + 1 if topk == 1 else rng.choice([8, 16])
            argv += ["--speculative-num-steps", str(steps), "--speculative-eagle-topk", str(topk), "--speculative-num-draft-tokens", str(draft)]
    argv += rng.choice([[], ["--mem-fraction-static", "0.85"], ["--max-running-requests", "64"], ["--page-size", "16"], ["--disable-radix-cache"]])
    if rng.random() < 0.3:
        argv += ["--enable-dp-attention", "--dp-size", "2"]
    if broken:
        argv += rng.choice([
            ["--speculative-num-draft-tokens", "7"],
            ["--tp-szie", "4"],
            ["--tp-size", "2", "--tp-size", "4"],
            ["--max-running-requests", "0"],
            ["--speculative-eagle-topk", "4", "--page-size", "64", "--attention-backend", "trtllm_mha"],
            ["--mem-fraction-static", "nan"],
        ])
    return argv


def _yaml_value(v: str) -> str:
    return v if v.replace(".", "", 1).isdigit() else json.dumps(v)


def write_corpus(folder: Path, n: int, seed: int = 0) -> dict[str, int]:
    rng = random.Random(seed)
    kinds = {"yaml": 0, "shell": 0, "kubernetes": 0, "broken": 0}
    for i in range(n):
        broken = rng.random() < 0.25
        kinds["broken"] += broken
        argv = flags_for(rng, broken)
        kind = ("yaml", "shell", "kubernetes")[i % 3]
        kinds[kind] += 1
        if kind == "yaml":
            lines, j = [], 0
            while j < len(argv):
                key = argv[j][2:]
                if j + 1 < len(argv) and not argv[j + 1].startswith("--"):
                    lines.append(f"{key}: {_yaml_value(argv[j + 1])}")
                    j += 2
                else:
                    lines.append(f"{key}: true")
                    j += 1
            (folder / f"config-{i:04d}.yaml").write_text("\n".join(lines) + "\n")
        elif kind == "shell":
            body = " \\\n  ".join(" ".join(argv[j : j + 2]) for j in range(0, len(argv), 2))
            (folder / f"launch-{i:04d}.sh").write_text(f"#!/bin/bash\nset -e\nexport NCCL_DEBUG=WARN\npython3 -m sglang.launch_server \\\n  {body}\n")
        else:
            args = ", ".join(json.dumps(a) for a in argv)
            (folder / f"deploy-{i:04d}.yaml").write_text(
                f"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: sglang-{i}\nspec:\n  replicas: 1\n"
                "  template:\n    spec:\n      containers:\n        - name: sglang\n          image: lmsysorg/sglang:latest\n"
                '          command: ["python3", "-m", "sglang.launch_server"]\n'
                f"          args: [{args}]\n"
                "          resources:\n            limits:\n              nvidia.com/gpu: 8\n"
            )
    return kinds


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--format", default="full")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--json", help="write the numbers here")
    a = ap.parse_args()

    with tempfile.TemporaryDirectory(prefix="kdacheck-throughput-") as tmp:
        folder = Path(tmp)
        kinds = write_corpus(folder, a.files)
        env = {**os.environ, "NO_COLOR": "1", "GITHUB_ACTIONS": ""}
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # as installed: bytecode compiled once
        cmd = [sys.executable, "-m", "kdacheck", "lint", "--output-format", a.format, str(folder)]
        if a.profile:
            import cProfile
            import io
            import pstats

            from kdacheck.fastpath import try_lint

            sys.stdout, real = io.StringIO(), sys.stdout
            prof = cProfile.Profile()
            prof.enable()
            try_lint(["--output-format", a.format, str(folder)])
            prof.disable()
            sys.stdout = real
            pstats.Stats(prof).sort_stats("tottime").print_stats(25)
            return 0
        p = subprocess.run(cmd, capture_output=True, text=True, env=env)
        summary = p.stdout.strip().splitlines()[-1] if a.format in ("full", "concise") else ""
        times = []
        for _ in range(a.repeat):
            t0 = time.perf_counter()
            subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
            times.append(time.perf_counter() - t0)
    out = {
        "date": time.strftime("%Y-%m-%d"),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "files": a.files,
        "kinds": kinds,
        "format": a.format,
        "exit_code": p.returncode,
        "summary": summary,
        "best_s": round(min(times), 2),
        "median_s": round(statistics.median(times), 2),
    }
    print(json.dumps(out, indent=2))
    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
