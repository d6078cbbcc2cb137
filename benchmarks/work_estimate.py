#!/usr/bin/env python3
"""Calibrate ``kdacheck run``'s work estimate (``--work-budget``) against CPU time, op by op.

The estimate (each op's work formula in ``kernels/cases.py``, named by its op in
``kernels/ops.py``) prices a run before torch is imported. Its unit costs are CPU seconds:
``time.process_time`` of this process, which runs Triton's interpreter and the float64
reference in-process, so the measure does not grow when other processes load the machine (wall
time does: on 2 shared cores it was 1.7-6x the CPU time). For every op in the registry this
script plans the cases ``kdacheck run`` plans at two shapes (``--steps 4 --topk 8``, run's
default, and another), runs each through the op's harness function on the CPU (the median of
``--repeat`` runs, after one warm-up case per op: the interpreter's first call parses the
kernel) and prints op | estimated s | measured CPU s | ratio. Then the CPU time of whole
``kdacheck run --steps 4 --topk 8`` processes, the KDA default model against a Mamba2 one (the
median of ``--repeat``, the child's user + system time). ``--write docs/performance.md``
replaces the section between this script's markers there.

Usage::

    python benchmarks/work_estimate.py
    python benchmarks/work_estimate.py --repeat 3 --write docs/performance.md
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Any

KIMI = "moonshotai/Kimi-Linear-48B-A3B-Instruct"  # runner.DEFAULT_MODEL: KDA
QWEN = "Qwen/Qwen3-Next-80B-A3B-Instruct"  # GDN: the same op, a gate per head
NEMOTRON = "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16"  # Mamba2
DEEPSEEK = "deepseek-ai/DeepSeek-V3.2"  # DSA: the HiSparse gather
BAND = 1.5  # every estimate within 1.5x of the measured CPU time, either way
BEGIN, END = "<!-- work_estimate.py: begin -->", "<!-- work_estimate.py: end -->"


@dataclass(frozen=True)
class Shape:
    """One ``kdacheck run`` option set: the case it plans (``runner.plan_from_options``)."""

    model: str
    steps: int
    topk: int
    batch: int | None = None

    @property
    def options(self) -> str:
        return f"--steps {self.steps} --topk {self.topk}" + (f" --batch {self.batch}" if self.batch else "")


# (run's default shape, another) for each model; every op of the registry appears
SHAPES = [Shape(m, 4, 8) for m in (KIMI, QWEN, NEMOTRON, DEEPSEEK)] + [
    Shape(KIMI, 3, 1, 8), Shape(QWEN, 3, 1, 8), Shape(NEMOTRON, 3, 1, 8), Shape(DEEPSEEK, 3, 1),
]  # fmt: skip


def _plan(shape: Shape) -> Any:
    from kdacheck import runner

    (case,) = runner.plan_from_options(shape.steps, shape.topk, None, shape.batch, shape.model, 1, None, None, on_cpu=True).cases
    return case


def measure_ops(repeat: int) -> list[dict[str, Any]]:
    os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported
    planned = [(shape, _plan(shape)) for shape in SHAPES]
    warmed: set[str] = set()
    rows = []
    for shape, case in planned:
        run = case.op.load("run")
        if case.op.name not in warmed:  # one small case: the interpreter parses the kernels once a process
            run(_plan(Shape(shape.model, 2, 1, 1)).spec, "cpu")
            warmed.add(case.op.name)
        times, result = [], None
        for _ in range(repeat):
            t0 = time.process_time()
            result = run(case.spec, "cpu")
            times.append(time.process_time() - t0)
        assert result is not None and (result.passed or case.op.kind.value == "gather"), result.to_dict()
        work = case.op.work(case.spec, True)
        rows.append({"op": case.op.name, "model": shape.model.split("/")[-1], "options": shape.options,
                     "outcome": "pass" if result.passed else f"refused: {result.error}",
                     "estimate": sum(w.seconds for w in work), "measured": statistics.median(times), "times": times})  # fmt: skip
        print(f"# {rows[-1]}", file=sys.stderr, flush=True)
    return rows


def _child_cpu(argv: list[str]) -> float:
    """User + system CPU seconds of one child process (``RUSAGE_CHILDREN`` before and after)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, env={**os.environ, "NO_COLOR": "1"})
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure_runs(repeat: int) -> list[dict[str, Any]]:
    rows = []
    for model in (KIMI, NEMOTRON):
        argv = [sys.executable, "-m", "kdacheck", "run", "--model", model, "--steps", "4", "--topk", "8", "--device", "cpu"]
        times = [_child_cpu(argv) for _ in range(repeat)]
        rows.append({"model": model, "median": statistics.median(times), "times": times})
        print(f"# {rows[-1]}", file=sys.stderr, flush=True)
    return rows


def render(ops_rows: list[dict[str, Any]], run_rows: list[dict[str, Any]], repeat: int) -> str:
    import torch
    import triton

    out = [f"_Measured {time.strftime('%Y-%m-%d')} by `benchmarks/work_estimate.py --repeat {repeat}`: {os.cpu_count()}-core "
           f"{platform.machine()} (shared, loaded), Python {platform.python_version()}, torch {torch.__version__}, Triton "
           f"{triton.__version__} interpreter. Measured: the median CPU time (`time.process_time`) of the op's harness "
           "function on the case `kdacheck run` plans, after one warm-up case per op; estimated: the op's work formula._",
           "", "| op | model | options | outcome | estimated s | measured CPU s | ratio |", "|---|---|---|---|---:|---:|---:|"]  # fmt: skip
    for r in ops_rows:
        out.append(f"| {r['op']} | {r['model']} | `{r['options']}` | {r['outcome']} | {r['estimate']:.2f} | "
                   f"{r['measured']:.2f} | {r['estimate'] / r['measured']:.2f} |")  # fmt: skip
    out += ["", "`kdacheck run --steps 4 --topk 8 --device cpu`, the whole process (start-up, planning, the case, the "
            f"report): user + system CPU seconds, median of {repeat}:", "",
            "| model | CPU s (median) | runs | vs. the KDA default |", "|---|---:|---|---:|"]  # fmt: skip
    base = run_rows[0]["median"]
    for r in run_rows:
        runs = ", ".join(f"{t:.2f}" for t in r["times"])
        out.append(f"| {r['model']} | {r['median']:.2f} | {runs} | {r['median'] / base:.2f} |")
    return "\n".join(out)


def write(path: str, table: str) -> None:
    """Replace the text between the markers in ``path`` (they must be there)."""
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    head, sep, rest = text.partition(BEGIN)
    _old, sep2, tail = rest.partition(END)
    if not (sep and sep2):
        raise SystemExit(f"{path}: no {BEGIN} ... {END} section to replace")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(f"{head}{BEGIN}\n{table}\n{END}{tail}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    p.add_argument("--repeat", type=int, default=3, help="runs of each case and of each kdacheck run process (the median)")
    p.add_argument("--write", metavar="MARKDOWN", help="replace this script's section in that file (docs/performance.md)")
    args = p.parse_args(argv)
    ops_rows = measure_ops(args.repeat)
    run_rows = measure_runs(args.repeat)
    table = render(ops_rows, run_rows, args.repeat)
    print(table)
    if args.write:
        write(args.write, table)
    outside = [r for r in ops_rows if not 1 / BAND <= r["estimate"] / r["measured"] <= BAND]
    for r in outside:
        print(f"outside {BAND}x: {r['op']} {r['model']} {r['options']}", file=sys.stderr)
    return 1 if outside else 0


if __name__ == "__main__":
    sys.exit(main())
