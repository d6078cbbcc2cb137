#!/usr/bin/env python3
"""Calibrate ``kdacheck run``'s work estimate (``--work-budget``) against CPU time.

The estimate (``kernels/cases.py``: each op's work formula times a cost per unit) prices a
run before torch is imported. Its unit costs are CPU seconds: ``time.process_time`` of this
process, which runs Triton's interpreter and the float64 reference in-process, so the
measure does not grow when other processes load the machine (wall time does: on 2 shared
cores it was 1.7-6x the CPU time). This script runs the cases ``kdacheck run`` plans at a few
batches on the CPU, measures the CPU time of the verify kernel calls, of the reference calls
and of the whole gather case apart (wrapping the functions the harness looks up), and prints
the table for docs/performance.md with the unit costs it implies.

Usage::

    python benchmarks/work_estimate.py                  # batches 2, 8, 16
    python benchmarks/work_estimate.py --batches 2 16 32
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from typing import Any


def _timed(module: Any, name: str, acc: dict[str, float]) -> None:
    """Replace ``module.name`` with a wrapper adding its CPU time to ``acc[name]``."""
    fn = getattr(module, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        t0 = time.process_time()
        try:
            return fn(*args, **kwargs)
        finally:
            acc[name] = acc.get(name, 0.0) + time.process_time() - t0

    setattr(module, name, wrapper)


def measure(batches: list[int]) -> list[dict[str, Any]]:
    os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported
    from kdacheck.kernels import kda_verify, kda_verify_ref

    from kdacheck import runner

    acc: dict[str, float] = {}
    _timed(kda_verify, "kda_verify", acc)
    _timed(kda_verify_ref, "kda_verify_reference", acc)
    rows = []
    for batch in batches:
        verify = runner.plan_from_options(4, 8, None, batch, None, 1, None, None, on_cpu=True, verify_backend="triton").cases[0]
        gather = runner.plan_from_options(3, 1, None, batch, "deepseek-ai/DeepSeek-V3.2", 1, None, None, on_cpu=True).cases[0]
        acc.clear()
        t0 = time.process_time()
        res = verify.op.load("run")(verify.spec, "cpu")
        verify_cpu = time.process_time() - t0
        assert res.passed, res.to_dict()
        t0 = time.process_time()
        gres = gather.op.load("run")(gather.spec, "cpu")
        gather_cpu = time.process_time() - t0
        assert gres.passed, gres.to_dict()
        kw, rw = verify.op.work(verify.spec, True)
        (gw,) = gather.op.work(gather.spec, True)
        rows.append({
            "batch": batch, "kernel_units": kw.units, "kernel_cpu": acc.get("kda_verify", 0.0),
            "ref_units": rw.units, "ref_cpu": acc.get("kda_verify_reference", 0.0), "verify_cpu": verify_cpu,
            "selections": gw.units, "gather_cpu": gather_cpu, "run_cpu": verify_cpu + gather_cpu,
            "estimate": kw.seconds + rw.seconds + gw.seconds,
        })  # fmt: skip
        print(f"# batch {batch}: {rows[-1]}", file=sys.stderr)
    return rows


def render(rows: list[dict[str, Any]]) -> str:
    out = ["| batch | verify kernel updates | kernel CPU | reference updates | reference CPU | gather selections | gather CPU | run CPU | estimate | estimate / CPU |",
           "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]  # fmt: skip
    for r in rows:
        out.append(f"| {r['batch']} | {r['kernel_units'] / 1e6:.1f} M | {r['kernel_cpu']:.2f} s | {r['ref_units'] / 1e6:.1f} M | "
                   f"{r['ref_cpu']:.2f} s | {r['selections']:,} | {r['gather_cpu']:.2f} s | {r['run_cpu']:.2f} s | "
                   f"{r['estimate']:.2f} s | {r['estimate'] / r['run_cpu']:.2f} |")  # fmt: skip
    k = sum(r["kernel_cpu"] for r in rows) / sum(r["kernel_units"] for r in rows)
    ref = sum(r["ref_cpu"] for r in rows) / sum(r["ref_units"] for r in rows)
    g = sum(r["gather_cpu"] for r in rows) / sum(r["selections"] for r in rows)
    other = [r["verify_cpu"] - r["kernel_cpu"] - r["ref_cpu"] for r in rows]
    out.append("")
    out.append(f"Implied unit costs (CPU seconds): verify kernel {k * 1e6:.3f} us per state update, reference "
               f"{ref * 1e6:.3f} us per update, gather {g * 1e6:.0f} us per selection; the verify case's "
               f"remaining CPU time (inputs, canaries, copies) {min(other):.2f}-{max(other):.2f} s.")  # fmt: skip
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    p.add_argument("--batches", type=int, nargs="+", default=[2, 8, 16])
    args = p.parse_args(argv)
    rows = measure(args.batches)
    import torch
    import triton

    print(f"_Measured {time.strftime('%Y-%m-%d')}: {os.cpu_count()}-core {platform.machine()}, Python "
          f"{platform.python_version()}, torch {torch.__version__}, Triton {triton.__version__} interpreter; "
          "kdacheck run --steps 4 --topk 8 (Kimi-Linear, 4 heads per rank) and the DeepSeek-V3.2 gather "
          "(--steps 3, top_k 2048); CPU time is time.process_time of the process._")  # fmt: skip
    print()
    print(render(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
