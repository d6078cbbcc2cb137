"""HSP: HiSparse (hierarchical sparse attention) for DSA models, with speculative decoding.

In the speculative HiSparse path the step count is D (the verify width, draft tokens per
request), not --speculative-num-steps: ``top_k_tokens`` is ``[batch, D, top_k]`` and the model
runner hands the coordinator ``num_draft_tokens = speculative_num_draft_tokens`` (0.5.23
``srt/model_executor/model_runner.py:1029-1058``). ``top_k`` is the model's ``index_topk`` (2048
for DeepSeek-V3.2 and GLM-5), else ``--hisparse-config`` ``top_k`` (default 2048).
"""

from __future__ import annotations

from collections.abc import Iterator

from kdacheck import architectures, versions
from kdacheck.findings import Severity
from kdacheck.messages import (
    DSA_DCP_HICACHE_MESSAGE,
    DSA_DCP_PD_MESSAGE,
    DSA_DCP_TOPK_MESSAGE,
    HSP001_INIT_MESSAGE,
    HSP001_MESSAGE,
    HSP002_INIT_MESSAGE,
    HSP002_OCC_MESSAGE,
    HSP002_TOPK_MESSAGE,
    HSP003_MESSAGE,
    HSP007_ADAPTIVE_MESSAGE,
    HSP007_TOPK_MESSAGE,
)
from kdacheck.models import Family
from kdacheck.resolve import Resolved
from kdacheck.rules.base import Consequence, Hit, rule, unchecked

SERVER_SPEC_SWAP = versions.HISPARSE_SPECULATIVE_SWAP_IN  # first version whose server calls the speculative kernel
MAX_OCCURRENCES = 8192
KV_DTYPES = ("bfloat16", "auto", "fp8_e4m3")
BACKENDS_BY_DTYPE = {"bfloat16": {"flashmla_sparse"}, "fp8_e4m3": {"flashmla_kv", "flashinfer_sparse_mla"}}
ALL_BACKENDS = {"flashmla_sparse", "flashmla_kv", "flashinfer_sparse_mla"}
ROCM_BACKENDS = {"tilelang", "triton", "aiter"}  # hisparse_hook.py L22 HISPARSE_ROCM_DSA_BACKENDS, any KV dtype


def _spec_hisparse(cfg: Resolved) -> bool:
    return bool(cfg.v("enable_hisparse")) and bool(cfg.v("spec_on"))


def _server_swaps(cfg: Resolved) -> bool:
    return cfg.at_least(SERVER_SPEC_SWAP)


def _old_note(cfg: Resolved) -> str:
    return (
        f" SGLang {cfg.version} does not call the speculative swap kernel (HiSparse with speculative decoding "
        "swaps synchronously), so this launch starts; it fails from 0.5.22, where the coordinator calls it"
    )


def _steps_fix(cfg: Resolved, d_max: int) -> str:
    s = d_max - 1
    return f"--speculative-num-steps {s} --speculative-eagle-topk 1 --speculative-num-draft-tokens {d_max}"


