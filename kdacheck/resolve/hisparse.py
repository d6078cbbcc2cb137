"""HiSparse: the launch flags ``validate_hisparse`` reads, the sparse config, the miss plan.

Mirrors ``srt/arg_groups/hisparse_hook.py`` and ``srt/mem_cache/sparsity/factory.py``
``_parse_sparse_config`` (identical 0.5.19–0.5.23: top_k 2048, device_buffer_size 2·top_k,
host_to_device_ratio 2, swap_in_block_size 960); the model's ``index_topk`` wins over the
config's top_k. The speculative miss plan holds top_k × max(1, D) columns from 0.5.22
(``miss_plan_capacity``), top_k before.

Reads: the flags, the model, the GPU's SM, ``spec_on``, ``draft_tokens``.
Sets: the names of ``plan.sets``.
"""

from __future__ import annotations

from kdacheck import versions
from kdacheck.models import Family
from kdacheck.resolve.core import Resolved, step
from kdacheck.resolve.speculative import json_obj


@step(
    "HiSparse",
    mirrors="0.5.23 srt/arg_groups/hisparse_hook.py validate_hisparse; srt/mem_cache/sparsity/factory.py",
    sets=("hisparse_config", "enable_hisparse", "kv_cache_dtype", "dsa_decode_backend", "dsa_prefill_backend",
          "enable_mixed_chunk", "dsa_kv_cache_dtype", "hisparse_config_top_k", "hisparse_top_k",
          "hisparse_device_buffer_size", "hisparse_swap_in_block_size", "plan_capacity", "plan_bytes"),
)
def plan(r: Resolved) -> None:
    r.flag("hisparse_config")
    if not r.flag("enable_hisparse").value:
        return
    _launch_flags(r)
    conf = json_obj(r.v("hisparse_config") or r.user("hisparse_config"))
    m = r.model
    at = r.place("hisparse_config")
    if "top_k" in conf:
        r.put("hisparse_config_top_k", conf["top_k"], "--hisparse-config top_k", "user", at)
    else:
        r.put("hisparse_config_top_k", 2048, "hisparse_config default top_k 2048")
    cfg_top_k = r.v("hisparse_config_top_k")
    if m is not None and m.index_topk:
        r.put("hisparse_top_k", m.index_topk, f"the model's index_topk ({m.source}); it wins over hisparse_config top_k", "model")
    elif m is not None:
        r.put("hisparse_top_k", cfg_top_k, "hisparse_config top_k (the model config has no index_topk)")
    else:
        r.put("hisparse_top_k", cfg_top_k, "hisparse_config top_k (assumed: the model's index_topk, unknown here, would win)", "assumed")
    if "device_buffer_size" in conf:
        r.put("hisparse_device_buffer_size", conf["device_buffer_size"], "--hisparse-config device_buffer_size", "user", at)
    else:
        dbs = 2 * cfg_top_k if isinstance(cfg_top_k, int) else 4096
        r.put("hisparse_device_buffer_size", dbs, f"hisparse_config default 2 × top_k {cfg_top_k}")
    if "swap_in_block_size" in conf:
        r.put("hisparse_swap_in_block_size", conf["swap_in_block_size"], "--hisparse-config swap_in_block_size", "user", at)
    else:
        r.put("hisparse_swap_in_block_size", 960, "hisparse_config default 960")
    D = r.v("draft_tokens")
    top_k = r.v("hisparse_top_k")
    if r.v("spec_on") and D is not None and isinstance(top_k, int):
        if r.at_least(versions.HISPARSE_SPECULATIVE_SWAP_IN):
            cap = top_k * max(1, D)
            why = f"top_k {top_k} × max(1, D {D}) (SGLang ≥ {versions.HISPARSE_SPECULATIVE_SWAP_IN} coordinator, miss_plan_capacity)"
        else:
            cap = top_k
            why = f"top_k {top_k}: single-step plan (SGLang < {versions.HISPARSE_SPECULATIVE_SWAP_IN} never calls the speculative kernel)"
        r.put("plan_capacity", cap, why)
        r.put("plan_bytes", cap * (8 + 4) + 4, "miss_src int64 + miss_dst int32 per column + miss_count int32, per request slot")


def _launch_flags(r: Resolved) -> None:
    """The launch flags ``validate_hisparse`` reads (``srt/arg_groups/hisparse_hook.py``)."""
    kv = r["kv_cache_dtype"]  # as the model override resolved it (a DSA model: bfloat16 / fp8_e4m3)
    r.flag("dsa_decode_backend")
    r.flag("dsa_prefill_backend")
    r.flag("enable_mixed_chunk")
    m, gpu = r.model, r.gpu
    dtype = "bfloat16" if kv.value == "bf16" else kv.value
    if dtype in (None, "auto") and m is not None and m.family is Family.DSA:
        if gpu is not None:
            dtype = "fp8_e4m3" if gpu.sm >= 100 else "bfloat16"
            r.put("dsa_kv_cache_dtype", dtype, f"auto on SM{gpu.sm} for a DSA model ⇒ {dtype} (`_dsa_kv_cache_dtype_default`)")
        else:
            r.put("dsa_kv_cache_dtype", "auto", "auto: fp8_e4m3 on SM100+, else bfloat16 (needs --gpu to tell)")
        return
    r.put("dsa_kv_cache_dtype", dtype, kv.why, kv.origin, kv.loc)
