"""MEM: the state memory of hybrid models and its speculative scratch."""

from __future__ import annotations

from collections.abc import Iterator

from kdacheck import geometry, messages
from kdacheck.findings import Severity
from kdacheck.resolve import Resolved
from kdacheck.resolve import mempool as memory
from kdacheck.resolve.cuda_graph import RowMapParams, row_map_geometry
from kdacheck.resolve.memory import solve_inputs as _solve_inputs
from kdacheck.rules.base import HYBRID, Consequence, Hit, rule, unchecked


def gib(n: int) -> str:
    return f"{n / 2**30:.3f} GiB"


@rule(
    "MEM001", Severity.INFO,
    consequence=Consequence.RUNS_OTHER,
    name="scratch-size",
    needs="model", families=HYBRID, speculative=True,
    summary="size of the speculative scratch buffers per rank",
    what="""
        The bytes of `intermediate_ssm` and `intermediate_conv_window` (all layers, per rank),
        the per-request state, and their share of the GPU's memory when `--gpu` is given.
    """,
    why="The scratch is allocated before the KV cache and comes out of its budget.",
    fix="Nothing to fix: lower `--max-running-requests` or the draft width to shrink it.",
    example="kdacheck lint --gpu h200 examples/kimi-linear-dspark.yaml",
    sources=("0.5.19 `srt/mem_cache/memory_pool.py:714-822`",),
)
def mem001(cfg: Resolved) -> Iterator[Hit]:
    if "intermediate_ssm_bytes" not in cfg or not cfg.v("scratch_allocated"):
        return
    ssm = cfg.v("intermediate_ssm_bytes")
    conv = cfg.v("intermediate_conv_window_bytes")
    msg = (
        f"intermediate_ssm {cfg.v('intermediate_ssm_shape')} {cfg.v('ssm_dtype')} = {ssm:,} bytes ({gib(ssm)}); "
        f"intermediate_conv_window = {conv:,} bytes ({gib(conv)}) per rank"
    )
    if cfg.gpu is not None:
        msg += f"; {100 * (ssm + conv) / cfg.gpu.memory_bytes:.1f}% of a {cfg.gpu.name.upper()}"
    msg += capped_note(cfg)
    yield Hit(msg, None, values=("intermediate_ssm_bytes", "intermediate_conv_window_bytes", "per_request_state_bytes", "R", "d_max"))


def capped_note(cfg: Resolved) -> str:
    """Where SGLang's memory solve caps R, every scratch figure is for the capped R and says so."""
    rows, R = cfg.v("scratch_R"), cfg.v("R")
    if rows is None or R is None or rows >= R:
        return ""
    return f" (R capped to {rows} by SGLang's memory solve, from {R}: MEM003)"


# -- the memory solve (kdacheck/resolve/mempool.py) ------------------------------------------------------

MEM002_MESSAGE = (
    "Not enough GPU memory for hybrid (mamba/linear-attention) state cache. "
    "Computed max_mamba_cache_size={max_mamba_cache_size} (total_rest_memory={total_rest_memory:.2f} GB, "
    "mamba_cache_per_req={mamba_cache_per_req:.2f} MB). Try: (1) reduce --max-running-requests, "
    "(2) increase --mem-fraction-static, (3) reduce --speculative-num-draft-tokens, or "
    "(4) use GPUs with more memory."
)
MEM002_REQS_MESSAGE = (
    "Hybrid (mamba/linear-attention) state cache is too small to serve any requests. "
    "max_mamba_cache_size={max_mamba_cache_size}, mamba_ratio={ratio}, resulting max_num_reqs={reqs}. "
    "Try: (1) reduce --max-running-requests, (2) increase --mem-fraction-static, or (3) use GPUs with more memory."
)
MEM002_KV_MESSAGE = (
    "Loaded weights leave no GPU memory for the KV cache under --mem-fraction-static={mfs}. "
    "Raise --mem-fraction-static above ... (minimum viable = 1 - available/pre = ...). "
    "If using speculative decoding, draft weights are now counted."
)
_SOLVE_VALUES = ("mem_solve", "mem_fraction_static", "weight_bytes_per_rank", "draft_weight_bytes_per_rank", "mem_rest_gib", "per_request_state_bytes",
                 "mamba_ratio", "max_mamba_cache_size", "spec_reserve_bytes", "R", "draft_tokens", "mem_kv_rest_gib")


