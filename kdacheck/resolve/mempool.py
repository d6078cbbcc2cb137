"""The hybrid-state memory solve, as SGLang does it at start-up (static estimate).

SGLang (0.5.19 `srt/mem_cache/kv_cache_configurator.py` `_profile_available_bytes`,
`_handle_max_mamba_cache` L2210, `_calculate_mamba_ratio` L2045, `resolve_max_num_reqs` L2105;
0.5.23 L2990, L3229, L3062, L3119) sizes the mamba/linear-attention state pool like this, per
rank and in GiB (SGLang writes "GB" but divides by 2**30):

    rest    = free_before_load · mem_fraction_static − weights_per_rank − draft_weights_per_rank
    per_req = one request's conv + SSM state, all linear layers of the rank
    D       = --speculative-num-draft-tokens (the resolved D, not D_max)
    ratio   = 1 with --disable-radix-cache, else 3 + tracking slots (extra_buffer: +2 with
              the overlap schedule, +1 lazy or without overlap; no_buffer: +0)

    1. --max-mamba-cache-size M:  K = M // dp; R = min(max(1, MRR // dp), K // ratio)
                                  rest −= per_req · (R + 1) · D          (the intermediates)
    2. --disable-radix-cache:     K = max(1, MRR // dp)                   (0.5.19–0.5.22: MRR // dp)
                                  rest −= per_req · (K + 1) · D
    3. otherwise (auto-fit):      B = rest · r / (1 + r), r = --mamba-full-memory-ratio (0.9)
                                  K = ⌊(B − per_req · (1 + D)) / (per_req · (1 + D / ratio))⌋
                                  R = min(max(1, MRR // dp), K // ratio); rest −= per_req · (R + 1) · D
    K ≤ 0                    → RuntimeError "Not enough GPU memory for hybrid ... state cache"
    rest − (K + 1) · per_req ≤ 0 → ValueError "Loaded weights leave no GPU memory for the KV cache"
    K // ratio < requested R → R is capped (warning); K // ratio ≤ 0 → RuntimeError

The reservation covers the intermediates only when speculative decoding is on, not on a PD
prefill server and not under ReplaySSM-spec on a GDN or KDA model, whose rings are counted instead
(L3262-3330): KDA's per state slot (``extra_per_slot``: K = ⌊(B − ext − per_req) / (per_req + ext)⌋
with ext the ring), GDN's as a fixed request scratch (``fixed_bytes`` = ring · (max(1, MRR // dp) + 1),
K = ⌊(B − fixed − per_req) / per_req⌋); the pool then holds (K + 1) · (per_req + ext) + fixed.

Assumptions kdacheck makes (stated in every message that rests on them): the free memory before
the weights load is the GPU's whole memory (the CUDA context and NCCL buffers make it smaller);
the weights per rank are the model's parameter count × bytes per parameter / (tp · pp) (replicated
embeddings and quantization scales are not counted), and the draft's are estimated
(``memory.draft_weight_bytes``: its config.json, or one MTP layer of the target); the default
``--mem-fraction-static`` follows SGLang's heuristic without the prefill CUDA-graph and DeepEP
reserves; the KV-cache cap on R (``token_capacity // 2``) is not modelled.
"""

from __future__ import annotations

from dataclasses import dataclass

GIB = 1 << 30
MIB = 1 << 20
MAMBA_BASE_RATIO = 3  # MAMBA_CACHE_SIZE_MAX_RUNNING_REQUESTS_RATIO
FULL_MEMORY_RATIO_DEFAULT = 0.9  # --mamba-full-memory-ratio (0.5.20+: fallback=0.9)
ASSUMPTIONS = (
    "assumes the whole GPU memory is free before the weights load, weights per rank = "
    "parameters × bytes per parameter / (tp · pp), the draft's estimated from its config.json or the target's MTP layer"
)


def gib(n: float) -> str:
    return f"{n / GIB:.2f} GiB"


def mamba_ratio(disable_radix: bool, strategy: str, overlap: bool) -> tuple[int, str]:
    """State slots per request (0.5.23 `_calculate_mamba_ratio` L3062; 0.5.19 L2045)."""
    if disable_radix:
        return 1, "1 (--disable-radix-cache)"
    if strategy in ("extra_buffer", "extra_buffer_lazy"):
        extra = 1 if strategy == "extra_buffer_lazy" or not overlap else 2
        how = "lazy" if strategy == "extra_buffer_lazy" else ("overlap schedule" if overlap else "no overlap schedule")
        return MAMBA_BASE_RATIO + extra, f"{MAMBA_BASE_RATIO} + {extra} ({strategy}, {how})"
    return MAMBA_BASE_RATIO, f"{MAMBA_BASE_RATIO} (no_buffer)"


