"""KV-cache bytes per token per rank, from a model's config.json read as SGLang's model
classes size their KV pools (``--min-context``).

kdacheck's memory account (``kdacheck.resolve.mempool``) stops at what is left for the KV cache
(``mem_kv_rest_gib``); how many tokens that holds needs the bytes of one token's KV cache, which
only the config says (a local config.json, or the bundled index's fields for a preset name).
When it does not, the plan says ``--min-context`` could not be checked.

- MLA (``kv_lora_rank`` in the config; SGLang 0.5.23 ``srt/mem_cache/memory_pool.py``
  ``MLATokenToKVPool``): ``kv_lora_rank + qk_rope_head_dim`` elements per full-attention layer,
  the same on every TP rank; a DSA indexer (``index_head_dim``) adds its FP8 key and a float32
  scale per layer (``NSATokenToKVPool``).
- GQA/MHA (``MHATokenToKVPool``): ``2 · max(1, kv_heads // tp) · head_dim`` elements per layer.
- DeepSeek-V4 (``Architecture.kv_unmodelled``): no figure; its sliding-window and c4/c128
  compressed pools are not modelled, and the plan says ``--min-context`` could not be checked.
- Full-attention layers: ``layer_types`` (``full_attention``/``attention`` entries),
  ``layers_block_type`` (Nemotron-H's list), ``hybrid_override_pattern`` (``*``; the MTP
  layers, ``mtp_hybrid_override_pattern``, are the draft's and never counted here), ``linear_attn_config.full_attn_layers``,
  ``full_attention_interval``, else every layer without recurrent state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kdacheck.models import Model

MAX_LAYERS = 4096


@dataclass(frozen=True)
class KVShape:
    layers: int  # full-attention layers
    elements: int  # per token per layer per rank
    indexer_bytes: int  # per token per layer (DSA index keys), dtype-independent
    how: str

    def bytes_per_token(self, dtype_bytes: int) -> int:
        return self.layers * (self.elements * dtype_bytes + self.indexer_bytes)


def _int(cfg: dict[str, Any], key: str) -> int | None:
    v = cfg.get(key)
    return v if isinstance(v, int) and not isinstance(v, bool) and 0 < v < 1 << 20 else None


def _full_layers(cfg: dict[str, Any], model: Model) -> tuple[int | None, str]:
    types = cfg.get("layer_types")
    if isinstance(types, list) and 0 < len(types) <= MAX_LAYERS:
        return sum(1 for t in types if t in ("full_attention", "attention")), "`layer_types`"
    kinds = cfg.get("layers_block_type")  # Nemotron-H's list (0.5.23 configs/nemotron_h.py full_attention_layer_ids)
    if isinstance(kinds, list) and 0 < len(kinds) <= MAX_LAYERS:
        return sum(1 for t in kinds if t in ("attention", "full_attention")), "`layers_block_type` (`attention`)"
    pattern = cfg.get("hybrid_override_pattern")
    if isinstance(pattern, str) and 0 < len(pattern) <= MAX_LAYERS:
        return pattern.count("*"), "`hybrid_override_pattern` (`*`)"
    lac = cfg.get("linear_attn_config")
    if isinstance(lac, dict) and isinstance(lac.get("full_attn_layers"), list) and len(lac["full_attn_layers"]) <= MAX_LAYERS:
        return len(lac["full_attn_layers"]), "`linear_attn_config.full_attn_layers`"
    n = _int(cfg, "num_hidden_layers")
    interval = _int(cfg, "full_attention_interval")
    if n and interval:
        return n // interval, "`num_hidden_layers // full_attention_interval`"
    if n:
        return max(0, n - model.linear_layers), "`num_hidden_layers` less the layers with recurrent state"
    return None, "no layer count"


def shape(raw: dict[str, Any] | None, where: str, model: Model, tp: int) -> tuple[KVShape | None, str]:
    """The KV shape per rank from a config (``where``: whence it came), or (None, why not)."""
    if raw is None:
        return None, "the KV bytes per token need the model's config.json (pass --model FOLDER or a config.json)"
    from kdacheck import architectures

    unmodelled = architectures.lookup(model.architecture).kv_unmodelled
    if unmodelled:  # not full attention: no MLA/GQA figure stands in for it
        return None, f"{where}: {model.architecture[:80]} keeps {unmodelled}, whose bytes per token kdacheck does not model"
    text = raw.get("text_config")
    cfg: dict[str, Any] = text if isinstance(text, dict) else raw
    layers, lwhy = _full_layers(cfg, model)
    if layers is None:
        return None, f"{where}: {lwhy}"
    rank = _int(cfg, "kv_lora_rank")
    if rank is not None:
        rope = _int(cfg, "qk_rope_head_dim")
        if rope is None:
            return None, f"{where}: an MLA config without qk_rope_head_dim"
        index = _int(cfg, "index_head_dim")
        return KVShape(layers, rank + rope, (index + 4) if index else 0,
                       f"MLA: {layers} layers ({lwhy}) × (kv_lora_rank {rank} + qk_rope_head_dim {rope})"
                       + (f" + indexer {index} B + 4 B scale" if index else "") + f", from {where}"), ""
    heads = _int(cfg, "num_attention_heads")
    kv_heads = _int(cfg, "num_key_value_heads") or heads
    head_dim = _int(cfg, "head_dim") or ((_int(cfg, "hidden_size") or 0) // heads if heads else None)
    if not kv_heads or not head_dim:
        return None, f"{where}: no num_key_value_heads / head_dim"
    per_rank = max(1, kv_heads // max(1, tp))
    return KVShape(layers, 2 * per_rank * head_dim, 0,
                   f"{layers} layers ({lwhy}) × 2 × {per_rank} KV heads per rank × head_dim {head_dim}, from {where}"), ""


def dtype_bytes(kv_cache_dtype: Any) -> int:
    """Bytes per KV element: FP8/FP4 kinds 1 (FP4 counted as 1: packed scales), else 2."""
    text = str(kv_cache_dtype or "auto").lower()
    return 1 if text.startswith(("fp8", "fp4", "float8")) else 2