def _needs(cfg: Resolved) -> str | None:
    """Why the solve could not run, when it is relevant (hybrid model, speculative scratch)."""
    if cfg.model is None or not cfg.model.hybrid or "per_request_state_bytes" not in cfg:
        return None
    if cfg.gpu is None:
        return "needs --gpu: MEM002, MEM003 and MEM005 solve SGLang's hybrid state budget against the GPU's memory"
    if cfg.model.params <= 0:
        return "needs the model's parameter count for the weights per rank (use a preset model name with --model)"
    return None


def _mem002_fix(cfg: Resolved, res: memory.MemSolve) -> str:
    """The smallest change that makes the solve succeed: fewer requests, more TP, or a bigger fraction."""
    base = _solve_inputs(cfg)
    if base is None:
        return "use GPUs with more memory or raise --tp-size"
    dp = int(cfg.v("attn_dp_size") or 1)
    parts = []
    if res.branch != "auto-fit" and res.rest_gib > 0 and base.mrr:
        lo, hi = 0, int(base.mrr)
        while lo < hi:  # the largest MRR that solves
            mid = (lo + hi + 1) // 2
            ok = memory.solve(_replace(base, mrr=mid)).failure is None
            lo, hi = (mid, hi) if ok else (lo, mid - 1)
        if lo >= dp:
            parts.append(f"--max-running-requests {lo} (or fewer)")
    tp = int(cfg.v("tp_size") or 1)
    for n in (2, 4, 8, 16):
        new_tp = tp * n
        if cfg.model is not None and geometry.refusals(cfg.model, cfg.version, new_tp, new_tp):
            break  # SGLang cannot build the model at that TP (KDA007)
        x = _solve_inputs(cfg, tp=new_tp)
        if x is not None and memory.solve(x).failure is None:
            parts.append(f"--tp-size {new_tp}")
            break
    mfs = float(cfg.v("mem_fraction_static"))
    for step in range(1, 40):
        f = round(mfs + step * 0.01, 2)
        if f > 0.95:
            break
        x = _solve_inputs(cfg, mfs=f)
        if x is not None and memory.solve(x).failure is None:
            parts.append(f"--mem-fraction-static {f}")
            break
    return "; or ".join(parts) if parts else "use GPUs with more memory"


def _replace(x: memory.MemInputs, **kw: object) -> memory.MemInputs:
    import dataclasses

    return dataclasses.replace(x, **kw)  # type: ignore[arg-type]