@dataclass(frozen=True)
class MemInputs:
    gpu_bytes: int
    mem_fraction_static: float
    weight_bytes_per_rank: int
    per_req: int  # bytes, one request's state, all linear layers of the rank
    D: int | None  # the resolved draft tokens (None without speculation)
    reserves: bool  # speculative intermediates reserved (spec on, scratch allocated)
    mrr: int | None  # global max running requests (48 under speculation if unset)
    dp: int  # attention DP size
    ratio: int
    full_memory_ratio: float
    max_mamba_cache_size: int | None  # --max-mamba-cache-size
    disable_radix: bool
    clamp_dp: bool  # max(1, MRR // dp) (0.5.23) vs MRR // dp (0.5.19–0.5.22)
    # ReplaySSM-spec's rings (0.5.23 kv_cache_configurator.py L3262-3290): KDA's per state slot, GDN's a
    # fixed request scratch of ring · (max(1, MRR // dp) + 1)
    extra_per_slot: int = 0
    fixed_bytes: int = 0


@dataclass(frozen=True)
class MemSolve:
    branch: str  # "max_mamba_cache_size", "disable_radix_cache" or "auto-fit"
    rest_gib: float  # before the mamba pool
    budget_gib: float | None  # auto-fit only
    max_mamba_cache_size: int
    reserve_bytes: int  # the intermediates
    requested_R: int | None
    R: int | None  # after the cap (None when no MRR applies)
    rest_after_gib: float  # what is left for the KV cache
    failure: str | None  # "mamba" (K ≤ 0), "reqs" (K // ratio ≤ 0), "kv" (nothing left)

    @property
    def capped(self) -> bool:
        return self.requested_R is not None and self.R is not None and self.requested_R > self.R


def solve(x: MemInputs) -> MemSolve:
    rest = (x.gpu_bytes * x.mem_fraction_static - x.weight_bytes_per_rank) / GIB
    per_req = x.per_req
    D = x.D or 0
    requested = None if x.mrr is None else (max(1, x.mrr // x.dp) if x.clamp_dp else x.mrr // x.dp)
    budget = None
    reserve = 0
    R = requested
    if x.max_mamba_cache_size is not None:
        branch = "max_mamba_cache_size"
        K = x.max_mamba_cache_size // x.dp
        if requested is not None:
            R = min(requested, K // x.ratio)
        if x.reserves and R is not None:
            reserve = per_req * (R + 1) * D
    elif x.disable_radix and x.mrr is not None:
        branch = "disable_radix_cache"
        K = max(1, x.mrr // x.dp) if x.clamp_dp else x.mrr // x.dp
        R = K
        if x.reserves:
            reserve = per_req * (K + 1) * D
    else:
        branch = "auto-fit"
        budget = rest * x.full_memory_ratio / (1 + x.full_memory_ratio)
        budget_bytes = budget * GIB
        extra = x.extra_per_slot
        if x.reserves:
            K = int((budget_bytes - per_req * (1 + D) - extra) // (per_req * (1 + D / x.ratio) + extra))
            if requested is not None:
                R = min(requested, K // x.ratio)
                reserve = per_req * (R + 1) * D
        else:
            K = int((budget_bytes - x.fixed_bytes - (per_req + extra)) // (per_req + extra))
            if requested is not None:
                R = min(requested, K // x.ratio)
    rest_after = rest - reserve / GIB
    failure = None
    if K <= 0:
        failure = "mamba"
    else:
        rest_after -= ((K + 1) * (per_req + x.extra_per_slot) + x.fixed_bytes) / GIB
        if R is not None and R <= 0:
            failure = "reqs"
        elif rest_after <= 0:
            failure = "kv"
    return MemSolve(branch, rest, budget, K, max(0, reserve), requested, R, rest_after, failure)


def sglang_mamba_message(s: MemSolve, per_req: int) -> str:
    """SGLang's RuntimeError text, completed with kdacheck's estimate (0.5.23 L3394)."""
    return (
        "Not enough GPU memory for hybrid (mamba/linear-attention) state cache. "
        f"Computed max_mamba_cache_size={s.max_mamba_cache_size} "
        f"(total_rest_memory={s.rest_after_gib:.2f} GB, "
        f"mamba_cache_per_req={per_req / MIB:.2f} MB). "
        "Try: (1) reduce --max-running-requests, "
        "(2) increase --mem-fraction-static, "
        "(3) reduce --speculative-num-draft-tokens, or "
        "(4) use GPUs with more memory."
    )


