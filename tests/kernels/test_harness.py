"""The run harness: cases in, CaseResult out (CPU interpreter), memory checks, canaries."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import pytest
import torch
from kdacheck.kernels import canary as cn
from kdacheck.kernels.harness import (
    WALL_CLOCK,
    CaseResult,
    GatherCase,
    InsufficientMemoryError,
    VerifyCase,
    bytes_needed,
    check_memory,
    free_device_memory,
    run_gather,
    run_verify,
)

pytestmark = pytest.mark.slow  # the kernels in Triton's interpreter (python -m pytest -q -m 'not slow' skips them)

RESULT_KEYS = {
    "kernel", "shapes", "bytes_moved", "time_s", "timing_method", "bandwidth_gbs",
    "max_abs_err", "rel_err", "canaries_intact", "passed", "error", "notes",
}  # fmt: skip


def test_a_cpu_case_runs_on_one_torch_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """The reference (and the rest of a CPU case) runs on one torch thread, the caller's count
    restored after: OpenMP's spinning threads multiplied the reference's CPU time."""
    from kdacheck.kernels import kda_verify_ref

    seen: list[int] = []
    real = kda_verify_ref.kda_verify_reference

    def counting(*args: Any, **kw: Any) -> Any:
        seen.append(torch.get_num_threads())
        return real(*args, **kw)

    monkeypatch.setattr(kda_verify_ref, "kda_verify_reference", counting)
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        assert run_verify(VerifyCase(seed=3), "cpu").passed
        assert seen == [1] and torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


def test_verify_case_passes_on_cpu(seed: int) -> None:
    case = VerifyCase(N=3, T=3, T_alloc=4, Kd=24, Vd=20, n_padding=1, seed=seed)
    res = run_verify(case, "cpu")
    assert res.error is None, res.error
    assert res.passed and res.canaries_intact
    assert res.rel_err is not None and res.rel_err < 1e-2
    assert res.timing_method == WALL_CLOCK and res.bandwidth_gbs is None
    assert res.time_s is not None and res.time_s > 0
    assert res.shapes["seed"] == seed
    # live requests only: 2 of 3, each reading the pool once and writing T states
    assert res.bytes_moved >= 2 * case.HV * case.Vd * case.Kd * 4 * (1 + case.T)
    d = res.to_dict()
    assert set(d) >= RESULT_KEYS
    assert all(c["intact"] for c in d["canaries"])


def test_verify_tree_fp32_subsampled(seed: int) -> None:
    case = VerifyCase(
        N=5, T=4, T_alloc=4, tree=True, K=2, input_dtype="float32", max_ref_requests=2, seed=seed
    )
    res = run_verify(case, "cpu")
    assert res.passed, res.to_dict()
    assert res.rel_err is not None and res.rel_err < 1e-5
    assert any("2 of 5" in n for n in res.notes)


def test_verify_kda001_reported_without_launch() -> None:
    res = run_verify(VerifyCase(N=2, T=5, T_alloc=4), "cpu")
    assert not res.passed
    assert res.error == "KDA verify needs 5 scratch steps, but intermediate_ssm only has 4."
    assert res.canaries_intact  # nothing was written: the wrapper refused before launch
    assert res.time_s is None


def test_verify_kda002_reported() -> None:
    res = run_verify(VerifyCase(N=3, row_map=[0, 2, 1], flashinfer_compat=True), "cpu")
    assert res.error == (
        "FlashInfer KDA verify requires an identity intermediate row-map "
        "(verify_intermediate_state_indices must be arange)."
    )
    assert not res.passed and res.canaries_intact


def test_verify_flashinfer_identity_passes() -> None:
    res = run_verify(VerifyCase(N=2, T=2, flashinfer_compat=True, Kd=16, Vd=16), "cpu")
    assert res.passed, res.to_dict()


def test_gather_case_passes_on_cpu(seed: int) -> None:
    case = GatherCase(
        B=2, D=3, top_k=16, max_seq=64, item_bytes=656, emulate_sglang_limits=False, seed=seed
    )
    res = run_gather(case, "cpu")
    assert res.error is None, res.error
    assert res.passed and res.canaries_intact and res.rel_err == 0.0
    assert res.timing_method == WALL_CLOCK and res.bandwidth_gbs is None
    assert res.bytes_moved > 0
    assert set(res.to_dict()) >= RESULT_KEYS


def test_gather_hsp003_capacity_is_cheap(monkeypatch: pytest.MonkeyPatch) -> None:
    """--plan-capacity 2048 with D=4, top_k=2048: refused before the caches are allocated
    (the inputs and the host tier, B * max_seq items, are never built)."""
    from kdacheck.kernels import harness

    built: list[object] = []
    monkeypatch.setattr(harness, "gather_inputs", lambda *a: built.append(a))
    case = GatherCase(B=48, D=4, top_k=2048, max_seq=200_000, plan_capacity=2048)
    res = run_gather(case, "cpu")
    assert built == []
    assert res.error == (
        "speculative miss_src/miss_dst must have shape [batch, >= steps * top_k] (capacity 8192)."
    )
    assert not res.passed and res.canaries_intact


def test_gather_hsp001_reported() -> None:
    res = run_gather(GatherCase(D=5, top_k=1024, max_seq=2048), "cpu")
    assert res.error == "HiSparse speculative swap requires 2-4 steps, got 5."


def test_bytes_needed_grows_with_the_case() -> None:
    small, big = VerifyCase(N=2), VerifyCase(N=2, T=8, T_alloc=8, Kd=128, Vd=128)
    assert 0 < bytes_needed(small) < bytes_needed(big)
    # the scratch alone is counted at least once
    assert bytes_needed(big) >= 3 * 8 * 4 * 128 * 128 * 4
    g1, g2 = GatherCase(B=1, D=2, top_k=1024), GatherCase(B=4, D=4, top_k=2048)
    assert 0 < bytes_needed(g1) < bytes_needed(g2)
    assert bytes_needed(g2) >= 2 * 4 * 4 * 2048 * 656  # device buffer sized for all misses


def test_check_memory_with_mocked_free_bytes() -> None:
    case = VerifyCase(N=4, T=4, T_alloc=4, Kd=64, Vd=64)
    need = bytes_needed(case)
    assert check_memory(case, "cpu", free_bytes=need * 2) == need
    with pytest.raises(InsufficientMemoryError) as exc:
        check_memory(case, "cpu", free_bytes=need)  # needs a 10% margin
    err = exc.value
    assert err.needed == need and err.free == need
    assert str(need) in str(err) and "10%" in str(err)
    assert check_memory(case, "cpu") == need  # CPU: nothing to query, no refusal


def test_free_device_memory_cpu_is_none() -> None:
    assert free_device_memory("cpu") is None


def test_free_device_memory_cuda_mocked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda dev=None: (123, 456))
    assert free_device_memory("cuda:0") == 123


def test_case_result_defaults() -> None:
    r = CaseResult(kernel="x", shapes={})
    assert r.to_dict()["notes"] == [] and r.error is None


# ----------------------------------------------------------------------------- canary helpers


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int32, torch.uint8])
def test_canary_margins_and_poison(dtype: torch.dtype) -> None:
    g = cn.guarded_empty((3, 5), dtype, "cpu", margin=16)
    assert cn.check_margins(g).intact
    assert cn.check_poison(g.tensor).intact
    if dtype.is_floating_point:
        assert torch.isnan(g.tensor.float()).all()  # NaN poison still compares exactly
    g.tensor[1, 2] = 0
    rep = cn.check_poison(g.tensor)
    assert not rep.intact and rep.first_bad == 7 and rep.count == 1
    written = torch.zeros(3, 5, dtype=torch.bool)
    written[1, 2] = True
    assert cn.check_written(g.tensor, written).intact
    assert cn.check_poison(g.tensor, ~written).intact
    g.base[-1] = 1  # a write just past the end
    rep = cn.check_margins(g)
    assert not rep.intact and rep.count == 1 and rep.first_bad == 31


def test_check_equal_bits_detects_single_bit() -> None:
    a = torch.randn(100)
    b = a.clone()
    assert cn.check_equal_bits(a, b).intact
    b.view(torch.int32)[42] ^= 1
    rep = cn.check_equal_bits(a, b)
    assert not rep.intact and rep.first_bad == 42


# ----------------------------------------------------------------------------- GPU compile


# The register table: benchmarks/record_registers.py compiles every kernel variant for sm_90
# (Triton bundles ptxas and cuobjdump; no GPU) and derives CTAs per SM by the occupancy rule
# written down there. The whole table is printed before anything is judged.

_RECORDER = os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks", "record_registers.py")
_RECORDED_36 = os.path.join(os.path.dirname(__file__), "..", "data", "triton-3.6-registers.json")


def _recorder() -> Any:
    import importlib.util

    spec = importlib.util.spec_from_file_location("record_registers", _RECORDER)
    assert spec is not None and spec.loader is not None
    mod = sys.modules.get("record_registers")
    if mod is None:
        mod = importlib.util.module_from_spec(spec)
        sys.modules["record_registers"] = mod  # its dataclasses look their module up
        spec.loader.exec_module(mod)
    return mod


def test_occupancy_rule_at_four_warps() -> None:
    """The arithmetic of record_registers.occupancy (65536 registers per SM, 256-register
    units per warp): 168 registers keep 3 CTAs of 4 warps, 169-255 only 2, 128 give 4."""
    occ = _recorder().occupancy
    assert occ(128, 4)["by_regs"] == 4 and occ(129, 4)["by_regs"] == 3
    assert occ(168, 4)["by_regs"] == 3 and occ(169, 4)["by_regs"] == 2 and occ(255, 4)["by_regs"] == 2
    assert occ(16, 4)["ctas_per_sm"] == 16  # then the 64-warp limit binds
    assert occ(64, 4, shared=100_000)["ctas_per_sm"] == 2  # and shared memory, 228 KiB per SM


def _judge(doc: dict[str, Any], rec: Any) -> None:
    print(rec.table(doc))  # the whole table, before any judgement (pytest -s shows it; a failure too)
    bad = rec.problems(doc)
    names = {(r["kernel"], r["variant"]) for r in doc["rows"]}
    assert len(names) == len(doc["rows"]) >= 17, rec.table(doc)
    assert not bad, rec.table(doc) + "\nover the bound:\n" + "\n".join(bad)


def test_kernels_compile_for_sm90_within_the_occupancy_target(tmp_path: Any) -> None:
    """This Triton: every variant compiles for sm_90, none spills, every verify kernel keeps
    >= MIN_CTAS_VERIFY CTAs per SM (<= 168 registers at 4 warps)."""
    triton = pytest.importorskip("triton")
    ptxas = os.path.join(os.path.dirname(triton.__file__), "backends/nvidia/bin/ptxas")
    if not os.path.exists(ptxas):
        pytest.skip("triton's bundled ptxas is not available")
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    out = tmp_path / "registers.json"
    proc = subprocess.run([sys.executable, _RECORDER, "--json", str(out)], capture_output=True, text=True,
                          timeout=600, env=env)  # fmt: skip
    assert out.exists(), proc.stdout[-3000:] + proc.stderr[-3000:]
    import json

    doc = json.loads(out.read_text())
    assert doc["triton"] == triton.__version__
    _judge(doc, _recorder())


def test_recorded_triton_36_table_is_current_and_within_the_target() -> None:
    """The device's Triton (3.6.0, the H200 image's), recorded by record_registers.py from the
    current kernels: the table must be of these kernel sources and launch configs."""
    import json

    rec = _recorder()
    with open(_RECORDED_36, encoding="utf-8") as fh:
        doc = json.load(fh)
    assert doc["triton"] == "3.6.0"
    assert doc["source_sha256"] == rec.source_hash(), (
        "tests/data/triton-3.6-registers.json is of other kernel sources or launch configs: re-record it "
        "(the commands are in benchmarks/record_registers.py's docstring)"
    )
    _judge(doc, rec)


def test_recorded_triton_36_table_matches_a_live_compile(tmp_path: Any) -> None:
    """With KDACHECK_TRITON36_SITE naming a folder that holds Triton 3.6.0 (pip install
    --target, as record_registers.py's docstring shows), compile with it now: the registers
    and spills must equal the recorded table's."""
    site = os.environ.get("KDACHECK_TRITON36_SITE")
    if not site:
        pytest.skip("KDACHECK_TRITON36_SITE is not set: the recorded Triton 3.6 table is judged alone")
    import json

    out = tmp_path / "registers-36.json"
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (site, env.get("PYTHONPATH", "")) if p)
    proc = subprocess.run([sys.executable, _RECORDER, "--json", str(out)], capture_output=True, text=True,
                          timeout=600, env=env)  # fmt: skip
    assert out.exists(), proc.stdout[-3000:] + proc.stderr[-3000:]
    live = json.loads(out.read_text())
    with open(_RECORDED_36, encoding="utf-8") as fh:
        recorded = json.load(fh)
    assert live["triton"] == "3.6.0", live["triton"]
    rec = _recorder()
    print(rec.table(live))
    key = lambda d: {(r["kernel"], r["variant"]): (r["regs"], r["local"], r["stack"]) for r in d["rows"]}  # noqa: E731
    assert key(live) == key(recorded), rec.table(live) + "\n--- recorded ---\n" + rec.table(recorded)