@rule(
    "HSP001", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="hisparse-draft-width",
    summary="HiSparse speculative swap: 2 ≤ D ≤ 4",
    what="""
        The speculative swap kernel gathers the top-k KV entries of every draft token of every
        request: `top_k_tokens` is `[batch, D, top_k]` with `D` = `--speculative-num-draft-tokens`
        (the verify width, not `--speculative-num-steps`). It supports 2 to 4 steps.
    """,
    why="""
        From 0.5.22 SGLang refuses at start-up (the coordinator's `HiSparseSpecSwapManager`:
        "HiSparse spec swap requires 2-4 draft tokens and top_k >= 1024."); the kernel wrapper
        raises the message below on any call. In 0.5.19–0.5.21 the server never calls the
        speculative kernel, so the finding is a warning there (it breaks on upgrade).
    """,
    fix="Use a linear draft of at most 3 steps: `--speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4`.",
    sglang_message=HSP001_MESSAGE + "\n\n(0.5.22+, at start-up) " + HSP001_INIT_MESSAGE,
    example="kdacheck lint --cmd 'python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 --enable-hisparse --disable-radix-cache --speculative-algorithm EAGLE --speculative-num-steps 4 --speculative-eagle-topk 1 --speculative-num-draft-tokens 5'",
    sources=(
        "0.5.19–0.5.23 `kernels/ops/kvcache/hisparse.py:71` `load_cache_to_device_buffer_spec_mla` (raise L96-97)",
        "0.5.22/0.5.23 `srt/managers/hisparse_coordinator.py:178-181` `HiSparseSpecSwapManager.__init__`",
        "0.5.23 `srt/model_executor/model_runner.py:1029-1058` `maybe_init_hisparse_coordinator` (num_draft_tokens = D)",
    ),
    changes=("0.5.19–0.5.21: kernel check only, no server caller (warning); 0.5.22+: start-up ValueError (error)",),
)
def hsp001(cfg: Resolved) -> Iterator[Hit]:
    if not _spec_hisparse(cfg):
        return
    D = cfg.v("draft_tokens")
    if D is None or 2 <= D <= 4:
        return
    msg = HSP001_MESSAGE.format(n=D) + f" (D = {D} draft tokens per request)"
    sev = None
    if _server_swaps(cfg):
        msg += f"; SGLang {cfg.version} stops at start-up: {HSP001_INIT_MESSAGE}"
    else:
        msg += "." + _old_note(cfg)
        sev = Severity.WARNING
    fix = _steps_fix(cfg, 4) if D > 4 else _steps_fix(cfg, 2)
    yield Hit(msg, fix, values=("draft_tokens", "steps", "topk"), severity=sev)


@rule(
    "HSP002", Severity.ERROR,
    consequence=Consequence.FAILS_TO_COMPILE,
    name="hisparse-top-k-bounds",
    summary="HiSparse speculative swap: top_k ≥ 1024 and D · top_k ≤ 8192",
    what="""
        The JIT kernel is compiled for `NUM_STEPS = D` and `NUM_TOP_K = top_k` and holds every
        occurrence of one request in shared memory: `top_k ≥ 1024` and `D · top_k ≤ 8192`. With
        the DSA models' `index_topk` 2048 that is `D ≤ 4`.
    """,
    why="""
        A `static_assert` stops the kernel's compilation at its first use; from 0.5.22 the
        coordinator checks the same bounds at start-up (ValueError).
    """,
    fix="Lower `--speculative-num-draft-tokens` to `8192 // top_k` (4 at top_k 2048).",
    sglang_message=(
        f"{HSP002_TOPK_MESSAGE}\n{HSP002_OCC_MESSAGE}\n\n(0.5.22+, at start-up) {HSP001_INIT_MESSAGE} / {HSP002_INIT_MESSAGE}"
    ),
    example="kdacheck lint --cmd 'python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 --enable-hisparse --disable-radix-cache --speculative-algorithm EAGLE --speculative-num-steps 4 --speculative-eagle-topk 1 --speculative-num-draft-tokens 5'",
    sources=(
        "0.5.19–0.5.23 `jit_kernel/csrc/kvcacheio/hisparse_spec.cuh:960-962` (static_assert)",
        "0.5.22/0.5.23 `srt/managers/hisparse_coordinator.py:178-184` `HiSparseSpecSwapManager.__init__`",
    ),
    changes=("0.5.19–0.5.21: kernel only, no server caller (warning); 0.5.22+: start-up ValueError (error)",),
)
def hsp002(cfg: Resolved) -> Iterator[Hit]:
    if not _spec_hisparse(cfg):
        return
    D, top_k = cfg.v("draft_tokens"), cfg.v("hisparse_top_k")
    if D is None or not isinstance(top_k, int):
        return
    sev = None if _server_swaps(cfg) else Severity.WARNING
    tail = (f"; SGLang {cfg.version} stops at start-up" if _server_swaps(cfg) else "." + _old_note(cfg))
    if top_k < 1024:
        yield Hit(f"{HSP002_TOPK_MESSAGE} (top_k = {top_k}){tail}",
                  "a top_k of at least 1024 (the model's index_topk wins over --hisparse-config top_k)",
                  values=("hisparse_top_k",), severity=sev)
    if D * top_k > MAX_OCCURRENCES:
        d_ok = MAX_OCCURRENCES // top_k
        yield Hit(
            f"{HSP002_OCC_MESSAGE} (D {D} × top_k {top_k} = {D * top_k}){tail}",
            _steps_fix(cfg, d_ok) if d_ok >= 2 else "speculative decoding cannot be combined with HiSparse at this top_k",
            values=("draft_tokens", "hisparse_top_k"), severity=sev,
        )