@rule(
    "MEM002", Severity.ERROR,
    consequence=Consequence.OUT_OF_MEMORY,
    name="state-pool-fits",
    needs="model", families=HYBRID,
    summary="the hybrid state pool and its speculative reservation fit in GPU memory",
    what="""
        At start-up SGLang sizes the mamba/linear-attention state pool per rank:
        `rest = GPU memory × mem_fraction_static − weights`; with `--disable-radix-cache` the pool
        holds `K = max_running_requests // dp` slots, otherwise it is auto-fitted into
        `rest × r/(1 + r)` (`r = --mamba-full-memory-ratio`, 0.9) jointly with the speculative
        intermediates: `K = ⌊(budget − per_req·(1 + D)) / (per_req·(1 + D/ratio))⌋`, where `ratio` is
        the state slots per request (1 without radix cache; 3, +2 for extra_buffer with the overlap
        schedule). It then reserves `per_req · (R + 1) · D` for `intermediate_ssm` and the conv window.
        `K` must be positive, `K // ratio` must leave at least one request, and something must be
        left for the KV cache.
    """,
    why="""
        SGLang stops at start-up: `K ≤ 0` raises the "Not enough GPU memory for hybrid ... state
        cache" RuntimeError, `K // ratio ≤ 0` the "too small to serve any requests" one, and a
        reservation that eats the whole rest the "Loaded weights leave no GPU memory for the KV
        cache" ValueError (the `--disable-radix-cache` path, where `K` is fixed and cannot go to 0).
    """,
    fix="Lower `--max-running-requests` (with `--disable-radix-cache`), raise `--tp-size`, or raise `--mem-fraction-static`; the finding names the smallest value that solves.",
    sglang_message=MEM002_MESSAGE + "\n\n" + MEM002_REQS_MESSAGE + "\n\n" + MEM002_KV_MESSAGE,
    example="kdacheck lint --gpu l40s --cmd 'python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --tp 1 --speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4'",
    sources=(
        "0.5.19 `srt/mem_cache/kv_cache_configurator.py:2210` `_handle_max_mamba_cache` (raise L2357); 0.5.23 L3229 (raise L3394)",
        "0.5.19 `srt/mem_cache/kv_cache_configurator.py:2105` `resolve_max_num_reqs` (L2140); 0.5.23 L3119 (L3154)",
        "0.5.19 `srt/mem_cache/kv_cache_configurator.py:2034` (`_profile_available_bytes`, weights ValueError); 0.5.23 L2990, L3051",
        "0.5.23 `srt/arg_groups/memory_hook.py:281-342` `handle_gpu_memory_settings` (default --mem-fraction-static)",
    ),
    inferred="""
        The solve itself is read from SGLang's source; its inputs are estimates: free memory before
        the weights load = the GPU's whole memory, weights per rank = parameters × bytes per
        parameter / (tp · pp), the draft model's weights (which SGLang counts: 0.5.23
        kv_cache_configurator.py L3042-3057) estimated from the draft's config.json, or one MTP
        layer of the target for NEXTN (`resolve/memterms.py`), and the default
        --mem-fraction-static from SGLang's own heuristic. Each message says so.
    """,
    changes=(
        "0.5.19–0.5.22: with --disable-radix-cache K = max_running_requests // dp (can be 0); 0.5.23: max(1, ·)",
        "0.5.22+: a PD prefill server reserves nothing for the intermediates",
    ),
)
def mem002(cfg: Resolved) -> Iterator[Hit]:
    need = _needs(cfg)
    if need:
        yield unchecked(need)
        return
    res = cfg.v("mem_solve")
    if res is None or res.failure is None:
        return
    per_req = int(cfg.v("per_request_state_bytes"))
    draft = int(cfg.v("draft_weight_bytes_per_rank") or 0)
    why = (
        f" [kdacheck's estimate, {memory.ASSUMPTIONS}: rest {res.rest_gib:.2f} GiB = {cfg.gpu.memory_mib if cfg.gpu else 0} MiB × "
        f"mem_fraction_static {cfg.v('mem_fraction_static')} − weights {cfg.v('weight_bytes_per_rank') / 2**30:.2f} GiB per rank"
        + (f" − draft weights {draft / 2**30:.2f} GiB" if draft else "") + "; "
        f"{res.branch} solve, {cfg.v('mamba_ratio')} state slot(s) per request"
    )
    if res.reserve_bytes:
        why += f", intermediates reserved per_req × (R + 1) × D = {res.reserve_bytes / 2**30:.2f} GiB"
    why += "]"
    if res.failure == "mamba":
        msg = memory.sglang_mamba_message(res, per_req)
    elif res.failure == "reqs":
        msg = MEM002_REQS_MESSAGE.format(max_mamba_cache_size=res.max_mamba_cache_size, ratio=cfg.v("mamba_ratio"), reqs=res.R)
    else:
        msg = (
            f"Loaded weights leave no GPU memory for the KV cache under --mem-fraction-static={cfg.v('mem_fraction_static')} "
            f"(SGLang's ValueError: the {res.max_mamba_cache_size + 1} state slots of {per_req / 2**20:.2f} MiB and the "
            f"speculative reservation leave {res.rest_after_gib:.2f} GiB)"
        )
    yield Hit(msg + why, _mem002_fix(cfg, res), values=_SOLVE_VALUES)


