"""What ``kdacheck run`` calls: a case (pure numbers) in, a :class:`CaseResult` out.

Each run allocates plain device tensors at the case's shapes (never managed memory), fills
fresh random inputs (a random seed unless the case fixes one; the seed is reported), poisons
canaries, launches the kernel through its contract-checking wrapper, compares with the
reference, checks the canaries, times the launch and frees everything on every exit path.

- Reference: the verify reference runs in float64 on the CPU. For large shapes it is run on a
  random subsample of at most ``VerifyCase.max_ref_requests`` live requests (the canaries are
  still checked over the whole buffers). The gather reference covers every request and must
  match exactly.
- Timing: on CUDA ``triton.testing.do_bench`` (median, ms -> s) of the kernel launch with host
  index validation off; on CPU one wall-clock run with ``time.perf_counter`` of the checked
  call, labelled ``"wall clock (interpreter)"`` (no bandwidth is reported).
- A contract failure (``ValueError``/``RuntimeError`` from a wrapper check) is returned as a
  failed result whose ``error`` is the exact message; nothing is launched then.
"""

from __future__ import annotations

import contextlib
import gc
import math
import os
import secrets
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from typing import Any

import torch

from kdacheck.dtypes import DTYPE_BYTES, SSM_DTYPES

from . import canary as cn
from . import cases, ops
from .cases import AnyCase, Gate, GatherCase, Mamba2Case, VerifyCase
from .ops import bytes_needed

WALL_CLOCK = "wall clock (interpreter)"
DO_BENCH = "triton.testing.do_bench (median)"
# the dtypes a case may name (SGLang's --mamba-ssm-dtype choices, kdacheck.dtypes.SSM_DTYPES)
_DTYPES = {name: getattr(torch, name) for name in SSM_DTYPES}
# verify: relative error by state dtype. The reference rounds its states where the kernel
# stores them, so what is left is the float32-vs-float64 accumulation, amplified by one
# rounding step where the two land on either side of a boundary: float16 keeps 11 bits
# (unit roundoff 2^-11 = 4.9e-4, bfloat16 2^-8 = 3.9e-3), so bfloat16's bound serves it too.
TOLERANCE = {"float32": 1e-5, "bfloat16": 1e-3, "float16": 1e-3}


class InsufficientMemoryError(RuntimeError):
    """The case needs more device memory than is free (with a safety margin)."""

    def __init__(self, needed: int, free: int, margin: float = 0.1) -> None:
        self.needed = needed
        self.free = free
        self.margin = margin
        super().__init__(
            f"this case needs {needed} bytes ({needed / 2**30:.3f} GiB) but only {free} bytes "
            f"({free / 2**30:.3f} GiB) are free on the device; kdacheck run keeps a "
            f"{margin:.0%} margin, so at most {int(free * (1 - margin))} bytes may be used."
        )


@dataclass
class CaseResult:
    kernel: str
    shapes: dict[str, Any]
    bytes_moved: int = 0
    time_s: float | None = None
    timing_method: str | None = None
    bandwidth_gbs: float | None = None
    max_abs_err: float | None = None
    rel_err: float | None = None
    canaries_intact: bool = True
    passed: bool = False
    error: str | None = None
    notes: list[str] = field(default_factory=list)
    canaries: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# ----------------------------------------------------------------------------- memory


def free_device_memory(device: torch.device | str) -> int | None:
    """Free bytes on a CUDA device (``torch.cuda.mem_get_info``); None on CPU."""
    dev = torch.device(device)
    if dev.type != "cuda":
        return None
    free, _total = torch.cuda.mem_get_info(dev)
    return int(free)


def check_memory(
    case: AnyCase,
    device: torch.device | str,
    free_bytes: int | None = None,
    margin: float = 0.1,
) -> int:
    """Raise :class:`InsufficientMemoryError` when ``bytes_needed(case) > free * (1 - margin)``.

    ``free_bytes`` overrides the device query (tests); with neither (CPU) nothing is checked.
    Returns the bytes needed."""
    needed = bytes_needed(case)
    free = free_bytes if free_bytes is not None else free_device_memory(device)
    if free is not None and needed > free * (1 - margin):
        raise InsufficientMemoryError(needed, free, margin)
    return needed


# ----------------------------------------------------------------------------- helpers


def _prepare_backend(device: torch.device) -> None:
    """CPU runs need Triton's interpreter, which must be chosen before the kernels load."""
    if device.type == "cpu":
        loaded = any(f"{__package__}.{op.modules[0]}" in sys.modules for op in ops.OPS)  # a kernel (and triton) loaded
        if not loaded:
            os.environ.setdefault("TRITON_INTERPRET", "1")
        if os.environ.get("TRITON_INTERPRET") != "1":
            raise RuntimeError(
                "running on CPU needs Triton's interpreter: set TRITON_INTERPRET=1 before "
                "triton is imported."
            )


