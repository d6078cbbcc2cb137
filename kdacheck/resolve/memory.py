"""GPU memory: SGLang's default ``--mem-fraction-static`` and the hybrid state pool solve.

Mirrors 0.5.23 ``srt/arg_groups/memory_hook.py`` ``handle_gpu_memory_settings`` (the static
fraction) and ``srt/mem_cache/kv_cache_configurator.py`` (the state pool: ``kdacheck.resolve.mempool``).

Reads: ``tp_size``, ``pp_size``, ``attn_dp_size``, ``dp_attention``, ``disable_radix_cache``,
``disable_overlap_schedule``, ``mamba_radix_cache_strategy``, ``page_size``,
``linear_attn_backend``, ``draft_tokens``, ``spec_on``, ``scratch_allocated``,
``per_request_state_bytes``, ``max_running_requests``.
Sets: ``mem_fraction_static`` (``static_fraction``) and the names of ``state_pool.sets``.
"""

from __future__ import annotations

import math
from typing import Any

from kdacheck import versions
from kdacheck.models import Family
from kdacheck.resolve import mempool
from kdacheck.resolve.core import Resolved, step
from kdacheck.resolve.cuda_graph import default_capacity
from kdacheck.resolve.mamba import auto_strategy
from kdacheck.resolve.memterms import draft_weight_bytes, put_slack_terms
from kdacheck.resolve.prefill_graphs import prefill_backend, prefill_graph_count


def default_mem_fraction_static(r: Resolved, gpu_mib: int) -> tuple[float, str]:
    mfs, why, _activation, _graphs = _default_fraction(r, gpu_mib)
    return mfs, why


def _default_fraction(r: Resolved, gpu_mib: int) -> tuple[float, str, float, float]:
    """SGLang's default ``--mem-fraction-static`` (0.5.23 memory_hook.py L281-404; 0.5.19 L240-264).

    reserved (MiB) = 512 + activation tokens · 1.5 + tp · pp / 8 · 1024 + graph reserve,
    at least 10 GiB above 60 GiB; activation tokens = max(chunked_prefill, 2048), on a PD decode
    server max((max running requests or decode max batch) · (D or 1), 2048) as given; graph
    reserve = decode max batch · 2 (decode graphs on, not a PD prefill server; + attention-DP
    padding) + prefill graphs · 8 (MHA) or 1.5 GiB (MLA) when prefill graphs are captured;
    mem_fraction_static = round((gpu − reserved) / gpu, 3). With DeepEP: 2 GiB above the floor with decode graphs,
    1 GiB with breakable prefill graphs, whose sizes DeepEP aligns to multiples of 8 up to 2048.
    """
    tp = int(r.v("tp_size") or 1)
    pp = max(1, int(r.v("pp_size") or 1))
    attn_dp = int(r.v("attn_dp_size") or 1) if r.v("dp_attention") else 1
    chunk_default, _ = default_capacity(gpu_mib, tp)
    chunk = r.user("chunked_prefill_size")
    chunk = chunk if isinstance(chunk, int) else chunk_default
    max_bs = r.v("sglang_decode_graph_max_bs")  # SGLang's field, filled even where the graphs are off
    decode_graphs = r.v("decode_graph_max_bs") is not None
    deepep = r.user("moe_a2a_backend") == "deepep"  # as given: handle_a2a_moe runs after the memory settings
    mode = r.v("disaggregation_mode")
    if mode == "decode":
        D = r.user("speculative_num_draft_tokens") or 1
        activation = max((r.user("max_running_requests") or max_bs or 1) * D, 2048)
    else:
        activation = max(chunk, 2048) if chunk > 0 else max(r.user("max_prefill_tokens") or 16384, 2048)
    reserved = 512 + activation * 1.5 + tp * pp / 8 * 1024
    graphs = 0.0
    if decode_graphs and max_bs is not None and mode != "prefill":
        graphs += max_bs * 2
    if attn_dp > 1 and mode != "prefill" and max_bs is not None:  # memory_hook.py L367-374: graphs on or off
        graphs += max_bs * attn_dp * 3 + (max_bs * attn_dp * 1.5 if max_bs > 300 else 0)
    backend, off = prefill_backend(r)
    if off is None:
        breakable_deepep = deepep and backend == "breakable"
        if r.model is not None and r.model.mla:
            graphs += 1.5 * 1024
        else:
            graphs += prefill_graph_count(r, chunk, breakable_deepep) * 8
        if breakable_deepep:
            graphs += 1024  # memory_hook.py L391-397: breakable prefill graphs with DeepEP
    reserved += graphs
    if gpu_mib > 60 * 1024:
        reserved = max(reserved, 10 * 1024)
    if deepep and mode != "prefill" and decode_graphs:
        reserved += 2 * 1024  # memory_hook.py L396-409 reserve_for_deepep_a2a_mb, above the floor
    mfs = round((gpu_mib - reserved) / gpu_mib, 3)
    why = (
        f"SGLang's default for a {gpu_mib} MiB GPU: (memory − {reserved:.0f} MiB reserved) / memory "
        f"(activations {activation} tokens, CUDA graphs {graphs:.0f} MiB"
        + (f"; no prefill graphs: {off}" if off else "") + ("; DeepEP reserves 2 GiB + 1 GiB" if deepep else "") + ")"
    )
    return mfs, why, activation * 1.5, graphs