@rule(
    "HSP003", Severity.ERROR,
    consequence=Consequence.CRASHES_AT_GATHER,
    name="miss-plan-capacity",
    summary="the miss plan holds every speculative token of every step missing (D · top_k columns)",
    what="""
        The speculative swap kernel takes an optional miss plan: `miss_src` (int64) and `miss_dst`
        (int32) `[batch, ≥ D · top_k]`, `miss_count` (int32) `[batch]`, equal row strides, all
        three or none. The plan must hold the worst case, every top-k entry of every draft token
        missing from the device buffer. From 0.5.22 SGLang's coordinator sizes it
        `top_k · max(1, D)` per request slot, which always suffices; before 0.5.22 its plan is
        single-step (`top_k`) but nothing in the server calls the speculative kernel. For a
        launch configuration kdacheck therefore reports the plan's capacity and bytes (info); it is
        an error when a plan capacity is given (`kdacheck run --plan-capacity`) below `D · top_k`.
    """,
    why="""
        A plan sized for one step handed to the multi-step kernel is rejected with a ValueError
        (the check exists since 0.5.19); without that check the kernel would write past the plan.
    """,
    fix="Size the plan `top_k · D` columns per request (8192 at top_k 2048 and D 4).",
    sglang_message=HSP003_MESSAGE,
    example="kdacheck run --args examples/deepseek-v32-hisparse-eagle.yaml --plan-capacity 2048",
    sources=(
        "0.5.19–0.5.23 `kernels/ops/kvcache/hisparse.py:100-134` (raise L122), `load_cache_to_device_buffer_spec_mla`",
        "0.5.22/0.5.23 `srt/managers/hisparse_coordinator.py:252-253` `miss_plan_capacity`; 0.5.23 L782-795 (allocation), L509 (the call)",
        "0.5.19 `srt/managers/hisparse_coordinator.py:301-306` (single-step plan `(max_num_req_slots, top_k)`)",
    ),
    changes=(
        "0.5.19–0.5.21: the kernel checks the plan, the server never calls it (single-step plan)",
        "0.5.22+: the coordinator calls it with a plan of top_k · max(1, D) columns",
    ),
)
def hsp003(cfg: Resolved) -> Iterator[Hit]:
    if not _spec_hisparse(cfg):
        return
    D, top_k = cfg.v("draft_tokens"), cfg.v("hisparse_top_k")
    if D is None or not isinstance(top_k, int):
        return
    need = D * top_k
    given = cfg.options.plan_capacity
    cap = int(given) if given is not None else cfg.v("plan_capacity")
    if cap is None:
        return
    vals = ("plan_capacity", "plan_bytes", "draft_tokens", "hisparse_top_k", "R")
    if given is not None and cap < need:
        yield Hit(
            HSP003_MESSAGE.format(plan_capacity=cap) + f" (the plan given has {cap} columns; D {D} × top_k {top_k} = {need} needed)",
            f"size the plan {need} columns per request (top_k {top_k} × D {D})", values=vals,
        )
        return
    R = cfg.v("R")
    slots = f" × {R + 1} request slots = {(R + 1) * (cap * 12 + 4):,} bytes" if isinstance(R, int) else ""
    if cap >= need:
        msg = (
            f"HiSparse miss plan: capacity {cap} per request (top_k {top_k} × D {D}) ≥ steps × top_k = {need}: holds; "
            f"miss_src int64 + miss_dst int32 + miss_count int32 = {cap * 12 + 4:,} bytes per request slot{slots}"
        )
    else:
        msg = (
            f"HiSparse miss plan: SGLang {cfg.version} sizes it for one step (capacity {cap} = top_k) and never hands it to the "
            f"speculative kernel (synchronous swap), so the launch is unaffected; a caller that passed it for D {D} would get: "
            + HSP003_MESSAGE.format(plan_capacity=cap)
        )
    yield Hit(msg, None, values=vals, severity=Severity.INFO)