@contextlib.contextmanager
def _one_thread_on_cpu(device: torch.device) -> Iterator[None]:
    """A CPU case runs on one torch thread. Its tensor ops are small (the reference's largest
    is one request's state, float64), so a second thread gains nothing, and on a shared machine
    OpenMP's idle threads spin at every barrier: the reference's CPU time (what ``--work-budget``
    prices) was 4-30x that of one thread, and erratic (benchmarks/work_estimate.py)."""
    if device.type != "cpu":
        yield
        return
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _time(fn: Callable[[], object], device: torch.device) -> tuple[float, str]:
    if device.type == "cuda":
        import triton.testing

        ms = triton.testing.do_bench(fn, return_mode="median")
        return float(ms) / 1e3, DO_BENCH
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0, WALL_CLOCK


def _seed(seed: int | None) -> int:
    return seed if seed is not None else secrets.randbits(31)


def _release(device: torch.device, bufs: dict[str, Any]) -> None:
    bufs.clear()
    gc.collect()
    if device.type == "cuda":
        torch.cuda.empty_cache()


def _rel(a: torch.Tensor, b: torch.Tensor) -> tuple[float, float]:
    a64, b64 = a.double(), b.double()
    diff = (a64 - b64).abs()
    max_abs = float(diff.max()) if diff.numel() else 0.0
    den = float(b64.norm())
    num = float((a64 - b64).norm())
    return max_abs, (num / den if den > 0 else num)


def random_parents(N: int, T: int, K: int, gen: torch.Generator) -> torch.Tensor:
    """Valid tree parents ``[N, T]``: -1 for token 0, else an earlier token with < K children."""
    par = torch.full((N, T), -1, dtype=torch.int32)
    for n in range(N):
        children = [0] * T
        for t in range(1, T):
            cand = [p for p in range(t) if children[p] < max(K, 1)]
            p = cand[int(torch.randint(len(cand), (1,), generator=gen))]
            children[p] += 1
            par[n, t] = p
    return par


# ----------------------------------------------------------------------------- verify


def _run_case(case: AnyCase, device: torch.device | str, shapes: dict[str, Any],
              body: Callable[[torch.device, int, CaseResult, dict[str, Any]], None]) -> CaseResult:
    """What every case shares: the seed, the memory check on a GPU, the interpreter on a CPU,
    contract failures reported with their exact message, every buffer freed on every exit."""
    dev = torch.device(device)
    seed = _seed(case.seed)
    res = CaseResult(kernel=ops.op_for(case).name, shapes={**shapes, "seed": seed, "device": str(dev)})
    bufs: dict[str, Any] = {}
    try:
        if dev.type == "cuda":
            check_memory(case, dev)
        _prepare_backend(dev)
        with _one_thread_on_cpu(dev):
            body(dev, seed, res, bufs)
    except (ValueError, RuntimeError) as exc:  # contract failures: report the exact message
        res.error = str(exc)
        res.passed = False
    finally:
        _release(dev, bufs)
    return res


def run_verify(case: VerifyCase, device: torch.device | str) -> CaseResult:
    """Run one KDA (or GDN) verify case; see the module docstring."""
    shapes: dict[str, Any] = {
        "N": case.N, "T": case.T, "T_alloc": case.T_alloc, "N_scratch": case.n_scratch,
        "H": case.H, "HV": case.HV, "Kd": case.Kd, "Vd": case.Vd, "pool_size": case.pool,
        "state_dtype": case.state_dtype, "input_dtype": case.input_dtype, "tree": case.tree,
        "K": case.K, "flashinfer_compat": case.flashinfer_compat, "n_padding": case.n_padding,
        "gate": case.gate.value, "gate_scale": case.gate_scale,
    }  # fmt: skip

    def body(dev: torch.device, seed: int, res: CaseResult, bufs: dict[str, Any]) -> None:
        if case.refusal is not None:  # SGLang's verify raises before its kernel runs: nothing to launch
            raise RuntimeError(case.refusal)
        op = ops.KDA_VERIFY
        _run_verify(case, dev, seed, res, bufs, op.load("kernel"), op.load("reference"))

    return _run_case(case, device, shapes, body)