@rule(
    "MEM003", Severity.INFO,
    consequence=Consequence.REFUSES,
    name="state-pool-caps-requests",
    needs="model", families=HYBRID,
    summary="the memory solve caps max running requests (and the scratch rows with it)",
    what="""
        Without `--disable-radix-cache` (or with `--max-mamba-cache-size`) SGLang caps the requests
        per worker at `max_mamba_cache_size // ratio`. The capped `R` then sizes the request pool,
        the scratch (`R + 1` rows) and the KDA verify row map, so KDA002 must be re-checked with it.
    """,
    why="""
        Fewer concurrent requests than asked for (a log warning only), and a different row map: a
        configuration whose map was the identity for the requested `R` may not be for the capped one.
        A note: the cap is kdacheck's estimate of SGLang's solve, and SGLang starts with it.
    """,
    fix="Make the cap explicit with `--max-running-requests`, or give the state more room: `--mamba-full-memory-ratio`, `--mamba-ssm-dtype bfloat16`, `--disable-radix-cache` (1 slot per request instead of 3–5).",
    sglang_message="""
        max_running_requests is capped to %d by the mamba state cache (max_mamba_cache_size=%d, %d state slots per request). To raise it: increase --mamba-full-memory-ratio or --max-mamba-cache-size, or halve the state size with --mamba-ssm-dtype bfloat16.
    """,
    example="kdacheck lint --gpu l40s --cmd 'python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --tp 4 --max-running-requests 512 --speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4'",
    sources=(
        "0.5.19 `srt/mem_cache/kv_cache_configurator.py:2105` `resolve_max_num_reqs` (warning L2127); 0.5.23 L3119 (L3141)",
        "0.5.23 `srt/layers/attention/linear/utils.py` `build_verify_intermediate_state_indices` (the row map, sized by the capped R)",
    ),
    inferred="The memory inputs are estimates (see MEM002); the KV-cache cap on R (`token_capacity // 2`) is not modelled.",
)
def mem003(cfg: Resolved) -> Iterator[Hit]:
    if _needs(cfg):
        return  # MEM002 says once what the solve needs
    res = cfg.v("mem_solve")
    if res is None or res.failure is not None or not res.capped:
        return
    R = int(res.R)
    ratio = cfg.v("mamba_ratio")
    msg = (
        f"SGLang caps max running requests per worker from {res.requested_R} to {R} "
        f"(max_mamba_cache_size {res.max_mamba_cache_size} // {ratio} state slots per request; "
        f"kdacheck's estimate, {memory.ASSUMPTIONS}); the scratch then has {R + 1} rows"
    )
    p = cfg.v("row_map_params")
    if isinstance(p, RowMapParams):
        P, b_max = row_map_geometry(R, p)
        ok = b_max <= P and b_max <= R + 1
        msg += (
            f". Row map with the capped R {R}: length P = {P}, largest verify batch B_max = {b_max}: "
            + ("the identity holds for every batch" if ok else "NOT the identity for every batch (a padded batch reaches rows past R)")
        )
        applies = cfg.v("verify_backend") == "flashinfer" and not cfg.v("fused_accept")
        if applies:
            msg += "; KDA002 applies (FlashInfer verify without fused accept)" + ("" if ok else ": SGLang raises at capture or serving")
        else:
            msg += f"; KDA002 does not apply here (verify backend {cfg.v('verify_backend')}" + (", fused accept" if cfg.v("fused_accept") else "") + ")"
    fix = (
        f"set --max-running-requests {R * int(cfg.v('attn_dp_size') or 1)} to make the cap explicit, or give the state more room "
        "(--mamba-ssm-dtype bfloat16, --mamba-full-memory-ratio, --disable-radix-cache)"
    )
    yield Hit(msg, fix, values=("R", "R_after_solve", "max_mamba_cache_size", "mamba_ratio", "mem_rest_gib", "row_map_len", "max_verify_batch"))