@rule(
    "HSP004", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="hisparse-buffer-bounds",
    summary="HiSparse hot buffer and swap-in block within bounds",
    what="""
        `--hisparse-config`: `device_buffer_size ≥ top_k` (the config's `top_k`, checked when the
        config is parsed, and the model's `index_topk`, asserted by the decode kernel),
        `swap_in_block_size` an integer in [1, 1024]; the speculative kernel (0.5.22+ with
        speculative decoding) needs `1 < device_buffer_size ≤ 32768`. Defaults: top_k 2048,
        device_buffer_size 2 · top_k, swap_in_block_size 960.
    """,
    why="ValueError when the config is parsed at start-up, AssertionError in the decode kernel, or a `static_assert` when the speculative kernel compiles.",
    fix="Raise `device_buffer_size` to at least `top_k` (and at most 32768), keep `swap_in_block_size` in [1, 1024].",
    sglang_message="""
        device_buffer_size ({device_buffer_size}) must be no smaller than top_k ({top_k})
        hot_buffer_size ({hot_buffer_size}) must be >= num_top_k ({num_top_k})
        swap_in_block_size must be an integer, got {swap_in_block_size!r}
        swap_in_block_size ({swap_in_block_size}) must be in the range [1, 1024]
        speculative hot buffer must contain at least two slots.
        speculative CLOCK cursor requires hot_buffer_size <= 32768.
    """,
    example="""python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 --enable-hisparse --disable-radix-cache --hisparse-config '{"device_buffer_size": 1024}'""",
    sources=(
        "0.5.19–0.5.23 `srt/mem_cache/sparsity/factory.py:62-112` `_parse_sparse_config`",
        "0.5.21+ `kernels/ops/kvcache/hisparse.py:302` (0.5.19 L297): decode-kernel assert",
        "0.5.19–0.5.23 `jit_kernel/csrc/kvcacheio/hisparse_spec.cuh:73-74` (static_assert)",
    ),
    changes=("the parse-time checks compare with the config's top_k, not the model's index_topk (all versions)",),
)
def hsp004(cfg: Resolved) -> Iterator[Hit]:
    if not cfg.v("enable_hisparse"):
        return
    dbs, cfg_top_k, top_k = cfg.v("hisparse_device_buffer_size"), cfg.v("hisparse_config_top_k"), cfg.v("hisparse_top_k")
    blk = cfg.v("hisparse_swap_in_block_size")
    if isinstance(dbs, int) and isinstance(cfg_top_k, int) and dbs < cfg_top_k:
        yield Hit(f"device_buffer_size ({dbs}) must be no smaller than top_k ({cfg_top_k})",
                  f'--hisparse-config with "device_buffer_size": {cfg_top_k} or more',
                  values=("hisparse_device_buffer_size", "hisparse_config_top_k"))
    elif isinstance(dbs, int) and isinstance(top_k, int) and dbs < top_k:
        yield Hit(f"hot_buffer_size ({dbs}) must be >= num_top_k ({top_k}) (the model's index_topk {top_k} wins over the "
                  f"config's top_k {cfg_top_k}; the decode kernel asserts at the first decode)",
                  f'--hisparse-config with "device_buffer_size": {top_k} or more',
                  values=("hisparse_device_buffer_size", "hisparse_top_k", "hisparse_config_top_k"))
    if not isinstance(blk, int) or isinstance(blk, bool):
        yield Hit(f"swap_in_block_size must be an integer, got {blk!r}", '"swap_in_block_size": 960 (the default)',
                  values=("hisparse_swap_in_block_size",))
    elif not 1 <= blk <= 1024:
        yield Hit(f"swap_in_block_size ({blk}) must be in the range [1, 1024]", '"swap_in_block_size": 960 (the default) or another value in [1, 1024]',
                  values=("hisparse_swap_in_block_size",))
    if cfg.v("spec_on") and _server_swaps(cfg) and isinstance(dbs, int):
        if dbs <= 1:
            yield Hit("speculative hot buffer must contain at least two slots.", '"device_buffer_size" of at least top_k',
                      values=("hisparse_device_buffer_size",))
        elif dbs > 32768:
            yield Hit(f"speculative CLOCK cursor requires hot_buffer_size <= 32768. (device_buffer_size {dbs})",
                      '"device_buffer_size": 32768 or less', values=("hisparse_device_buffer_size",))


