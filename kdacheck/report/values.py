"""The resolved view in three layers, grouped, with units (``--show-resolved``, JSON ``values``).

- ``sglang.<field>``: the value after SGLang's resolution, under SGLang's ServerArgs name
  (``speculative_num_draft_tokens``, ``attention_backend``, ``page_size``, ...);
- ``input.<dest>``: the flags as written in the launch;
- ``kdacheck.<name>``: what only kdacheck computes (scratch shapes and bytes, the memory solve,
  the verify row map, HiSparse's plan), with origin ``estimate`` where kdacheck assumed, and the
  values in effect where SGLang's field stays null or raw: ``kdacheck.decode_backend`` /
  ``kdacheck.verify_backend`` (the linear-attention kernels that run), ``kdacheck.ssm_dtype``
  (the SSM dtype in effect), ``kdacheck.decode_graph_max_bs`` (None: no decode graphs, e.g. a PD
  prefill server, where SGLang's ``cuda_graph_config.decode.max_bs`` keeps its number).

``sglang.<field>`` holds what SGLang 0.5.23's ``ServerArgs.resolved_dict()`` holds: null stays
null, fallbacks (``mamba_full_memory_ratio`` 0.9) included; ``tests/test_sglang_golden.py``
checks it against the goldens' ``resolved`` fields.
"""

from __future__ import annotations

import functools
from typing import Any

from kdacheck import flags as flagmod
from kdacheck.resolve import Resolved, Val

# SGLang ServerArgs name → kdacheck's resolved name, for what SGLang's argument pipeline resolves.
SGLANG_FIELDS: dict[str, str] = {
    "tp_size": "tp_size", "dp_size": "dp_size", "pp_size": "pp_size", "attn_dp_size": "attn_dp_size",
    "attn_cp_size": "attn_cp_size", "enable_dp_attention": "dp_attention", "enable_two_batch_overlap": "enable_two_batch_overlap",
    "disaggregation_mode": "disaggregation_mode",
    "speculative_algorithm": "speculative_algorithm", "speculative_num_steps": "steps", "speculative_eagle_topk": "topk",
    "speculative_num_draft_tokens": "draft_tokens", "speculative_adaptive": "adaptive",
    "speculative_ngram_max_bfs_breadth": "ngram_breadth", "speculative_dspark_block_size": "speculative_dspark_block_size",  # raw: the gamma in effect is kdacheck.dspark_gamma
    "speculative_dflash_block_size": "dflash_block_size", "max_running_requests": "max_running_requests",
    "attention_backend": "attention_backend", "decode_attention_backend": "decode_attention_backend",
    "prefill_attention_backend": "prefill_attention_backend", "page_size": "page_size", "kv_cache_dtype": "kv_cache_dtype",
    "linear_attn_backend": "linear_attn_backend", "linear_attn_decode_backend": "linear_attn_decode_backend",
    "linear_attn_verify_backend": "linear_attn_verify_backend", "mamba_ssm_dtype": "mamba_ssm_dtype",
    "mamba_radix_cache_strategy": "mamba_radix_cache_strategy", "mamba_track_interval": "mamba_track_interval",
    "disable_radix_cache": "disable_radix_cache", "disable_overlap_schedule": "disable_overlap_schedule",
    "enable_linear_replayssm_spec": "enable_linear_replayssm_spec", "enable_linear_replayssm": "enable_linear_replayssm",
    "linear_replayssm_cache_len": "linear_replayssm_cache_len",
    "chunked_prefill_size": "chunked_prefill_size", "mem_fraction_static": "mem_fraction_static",
    "cuda_graph_config.decode.max_bs": "sglang_decode_graph_max_bs", "mamba_full_memory_ratio": "mamba_full_memory_ratio",
    "enable_hisparse": "enable_hisparse", "hisparse_config": "hisparse_config",
    "dsa_decode_backend": "sglang_dsa_decode_backend", "dsa_prefill_backend": "sglang_dsa_prefill_backend",
    "enable_mixed_chunk": "enable_mixed_chunk", "speculative_adaptive_config": "speculative_adaptive_config",
    "dsv4_attn_backend": "dsv4_attn_backend",
}
# kdacheck names whose value is SGLang's only before the state pool is sized (the solve
# overwrites them with what the model runner computes): shown under kdacheck.* then.
_RUNTIME_OVERWRITES = ("max_mamba_cache_size",)