def _run_verify(
    case: VerifyCase,
    dev: torch.device,
    seed: int,
    res: CaseResult,
    bufs: dict[str, Any],
    kda_verify: Callable[..., torch.Tensor],
    reference: Callable[..., tuple[torch.Tensor, torch.Tensor]],
) -> None:
    N, T, H, HV, Kd, Vd = case.N, case.T, case.H, case.HV, case.Kd, case.Vd
    NT, P = N * T, case.pool
    in_dt, st_dt = _DTYPES[case.input_dtype], _DTYPES[case.state_dtype]
    gen = torch.Generator(device=dev).manual_seed(seed)
    cpu_gen = torch.Generator().manual_seed(seed)

    def rnd(*shape: int, dtype: torch.dtype = torch.float32, scale: float = 1.0) -> torch.Tensor:
        return (torch.randn(*shape, generator=gen, device=dev) * scale).to(dtype)

    b_ = bufs
    b_["q"], b_["k"] = rnd(NT, H, Kd, dtype=in_dt), rnd(NT, H, Kd, dtype=in_dt)
    b_["v"] = rnd(NT, HV, Vd, dtype=in_dt)
    if case.gate is Gate.HEAD:  # GDN: one gate logit per head (SGLang's a[T, HV], dt_bias[HV])
        b_["a"] = rnd(NT, HV, dtype=in_dt, scale=case.gate_scale)
    else:
        b_["a"] = rnd(NT, HV, Kd, dtype=in_dt, scale=case.gate_scale)
    b_["b"] = rnd(NT, HV, dtype=in_dt)
    # A_log = log(U(1, 16)) as in KDA's initialisation; small dt_bias
    b_["A_log"] = torch.log(1 + 15 * torch.rand(HV, generator=gen, device=dev))
    if case.gate is Gate.HEAD:
        b_["dt_bias"] = rnd(HV, scale=0.5)
    else:
        b_["dt_bias"] = rnd(HV * Kd, scale=0.5)
    b_["pool"] = rnd(P, HV, Vd, Kd, dtype=st_dt, scale=0.5)
    live = case.live
    slots = (
        torch.randperm(P, generator=cpu_gen)[:N]
        if P >= N
        else torch.randint(P, (N,), generator=cpu_gen)
    )
    slots[live:] = -1
    b_["cache_indices"] = slots.to(torch.int32).to(dev)
    rows = torch.tensor(case.rows, dtype=torch.int32)
    b_["row_map"] = rows.to(dev)
    b_["parents"] = random_parents(N, T, case.K, cpu_gen).to(dev) if case.tree else None
    g_scratch = cn.guarded_empty((case.n_scratch, case.T_alloc, HV, Vd, Kd), st_dt, dev, margin=cn.DEFAULT_MARGIN + case.overflow)
    g_out = cn.guarded_empty((NT, HV, Vd), torch.float32, dev)
    b_["g_scratch"], b_["g_out"] = g_scratch, g_out
    b_["pool_snapshot"] = b_["pool"].to("cpu", copy=True)

    res.bytes_moved = ops.KDA_VERIFY.bytes_moved(case, 0)
    if case.tree:
        res.notes.append("tree mode: bytes include re-reading each parent state from scratch")

    args = (b_["q"], b_["k"], b_["v"], b_["a"], b_["b"], b_["A_log"], b_["dt_bias"], b_["pool"],
            b_["cache_indices"], g_scratch.tensor, b_["row_map"], b_["parents"])  # fmt: skip
    launched = False
    try:
        t0 = time.perf_counter()
        kda_verify(*args, flashinfer_compat=case.flashinfer_compat, block_v=case.block_v,
                   out=g_out.tensor, step_guard=case.step_guard, step_message=case.step_message,
                   owned_after=case.overflow)  # fmt: skip
        if dev.type == "cuda":
            torch.cuda.synchronize(dev)
        wall = time.perf_counter() - t0
        launched = True
    finally:
        # canaries are checked whether or not the wrapper refused the launch
        _verify_canaries(case, res, b_, launched)
    if not launched:
        return
    if case.misaddressed:
        res.error = overflow_report(case, slots, rows, g_scratch)
        res.passed = False
        return

    # reference on a subsample of live requests (float64, CPU), and the padding requests
    # that own their scratch row (those sharing SGLang's discard row race there: not compared)
    live_ids = [n for n in range(N) if int(slots[n]) >= 0]
    row_users: dict[int, int] = {}
    for n in range(N):
        row_users[int(rows[n])] = row_users.get(int(rows[n]), 0) + 1
    pad_ids = [n for n in range(N) if int(slots[n]) < 0 and row_users[int(rows[n])] == 1][: case.max_ref_requests]
    if len(live_ids) > case.max_ref_requests:
        pick = torch.randperm(len(live_ids), generator=cpu_gen)[: case.max_ref_requests]
        req = sorted(live_ids[int(i)] for i in pick)
        res.notes.append(f"reference checked on {len(req)} of {len(live_ids)} live requests")
    else:
        req = live_ids
    if case.live < N:
        res.notes.append(f"{N - case.live} padding requests (cache index -1) computed from a zero state with their "
                         f"scratch rows written, as SGLang's verify does; {len(pad_ids)} checked against the reference")
    req = sorted(req + pad_ids)
    # The reference works on its own clone of scratch; it writes every step < T of a request's
    # row before reading a parent from it, so the clone's prior content is never read.
    cpu_args = tuple(x.cpu() if isinstance(x, torch.Tensor) else x for x in args)
    o_ref, s_ref = reference(*cpu_args, requests=req)
    o_k = g_out.tensor.cpu()
    tok = torch.tensor([n * T + t for n in req for t in range(T)], dtype=torch.long)
    row_ids = torch.tensor([int(rows[n]) for n in req], dtype=torch.long)
    ma_o, re_o = _rel(o_k[tok], o_ref[tok]) if req else (0.0, 0.0)
    s_k = g_scratch.tensor[row_ids.to(dev), :T].cpu()  # only the checked rows
    ma_s, re_s = _rel(s_k, s_ref[row_ids, :T]) if req else (0.0, 0.0)
    res.max_abs_err = max(ma_o, ma_s)
    res.rel_err = max(re_o, re_s)  # the worse of the two tensors
    # The reference reads the same (rounded) inputs and rounds its states where the kernel
    # stores them, so only the state dtype sets the error: measured ≤ 1.8e-7 (float32 state)
    # and ≤ 4e-5 (bfloat16 state) over seeds, chain and tree; a 0.5 % scale error fails both.
    tol = TOLERANCE[case.state_dtype]
    res.notes.append(f"tolerance ||x - ref|| / ||ref|| < {tol:g} per tensor (output, scratch states)")

    if dev.type == "cuda":
        res.time_s, res.timing_method = _time(
            lambda: kda_verify(*args, block_v=case.block_v, out=g_out.tensor, validate=False), dev
        )
        res.bandwidth_gbs = res.bytes_moved / res.time_s / 1e9 if res.time_s else None
    else:
        res.time_s, res.timing_method = wall, WALL_CLOCK
        res.notes.append("CPU: Triton interpreter, wall clock of one checked call; no bandwidth")
    res.passed = bool(res.rel_err < tol and res.canaries_intact and math.isfinite(res.rel_err))


