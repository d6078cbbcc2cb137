"""NVFP4 KV cache: the prefill dequant dtype and the attention backends it selects.

Mirrors 0.5.23 ``srt/arg_groups/kv_cache_hook.py`` L24-97 ``handle_nvfp4_prefill_kv_dequant_dtype``,
which runs after the model overrides and before the default attention backend is filled
(``pipeline.py``): with ``--kv-cache-dtype nvfp4`` the prefill backend becomes flashinfer (an
FP8 E4M3 workspace) or trtllm_mha (native NVFP4, SM100 only) and the decode backend trtllm_mha.
Called by ``attention.backends``; the refusal lands in ``nvfp4_problem`` (ATTN005 reports it).
"""

from __future__ import annotations

from kdacheck.resolve.core import Resolved

_PREFILL_BACKEND = {"fp8_e4m3": "flashinfer", "nvfp4": "trtllm_mha"}
_DEQUANT_DTYPE = {backend: dtype for dtype, backend in _PREFILL_BACKEND.items()}


def nvfp4_prefill(r: Resolved) -> None:
    """Set the backends NVFP4 selects, or ``nvfp4_problem`` (SGLang's ValueError message)."""
    requested = r.user("prefill_kv_cache_dequant_dtype") or "auto"
    if r.v("kv_cache_dtype") != "nvfp4":
        if requested != "auto":
            r.put("nvfp4_problem", "--prefill-kv-cache-dequant-dtype applies only with --kv-cache-dtype=nvfp4.",
                  "handle_nvfp4_prefill_kv_dequant_dtype", loc=r.place("prefill_kv_cache_dequant_dtype"))
        return
    gpu = r.gpu
    if gpu is None:
        return  # SM100 decides the native path: not known
    sm100 = gpu.sm // 10 == 10
    pre, dec = r.v("prefill_attention_backend"), r.v("decode_attention_backend")
    if requested == "auto":
        explicit = pre or r.v("attention_backend")
        if explicit in _DEQUANT_DTYPE:
            requested = _DEQUANT_DTYPE[explicit]
        elif explicit is not None:
            r.put("nvfp4_problem", f"NVFP4 prefill supports an FP8 E4M3 workspace or native NVFP4, but backend {explicit!r} "
                  "provides neither.", "handle_nvfp4_prefill_kv_dequant_dtype", loc=r.place("prefill_attention_backend", "attention_backend"))
            return
        else:
            requested = "nvfp4" if sm100 else "fp8_e4m3"
    if requested == "nvfp4" and not sm100:
        r.put("nvfp4_problem", "Native NVFP4 prefill currently requires SM100; use --prefill-kv-cache-dequant-dtype=fp8_e4m3 "
              "on this platform.", "handle_nvfp4_prefill_kv_dequant_dtype", loc=r.place("prefill_kv_cache_dequant_dtype"))
        return
    target = _PREFILL_BACKEND.get(requested)
    if target is None:
        return  # not one of the flag's choices: ARG004
    if pre is not None and pre != target:
        r.put("nvfp4_problem", f"--prefill-kv-cache-dequant-dtype={requested} requires prefill backend {target!r}, but "
              f"--prefill-attention-backend={pre!r} was set. Remove the backend option and select the KV dtype only.",
              "handle_nvfp4_prefill_kv_dequant_dtype", loc=r.place("prefill_attention_backend"))
        return
    if dec not in (None, "trtllm_mha"):
        r.put("nvfp4_problem", f"NVFP4 decode requires --decode-attention-backend=trtllm_mha; got {dec!r}. Remove the backend "
              "option; NVFP4 selects the supported decode implementation automatically.",
              "handle_nvfp4_prefill_kv_dequant_dtype", loc=r.place("decode_attention_backend"))
        return
    why = f"--kv-cache-dtype nvfp4 with a {requested} prefill input (kv_cache_hook.py handle_nvfp4_prefill_kv_dequant_dtype)"
    r.put("prefill_attention_backend", target, why)
    r.put("decode_attention_backend", "trtllm_mha", why)
