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


# ----------------------------------------------------------------------------- work estimate
# benchmarks/work_estimate.py calibrates the seconds (docs/performance.md); these tests count.


def _cpu_seconds(case: AnyCase) -> float:
    return sum(w.seconds for w in ops.work(case, True))


@pytest.mark.parametrize("Kd,Vd,block_v", [(128, 128, None), (128, 128, 128), (64, 96, None), (32, 32, None), (256, 64, None), (128, 128, 48)])
def test_kda_programs_per_head_are_the_kernel_s(Kd: int, Vd: int, block_v: int | None) -> None:
    """The work formula's programs per head are ``kda_verify.verify_blocks``'s tiles."""
    from kdacheck.kernels.kda_verify import verify_blocks

    _bk, bv = verify_blocks(Kd, Vd, block_v)
    assert VerifyCase(Kd=Kd, Vd=Vd, block_v=block_v).programs_per_head == -(-Vd // bv)


def test_interpreter_work_is_priced_per_program_and_token() -> None:
    """In the interpreter a verify kernel costs per program and token: Mamba2's estimate grows
    with its heads and tokens alone (one program per head: the head's size does not count);
    KDA's with its programs, so splitting a head into 8 tiles costs 8 times as much."""
    kernel = lambda case: ops.work(case, True)[0].seconds  # noqa: E731
    m2 = cases.Mamba2Case(N=2, T=9, H=4, G=1, P=64, DS=128)
    assert kernel(dataclasses.replace(m2, H=8, G=2)) == pytest.approx(2 * kernel(m2))
    assert kernel(dataclasses.replace(m2, T=18, T_alloc=18)) == pytest.approx(2 * kernel(m2))
    assert kernel(dataclasses.replace(m2, P=16, DS=32)) == kernel(m2)
    kda = VerifyCase(N=2, T=9, H=4, HV=4, Kd=128, Vd=128, block_v=128)
    assert kernel(dataclasses.replace(kda, block_v=16)) == pytest.approx(8 * kernel(kda))
    assert ops.work(m2, True)[0].units == 2 * 9 * 4 * 64 * 128  # still counted in state updates


@pytest.mark.parametrize("model", MODELS)
def test_run_s_estimate_grows_with_steps_and_topk(model: str) -> None:
    def estimate(steps: int, topk: int) -> float:
        return sum(_cpu_seconds(c.spec) for c in runner.plan_from_options(steps, topk, None, None, model, 1, None, None, on_cpu=True).cases)

    if model == "deepseek-ai/DeepSeek-V3.2":  # SGLang's HiSparse swap takes 2-4 draft tokens: 1-3 steps
        assert estimate(1, 1) < estimate(2, 1) < estimate(3, 1)
        assert estimate(4, 8) < estimate(1, 1)  # 33 draft tokens: refused before anything is allocated
        return
    assert estimate(1, 1) < estimate(2, 1) < estimate(4, 1) < estimate(4, 2) < estimate(4, 8) < estimate(8, 8)


def test_a_gather_sglang_refuses_costs_only_its_fixed_part() -> None:
    ok = cases.GatherCase(B=1, D=3, top_k=2048)
    for refused in (dataclasses.replace(ok, D=33), dataclasses.replace(ok, top_k=512), dataclasses.replace(ok, D=4, top_k=4096),
                    dataclasses.replace(ok, plan_capacity=2048)):  # fmt: skip
        assert refused.refused and _cpu_seconds(refused) == cases.CASE_S < _cpu_seconds(ok) / 10
        result = ops.HISPARSE_GATHER.load("run")(refused, "cpu")  # the wrapper refuses it, as priced
        assert not result.passed and result.error and "steps" in result.error, result.error
    assert not ok.refused and not dataclasses.replace(ok, D=33, emulate_sglang_limits=False).refused