def overflow_report(case: VerifyCase, slots: torch.Tensor, rows: torch.Tensor, g: cn.Guarded) -> str:
    """What SGLang's unguarded Triton verify overwrote: step t of request n is stored at flat
    state ``rows[n]·T_alloc + t`` with no check, so with T > T_alloc a request's later steps land
    in the next row, and a row past ``N_scratch`` (a padding request whose discard row the
    buffer lacks, ``--buffer-rows``) lands past the end; what the canaries measured there."""
    T, Ta, R = case.T, case.T_alloc, case.n_scratch
    owner = {int(rows[n]): n for n in range(case.N) if int(slots[n]) >= 0}
    hit_live: set[int] = set()
    hit_free: set[int] = set()
    for n, r in ((n, int(rows[n])) for n in range(case.N)):
        for t in range(T):
            target = (r * Ta + t) // Ta
            if (target == r and r < R) or target >= R:
                continue
            (hit_live if target in owner and owner[target] != n else hit_free).add(target)
    past = cn.check_poison(g.base[g.margin + g.tensor.numel() :], None, "past the end").count
    size = DTYPE_BYTES[case.state_dtype]
    parts = []
    if Ta < T:
        parts.append(f"D = {T} draft tokens into an intermediate_ssm of {Ta} steps, and SGLang's "
                     "Triton verify (also nv_cutedsl's) checks no step count (only FlashInfer's checks: "
                     "layers/attention/linear/kernels/kda_flashinfer.py for KDA, FlashInfer's gated_delta_rule_mtp for GDN); "
                     f"each request's steps {Ta}..{T - 1} were stored in the next scratch row")
    beyond = sorted({int(rows[n]) for n in range(case.N) if int(rows[n]) >= R})
    if beyond:
        pads = sum(1 for n in range(case.N) if int(rows[n]) >= R and int(slots[n]) < 0)
        k = sum(1 for n in range(case.N) if int(rows[n]) >= R)
        who = f"{k} request{'s' if k > 1 else ''} ({pads} of them padding, cache index -1)" if k > pads else \
            f"{'the padding request' if k == 1 else f'{k} padding requests'} (cache index -1)"
        parts.append(f"intermediate_ssm has {R} rows, but {who} store{'s' if k == 1 else ''} into "
                     f"row{'s' if len(beyond) > 1 else ''} {_ranges(beyond)}: SGLang allocates one "
                     "discard row more than the requests (MambaPool.SpeculativeState, srt/layers/attention/linear/utils.py "
                     "L125-155), and its verify writes a padding request's states there unchecked")
    if hit_live:
        parts.append(f"the states of {len(hit_live)} other live requests overwritten (rows {_ranges(sorted(hit_live))})")
    if hit_free:
        parts.append(f"rows not owned by the batch written (rows {_ranges(sorted(hit_free))})")
    parts.append(f"{past:,} elements ({past * size:,} bytes) written past the end of intermediate_ssm")
    return "silent corruption: " + "; ".join(parts) + "."


def _ranges(xs: list[int]) -> str:
    out, i = [], 0
    while i < len(xs):
        j = i
        while j + 1 < len(xs) and xs[j + 1] == xs[j] + 1:
            j += 1
        out.append(str(xs[i]) if i == j else f"{xs[i]}–{xs[j]}")
        i = j + 1
    return ", ".join(out[:8]) + (", …" if len(out) > 8 else "")