# --- tolerances that catch kernel bugs ---------------------------------------------------------
# Each mutant wraps the real kernel and damages its results the way a plausible bug would; the
# harness must fail every one at both state dtypes (the tolerances are 1e-5 / 1e-3 relative,
# against achieved errors of about 2e-7 / 1e-4).


def _mutant(damage):  # type: ignore[no-untyped-def]
    from kdacheck.kernels.kda_verify import kda_verify

    def run(*args, out, **kw):  # type: ignore[no-untyped-def]
        o = kda_verify(*args, out=out, **kw)
        damage(out, args[9])  # the output and the scratch buffer
        return o

    return run


def _scale_out(out: torch.Tensor, scratch: torch.Tensor) -> None:
    out.mul_(1.005)  # a 0.5 % scale error


def _bf16_out(out: torch.Tensor, scratch: torch.Tensor) -> None:
    out.copy_(out.to(torch.bfloat16).float())  # output rounded through bfloat16


def _scale_state(out: torch.Tensor, scratch: torch.Tensor) -> None:
    scratch.copy_((scratch.float() * 1.005).to(scratch.dtype))  # states off by 0.5 %


def _truncate_state(out: torch.Tensor, scratch: torch.Tensor) -> None:
    if scratch.dtype == torch.float32:  # truncation to bfloat16 instead of round-to-nearest-even
        scratch.copy_((scratch.view(torch.int32) & ~0xFFFF).view(torch.float32))
    else:
        bits = scratch.view(torch.int16)
        scratch.copy_((bits - (bits != 0).to(torch.int16)).view(torch.bfloat16))  # every state one ulp off


