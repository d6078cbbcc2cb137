"""The kernel cases of ``kdacheck run``, in plain numbers: no torch, no triton.

Shared by the runner (which plans cases and checks their memory before torch is imported),
the harness (which runs them) and the benchmarks. Dtypes are named (``"float32"``,
``"bfloat16"``). Each case type has three formulas, which its op in ``ops.py`` names: the bytes
one launch moves (``*_bytes_moved``: the bandwidth the harness and the benchmarks report), every
allocation a run makes (``*_bytes_needed``: the memory check) and its work (``*_work``: the
work budget).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from kdacheck.dtypes import DTYPE_BYTES
from kdacheck.messages import FLASHINFER_GDN_MTP_STEPS_MESSAGE, KDA001_MESSAGE

CANARY_MARGIN = 256  # elements each side of a guarded buffer (kernels/canary.py DEFAULT_MARGIN)
# SGLang 0.5.23's HiSparse speculative swap: 2-4 steps (HSP001), top_k >= 1024 and at most 8192
# selections per request (HSP002); hisparse_gather.check_sglang_limits raises them
HISPARSE_STEPS = (2, 4)
HISPARSE_MIN_TOP_K = 1024
HISPARSE_MAX_SELECTIONS = 8192


def _pow2(n: int) -> int:
    """The smallest power of two >= n (``triton.next_power_of_2``)."""
    return 1 << max(0, n - 1).bit_length()


class _Rows:
    """The scratch rows and pool slots a verify case allocates, defaults from its batch: N + 1
    rows (row N absorbs padding, as SGLang's R + 1) and N + 2 slots; its live requests."""

    N: int
    N_scratch: int | None
    pool_size: int | None
    n_padding: int

    @property
    def live(self) -> int:
        """Requests that are not padding (the last ``n_padding`` are)."""
        return self.N - min(max(self.n_padding, 0), self.N)

    @property
    def n_scratch(self) -> int:
        return self.N_scratch if self.N_scratch is not None else self.N + 1

    @property
    def pool(self) -> int:
        return self.pool_size if self.pool_size is not None else self.N + 2


class Gate(str, enum.Enum):
    """The verify kernel's gate: KDA's per key channel or GDN's per head (``HEAD_GATE``)."""

    CHANNEL = "channel"  # KDA: a[T, HV, K], dt_bias[HV·K]
    HEAD = "head"  # GDN: a[T, HV], dt_bias[HV]


@dataclass
class VerifyCase(_Rows):
    """One KDA verify launch. ``K`` > 1 with ``tree`` builds random valid parents (each node
    has at most ``K`` children). ``n_padding``: the last requests are padding rows
    (``cache_indices == -1``). ``row_map``: explicit scratch rows (default ``arange(N)``).
    ``gate``: ``Gate.CHANNEL`` for KDA (a gate logit per key channel, ``a[T, HV, K]``, ``dt_bias[HV·K]``)
    or ``Gate.HEAD`` for GDN (one per head, ``a[T, HV]``, ``dt_bias[HV]``, as SGLang 0.5.23's
    ``fused_sigmoid_gating_delta_rule_update`` with ``is_kda=False``): the kernel's ``HEAD_GATE`` mode
    (its value, ``"channel"`` or ``"head"``, is accepted too and stored as the member).
    ``gate_scale`` scales the gate logits (a large scale exercises softplus's linear branch)."""

    N: int = 4
    T: int = 4
    T_alloc: int = 4
    N_scratch: int | None = None  # default N + 1 (row N absorbs padding, as in SGLang)
    H: int = 2
    HV: int = 4
    Kd: int = 32
    Vd: int = 32
    pool_size: int | None = None  # default N + 2
    state_dtype: str = "float32"
    input_dtype: str = "bfloat16"
    tree: bool = False
    K: int = 1
    row_map: list[int] | None = None
    flashinfer_compat: bool = False
    n_padding: int = 0
    seed: int | None = None
    max_ref_requests: int = 8
    block_v: int | None = None
    gate: Gate = Gate.CHANNEL
    gate_scale: float = 1.0
    step_guard: bool = True  # False: SGLang's Triton/nv_cutedsl verify, no step-count check
    refusal: str | None = None  # what SGLang (or the library it calls) raises before this launch
    step_text: str | None = None  # the step check's text when not the gate's default (step_message)

    def __post_init__(self) -> None:
        self.gate = Gate(self.gate)  # "head" given as its value: the member


    @property
    def programs_per_head(self) -> int:
        """The kernel's programs per (request, head): ``Vd`` over its tile's rows, ``block_v`` or
        ``kda_verify.verify_blocks``'s default (which stays there: its source is hashed for the
        recorded register table; tests/kernels/test_ops.py checks the two agree)."""
        bk = _pow2(self.Kd)
        bv = _pow2(self.block_v) if self.block_v else min(_pow2(self.Vd), max(16, 2048 // bk))
        return -(-self.Vd // bv)

    @property
    def rows(self) -> list[int]:
        """Each request's scratch row: ``row_map`` or SGLang's ``arange(N)``."""
        return list(self.row_map[: self.N]) if self.row_map is not None else list(range(self.N))

    @property
    def unguarded(self) -> bool:
        """SGLang's Triton verify: no step or row check, every store where its address lands."""
        return not (self.step_guard or self.flashinfer_compat)

    @property
    def overflow(self) -> int:
        """Elements a launch stores past the scratch's end, which the harness's guarded buffer
        must hold: step t of row r is state r·T_alloc + t, unchecked by SGLang's Triton verify
        and by FlashInfer's KDA kernel alike (kda_flashinfer.py L317-335: row·steps + step), so
        a row past ``N_scratch`` (a padding request's missing discard row) lands past the end;
        steps past ``T_alloc`` too, where no step check refuses the launch first."""
        if not self.rows or (not self.unguarded and self.T_alloc < self.T):
            return 0
        top = max(self.rows) * self.T_alloc + self.T
        return max(0, top - self.n_scratch * self.T_alloc) * self.HV * self.Vd * self.Kd

    @property
    def misaddressed(self) -> bool:
        """A launch whose stores leave their rows: a row past ``N_scratch``, or steps past
        ``T_alloc`` unchecked (what the harness reports as SGLang's silent corruption)."""
        return (self.unguarded and self.T_alloc < self.T) or max(self.rows, default=-1) >= self.n_scratch

    @property
    def step_message(self) -> str:
        """The step check's text, the verify's own: KDA's FlashInfer verify raises KDA001
        (SGLang 0.5.23 ``kda_flashinfer.py``); GDN's FlashInfer verify raises nothing itself
        (``gdn_flashinfer.py``) and FlashInfer 0.7.2, which SGLang 0.5.23 pins, asserts
        (``flashinfer/gdn_decode.py`` ``gated_delta_rule_mtp`` L1352)."""
        if self.step_text is not None:
            return self.step_text
        return FLASHINFER_GDN_MTP_STEPS_MESSAGE if self.gate is Gate.HEAD else KDA001_MESSAGE


@dataclass
class GatherCase:
    """One HiSparse speculative gather. ``hit_rate``: share of selected unique tokens already
    resident; ``dup_rate``: share of each later step's picks repeating earlier steps' tokens;
    ``pad_rate``: share of selections that are ``-1`` pads; ``plan_capacity``: columns of
    miss_src/miss_dst (default ``D * top_k``)."""

    B: int = 2
    D: int = 2
    top_k: int = 1024
    max_seq: int = 4096
    item_bytes: int = 656
    hit_rate: float = 0.5
    dup_rate: float = 0.3
    pad_rate: float = 0.02
    plan_capacity: int | None = None
    emulate_sglang_limits: bool = True
    seed: int | None = None

    @property
    def capacity(self) -> int:
        return self.plan_capacity if self.plan_capacity is not None else self.D * self.top_k

    @property
    def refused(self) -> bool:
        """Whether the wrapper refuses the launch before the caches are allocated: SGLang's
        limits when emulated (HSP001, HSP002), or a miss plan narrower than ``D·top_k`` (HSP003)."""
        sglang = HISPARSE_STEPS[0] <= self.D <= HISPARSE_STEPS[1] and self.top_k >= HISPARSE_MIN_TOP_K \
            and self.D * self.top_k <= HISPARSE_MAX_SELECTIONS
        return (self.emulate_sglang_limits and not sglang) or self.capacity < self.D * self.top_k


@dataclass
class Mamba2Case(_Rows):
    """One Mamba2 verify launch (SGLang's ``selective_state_update`` over the draft tokens):
    ``H`` heads of ``P`` × ``DS`` state in ``G`` groups. ``n_padding``: the last requests are
    CUDA-graph padding (cache index -1: computed from a zero state, no scratch store).
    ``dt_scale`` scales the dt logits (a large scale exercises softplus's linear branch).
    SGLang checks no step count, so ``T > T_alloc`` is always launched unguarded into a
    buffer with room for what it writes past the end (``overflow``)."""

    N: int = 4
    T: int = 4
    T_alloc: int = 4
    N_scratch: int | None = None  # default N + 1
    H: int = 4
    G: int = 2
    P: int = 16
    DS: int = 32
    pool_size: int | None = None  # default N + 2
    state_dtype: str = "float32"
    input_dtype: str = "bfloat16"
    tree: bool = False
    K: int = 1
    n_padding: int = 0
    seed: int | None = None
    max_ref_requests: int = 8
    dt_scale: float = 1.0

    @property
    def overflow(self) -> int:
        """Elements SGLang's addressing (``row·T + t`` blocks, cache_steps = T) stores past
        the ``N_scratch·T_alloc`` blocks of the buffer (rows ``arange(N)``)."""
        return max(0, self.live * self.T - self.n_scratch * self.T_alloc) * self.H * self.P * self.DS


# ----------------------------------------------------------------------------- bytes moved
# What one launch must read and write, the numerator of the bandwidth ``kdacheck run`` and the
# benchmarks report. ``misses``: the gather's unique misses, known once its plan has run (the
# verify formulas take it for one signature and ignore it).


def verify_bytes_moved(case: VerifyCase, misses: int = 0) -> int:
    """Each live request's committed state read once; every request's T states written (a tree
    re-reads T − 1 parent states from scratch), its tokens' inputs (q, k, v, gate, beta) and
    float32 output (a padding request, cache index -1, is computed from a zero state and
    writes its scratch row, as SGLang's verify); the per-head parameters and index vectors."""
    s_st, s_in = DTYPE_BYTES[case.state_dtype], DTYPE_BYTES[case.input_dtype]
    HV, Kd, Vd, T = case.HV, case.Kd, case.Vd, case.T
    state_rw = HV * Vd * Kd * s_st * (case.live + case.N * (T + (T - 1 if case.tree else 0)))
    gate = HV if case.gate is Gate.HEAD else HV * Kd
    inputs = case.N * T * ((2 * case.H * Kd + HV * Vd + gate + HV) * s_in + HV * Vd * 4)
    return int(state_rw + inputs + HV * (1 + Kd) * 4 + case.N * 8)


def mamba2_bytes_moved(case: Mamba2Case, misses: int = 0) -> int:
    """Each live request's state read once and its T states written (a tree re-reads T − 1),
    every token's inputs (x, dt, B, C) and its float32 output."""
    s_st, s_in = DTYPE_BYTES[case.state_dtype], DTYPE_BYTES[case.input_dtype]
    T, H, P, DS, G = case.T, case.H, case.P, case.DS, case.G
    NT = case.N * T
    block = H * P * DS
    return int(case.live * block * s_st * (1 + T + (T - 1 if case.tree else 0)) + NT * (H * P + H + 2 * G * DS) * s_in + NT * H * P * 4)


def gather_bytes_moved(case: GatherCase, misses: int = 0) -> int:
    """Each unique miss's item read and written, the plan and metadata: the picks, slot lookups
    and out_locs (4 B each per selection), host_loc, miss_src and miss_dst per miss, and B·8."""
    n_sel = case.D * case.top_k
    meta = case.B * n_sel * (4 + 4 + 4) + misses * (8 + 8 + 4 + 4) + case.B * 8
    return int(meta + 2 * misses * case.item_bytes)


# ----------------------------------------------------------------------------- floors
# Where SGLang's data lives: HiSparse's host_cache is pinned, registered host memory (0.5.23
# srt/managers/hisparse_coordinator.py L618 builds MLATokenToKVPoolHost, pin_memory=True by
# default: srt/mem_cache/pool_host/mla.py L106), so every miss crosses the host link once;
# only the destination write and the plan touch device memory.
PCIE_NOMINAL_GBS = 64.0  # PCIe Gen5 x16, one direction (H100/H200 SXM): the run report's figure
HBM_NOMINAL_GBS = 4800.0  # H200 HBM3e; benchmarks/kernels.py measures both links instead


def gather_host_bytes(case: GatherCase, misses: int) -> int:
    """Bytes the gather reads from pinned host memory: one item per unique miss."""
    return int(misses * case.item_bytes)


def gather_floor_s(case: GatherCase, misses: int, pcie_gbs: float = PCIE_NOMINAL_GBS,
                   hbm_gbs: float = HBM_NOMINAL_GBS) -> float:
    """The gather's floor where its data lives: the misses' items over the host link, or the
    device-side bytes (the items written, the plan and metadata: ``gather_bytes_moved`` less
    the host reads) over device memory, whichever is longer (the two overlap)."""
    host = gather_host_bytes(case, misses)
    device = gather_bytes_moved(case, misses) - host
    return max(host / (pcie_gbs * 1e9), device / (hbm_gbs * 1e9))


# ----------------------------------------------------------------------------- bytes needed


def mamba2_bytes_needed(case: Mamba2Case) -> int:
    s_in, s_st = DTYPE_BYTES[case.input_dtype], DTYPE_BYTES[case.state_dtype]
    NT, H, P, DS, G = case.N * case.T, case.H, case.P, case.DS, case.G
    m = 2 * CANARY_MARGIN
    inputs = NT * (H * P + H + 2 * G * DS) * s_in + 4 * H * 4
    pool = case.pool * H * P * DS * s_st
    scratch = (case.n_scratch * case.T_alloc * H * P * DS + m + 2 * case.overflow) * s_st
    out = (NT * H * P + m) * 4
    ref = pool + 2 * scratch + NT * H * P * 8 + inputs * 8 // max(s_in, 1) + scratch  # clones, float64, canary masks
    return inputs + case.N * 4 * (2 + (case.T if case.tree else 0)) + pool + scratch + out + ref


def verify_bytes_needed(case: VerifyCase) -> int:
    s_in = DTYPE_BYTES[case.input_dtype]
    s_st = DTYPE_BYTES[case.state_dtype]
    NT, HV, Kd, Vd = case.N * case.T, case.HV, case.Kd, case.Vd
    m = 2 * CANARY_MARGIN
    inputs = NT * (2 * case.H * Kd + HV * Vd + HV * Kd + HV) * s_in + HV * (1 + Kd) * 4
    index = case.N * 4 * (2 + (case.T if case.tree else 0))
    pool = case.pool * HV * Vd * Kd * s_st
    scratch = (case.n_scratch * case.T_alloc * HV * Vd * Kd + m + 2 * case.overflow) * s_st
    out = (NT * HV * Vd + m) * 4
    # reference copies (CPU): pool snapshot, scratch clone, float64 output and float64 inputs
    ref = pool + 2 * scratch + NT * HV * Vd * 8 + inputs * 8 // max(s_in, 1)
    # canary temporaries: boolean comparisons over the scratch and the output
    ref += case.n_scratch * case.T_alloc * HV * Vd * Kd + NT * HV * Vd
    return inputs + index + pool + scratch + out + ref


def gather_bytes_needed(case: GatherCase) -> int:
    B, n_sel, cap = case.B, case.D * case.top_k, case.capacity
    m = 2 * CANARY_MARGIN
    n_dev = 2 * B * n_sel
    n_host = B * case.max_seq
    tables = B * case.max_seq * (4 + 8 + 4)  # device_slot, host_loc, marker workspace
    meta = B * n_sel * 4 * 3 + B * 8 + (B * cap + m) * (8 + 4) + (B + m) * 4 + B * n_sel * 4
    caches = n_host * case.item_bytes + (n_dev * case.item_bytes + m)
    ref = n_host * case.item_bytes + 2 * n_dev * case.item_bytes + B * n_sel * 8  # CPU copies
    return tables + meta + caches + ref


AnyCase = VerifyCase | Mamba2Case | GatherCase


# ----------------------------------------------------------------------------- work


# Cost model of one case in CPU seconds (time.process_time: the interpreter and the reference
# run in-process, so a loaded machine's wall time is longer, its CPU time is not), calibrated
# by benchmarks/work_estimate.py (2-core x86-64, Python 3.11, torch 2.13 on one thread, Triton
# 3.9 interpreter; docs/performance.md "kdacheck run work budget"). The interpreter's cost is
# per program and token (each op a numpy call on the program's tile), nearly independent of
# the tile's size: 5.4-6.4 ms a KDA program-step from 32 x 32 to 256 x 256 states.
KDA_S_PER_PROGRAM_STEP = 6.0e-3  # the KDA/GDN verify kernel: one program (a head's tile), one token
MAMBA2_S_PER_PROGRAM_STEP = 4.2e-3  # the Mamba2 verify kernel: one program (a whole head), one token
REFERENCE_S_PER_STATE_UPDATE = 5e-9  # the float64 reference (CPU torch, one thread) on its subsample
CASE_S = 0.08  # a case's fixed cost: seeds, index vectors, the plan buffers, the result
CASE_S_PER_BYTE = 2e-9  # drawing, copying and canary-checking the case's buffers (bytes_needed)
GATHER_S_PER_SELECTION_CPU = 240e-6  # interpreter plan + copy kernels, the reference loop, the inputs
GATHER_S_PER_SELECTION_GPU = 2e-6  # the reference's Python loop over every selection
GPU_S_PER_STATE_UPDATE = 1e-11  # the verify kernel on a GPU (bandwidth-bound; generous)


@dataclass(frozen=True)
class Work:
    """Estimated work of one case: units counted exactly, seconds from the cost model."""

    what: str
    units: int
    unit: str
    seconds: float


def _state_work(case: VerifyCase | Mamba2Case, per_request: int, kernel_cpu_s: float, bytes_needed: int, on_cpu: bool) -> list[Work]:
    """A verify kernel's state-element updates and its reference's, on its subsample. The
    kernel is priced by its interpreter time (``kernel_cpu_s``) on the CPU, by its updates on a
    GPU; the reference's part includes the case's fixed cost and its buffers' (the check)."""
    kernel = case.N * per_request
    ref = min(case.N - case.n_padding, case.max_ref_requests) * per_request
    check = ref * REFERENCE_S_PER_STATE_UPDATE + CASE_S + bytes_needed * CASE_S_PER_BYTE
    return [
        Work("verify kernel", kernel, "state-element updates", kernel_cpu_s if on_cpu else kernel * GPU_S_PER_STATE_UPDATE),
        Work("float64 reference", ref, "state-element updates", check),
    ]


def verify_work(case: VerifyCase, on_cpu: bool) -> list[Work]:
    """The KDA/GDN verify kernel and its reference, counted before anything is allocated."""
    program_steps = case.N * case.T * case.HV * case.programs_per_head
    return _state_work(case, case.T * case.HV * case.Kd * case.Vd, program_steps * KDA_S_PER_PROGRAM_STEP,
                       verify_bytes_needed(case), on_cpu)


def mamba2_work(case: Mamba2Case, on_cpu: bool) -> list[Work]:
    """The Mamba2 verify kernel and its reference, counted before anything is allocated (in
    the interpreter one program per request and head: ``mamba2_verify``'s CPU grid)."""
    program_steps = case.N * case.T * case.H
    return _state_work(case, case.T * case.H * case.P * case.DS, program_steps * MAMBA2_S_PER_PROGRAM_STEP,
                       mamba2_bytes_needed(case), on_cpu)


def gather_work(case: GatherCase, on_cpu: bool) -> list[Work]:
    """The gather with its reference: interpreter plan and copy kernels, the reference's loop;
    a case the wrapper refuses before allocating (``GatherCase.refused``) costs its fixed part."""
    selections = case.B * case.D * case.top_k
    rate = GATHER_S_PER_SELECTION_CPU if on_cpu else GATHER_S_PER_SELECTION_GPU
    return [Work("gather and its reference", selections, "selections", CASE_S if case.refused else selections * rate)]