@step(
    "static memory fraction",
    mirrors="0.5.23 srt/arg_groups/memory_hook.py handle_gpu_memory_settings (chunked_prefill_size, mem_fraction_static); "
            "parallel_hook.py handle_data_parallelism (chunked prefill // attention DP)",
    sets=("mem_fraction_static", "mamba_full_memory_ratio", "max_mamba_cache_size", "chunked_prefill_size",
          "mem_prefill_working_mib", "mem_graph_reserve_mib"),
)
def static_fraction(r: Resolved) -> None:
    mfs_val = r.flag("mem_fraction_static")
    if r.flag("mamba_full_memory_ratio").value is None and r.at_least(versions.MAMBA_FULL_MEMORY_RATIO_FALLBACK):
        r.put("mamba_full_memory_ratio", mempool.FULL_MEMORY_RATIO_DEFAULT,
              f"SGLang's fallback {mempool.FULL_MEMORY_RATIO_DEFAULT} (arg_groups/fields/schedule.py mamba_full_memory_ratio)", "default")
    r.flag("max_mamba_cache_size")
    chunk = r.flag("chunked_prefill_size")
    if chunk.value is None and r.gpu is not None:
        chunk = r.put("chunked_prefill_size", default_capacity(r.gpu.memory_mib, int(r.v("tp_size") or 1))[0],
                      f"SGLang's default for a {r.gpu.memory_mib} MiB GPU", "gpu")
    adp = int(r.v("attn_dp_size") or 1)
    if isinstance(chunk.value, int) and chunk.value > 0 and r.v("dp_attention") and adp > 1:
        r.put("chunked_prefill_size", chunk.value // adp, f"{chunk.value} // attention DP {adp} (handle_data_parallelism)", loc=chunk.loc)
    if r.gpu is None:
        return
    mfs, why, activation_mib, graphs_mib = _default_fraction(r, r.gpu.memory_mib)
    put_slack_terms(r, activation_mib, graphs_mib)
    if mfs_val.value is not None:
        return
    m = r.model
    if m is not None and m.vision is not None and not r.user("language_only") and not r.user("language_model_only") \
            and r.v("disaggregation_mode") != "decode":
        mfs, why = vlm_fraction(mfs, m.vision), why + f"; × the vision-tower factor for {m.vision[0]} layers × {m.vision[1]} hidden " \
            "(memory_hook.py adjust_mem_fraction_for_vlm)"
    r.put("mem_fraction_static", mfs, why, "assumed")


def vlm_fraction(mfs: float, vision: tuple[int, int]) -> float:
    """SGLang 0.5.23 ``memory_hook.py`` L417-462 ``adjust_mem_fraction_for_vlm`` (no post-capture
    sizing: ``SGLANG_ENABLE_POST_CAPTURE_KV_SIZING`` is off by default): 0.95 × a factor in
    [0.8, 1.05] falling 10 % for each doubling of the tower's layers · hidden² over ViT-L/14's
    24 · 1024². Not rounded, as in SGLang (0.648 → 0.599… for Qwen3.5's 24 × 1152)."""
    layers, hidden = vision
    ratio = (layers * hidden**2) / (24 * 1024**2)
    factor = max(0.8, min(1.05, 1.0 - 0.1 * (ratio - 1.0)))
    return mfs * (0.95 * factor)


def solve_inputs(r: Resolved, **change: Any) -> mempool.MemInputs | None:
    """The solve's inputs as resolved, optionally with ``tp``, ``mfs`` or ``mrr`` changed (for fixes)."""
    m, gpu = r.model, r.gpu
    if m is None or gpu is None or m.params <= 0:
        return None
    tp = int(r.v("tp_size") or 1)
    pp = max(1, int(r.v("pp_size") or 1))
    new_tp = int(change.get("tp", tp))
    per_req = int(r.v("per_request_state_bytes") or 0)
    if new_tp != tp:
        per_req = per_req * tp // new_tp
    mmcs = r.user("max_mamba_cache_size")
    mrr = change.get("mrr", r.v("max_running_requests"))
    dp = int(r.v("attn_dp_size") or 1)
    # ReplaySSM-spec on GDN or KDA: no intermediates reserved, the rings counted (kv_cache_configurator.py
    # L3262-3298); on another family the flag leaves the reservation as it is
    # (the scratch step puts the ring only where the budget counts it: the flag on a GDN or KDA model)
    active = r.v("replayssm_ring_bytes_per_req") is not None
    ring = int(r.v("replayssm_ring_bytes_per_req") or 0)
    if ring and new_tp != tp:
        ring = ring * tp // new_tp
    gdn_fixed = active and m.family is Family.GDN and r.at_least(versions.REPLAYSSM_GDN_FIXED_RING)
    fixed = ring * (max(1, int(mrr or 1) // dp) + 1) if gdn_fixed else 0
    return mempool.MemInputs(
        gpu.memory_bytes, float(change.get("mfs", r.v("mem_fraction_static"))),
        int(m.params * m.weight_bytes_per_param / (new_tp * pp)) + draft_weight_bytes(r, new_tp)[0], per_req, r.v("draft_tokens"),
        bool(r.v("spec_on")) and not r.v("pd_prefill") and not active,
        mrr, dp, int(r.v("mamba_ratio")), float(r.v("mamba_full_memory_ratio")),
        mmcs if isinstance(mmcs, int) else None, bool(r.v("disable_radix_cache")),
        r.at_least(versions.STATE_POOL_REQUESTS_CLAMPED),
        extra_per_slot=ring if active and not gdn_fixed else 0, fixed_bytes=fixed,
    )


@step(
    "hybrid state pool",
    mirrors="0.5.23 srt/mem_cache/kv_cache_configurator.py _handle_max_mamba_cache, resolve_max_num_reqs",
    sets=("weight_bytes_per_rank", "draft_weight_bytes_per_rank", "mamba_ratio", "mem_rest_gib", "spec_reserve_bytes", "R_after_solve",
          "mem_kv_rest_gib", "mem_solve", "mamba_radix_cache_strategy", "mamba_full_memory_ratio", "max_mamba_cache_size",
          "intermediate_ssm_shape", "intermediate_ssm_bytes", "intermediate_conv_window_shape",
          "intermediate_conv_window_bytes", "scratch_R"),
)
def state_pool(r: Resolved) -> None:
    m, gpu = r.model, r.gpu
    if m is None or gpu is None or not m.hybrid or "per_request_state_bytes" not in r:
        return
    tp = int(r.v("tp_size") or 1)
    pp = max(1, int(r.v("pp_size") or 1))
    adp = int(r.v("attn_dp_size") or 1)
    mfs = float(r.v("mem_fraction_static"))
    if m.params <= 0:
        return
    wbytes = int(m.params * m.weight_bytes_per_param / (tp * pp))
    r.put("weight_bytes_per_rank", wbytes,
          f"assumed: {m.params / 1e9:g} B parameters × {m.weight_bytes_per_param:g} bytes / (tp {tp} × pp {pp}) "
          f"= {wbytes / 2**30:.2f} GiB (the draft's: draft_weight_bytes_per_rank)", "assumed")
    dbytes, dwhy = draft_weight_bytes(r, tp)
    r.put("draft_weight_bytes_per_rank", dbytes, f"{dbytes / 2**30:.2f} GiB: {dwhy}", "assumed" if dbytes else "default")
    full_ratio = r.v("mamba_full_memory_ratio")
    if full_ratio is None:
        full_ratio = mempool.FULL_MEMORY_RATIO_DEFAULT
        r.put("mamba_full_memory_ratio", full_ratio, f"SGLang default {full_ratio}")
    disable_radix = bool(r.v("disable_radix_cache"))
    overlap = not r.v("disable_overlap_schedule")
    strategy = r.v("mamba_radix_cache_strategy")
    if disable_radix:
        strategy = "none"
    elif strategy in (None, "auto"):
        strategy, why = auto_strategy(m.architecture, r.v("linear_attn_backend"), overlap, int(r.v("page_size") or 1) > 1)
        r.put("mamba_radix_cache_strategy", strategy, why)
    ratio, rwhy = mempool.mamba_ratio(disable_radix, str(strategy), overlap)
    r.put("mamba_ratio", ratio, f"state slots per request: {rwhy}")
    D = r.v("draft_tokens")
    per_req = int(r.v("per_request_state_bytes") or 0)
    if per_req <= 0 or (isinstance(D, int) and D < 0) or not 0 < float(full_ratio) < math.inf or not 0 < mfs < math.inf:
        # Degenerate geometry (tp above the head count) or counts already reported
        # (ARG004, SPEC010): SGLang would fail before its memory solve, and dividing by them would crash.
        return
    x = solve_inputs(r)
    assert x is not None
    res = mempool.solve(x)
    mmcs = x.max_mamba_cache_size
    r.put("mem_rest_gib", round(res.rest_gib, 2),
          f"{gpu.name.upper()} {gpu.memory_mib} MiB × mem_fraction_static {mfs} − weights per rank − draft weights per rank "
          "(assumed: all memory free before the weights load)",
          "assumed")
    branch_why = {
        "max_mamba_cache_size": f"--max-mamba-cache-size {mmcs} // attention DP {adp}",
        "disable_radix_cache": f"--disable-radix-cache: max running requests {r.v('max_running_requests')} // attention DP {adp}",
        "auto-fit": (f"auto-fit: ⌊(budget − per_req·(1 + D)) / (per_req·(1 + D/{ratio}))⌋" if x.reserves else
                     "auto-fit: ⌊(budget − per_req) / per_req⌋" if not (x.extra_per_slot or x.fixed_bytes) else
                     f"auto-fit under ReplaySSM-spec: ⌊(budget − {x.fixed_bytes:,} B of rings − per slot) / per slot⌋, per slot "
                     f"= per_req + {x.extra_per_slot:,} B of ring")
                    + f", budget = rest × {full_ratio}/(1 + {full_ratio}) = {res.budget_gib or 0:.2f} GiB",
    }[res.branch]
    r.put("max_mamba_cache_size", res.max_mamba_cache_size, branch_why)
    if x.reserves:
        r.put("spec_reserve_bytes", res.reserve_bytes,
              f"per_req × (R + 1) × D {D} = {res.reserve_bytes / 2**30:.3f} GiB reserved for the intermediates")
    if res.R is not None and res.failure is None:
        r.put("R_after_solve", res.R,
              f"min(requested {res.requested_R}, max_mamba_cache_size {res.max_mamba_cache_size} // ratio {ratio})"
              if res.branch != "disable_radix_cache" else "max_mamba_cache_size (= R)")
    r.put("mem_kv_rest_gib", round(res.rest_after_gib, 2), "left for the KV cache after the state pool and the reservation")
    r.put("mem_solve", res, f"memory solve ({res.branch})")
    if res.capped and res.failure is None and res.R is not None and r.v("scratch_allocated"):
        # SGLang sizes the request pool, and the scratch with it, by the capped R (0.5.23
        # kv_cache_configurator.py L1700-1721 _build_hybrid_req_pool: mamba_spec_state_size =
        # max_num_reqs, after resolve_max_num_reqs' cap): one account for every figure
        from kdacheck.resolve.buffers import put_scratch

        put_scratch(r, int(res.R) + 1, f"R capped to {res.R} by SGLang's memory solve (from {res.requested_R}; MEM003)")