@rule(
    "MEM004", Severity.INFO,
    consequence=Consequence.REFUSES,
    name="adaptive-reserves-widest-draft",
    needs="model", families=HYBRID, speculative=True,
    summary="adaptive speculation reserves memory for D but allocates D_max",
    what="""
        Under `--speculative-adaptive` the memory solve reserves the intermediates for the initial
        verify width `D = S + 1`, while the pool allocates `intermediate_ssm` and the conv window
        for `D_max = max(candidate steps) + 1`. The difference, `per_req · (R + 1) · (D_max − D)`,
        is not counted in the budget.
    """,
    why="""
        The allocation comes out of memory SGLang had already given to the KV cache: an
        out-of-memory error at start-up or a KV cache smaller than the log says. A note, and a
        warning only where kdacheck's estimate of what is left for the KV cache is smaller
        than the uncounted allocation (the estimate's inputs are not SGLang's measurements).
    """,
    fix="Lower `--max-running-requests`, or pass `--mem-fraction-static` with room for the difference.",
    example="kdacheck lint --cmd 'python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --tp 4 --speculative-algorithm EAGLE --speculative-adaptive'",
    sources=(
        "0.5.23 `srt/mem_cache/kv_cache_configurator.py:3322,3342,3361` (`_handle_max_mamba_cache` reserves with `speculative_num_draft_tokens`)",
        "0.5.23 `srt/mem_cache/kv_cache_configurator.py:1653,1733` (`_build_hybrid_req_pool` allocates `max_speculative_num_draft_tokens()`)",
        "0.5.23 `srt/speculative/spec_info.py:268-289` `resolve_max_speculative_num_draft_tokens`",
    ),
    inferred="""
        Read, not inferred: SGLang's source shows the under-count directly (the solve
        reads `speculative_num_draft_tokens`, the pool `max_speculative_num_draft_tokens()`).
        Whether it ends in an out-of-memory error depends on the memory left over (inferred).
    """,
)
def mem004(cfg: Resolved) -> Iterator[Hit]:
    if not cfg.v("adaptive") or not cfg.v("scratch_allocated") or "per_request_state_bytes" not in cfg:
        return
    D, dmax, R = cfg.v("draft_tokens"), cfg.v("d_max"), cfg.v("R_after_solve", cfg.v("R"))
    if D is None or dmax is None or R is None or dmax <= D:
        return
    per_req = int(cfg.v("per_request_state_bytes"))
    under = per_req * (R + 1) * (dmax - D)
    msg = (
        f"SGLang reserves the speculative intermediates for D = {D} steps but allocates D_max = {dmax}: "
        f"{under:,} bytes ({gib(under)}) per rank are not in the memory budget (per_req {per_req:,} × (R {R} + 1) × ({dmax} − {D}))"
    )
    rest = cfg.v("mem_kv_rest_gib")
    severity = None
    if rest is not None:
        msg += f"; kdacheck's estimate leaves {rest:.2f} GiB for the KV cache ({memory.ASSUMPTIONS})"
        if under / 2**30 >= rest:
            msg += ": the allocation does not fit (out of memory at start-up)"
            severity = Severity.WARNING
    if cfg.gpu is not None and cfg.v("mem_fraction_static") is not None:
        mfs = float(cfg.v("mem_fraction_static"))
        drop = -(-under * 1000 // cfg.gpu.memory_bytes) / 1000
        fix = f"pass --mem-fraction-static {mfs - drop:.3f} (lower by {drop:.3f}: room for the uncounted scratch), or fewer --max-running-requests"
    else:
        fix = "lower --max-running-requests, or leave room for it by lowering --mem-fraction-static"
    yield Hit(msg, fix, values=("adaptive", "draft_tokens", "d_max", "R", "per_request_state_bytes"), severity=severity)


@rule(
    "MEM005", Severity.INFO,
    consequence=Consequence.REFUSES,
    name="scratch-share-of-memory",
    needs="model", families=HYBRID, speculative=True,
    summary="the speculative scratch takes more than a set share of GPU memory",
    what="""
        `intermediate_ssm` plus `intermediate_conv_window` (per rank, with the `R` the memory solve
        leaves) against the GPU's memory. The share is kdacheck policy, not an SGLang limit: default 10%, set with
        `mem005-share = 0.2` in `[tool.kdacheck]` / `kdacheck.toml` (`Options.mem005_share`).
    """,
    why="Scratch memory is taken from the KV cache: a large share means far fewer cached tokens than expected. A note: the share is kdacheck's policy, and SGLang starts.",
    fix="Lower `--max-running-requests`, use `--mamba-ssm-dtype bfloat16`, or `--enable-linear-replayssm-spec` (a ring instead of the scratch).",
    example="kdacheck lint --gpu h200 --cmd 'python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --tp 4 --disable-radix-cache --max-running-requests 512 --speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4'",
    sources=("0.5.19 `srt/mem_cache/memory_pool.py:714-822` (the buffers); nothing in SGLang checks a share",),
)
def mem005(cfg: Resolved) -> Iterator[Hit]:
    if "intermediate_ssm_bytes" not in cfg or not cfg.v("scratch_allocated"):
        return
    if cfg.gpu is None:
        return  # MEM002 says once that --gpu is needed
    share = cfg.options.mem005_share
    total = int(cfg.v("intermediate_ssm_bytes")) + int(cfg.v("intermediate_conv_window_bytes") or 0)
    Rs = int(cfg.v("scratch_R", cfg.v("R")))  # the memory solve's R: one account with MEM001 and the report
    note = capped_note(cfg)
    frac = total / cfg.gpu.memory_bytes
    if frac <= share:
        return
    per_row = total // (Rs + 1)
    r_fix = int(share * cfg.gpu.memory_bytes // per_row) - 1
    dp = int(cfg.v("attn_dp_size") or 1)
    fix = f"--max-running-requests {max(1, r_fix) * dp} (or fewer)" if r_fix >= 1 else "lower the draft width"
    if cfg.v("ssm_dtype") == "float32":
        fix += " or pass --mamba-ssm-dtype bfloat16 (halves intermediate_ssm)"
    yield Hit(
        f"the speculative scratch takes {total:,} bytes ({gib(total)}) per rank{note}: {100 * frac:.1f}% of a "
        f"{cfg.gpu.name.upper()} ({cfg.gpu.memory_mib} MiB), above the {100 * share:g}% threshold",
        fix,
        values=("intermediate_ssm_bytes", "intermediate_conv_window_bytes", "R", "d_max", "ssm_dtype"),
    )


@rule(
    "MEM006", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="mamba-cache-options",
    summary="the Mamba cache knobs: philox rounds ≥ 0, states per path -1 or > 0, stochastic rounding with float16 on CUDA (triton: SM100)",
    what="""
        SGLang checks the Mamba cache options at start, for every model: `--mamba-cache-philox-rounds`
        not negative, `--mamba-max-states-per-path` -1 (unlimited) or positive, and
        `--enable-mamba-cache-stochastic-rounding` only with `--mamba-ssm-dtype float16` as given,
        on an NVIDIA CUDA platform and, with the triton Mamba backend (the default), on SM100,
        whose PTX instruction it uses; it stops at the first of these.
    """,
    why="SGLang refuses to start with a ValueError while it resolves the Mamba arguments.",
    sglang_message="\n".join((messages.MAMBA_PHILOX_ROUNDS, messages.MAMBA_MAX_STATES, messages.MAMBA_SR_DTYPE,
                              messages.MAMBA_SR_CUDA, messages.MAMBA_SR_SM100)),
    fix="Use non-negative philox rounds and -1 or a positive states-per-path; stochastic rounding with "
        "`--mamba-ssm-dtype float16` on B200/GB200/B300 (triton) or with `--mamba-backend flashinfer`.",
    example="python -m sglang.launch_server --model-path Qwen/Qwen3.5-27B --enable-mamba-cache-stochastic-rounding",
    sources=(
        "0.5.23 `srt/arg_groups/mamba_hook.py` L19-52 `handle_mamba_backend` (0.5.19-0.5.22 the same checks, "
        "0.5.19 L19-51); `pipeline.py` L251, before the linear-attention hook sets a ReplaySSM float32 dtype",
    ),
    inferred="""
        The FlashInfer Mamba import that follows (`--mamba-backend flashinfer`) depends on the installed
        FlashInfer, not on the launch: not checked.
    """,
)
def mem006(cfg: Resolved) -> Iterator[Hit]:
    for hit in _mamba_backend_refusals(cfg):
        yield hit
        return


def _mamba_backend_refusals(cfg: Resolved) -> Iterator[Hit]:
    """handle_mamba_backend's refusals in SGLang's order (0.5.23 mamba_hook.py L21-52); the first is SGLang's."""
    rounds = cfg.user("mamba_cache_philox_rounds")
    if isinstance(rounds, int) and rounds < 0:
        yield Hit(messages.MAMBA_PHILOX_ROUNDS, "set `--mamba-cache-philox-rounds 0` or more", values=("mamba_cache_philox_rounds",))
    n = cfg.user("mamba_max_states_per_path")
    if isinstance(n, int) and (n == 0 or n < -1):
        yield Hit(messages.MAMBA_MAX_STATES.format(n=n), "use `--mamba-max-states-per-path -1` (unlimited) or a positive number",
                  values=("mamba_max_states_per_path",))
    if not cfg.user("enable_mamba_cache_stochastic_rounding"):
        return
    sr = "enable_mamba_cache_stochastic_rounding"
    dtype = cfg.user("mamba_ssm_dtype")
    if dtype != "float16":
        yield Hit(messages.MAMBA_SR_DTYPE.format(dtype=dtype), "add `--mamba-ssm-dtype float16`", values=(sr, "mamba_ssm_dtype"))
        return
    if cfg.gpu is None:
        if (cfg.user("mamba_backend") or "triton") == "triton":
            yield unchecked("needs --gpu: stochastic rounding with the triton Mamba backend needs an SM100 GPU", sr)
        return
    if cfg.gpu.hip:
        yield Hit(messages.MAMBA_SR_CUDA + f" ({cfg.gpu.name}, {cfg.gpu.label})", "drop `--enable-mamba-cache-stochastic-rounding`", values=(sr,))
    elif (cfg.user("mamba_backend") or "triton") == "triton" and not cfg.gpu.sm100:
        yield Hit(messages.MAMBA_SR_SM100 + f" ({cfg.gpu.name}, {cfg.gpu.label})",
                  "add `--mamba-backend flashinfer`, or drop `--enable-mamba-cache-stochastic-rounding`", values=(sr, "mamba_backend"))
