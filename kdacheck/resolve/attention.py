"""Attention and linear-attention backends, page size, SSM dtype.

Mirrors 0.5.23 ``srt/arg_groups/model_hook.py`` ``handle_model_specific_adjustments`` with the
``model_overrides/`` (page size 64 for DSA models), ``srt/arg_groups/attention_hook.py``
``handle_linear_attn_backend`` (decode and verify backends, the SSM dtype) and
``srt/arg_groups/kimi_k3_hook.py`` (Kimi-Linear keeps triton decode).

Reads: the flags, the model's family and SSM dtype, the GPU's SM, ``disable_radix_cache``,
``disaggregation_mode``. Sets: the names of ``backends.sets`` and ``linear_attention.sets``.
"""

from __future__ import annotations

from kdacheck.models import Family
from kdacheck.resolve.core import Event, Resolved, step


@step(
    "attention backend and page size",
    mirrors="0.5.23 srt/arg_groups/model_hook.py handle_model_specific_adjustments (model_overrides/deepseek_v2.py)",
    sets=("attention_backend", "decode_attention_backend", "prefill_attention_backend", "page_size"),
)
def backends(r: Resolved) -> None:
    r.flag("page_size")
    r.flag("attention_backend")
    r.flag("decode_attention_backend")
    r.flag("prefill_attention_backend")
    if r.v("page_size") is None:
        if r.model is not None and r.model.family is Family.DSA:
            r.put("page_size", 64, "SGLang sets page size 64 for DSA models", "model")
        else:
            r.put("page_size", 1, f"SGLang {r.version} default (1)")


@step(
    "linear-attention backends",
    mirrors="0.5.23 srt/arg_groups/attention_hook.py handle_linear_attn_backend",
    sets=("linear_attn_backend", "linear_attn_decode_backend", "linear_attn_verify_backend", "mamba_ssm_dtype",
          "decode_backend", "verify_backend", "ssm_dtype", "enable_linear_replayssm_spec", "enable_linear_replayssm",
          "linear_replayssm_cache_len", "fused_accept"),
)
def linear_attention(r: Resolved) -> None:
    m, gpu = r.model, r.gpu
    spec = r.user("speculative_algorithm") is not None
    base = r.flag("linear_attn_backend")
    dec_given = r.flag("linear_attn_decode_backend")
    ver_given = r.flag("linear_attn_verify_backend")
    ssm_given = r.flag("mamba_ssm_dtype")
    kimi = m is not None and m.family is Family.KDA
    if dec_given.value == "flashkda" and dec_given.origin == "user":
        r.events.add(Event.FLASHKDA_DECODE)
    if dec_given.value is not None:
        r.put("decode_backend", dec_given.value, dec_given.why, "user", dec_given.loc)
    elif gpu is not None and gpu.sm >= 100 and ssm_given.value == "bfloat16" and ssm_given.origin == "user" and base.value != "helion":
        if kimi:
            r.put("decode_backend", "triton", "SM100 + bfloat16 SSM would pick flashinfer; Kimi-Linear keeps triton (kimi_k3_hook)")
        else:
            r.put("decode_backend", "flashinfer", f"SM{gpu.sm} with --mamba-ssm-dtype bfloat16 ⇒ flashinfer")
    elif base.value == "flashkda":
        r.put("decode_backend", "triton", "--linear-attn-backend flashkda is prefill-only: decode falls back to triton", loc=base.loc)
    else:
        r.put("decode_backend", base.value or "triton", f"--linear-attn-backend ({base.why})", base.origin, base.loc)
    if ver_given.value is not None:
        r.put("verify_backend", ver_given.value, ver_given.why, "user", ver_given.loc)
    elif kimi and spec:
        r.put("verify_backend", "nv_cutedsl", "Kimi-Linear with speculative decoding (runs the Triton verify kernel)")
    elif r.v("decode_backend") == "flashinfer":
        r.put("verify_backend", "flashinfer", "follows the flashinfer decode backend", loc=r.place("decode_backend"))
    else:
        r.put("verify_backend", "triton", "default")
    if ssm_given.value is not None:
        r.put("ssm_dtype", ssm_given.value, ssm_given.why, "user", ssm_given.loc)
    elif m is not None and m.ssm_dtype and not kimi:
        r.put("ssm_dtype", m.ssm_dtype, f"model config ({m.source})", "model")
    else:
        r.put("ssm_dtype", "float32", "default (Kimi-Linear: only --mamba-ssm-dtype counts)" if kimi else "default")
    r.flag("enable_linear_replayssm_spec")
    r.flag("enable_linear_replayssm")
    r.flag("linear_replayssm_cache_len")
    fused = (
        r.v("verify_backend") == "flashinfer"
        and spec
        and bool(r.v("disable_radix_cache"))
        and not r.v("enable_linear_replayssm_spec")
        and r.v("disaggregation_mode") in (None, "null")
    )
    r.put("fused_accept", fused, "flashinfer verify + --disable-radix-cache, no ReplaySSM-spec, no PD" if fused else "needs flashinfer verify, speculation, --disable-radix-cache, no ReplaySSM-spec, no PD")