def _verify_canaries(case: VerifyCase, res: CaseResult, b_: dict[str, Any], launched: bool) -> None:
    g_scratch, g_out = b_["g_scratch"], b_["g_out"]
    dev = g_scratch.base.device
    N, T = case.N, case.T
    rows = b_["row_map"].cpu()
    # which scratch elements must have been written: every request's row (padding requests'
    # too, as SGLang's kernel writes them), steps < T; every request's output rows
    written_s = torch.zeros(g_scratch.tensor.shape[:2], dtype=torch.bool)
    written_o = torch.ones(N * T, dtype=torch.bool)
    for n in range(N):
        if 0 <= int(rows[n]) < case.n_scratch:
            written_s[int(rows[n]), : min(T, case.T_alloc)] = True
    ws = written_s[:, :, None, None, None].to(dev)  # broadcast against the buffers
    wo = written_o[:, None, None].to(dev)
    reports = [
        cn.check_margins(g_scratch, "scratch margins"),
        cn.check_margins(g_out, "output margins"),
        cn.check_equal_bits(b_["pool"], b_["pool_snapshot"], "committed pool unchanged"),
    ]
    if launched:
        reports += [
            cn.check_poison(g_scratch.tensor, ~ws, "scratch rows/steps not owned by the batch"),
            cn.check_written(g_scratch.tensor, ws, "scratch states written"),
            cn.check_written(g_out.tensor, wo, "output rows written (padding requests' too)"),
        ]
    else:  # refused before launch: everything must still be poison
        reports += [
            cn.check_poison(g_scratch.tensor, None, "scratch untouched (no launch)"),
            cn.check_poison(g_out.tensor, None, "output untouched (no launch)"),
        ]
    res.canaries = [r.to_dict() for r in reports]
    res.canaries_intact = cn.all_intact(reports)


# ----------------------------------------------------------------------------- Mamba2 verify


def run_mamba2(case: Mamba2Case, device: torch.device | str) -> CaseResult:
    """Run one Mamba2 verify case: SGLang's selective state update over the draft tokens,
    against its float64 reference, with canaries around the scratch and the output. With
    ``T != T_alloc`` the stores land where SGLang's addressing puts them (nothing checks the
    step count in SGLang) and the result reports the corruption."""
    shapes: dict[str, Any] = {
        "N": case.N, "T": case.T, "T_alloc": case.T_alloc, "N_scratch": case.n_scratch, "H": case.H, "G": case.G,
        "P": case.P, "DS": case.DS, "pool_size": case.pool, "state_dtype": case.state_dtype,
        "input_dtype": case.input_dtype, "tree": case.tree, "K": case.K, "n_padding": case.n_padding,
        "dt_scale": case.dt_scale,
    }  # fmt: skip
    return _run_case(case, device, shapes, lambda dev, seed, res, bufs: _run_mamba2(case, dev, seed, res, bufs))


def mamba2_inputs(case: Mamba2Case, dev: torch.device, seed: int, b_: dict[str, Any]) -> torch.Generator:
    """The Mamba2 verify's inputs into ``b_``, shared by the harness and the benchmarks: x, dt,
    B, C, A, D, dt_bias, the committed pool, cache_indices (the last ``n_padding`` are -1),
    row_map (``arange(N)``, as SGLang) and the tree's parents (None for a chain); returns the
    CPU generator, to draw the rest of the case from."""
    N, T, H, G, P, DS = case.N, case.T, case.H, case.G, case.P, case.DS
    NT = N * T
    in_dt, st_dt = _DTYPES[case.input_dtype], _DTYPES[case.state_dtype]
    gen = torch.Generator(device=dev).manual_seed(seed)
    cpu_gen = torch.Generator().manual_seed(seed)

    def rnd(*shape: int, dtype: torch.dtype = torch.float32, scale: float = 1.0) -> torch.Tensor:
        return (torch.randn(*shape, generator=gen, device=dev) * scale).to(dtype)

    b_["x"], b_["dt"] = rnd(NT, H, P, dtype=in_dt), rnd(NT, H, dtype=in_dt, scale=case.dt_scale)
    b_["B"], b_["C"] = rnd(NT, G, DS, dtype=in_dt), rnd(NT, G, DS, dtype=in_dt)
    b_["A"] = -torch.exp(torch.log(1 + 15 * torch.rand(H, generator=gen, device=dev)))  # A = -exp(A_log), A_log = log U(1, 16)
    b_["D"], b_["dt_bias"] = rnd(H, dtype=in_dt), rnd(H, dtype=in_dt, scale=0.5)
    b_["pool"] = rnd(case.pool, H, P, DS, dtype=st_dt, scale=0.5)
    slots = torch.randperm(case.pool, generator=cpu_gen)[:N] if case.pool >= N else torch.randint(case.pool, (N,), generator=cpu_gen)
    slots[case.live :] = -1
    b_["cache_indices"] = slots.to(torch.int32).to(dev)
    b_["row_map"] = torch.arange(N, dtype=torch.int32, device=dev)  # SGLang: arange(N) (mamba.py L664-666)
    b_["parents"] = random_parents(N, T, case.K, cpu_gen).to(dev) if case.tree else None
    return cpu_gen