MUTANTS = [(d, "float32") for d in (_scale_out, _bf16_out, _scale_state, _truncate_state)]
MUTANTS += [(d, "bfloat16") for d in (_scale_out, _scale_state, _truncate_state)]  # bf16 output rounding is within 1e-3


@pytest.mark.parametrize(("damage", "state_dtype"), MUTANTS, ids=[f"{d.__name__}-{s}" for d, s in MUTANTS])
def test_harness_fails_kernel_mutants(damage, state_dtype: str) -> None:  # type: ignore[no-untyped-def]
    from kdacheck.kernels import harness
    from kdacheck.kernels.kda_verify_ref import kda_verify_reference

    case = VerifyCase(N=3, T=4, T_alloc=4, state_dtype=state_dtype, seed=5)
    res = harness.CaseResult(kernel="kda_verify", shapes={})
    bufs: dict = {}  # type: ignore[type-arg]
    harness._run_verify(case, torch.device("cpu"), 5, res, bufs, _mutant(damage), kda_verify_reference)
    assert not res.passed and res.rel_err is not None and res.rel_err >= harness.TOLERANCE[state_dtype]
    good = harness.CaseResult(kernel="kda_verify", shapes={})
    from kdacheck.kernels.kda_verify import kda_verify

    harness._run_verify(case, torch.device("cpu"), 5, good, {}, kda_verify, kda_verify_reference)
    assert good.passed, good.rel_err