@rule(
    "HSP005", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="hisparse-request-slots",
    summary="HiSparse speculative swap: R + 1 ≤ device_buffer_size, D ≤ page_size − 1, DSA caches only",
    what="""
        From 0.5.22 the coordinator's `HiSparseSpecSwapManager` needs the request slots
        (`R + 1`: the request pool has one padding row) to fit in `device_buffer_size`, the verify
        tokens of a request to fit in the extra page (`D ≤ page_size − 1`; DSA models use page
        size 64), a DSA cache (not DeepSeek-V4), and not XPU. `D` must be constant (HSP007 bans
        `--speculative-adaptive`).
    """,
    why="ValueError at start-up (coordinator init), or at the first verify batch for the page check.",
    fix="Lower `--max-running-requests` below `device_buffer_size`, or raise `device_buffer_size` in `--hisparse-config`.",
    sglang_message="""
        HiSparse spec request capacity must not exceed device_buffer_size.
        HiSparse spec needs {num_draft_tokens} verify slots, but the extra page has only {page_size - 1} usable slots.
        HiSparse spec swap currently supports DSA caches only.
        HiSparse speculative swap is unsupported on XPU.
    """,
    example="""kdacheck lint --cmd 'python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 --enable-hisparse --disable-radix-cache --max-running-requests 4096 --speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4'""",
    sources=(
        "0.5.22/0.5.23 `srt/managers/hisparse_coordinator.py:174-188` `HiSparseSpecSwapManager.__init__`; L325-329 (page check)",
        "0.5.23 `srt/mem_cache/memory_pool.py:399-407` (ReqToTokenPool allocates size + 1 rows)",
    ),
    since=versions.HISPARSE_SPECULATIVE_SWAP_IN,
    inferred="R is the requested max running requests per worker; the KV cache can only lower it (not modelled), so a hit is exact only when the KV cache holds 2·R tokens.",
)
def hsp005(cfg: Resolved) -> Iterator[Hit]:
    if not _spec_hisparse(cfg):
        return
    R, dbs, D, page = cfg.v("R"), cfg.v("hisparse_device_buffer_size"), cfg.v("draft_tokens"), cfg.v("page_size")
    if isinstance(R, int) and isinstance(dbs, int) and dbs < R + 1:
        dp = int(cfg.v("attn_dp_size") or 1)
        yield Hit(f"HiSparse spec request capacity must not exceed device_buffer_size. (R {R} + 1 request slots > device_buffer_size {dbs})",
                  f"--max-running-requests {(dbs - 1) * dp} or less, or \"device_buffer_size\": {R + 1} in --hisparse-config",
                  values=("R", "hisparse_device_buffer_size", "max_running_requests"))
    page_known = "page_size" in cfg and cfg["page_size"].origin in ("user", "model")  # unknown model: not 64 for sure
    if page_known and isinstance(D, int) and isinstance(page, int) and page - 1 < D:
        yield Hit(f"HiSparse spec needs {D} verify slots, but the extra page has only {page - 1} usable slots.",
                  f"--speculative-num-draft-tokens {page - 1} or less", values=("draft_tokens", "page_size"))
    m = cfg.model
    if m is not None and architectures.lookup(m.architecture).hisparse == "v4":
        yield Hit("HiSparse spec swap currently supports DSA caches only.", "turn speculative decoding off with --enable-hisparse on DeepSeek-V4",
                  values=("enable_hisparse", "speculative_algorithm"))


def _model_ok(cfg: Resolved) -> bool | None:
    m = cfg.model
    if m is None:
        return None if cfg.family is None else cfg.family is Family.DSA  # guessed from the name
    support = architectures.lookup(m.architecture).hisparse
    if m.family is Family.DSA or support == "v4":
        return True
    return cfg.at_least(versions.HISPARSE_MINIMAX_M3) and support == "m3"


