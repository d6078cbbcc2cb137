"""DSA attention backends: the split prefill/decode backends SGLang picks for a DSA model and
the constraints it checks on them.

Mirrors 0.5.23 ``srt/arg_groups/overrides.py`` L600-733 ``_dsa_split_backend_resolution`` and
L550-583 ``_check_dsa_backend_constraints``, on CUDA and ROCm (``GPU.hip``: triton on both sides by
default, the TileLang FP8 checks skipped). The KV dtype is the one ``_dsa_kv_cache_dtype_default``
resolved (the model override, ``kdacheck.architectures``); learnable attention sinks (``learnable_sink``
in the config) take flashmla_sparse on both sides (L640-660). Not modelled: GLM-5's FP8 KV on SM120/SM121 (L645-656:
``flashinfer_sparse_mla`` on both sides, no check; kdacheck names trtllm there, no refusal either way).

Reads: the flags, the model's family, the GPU's SM, ``kv_cache_dtype``, ``enable_hisparse``.
Sets: ``dsa_backends`` ((prefill, decode) as SGLang resolves them), ``dsa_backend_problem``
(SGLang's ValueError message, or None).
"""

from __future__ import annotations

from kdacheck import versions
from kdacheck.models import Family
from kdacheck.resolve.core import Resolved, step

TRITON_ROCM_ONLY = ("The triton DSA backend is only supported on ROCm/HIP. Pick an alternative DSA backend for CUDA "
                    "(flashmla_kv on Hopper, trtllm on Blackwell).")
TILELANG_FP8_PAIR = ("CUDA TileLang FP8 KV requires both DSA backends to be tilelang; raw and scaled FP8 KV layouts "
                     "cannot be mixed.")
TILELANG_FP8_DCP = "CUDA TileLang FP8 KV does not support --dcp-size > 1."
TILELANG_FP8_HISPARSE = "CUDA TileLang FP8 KV does not support HiSparse."


@step(
    "DSA backends",
    mirrors="0.5.23 srt/arg_groups/overrides.py _dsa_split_backend_resolution, _check_dsa_backend_constraints",
    sets=("dsa_backends", "dsa_backend_problem", "sglang_dsa_prefill_backend", "sglang_dsa_decode_backend"),
)
def backends(r: Resolved) -> None:
    m, gpu = r.model, r.gpu
    r.flag("sglang_dsa_prefill_backend", "dsa_prefill_backend")
    r.flag("sglang_dsa_decode_backend", "dsa_decode_backend")
    if m is None or m.family is not Family.DSA or gpu is None:
        return
    kv = r.v("kv_cache_dtype")
    kv = "bfloat16" if kv == "bf16" else kv
    if kv not in ("bfloat16", "fp8_e4m3"):
        return  # refused before (ATTN002)
    pre, dec = r.user("dsa_prefill_backend"), r.user("dsa_decode_backend")
    problem = None
    if m.learnable_sink and r.at_least(versions.DSA_LEARNABLE_SINKS):  # L640-660: flashmla_sparse on both sides (a different one given is HSP009, refused before)
        pre, dec = pre or "flashmla_sparse", dec or "flashmla_sparse"
    elif r.user("enable_hisparse"):
        # hisparse_hook.py L26-29 _hisparse_default_backend: tilelang on ROCm
        default = "tilelang" if gpu.hip else "flashmla_kv" if kv == "fp8_e4m3" else "flashmla_sparse"
        pre, dec = pre or default, dec or default
        if not gpu.hip and kv == "fp8_e4m3" and "tilelang" in (pre, dec):
            problem = TILELANG_FP8_HISPARSE
    elif gpu.hip:  # L685-689
        pre, dec = pre or "triton", dec or "triton"
    elif kv == "fp8_e4m3":
        default = "trtllm" if gpu.sm >= 100 else "flashmla_kv"
        pre, dec = pre or default, dec or default
    else:
        pre, dec = pre or "flashmla_sparse", dec or ("trtllm" if gpu.sm >= 100 else "fa3")
    why = f"DSA backends for a {kv} KV cache on {gpu.label} (_dsa_split_backend_resolution)"
    r.put("dsa_backends", (pre, dec), why)
    r.put("sglang_dsa_prefill_backend", pre, why)
    r.put("sglang_dsa_decode_backend", dec, why)
    if gpu.hip:
        pass  # ROCm: neither the triton nor the TileLang check (L563-572)
    elif problem is None and "triton" in (pre, dec):
        problem = TRITON_ROCM_ONLY
    elif problem is None and kv == "fp8_e4m3" and "tilelang" in (pre, dec):
        if pre != "tilelang" or dec != "tilelang":
            problem = TILELANG_FP8_PAIR
        elif int(r.user("dcp_size") or 1) > 1:
            problem = TILELANG_FP8_DCP
    r.put("dsa_backend_problem", problem, problem or "the DSA backends pass _check_dsa_backend_constraints")