@pytest.mark.parametrize("gate", ["channel", "head"])
def test_large_gate_logits_take_softplus_linear_branch(gate: str) -> None:
    # gate logits ~ N(0, 30²): most |x| > 20, where softplus(x) = x
    res = run_verify(VerifyCase(N=2, T=4, T_alloc=4, gate=gate, gate_scale=30.0, tree=True, K=2, seed=3), "cpu")
    assert res.passed, (res.rel_err, res.error)
    assert res.shapes["gate"] == gate


def test_unguarded_triton_path_shows_the_corruption_sglang_would_have() -> None:
    # SGLang's Triton verify stores step t of row r at r·T_alloc + t unchecked: with the
    # discard row (N + 1 rows) the last request's overflow lands there; without it, past the end.
    res = run_verify(VerifyCase(N=3, T=5, T_alloc=3, step_guard=False, seed=1), "cpu")
    assert not res.passed and not res.canaries_intact and res.error is not None
    assert res.error.startswith("silent corruption") and "2 other live requests overwritten (rows 1–2)" in res.error
    assert "rows 3" in res.error and "0 elements" in res.error
    res = run_verify(VerifyCase(N=3, T=5, T_alloc=3, N_scratch=3, step_guard=False, seed=1), "cpu")
    per_state = res.shapes["HV"] * res.shapes["Vd"] * res.shapes["Kd"]
    assert f"{2 * per_state:,} elements" in (res.error or "")  # the last row's steps 3 and 4
    # a scratch that holds every step is not corrupted, guarded or not
    assert run_verify(VerifyCase(N=3, T=5, T_alloc=5, step_guard=False, seed=1), "cpu").passed