GROUPS = ("parallelism", "speculative", "backends", "scratch", "memory", "row map", "hisparse", "other")
_GROUP_OF = {
    "parallelism": ("tp_size", "dp_size", "pp_size", "attn_", "dp_attention", "enable_two_batch_overlap", "disaggregation", "pd_"),
    "speculative": ("speculative", "steps", "topk", "draft_tokens", "adaptive", "spec_on", "d_max", "verify_width", "ngram",
                    "dspark", "dflash", "max_running_requests", "R"),
    "backends": ("attention_backend", "decode_attention", "prefill_attention", "page_size", "kv_cache", "linear_attn",
                 "decode_backend", "verify_backend", "ssm_dtype", "mamba_ssm", "fused_accept", "replayssm", "radix", "mamba_radix",
                 "mamba_track", "disable_overlap", "disable_radix", "enable_linear_replayssm", "linear_replayssm", "dsa_", "dsv4_"),
    "scratch": ("intermediate_", "L", "HV", "scratch", "per_request_state"),
    "memory": ("mem_", "mamba_full", "mamba_ratio", "max_mamba", "weight_bytes", "spec_reserve", "chunked_prefill",
               "decode_graph", "R_after_solve"),
    "row map": ("row_map", "max_verify_batch"),
    "hisparse": ("hisparse", "plan_", "enable_hisparse", "enable_mixed_chunk"),
}


@functools.lru_cache(maxsize=4096)  # the names are SGLang's dests and kdacheck's resolved names: a few hundred
def group_of(name: str) -> str:
    for group, keys in _GROUP_OF.items():
        if any(name == k or ((k.endswith(("_", ".")) or len(k) > 3) and name.startswith(k)) for k in keys):
            return group
    return "other"


def unit_of(name: str) -> str | None:
    if name.endswith("_bytes") or "_bytes_" in name:
        return "bytes"
    if name.endswith("_gib"):
        return "GiB"
    if name.endswith("_shape"):
        return "shape"
    if name == "mem_fraction_static":
        return "fraction of GPU memory"
    return None


def plain(value: Any) -> Any:
    """A JSON value for any resolved value: records become objects, never a Python repr."""
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if hasattr(value, "_asdict"):  # NamedTuple records (RowMapParams)
        return plain(value._asdict())
    if hasattr(value, "__dataclass_fields__"):  # dataclass records (the memory solve)
        return {k: plain(getattr(value, k)) for k in value.__dataclass_fields__}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    return str(value)


def shown(value: Any, unit: str | None) -> str:
    """A value as the full report prints it: thousands separators, GiB beside bytes, no reprs."""
    v = plain(value)
    if isinstance(v, bool) or v is None:
        return str(v)
    if isinstance(v, int):
        text = f"{v:,}" if abs(v) >= 10_000 else str(v)
        return f"{text} bytes ({v / 2**30:.3f} GiB)" if unit == "bytes" else text
    if isinstance(v, float):
        return f"{v:g}" + (" GiB" if unit == "GiB" else "")
    if isinstance(v, list):
        return "[" + ", ".join(shown(x, None) for x in v) + "]"
    if isinstance(v, dict):
        return ", ".join(f"{k} {shown(x, None)}" for k, x in v.items())
    return str(v)


def layers(cfg: Resolved) -> dict[str, tuple[str, Any, str, str, Val | None]]:
    """Every value as (layer name → (group, JSON value, origin, why, Val)), in display order."""
    out: dict[str, tuple[str, Any, str, str, Val | None]] = {}
    mapped = set()
    for field, name in SGLANG_FIELDS.items():
        val = cfg.vals.get(name)
        if val is None and field in cfg.parsed.given:
            g = cfg.parsed.given[field]
            val = Val(g.value, "user", f"given: {g.written} at {g.loc}", g.loc)
        elif val is None and flagmod.table(cfg.version).has_dest(field):
            # a field no step resolves for this launch keeps its flag default in ServerArgs
            val = Val(flagmod.table(cfg.version).default(field), "default", f"SGLang {cfg.version} default")
        if val is None or (name in _RUNTIME_OVERWRITES and val.origin == "derived"):
            continue
        mapped.add(name)
        out[f"sglang.{field}"] = (group_of(name), plain(val.value), val.origin, val.why, val)
    for dest, g in cfg.parsed.given.items():
        why = f"written `{g.written}` at {g.loc}"
        out[f"input.{dest}"] = (group_of(dest), plain(g.value), "user", why, Val(g.value, "user", why, g.value_loc))
    for name, val in cfg.vals.items():
        if name in mapped:
            continue
        origin = "estimate" if val.origin == "assumed" else val.origin
        out[f"kdacheck.{name}"] = (group_of(name), plain(val.value), origin, val.why, val)
    return out