@rule(
    "HSP006", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="hisparse-prerequisites",
    summary="--enable-hisparse needs a DSA model, --disable-radix-cache, a bf16/fp8_e4m3 KV cache and a matching DSA backend",
    what="""
        `validate_hisparse` (run by `check_server_args` at launch, all five versions): the model is
        a DSA model (DeepSeek-V3.2, GLM-5) or DeepSeek-V4 (0.5.21+: also MiniMax M3);
        `--disable-radix-cache`; (0.5.22+) no `--enable-mixed-chunk`; `--kv-cache-dtype` bfloat16,
        fp8_e4m3 or auto (auto: fp8_e4m3 on SM100+, else bfloat16); a given
        `--dsa-prefill-backend`/`--dsa-decode-backend` must match the KV dtype (bfloat16:
        flashmla_sparse; fp8_e4m3: flashmla_kv, flashinfer_sparse_mla; on ROCm tilelang, triton or
        aiter whatever the dtype). Omitting the backends is fine: SGLang picks one.
    """,
    why="The model class and radix checks are `AssertionError`s; the mixed-chunk, dtype and backend checks are `ValueError`s: SGLang does not start.",
    fix="Add `--disable-radix-cache`; use `--kv-cache-dtype fp8_e4m3` or `bfloat16` with a matching DSA backend (or omit the backend).",
    sglang_message="""
        --enable-hisparse is only supported for DSA (DeepSeek Sparse Attention) models (e.g., DeepSeek V3.2, GLM-5), DeepSeek V4, and MiniMax M3 now.
        Hierarchical sparse attention currently requires --disable-radix-cache.
        --enable-hisparse does not support --enable-mixed-chunk yet.
        HiSparse requires one of ('bfloat16', 'fp8_e4m3') KV cache dtypes, but got --kv-cache-dtype={kv_cache_dtype}. Please use --kv-cache-dtype=bfloat16 or --kv-cache-dtype=fp8_e4m3.
        HiSparse supports DSA {label} backend(s) {allowed} on this platform with --kv-cache-dtype={kv_cache_dtype}, but got --dsa-{label}-backend={backend}. Please use one of {allowed}, or omit the option to let SGLang pick a backend for this platform.
    """,
    example="kdacheck lint --cmd 'python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 --enable-hisparse'",
    sources=(
        "0.5.23 `srt/arg_groups/hisparse_hook.py:87-165` `validate_hisparse` (0.5.19: L79); L22-38 the backends "
        "per platform (`HISPARSE_ROCM_DSA_BACKENDS`, `_hisparse_allowed_backends`)",
        "0.5.23 `srt/arg_groups/overrides.py:1228` `_hisparse_validation`; `validation_hook.py:312` (`check_server_args`)",
        "0.5.23 `srt/arg_groups/overrides.py:490-540` `_dsa_kv_cache_dtype_default` (auto ⇒ fp8_e4m3 on SM100+, else bfloat16)",
    ),
    changes=(
        "0.5.19/0.5.20: DSA or DeepSeek-V4 only; 0.5.21+: also MiniMax M3",
        "0.5.22+: --enable-mixed-chunk rejected",
    ),
    inferred="Read in the source: only the model and radix-cache checks are AssertionErrors; the mixed-chunk, KV dtype and backend checks raise ValueError.",
)
def hsp006(cfg: Resolved) -> Iterator[Hit]:
    if not cfg.v("enable_hisparse") or dsa_dcp_refusals(cfg):
        return  # under DSA DCP SGLang stops at the model override first (HSP008)
    ok = _model_ok(cfg)
    if ok is None:
        yield unchecked("needs the model (a DSA model such as DeepSeek-V3.2 or GLM-5): pass --model or a known --model-path")
    elif not ok:
        extra = ", and MiniMax M3 now. " if cfg.at_least(versions.HISPARSE_MINIMAX_M3) else " now. "
        yield Hit("--enable-hisparse is only supported for DSA (DeepSeek Sparse Attention) models (e.g., DeepSeek V3.2, GLM-5), "
                  f"DeepSeek V4{extra}(model: {cfg.model.architecture if cfg.model else '?'})",
                  "drop --enable-hisparse, or serve a DSA model", values=("enable_hisparse",))
    if not cfg.v("disable_radix_cache"):
        yield Hit("Hierarchical sparse attention currently requires --disable-radix-cache.", "add --disable-radix-cache",
                  values=("enable_hisparse", "disable_radix_cache"))
    if cfg.at_least(versions.HISPARSE_SPECULATIVE_SWAP_IN) and cfg.v("enable_mixed_chunk"):
        yield Hit("--enable-hisparse does not support --enable-mixed-chunk yet.", "drop --enable-mixed-chunk",
                  values=("enable_mixed_chunk", "enable_hisparse"))
    if ok is False:
        return
    rocm = cfg.gpu is not None and cfg.gpu.hip
    support = architectures.lookup(cfg.model.architecture).hisparse if cfg.model is not None else None
    if support == "m3" or (support == "v4" and rocm):
        return  # MiniMax M3 (its own kernels) and DeepSeek-V4 on ROCm stop before the dtype checks (hisparse_hook.py L131-152)
    kv = cfg.v("kv_cache_dtype")
    dtype = cfg.v("dsa_kv_cache_dtype", kv)
    if kv not in KV_DTYPES and not (kv == "bf16" and ok):
        yield Hit(f"HiSparse requires one of ('bfloat16', 'fp8_e4m3') KV cache dtypes, but got --kv-cache-dtype={kv}. "
                  "Please use --kv-cache-dtype=bfloat16 or --kv-cache-dtype=fp8_e4m3.",
                  "--kv-cache-dtype fp8_e4m3 (or bfloat16)", values=("kv_cache_dtype",))
        return
    allowed = ROCM_BACKENDS if rocm else BACKENDS_BY_DTYPE.get(str(dtype), ALL_BACKENDS)
    for name, label in (("dsa_prefill_backend", "prefill"), ("dsa_decode_backend", "decode")):
        backend = cfg.v(name)
        if backend is not None and dtype == "auto" and cfg.gpu is None and any(backend not in b for b in BACKENDS_BY_DTYPE.values()):
            # auto is fp8_e4m3 on SM100+, bfloat16 before: which backends HiSparse accepts depends on the GPU
            yield unchecked(f"needs --gpu: --kv-cache-dtype auto is fp8_e4m3 on SM100+ and bfloat16 before, and HiSparse "
                            f"accepts --dsa-{label}-backend {backend} with only one of them", name, "kv_cache_dtype")
            continue
        if backend is not None and backend not in allowed:
            note = ""
            if kv == "auto" and dtype != "auto":
                note = f" (--kv-cache-dtype auto resolves to {dtype} on this GPU)"
            yield Hit(
                f"HiSparse supports DSA {label} backend(s) {sorted(allowed)} on this platform with --kv-cache-dtype={dtype}, "
                f"but got --dsa-{label}-backend={backend}. Please use one of {sorted(allowed)}, or omit the option to let "
                f"SGLang pick a backend for this platform.{note}",
                f"drop --dsa-{label}-backend (SGLang picks {sorted(allowed)[0]}) or set --kv-cache-dtype to match it",
                values=(name, "kv_cache_dtype", "dsa_kv_cache_dtype"),
            )