def _run_mamba2(case: Mamba2Case, dev: torch.device, seed: int, res: CaseResult, b_: dict[str, Any]) -> None:
    mamba2_verify, mamba2_verify_reference = ops.MAMBA2_VERIFY.load("kernel"), ops.MAMBA2_VERIFY.load("reference")
    N, T, H, P, DS = case.N, case.T, case.H, case.P, case.DS
    NT, R, Ta = N * T, case.n_scratch, case.T_alloc
    st_dt = _DTYPES[case.state_dtype]
    cpu_gen = mamba2_inputs(case, dev, seed, b_)
    block = H * P * DS
    blocks = R * Ta
    g = cn.guarded_empty((blocks, H, P, DS), st_dt, dev, margin=cn.DEFAULT_MARGIN + case.overflow)
    g_out = cn.guarded_empty((NT, H, P), torch.float32, dev)
    b_["g_scratch"], b_["g_out"] = g, g_out
    b_["pool_snapshot"] = b_["pool"].to("cpu", copy=True)
    # the kernel's view: the buffer's blocks and, after them, the room SGLang's overflow takes
    extra = case.overflow // block
    flat = g.base[g.margin : g.margin + (blocks + extra) * block].view(blocks + extra, H, P, DS)
    s_st = DTYPE_BYTES[case.state_dtype]
    res.bytes_moved = ops.MAMBA2_VERIFY.bytes_moved(case, 0)
    args = (b_["x"], b_["dt"], b_["A"], b_["B"], b_["C"], b_["D"], b_["dt_bias"], b_["pool"], b_["cache_indices"], flat, b_["row_map"], b_["parents"])
    t0 = time.perf_counter()
    mamba2_verify(*args, alloc=(R, Ta), out=g_out.tensor)
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)
    wall = time.perf_counter() - t0

    # canaries: margins, the committed pool, rows and steps the batch does not own
    owned = torch.zeros(blocks, dtype=torch.bool)
    for n in range(case.live):
        owned[n * Ta : n * Ta + min(T, Ta)] = True
    reports = [
        cn.check_margins(g_out, "output margins"),
        cn.check_equal_bits(b_["pool"], b_["pool_snapshot"], "committed pool unchanged"),
        cn.check_poison(g.tensor, ~owned[:, None, None, None].to(dev).expand_as(g.tensor), "scratch rows/steps not owned by the batch"),
        cn.check_poison(g.base[g.margin + g.tensor.numel() :], None, "past the end of intermediate_ssm"),
        cn.check_poison(g.base[: g.margin], None, "before intermediate_ssm"),
    ]
    res.canaries = [r.to_dict() for r in reports]
    res.canaries_intact = cn.all_intact(reports)
    if Ta != T:  # SGLang's pitch is D, the buffer's is T_alloc: the rows no longer line up
        past = reports[3].count
        writes = {((n * T + t) // Ta, n) for n in range(case.live) for t in range(T)}  # (row stored into, request)
        foreign = sorted({r for r, n in writes if r != n and r < R})
        what = "longer than" if Ta < T else "shorter than"
        res.error = (f"silent corruption: D = {T} draft tokens, {what} the {Ta} steps of intermediate_ssm, and SGLang's Mamba2 verify "
                     "(selective_state_update, kernels/ops/mamba/triton_ops/mamba_ssm.py L236-298) stores step t of row r at block "
                     f"r·D + t with no step check: scratch rows {_ranges(foreign) or 'none'} hold other requests' states; "
                     f"{past:,} elements ({past * s_st:,} bytes) written past the end of intermediate_ssm.")
        res.passed = False
        return

    live_ids = list(range(case.live))
    req = live_ids
    if len(live_ids) > case.max_ref_requests:
        req = sorted(int(i) for i in torch.randperm(len(live_ids), generator=cpu_gen)[: case.max_ref_requests])
        res.notes.append(f"reference checked on {len(req)} of {len(live_ids)} live requests")
    view5 = g.tensor.view(R, Ta, H, P, DS)
    cpu_args = [a.cpu() if isinstance(a, torch.Tensor) else a for a in args]
    cpu_args[9] = view5.cpu()
    o_ref, s_ref = mamba2_verify_reference(*cpu_args, requests=req + list(range(case.live, N)))
    tok = torch.tensor([n * T + t for n in req + list(range(case.live, N)) for t in range(T)], dtype=torch.long)
    ma_o, re_o = _rel(g_out.tensor.cpu()[tok], o_ref[tok]) if len(tok) else (0.0, 0.0)
    rows = torch.tensor(req, dtype=torch.long)
    ma_s, re_s = _rel(view5.cpu()[rows, :T], s_ref[rows, :T]) if req else (0.0, 0.0)
    res.max_abs_err, res.rel_err = max(ma_o, ma_s), max(re_o, re_s)
    tol = TOLERANCE[case.state_dtype]
    res.notes.append(f"tolerance ||x - ref|| / ||ref|| < {tol:g} per tensor (output incl. padding rows, scratch states)")
    if dev.type == "cuda":
        res.time_s, res.timing_method = _time(lambda: mamba2_verify(*args, alloc=(R, Ta), out=g_out.tensor, validate=False), dev)
        res.bandwidth_gbs = res.bytes_moved / res.time_s / 1e9 if res.time_s else None
    else:
        res.time_s, res.timing_method = wall, WALL_CLOCK
        res.notes.append("CPU: Triton interpreter, wall clock of one checked call; no bandwidth")
    res.passed = bool(res.rel_err < tol and res.canaries_intact and math.isfinite(res.rel_err))


# ----------------------------------------------------------------------------- gather


def run_gather(case: GatherCase, device: torch.device | str) -> CaseResult:
    """Run one HiSparse speculative gather case; see the module docstring."""
    shapes: dict[str, Any] = {
        "B": case.B, "D": case.D, "top_k": case.top_k, "max_seq": case.max_seq,
        "item_bytes": case.item_bytes, "hit_rate": case.hit_rate, "dup_rate": case.dup_rate,
        "pad_rate": case.pad_rate, "plan_capacity": case.capacity,
        "emulate_sglang_limits": case.emulate_sglang_limits,
    }  # fmt: skip

    def body(dev: torch.device, seed: int, res: CaseResult, bufs: dict[str, Any]) -> None:
        from . import hisparse_gather as hg  # the wrapper and its contract checks

        _run_gather(case, dev, seed, res, bufs, hg, ops.HISPARSE_GATHER.load("reference"))

    return _run_case(case, device, shapes, body)


def _make_selection(case: GatherCase, seq_lens: list[int], gen: torch.Generator) -> torch.Tensor:
    """[B, D, top_k] token picks: distinct within a step, ``dup_rate`` repeats across steps."""
    B, D, K = case.B, case.D, case.top_k
    out = torch.full((B, D, K), -1, dtype=torch.int32)
    for b in range(B):
        L = seq_lens[b]
        prev = torch.empty(0, dtype=torch.long)
        for d in range(D):
            n = min(K, L)
            n_dup = min(round(case.dup_rate * n), int(prev.numel())) if d else 0
            dup = prev[torch.randperm(prev.numel(), generator=gen)[:n_dup]]
            taken = torch.zeros(L, dtype=torch.bool)
            taken[dup] = True
            fresh_pool = (~taken).nonzero().flatten()
            fresh = fresh_pool[torch.randperm(fresh_pool.numel(), generator=gen)[: n - n_dup]]
            pick = torch.cat([dup, fresh])
            pick = pick[torch.randperm(pick.numel(), generator=gen)]
            out[b, d, :n] = pick.to(torch.int32)
            prev = torch.unique(torch.cat([prev, pick]))
        if case.pad_rate > 0:
            pads = torch.rand(D, K, generator=gen) < case.pad_rate
            out[b][pads] = -1
    return out


def gather_inputs(case: GatherCase, seed: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Generator]:
    """The gather's host-side inputs (CPU tensors), shared by the harness and the benchmarks:
    sequence lengths, the per-step top-k selections, free device slots for the worst case
    (every selection a miss) and the device-slot table with ``hit_rate`` of each request's
    selected tokens already resident (all slots distinct across requests); and the generator,
    to draw the rest of the inputs from."""
    B, S, n_sel = case.B, case.max_seq, case.D * case.top_k
    gen = torch.Generator().manual_seed(seed)
    seq = torch.randint(max(1, S // 2), S + 1, (B,), generator=gen)
    toks = _make_selection(case, seq.tolist(), gen)
    perm = torch.randperm(2 * B * n_sel, generator=gen)
    free = perm[: B * n_sel].view(B, n_sel).to(torch.int32)
    spare = perm[B * n_sel :]
    dslot = torch.full((B, S), -1, dtype=torch.int32)
    used = 0
    for b in range(B):
        u = torch.unique(toks[b][toks[b] >= 0].long())
        r = u[torch.rand(u.numel(), generator=gen) < case.hit_rate]
        dslot[b, r] = spare[used : used + r.numel()].to(torch.int32)
        used += r.numel()
    return seq, toks, free, dslot, gen


def _run_gather(
    case: GatherCase,
    dev: torch.device,
    seed: int,
    res: CaseResult,
    bufs: dict[str, Any],
    hg: Any,
    reference: Callable[..., Any],
) -> None:
    B, D, K, S = case.B, case.D, case.top_k, case.max_seq
    n_sel, cap = D * K, case.capacity
    # The plan buffers first: the wrapper's own checks (HSP001, HSP003, HSP002) run on them
    # before anything large is allocated, so a too-small plan is reported cheaply.
    g_src = cn.guarded_empty((B, cap), torch.int64, dev)
    g_dst = cn.guarded_empty((B, cap), torch.int32, dev)
    g_cnt = cn.guarded_empty((B,), torch.int32, dev)
    bufs.update(g_src=g_src, g_dst=g_dst, g_cnt=g_cnt)
    if case.emulate_sglang_limits and not 2 <= D <= 4:
        raise ValueError(hg.HSP001_MESSAGE.format(n=D))
    hg.check_miss_plan(B, D, K, g_src.tensor, g_dst.tensor, g_cnt.tensor)
    if case.emulate_sglang_limits:
        hg.check_sglang_limits(D, K)

    seq, toks, free, dslot, gen = gather_inputs(case, seed)
    n_dev = 2 * B * n_sel
    n_host = B * S
    hloc = torch.randperm(n_host, generator=gen).view(B, S)
    dgen = torch.Generator(device=dev).manual_seed(seed)
    host = torch.randint(0, 256, (n_host, case.item_bytes), generator=dgen, device=dev,
                         dtype=torch.uint8)  # fmt: skip
    g_buf = cn.guarded_empty((n_dev, case.item_bytes), torch.uint8, dev)
    resident_slots = dslot[dslot >= 0].long().to(dev)
    g_buf.tensor[resident_slots] = torch.randint(
        0, 256, (resident_slots.numel(), case.item_bytes), generator=dgen, device=dev,
        dtype=torch.uint8,
    )  # fmt: skip
    g_out = cn.guarded_empty((B, D, K), torch.int32, dev)
    bufs.update(host=host, g_buf=g_buf, g_out=g_out)
    t_toks, t_seq = toks.to(dev), seq.to(torch.int32).to(dev)
    t_dslot, t_hloc, t_free = dslot.to(dev), hloc.to(dev), free.to(dev)
    bufs.update(toks=t_toks, seq=t_seq, dslot=t_dslot, hloc=t_hloc, free=t_free)
    host_before = host.detach().to("cpu", copy=True)  # real copies, also on CPU
    buf_before = g_buf.tensor.detach().to("cpu", copy=True)

    def call(validate: bool = True) -> Any:
        return hg.hisparse_spec_gather(
            t_toks, t_seq, t_dslot, t_hloc, host, g_buf.tensor, t_free,
            g_src.tensor, g_dst.tensor, g_cnt.tensor, g_out.tensor,
            emulate_sglang_limits=case.emulate_sglang_limits, validate=validate,
        )  # fmt: skip

    t0 = time.perf_counter()
    call()
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)
    wall = time.perf_counter() - t0

    ref = reference(toks, seq, dslot, hloc, host_before, buf_before, free)
    cnt = g_cnt.tensor.cpu()
    src, dst = g_src.tensor.cpu(), g_dst.tensor.cpu()
    misses = sum(ref.miss_count)
    plan_ok = cnt.tolist() == ref.miss_count and all(
        src[b, : ref.miss_count[b]].tolist() == ref.miss_src[b]
        and dst[b, : ref.miss_count[b]].tolist() == ref.miss_dst[b]
        for b in range(B)
    )
    out_k = g_out.tensor.cpu()
    bad_out = int((out_k != ref.out_locs).sum())
    res.max_abs_err = (
        float((out_k.long() - ref.out_locs.long()).abs().max()) if out_k.numel() else 0.0
    )
    res.rel_err = bad_out / max(out_k.numel(), 1)
    if not plan_ok:
        res.notes.append("miss plan differs from the reference")
    unused = torch.arange(cap)[None, :] >= cnt.clamp(min=0)[:, None]
    reports = [
        cn.check_margins(g_buf, "device_buffer margins"),
        cn.check_equal_bits(g_buf.tensor.cpu(), ref.device_buffer, "device_buffer == reference"),
        cn.check_equal_bits(host.cpu(), host_before, "host_cache unchanged"),
        cn.check_margins(g_out, "out_locs margins"),
        cn.check_margins(g_src, "miss_src margins"),
        cn.check_margins(g_dst, "miss_dst margins"),
        cn.check_margins(g_cnt, "miss_count margins"),
        cn.check_poison(g_src.tensor.cpu(), unused, "miss_src columns past miss_count"),
        cn.check_poison(g_dst.tensor.cpu(), unused, "miss_dst columns past miss_count"),
    ]
    res.canaries = [r.to_dict() for r in reports]
    res.canaries_intact = cn.all_intact(reports)
    res.bytes_moved = ops.HISPARSE_GATHER.bytes_moved(case, misses)
    res.notes.append(f"{misses} unique misses copied ({case.item_bytes} B items)")
    # the floor where SGLang's data lives: host_cache in pinned host memory, misses over PCIe
    # (this run's host_cache is device memory: the floor is the deployment's, not this copy's)
    floor_s = cases.gather_floor_s(case, misses)
    res.notes.append(f"floor in SGLang's deployment: {cases.gather_host_bytes(case, misses):,} B from pinned host memory over "
                     f"PCIe at a nominal {cases.PCIE_NOMINAL_GBS:g} GB/s = {floor_s * 1e6:.1f} us")
    if dev.type == "cuda":
        res.time_s, res.timing_method = _time(lambda: call(validate=False), dev)
        res.bandwidth_gbs = res.bytes_moved / res.time_s / 1e9 if res.time_s else None
        if res.time_s:
            res.notes.append(f"{floor_s / res.time_s:.0%} of that floor (this run reads device memory, so above 100 % is possible)")
    else:
        res.time_s, res.timing_method = wall, WALL_CLOCK
        res.notes.append("CPU: Triton interpreter, wall clock of one checked call; no bandwidth")
    res.passed = bool(plan_ok and bad_out == 0 and res.canaries_intact)
