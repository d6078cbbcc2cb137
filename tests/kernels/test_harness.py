"""The run harness: cases in, CaseResult out (CPU interpreter), memory checks, canaries."""

from __future__ import annotations

import os
import subprocess
import sys

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


_COMPILE_SCRIPT = """
import os, subprocess, tempfile
os.environ.pop("TRITON_INTERPRET", None)
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from kdacheck.kernels import hisparse_gather as hg, kda_verify as kv, mamba2_verify as mv

target = GPUTarget("cuda", 90, 32)
cuobjdump = os.path.join(os.path.dirname(triton.__file__), "backends/nvidia/bin/cuobjdump")

def build(fn, sig, consts, name):
    sig = dict(sig, **{c: "constexpr" for c in consts})
    k = triton.compile(ASTSource(fn=fn, signature=sig, constexprs=consts), target=target,
                       options={"num_warps": 4})
    with tempfile.NamedTemporaryFile(suffix=".cubin", delete=False) as f:
        f.write(k.asm["cubin"])
    out = subprocess.run([cuobjdump, "--dump-resource-usage", f.name],
                         capture_output=True, text=True).stdout
    usage = [l.strip() for l in out.splitlines() if "REG:" in l]
    print(name, usage[0] if usage else "?")

for st, tree in (("fp32", False), ("bf16", True)):
    sig = {n: "*bf16" for n in ("q_ptr", "k_ptr", "v_ptr", "a_ptr", "b_ptr")}
    sig.update(alog_ptr="*fp32", dtb_ptr="*fp32", pool_ptr="*" + st, cache_idx_ptr="*i32",
               scratch_ptr="*" + st, row_map_ptr="*i32", parents_ptr="*i32", o_ptr="*fp32",
               T="i32", P="i32", N_SCRATCH="i32", T_ALLOC="i32", scale="fp32")
    build(kv._kda_verify_kernel, sig, dict(H=8, HV=32, KD=128, VD=128, BK=128, BV=32,
          TREE=tree, STATE_BF16=st == "bf16", STEP_GUARD=True, HEAD_GATE=False), f"verify-{st}-tree{tree}")
    build(kv._kda_verify_kernel, sig, dict(H=4, HV=8, KD=128, VD=128, BK=128, BV=32,
          TREE=tree, STATE_BF16=st == "bf16", STEP_GUARD=True, HEAD_GATE=True), f"gdn-{st}-tree{tree}")
    msig = {n: "*bf16" for n in ("x_ptr", "dt_ptr", "B_ptr", "C_ptr", "D_ptr", "dtb_ptr")}
    msig.update(A_ptr="*fp32", pool_ptr="*" + st, cache_idx_ptr="*i32", scratch_ptr="*" + st, row_map_ptr="*i32",
                parents_ptr="*i32", o_ptr="*fp32", T="i32", POOL="i32", N_SCRATCH="i32")
    build(mv._mamba2_verify_kernel, msig, dict(H=32, G=4, PD=64, DS=128, BP=32, BDS=128, TREE=tree,
          STATE_BF16=st == "bf16"), f"mamba2-{st}-tree{tree}")
sel = dict(tok_ptr="*i32", seq_lens_ptr="*i32", dev_slot_ptr="*i32")
tile = dict(N_SEL=8192, BLOCK=128)
build(hg._plan_mark_kernel, dict(sel, marker_ptr="*i32", MAX_SEQ="i32"), tile, "plan-mark")
build(hg._plan_count_kernel, dict(sel, marker_ptr="*i32", counts_ptr="*i32", MAX_SEQ="i32", N_TILES="i32"), tile, "plan-count")
build(hg._plan_write_kernel, dict(sel, host_loc_ptr="*i64", free_ptr="*i32", marker_ptr="*i32", counts_ptr="*i32",
      miss_src_ptr="*i64", miss_dst_ptr="*i32", miss_count_ptr="*i32", MAX_SEQ="i32", N_TILES="i32", FREE_STRIDE="i32",
      FREE_COLS="i32", PLAN_STRIDE="i32", PLAN_COLS="i32", CAP="i32", N_DEV="i32"), dict(tile, BT=64), "plan-write")
build(hg._plan_out_kernel, dict(sel, marker_ptr="*i32", out_ptr="*i32", MAX_SEQ="i32"), tile, "plan-out")
sig = dict(host_ptr="*i64", dev_ptr="*i64", miss_src_ptr="*i64", miss_dst_ptr="*i32",
           miss_count_ptr="*i32", PLAN_STRIDE="i32", N_HOST="i32", N_DEV="i32")
build(hg._hisparse_copy_kernel, sig, dict(WORDS=82, BM=16, BW=128), "copy")
"""


def test_kernels_compile_for_sm90_without_a_gpu() -> None:
    """The interpreter never compiles; this builds real sm_90 cubins (Triton bundles ptxas)
    in a subprocess without TRITON_INTERPRET, and checks the verify tile does not spill."""
    triton = pytest.importorskip("triton")
    ptxas = os.path.join(os.path.dirname(triton.__file__), "backends/nvidia/bin/ptxas")
    if not os.path.exists(ptxas):
        pytest.skip("triton's bundled ptxas is not available")
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    proc = subprocess.run(
        [sys.executable, "-c", _COMPILE_SCRIPT],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = [ln for ln in proc.stdout.splitlines() if "REG:" in ln]
    assert len(lines) == 11, proc.stdout
    for ln in lines:
        assert "LOCAL:0" in ln, ln  # no register spills
        regs = int(ln.split("REG:")[1].split()[0])
        assert regs <= 192, ln  # 4 warps: at most 192 registers keeps 2+ blocks per SM (255 halves occupancy)


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