@rule(
    "HSP007", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="hisparse-chain-draft",
    summary="HiSparse with speculative decoding: topk 1 and no --speculative-adaptive (0.5.22+)",
    what="""
        From 0.5.22 `validate_hisparse` accepts speculative decoding with HiSparse only as a linear
        draft chain (`--speculative-eagle-topk 1`; NGRAM's derived topk of 10 is rejected too) and
        with a static verify width (no `--speculative-adaptive`).
    """,
    why="ValueError at launch (`check_server_args`).",
    fix="`--speculative-eagle-topk 1` (and `--speculative-num-draft-tokens` = steps + 1); drop `--speculative-adaptive`.",
    sglang_message=HSP007_TOPK_MESSAGE + "\n" + HSP007_ADAPTIVE_MESSAGE,
    example="kdacheck lint --sglang-version 0.5.23 --cmd 'python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 --enable-hisparse --disable-radix-cache --speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 2 --speculative-num-draft-tokens 6'",
    sources=("0.5.22/0.5.23 `srt/arg_groups/hisparse_hook.py:114-127` `validate_hisparse`",),
    since=versions.HISPARSE_SPECULATIVE_SWAP_IN,
)
def hsp007(cfg: Resolved) -> Iterator[Hit]:
    if not _spec_hisparse(cfg) or dsa_dcp_refusals(cfg):
        return  # under DSA DCP SGLang stops at the model override first (HSP008)
    K = cfg.v("topk")
    if (K or 1) != 1:
        S = cfg.v("steps")
        fix = f"--speculative-eagle-topk 1 --speculative-num-draft-tokens {S + 1}" if isinstance(S, int) else "--speculative-eagle-topk 1"
        yield Hit(HSP007_TOPK_MESSAGE + f" (topk {K})", fix, values=("topk", "speculative_algorithm"))
    if cfg.v("adaptive"):
        yield Hit(HSP007_ADAPTIVE_MESSAGE, "drop --speculative-adaptive", values=("adaptive",))


