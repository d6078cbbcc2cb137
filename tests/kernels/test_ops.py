"""The kernel op registry (``kernels/ops.py``): every op complete, and reached by the runner,
the harness and the benchmarks through it. Removing any piece of an op fails here."""

from __future__ import annotations

import dataclasses
import importlib.util
import sys
import typing
from functools import cache
from pathlib import Path
from types import ModuleType

import pytest
from kdacheck.kernels import cases, ops
from kdacheck.kernels.cases import AnyCase, Gate, VerifyCase

from kdacheck import runner
from kdacheck.results import Case, Plan

ROOT = Path(__file__).resolve().parents[2]
# one model of each family kdacheck run has a kernel for: KDA, GDN (the head gate), Mamba2, DSA
MODELS = ("moonshotai/Kimi-Linear-48B-A3B-Instruct", "Qwen/Qwen3-Next-80B-A3B-Instruct",
          "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", "deepseek-ai/DeepSeek-V3.2")  # fmt: skip


@cache
def _benchmarks() -> ModuleType:
    spec = importlib.util.spec_from_file_location("kdacheck_benchmarks_kernels", ROOT / "benchmarks" / "kernels.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@cache
def _planned() -> tuple[Case, ...]:
    """The cases the runner plans for each family (chain and tree), as ``kdacheck run`` would."""
    plans = [runner.plan_from_options(2, topk, None, None, m, 1, None, None, on_cpu=True) for m in MODELS for topk in (1, 2)]
    return tuple(c for p in plans for c in p.cases)


def test_one_op_per_case_type_kind_and_name() -> None:
    assert {op.case for op in ops.OPS} == set(typing.get_args(AnyCase))
    assert len({op.case for op in ops.OPS}) == len({op.kind for op in ops.OPS}) == len({op.name for op in ops.OPS}) == len(ops.OPS)
    assert {op.kind for op in ops.OPS} == set(ops.Kind)
    assert all(ops.by_kind(op.kind) is op for op in ops.OPS)


@pytest.mark.parametrize("op", ops.OPS, ids=lambda op: op.name)
def test_op_is_complete(op: ops.Op) -> None:
    assert all(getattr(op, f.name) for f in dataclasses.fields(op)), op
    # the kernel (its checked wrapper), the reference and the harness function exist
    kernel, reference = op.load("kernel"), op.load("reference")
    assert callable(kernel) and kernel.__module__ == f"kdacheck.kernels.{op.modules[0]}"
    assert callable(reference) and reference.__module__ == f"kdacheck.kernels.{op.modules[1]}"
    assert callable(op.load("run"))
    # the case type and its formulas: memory, bytes moved, work
    case = op.case()
    assert ops.op_for(case) is op
    assert ops.bytes_needed(case) == op.bytes_needed(case) > 0
    assert op.bytes_moved(case, 1) > 0
    work = ops.work(case, True)
    assert work == op.work(case, True) and all(w.units > 0 and w.seconds > 0 for w in work)
    assert sum(w.seconds for w in op.work(case, False)) < sum(w.seconds for w in work)
    # its benchmark: an entry in benchmarks/kernels.py whose sizes run the op's case type
    bench = _benchmarks().BENCHMARKS[op.benchmark]
    assert bench.op is op and bench.title and bench.columns
    sizes = bench.sizes(True)
    assert sizes and all(isinstance(s.case(), op.case) for s in sizes)
    assert op.benchmark in _benchmarks().TARGETS
    # reached from the runner
    assert any(c.op is op for c in _planned()), f"no runner plan has a {op.name} case"


def test_every_benchmark_is_an_op() -> None:
    assert set(_benchmarks().BENCHMARKS) == {op.benchmark for op in ops.OPS}


def test_runner_plans_both_verify_gates() -> None:
    gates = {c.spec.gate for c in _planned() if isinstance(c.spec, VerifyCase)}
    assert gates == set(Gate)
    assert VerifyCase(gate="head").gate is Gate.HEAD  # type: ignore[arg-type]  # the value, as given


@pytest.mark.parametrize("op", ops.OPS, ids=lambda op: op.name)
def test_runner_runs_each_op_through_its_harness_function(op: ops.Op) -> None:
    """A small case of each op, run as ``kdacheck run`` runs one: the result names the op."""
    case = op.case(seed=1)
    plan = Plan("registry", [Case(case, op.name)])
    [(planned, result)] = runner.run_plan(plan, "cpu")
    assert planned.op is op and result.kernel == op.name
    assert result.passed, result.error
    assert result.bytes_moved > 0


def test_gather_floor_is_the_host_link_where_sglang_keeps_the_cache() -> None:
    # SGLang 0.5.23's HiSparse host_cache is pinned host memory (srt/mem_cache/pool_host/mla.py
    # L106, pin_memory=True): each unique miss's item crosses the host link once
    case = cases.GatherCase(B=8, D=3, top_k=2048, item_bytes=656)
    misses = 8 * 3 * 2048 // 2
    assert cases.gather_host_bytes(case, misses) == misses * 656
    assert cases.gather_floor_s(case, misses, 64.0) == pytest.approx(misses * 656 / 64e9)
    assert cases.gather_floor_s(case, misses, 32.0) == pytest.approx(2 * cases.gather_floor_s(case, misses, 64.0))
    # no misses: the plan's device traffic is the floor
    assert cases.gather_floor_s(case, 0) == pytest.approx(cases.gather_bytes_moved(case, 0) / (cases.HBM_NOMINAL_GBS * 1e9))
    assert ops.HISPARSE_GATHER.floor(case, misses, 64.0) == cases.gather_floor_s(case, misses, 64.0)
    v = cases.VerifyCase()
    assert ops.KDA_VERIFY.floor(v, 0, 4800.0) == pytest.approx(cases.verify_bytes_moved(v) / 4.8e12)