def dsa_dcp_refusals(cfg: Resolved) -> list[tuple[str, str]]:
    """What SGLang's DSA decode-context-parallel override refuses for this launch, in its order:
    (SGLang's message, the flags to change). Empty unless the model is a DSA model (DeepSeek-V3.2,
    GLM-5: ``is_deepseek_dsa``) and ``--dcp-size`` > 1 (0.5.23
    ``srt/arg_groups/model_overrides/deepseek_v2.py`` L18-26, from L99-100; 0.5.22 the same).
    It runs at resolution, before the speculative hook and the HiSparse validation, so their
    refusals (HSP006, HSP007, SPEC004) are not reached."""
    m = cfg.model
    dcp = cfg.user("dcp_size")
    if (not cfg.at_least(versions.DSA_DCP_CHECKS) or m is None or m.family is not Family.DSA
            or not isinstance(dcp, int) or dcp <= 1):
        return []
    if architectures.lookup(m.architecture).launch_hook == "hyv4":
        return []  # HYV4 refuses any --dcp-size > 1 earlier in the same override (MODEL007)
    out = []
    caches = [f"--{n.replace('_', '-')}" for n in ("enable_hisparse", "enable_hierarchical_cache") if cfg.user(n)]
    if caches:
        out.append((DSA_DCP_HICACHE_MESSAGE, "remove " + " and ".join(f"`{c}`" for c in caches)))
    mode = cfg.v("disaggregation_mode")
    if mode not in (None, "null"):
        out.append((DSA_DCP_PD_MESSAGE, f"serve this --disaggregation-mode {mode} role without `--dcp-size`"))
    topk = cfg.user("speculative_eagle_topk")
    if topk not in (None, 1):
        out.append((DSA_DCP_TOPK_MESSAGE, "set `--speculative-eagle-topk 1` (and `--speculative-num-draft-tokens` = steps + 1)"))
    return out


@rule(
    "HSP008", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="dsa-dcp-restrictions",
    summary="DSA decode context parallel (--dcp-size > 1): no HiSparse or HiCache, no PD disaggregation, topk 1",
    what="""
        On a DSA model (DeepSeek-V3.2, GLM-5) `--dcp-size` > 1 makes SGLang's DeepSeek model
        override (0.5.22+) refuse `--enable-hisparse` and `--enable-hierarchical-cache`, a PD
        disaggregation role, and `--speculative-eagle-topk` above 1, at resolution, before
        the HiSparse prerequisites (HSP006, HSP007) or the paged-tree backend check (SPEC004)
        are reached; kdacheck reports this refusal instead of those. All the conflicts are
        named at once, so that the fix leaves nothing for SGLang to refuse next under DCP.
    """,
    why="SGLang refuses to start with a ValueError (the first conflict in the order below).",
    sglang_message=DSA_DCP_HICACHE_MESSAGE + "\n" + DSA_DCP_PD_MESSAGE + "\n" + DSA_DCP_TOPK_MESSAGE,
    fix="Remove HiSparse / HiCache and use a chain draft (topk 1) under DCP, or run without `--dcp-size`.",
    example="python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 --tp 8 --dcp-size 8 --enable-hierarchical-cache",
    sources=(
        "0.5.23 `srt/arg_groups/model_overrides/deepseek_v2.py` L18-26 `_dsa_dcp_overrides`, called at L99-100 for "
        "`is_deepseek_dsa` models (0.5.22: the same lines; 0.5.21 has no such check)",
        "0.5.23 `srt/arg_groups/model_hook.py` L233 (the model overrides, at resolution) before "
        "`validation_hook.py` L312 (`_hisparse_validation`, a post-process pass)",
    ),
    changes=("0.5.22: added (0.5.19-0.5.21 accept these launches at this point)",),
)
def hsp008(cfg: Resolved) -> Iterator[Hit]:
    found = dsa_dcp_refusals(cfg)
    if not found:
        return
    fixes = "; ".join(f for _m, f in found)
    others = "; also: " + " ".join(m for m, _f in found[1:]) if len(found) > 1 else ""
    yield Hit(f"{found[0][0]} (--dcp-size {cfg.user('dcp_size')}){others}",
              f"{fixes} (to keep DCP), or drop `--dcp-size`", values=("dcp_size",))
