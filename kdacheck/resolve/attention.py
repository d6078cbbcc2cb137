"""Attention and linear-attention backends, page size, SSM dtype.

Mirrors 0.5.23 ``srt/arg_groups/model_hook.py`` ``handle_model_specific_adjustments`` with the
``model_overrides/`` (page size 64 for DSA models), ``srt/arg_groups/attention_hook.py``
``handle_linear_attn_backend`` (decode and verify backends, the SSM dtype) and
``srt/arg_groups/kimi_k3_hook.py`` (Kimi-Linear keeps triton decode).

Reads: the flags, the model's family and SSM dtype, the GPU's SM, ``disable_radix_cache``,
``disaggregation_mode``. Sets: the names of ``backends.sets`` and ``linear_attention.sets``.
"""

from __future__ import annotations

from kdacheck import versions
from kdacheck.models import Family
from kdacheck.resolve.core import Event, Resolved, step

# Qwen3-Next / Qwen3.5 hybrids: 0.5.23 model_overrides/qwen3_5.py L17-49.
QWEN35_ARCHS = ("Qwen3NextForCausalLM", "Qwen3_5MoeForConditionalGeneration", "Qwen3_5ForConditionalGeneration")


def default_attention_backend(r: Resolved) -> str | None:
    """SGLang's default attention backend for the model and GPU (0.5.23
    ``model_override_base.py`` L277 ``get_default_attn_backend``); None when the GPU is unknown.

    It reads the user's topk and page size: the speculative hook fills topk later.
    """
    m, gpu = r.model, r.gpu
    if gpu is None or m is None:
        return None
    topk, page = r.user("speculative_eagle_topk"), r.user("page_size")
    no_spec_or_chain = topk is None or (topk == 1 and page in (1, None))
    algo = (r.user("speculative_algorithm") or "").upper() or None
    if m.mla:
        return "fa3" if gpu.sm // 10 == 9 else "flashinfer" if gpu.sm // 10 == 10 else "triton"
    if gpu.sm // 10 == 9 and no_spec_or_chain:
        return "fa3"
    dflash = algo == "DFLASH" and r.at_least(versions.DFLASH_TRTLLM_MHA_DEFAULT)
    if gpu.sm // 10 == 10 and no_spec_or_chain and (algo is None or topk is not None or dflash):
        return "trtllm_mha"
    return "flashinfer"


def _nemotron_h_override(r: Resolved, sm: int) -> None:
    """Nemotron-H on Blackwell with no attention backend (0.5.23 ``model_overrides/nemotron_h.py``
    L122-148): with speculation and topk 1 (or unset) on SM100, trtllm_mha at page 64 and the
    extra_buffer strategy; with a tree, triton; without speculation on SM100, trtllm_mha."""
    why = "Nemotron-H on Blackwell (model_overrides/nemotron_h.py)"
    if r.user("speculative_algorithm") is not None:
        if sm // 10 == 10 and r.user("speculative_eagle_topk") in (None, 1):
            r.put("attention_backend", "trtllm_mha", why, "model")
            if r.user("page_size") is None:
                r.put("page_size", 64, why, "model")
            if r.v("mamba_radix_cache_strategy") in (None, "auto") and r.user("mamba_radix_cache_strategy") in (None, "auto"):
                r.put("mamba_radix_cache_strategy", "extra_buffer", why, "model")
        else:
            r.put("attention_backend", "triton", why, "model")
    elif sm // 10 == 10:
        r.put("attention_backend", "trtllm_mha", why, "model")


# Page sizes each backend accepts (0.5.23 overrides.py L1144 ``_mla_backend_page_constraints``):
# an unlisted page, or none, becomes 64 (a warning, never an error; an explicit --page-size too).
_PAGE_CONSTRAINTS = (
    ("flashmla", ("attention_backend", "decode_attention_backend"), ()),
    ("trtllm_mla", ("attention_backend", "decode_attention_backend"), (32, 64)),
    ("cutedsl_mla", ("attention_backend", "decode_attention_backend", "prefill_attention_backend"), (32, 64)),
    ("trtllm_mha", ("attention_backend", "decode_attention_backend", "prefill_attention_backend", "speculative_draft_attention_backend"), (16, 32, 64, 128)),
    ("hpc_ops", ("attention_backend", "decode_attention_backend", "prefill_attention_backend"), (64,)),
)


@step(
    "attention backend and page size",
    mirrors="0.5.23 srt/arg_groups/model_hook.py handle_model_specific_adjustments (model_overrides/deepseek_v2.py, "
            "qwen3_5.py); attention_hook.py handle_attention_backend_compatibility (overrides.py _attention_backend_default, "
            "_mla_backend_page_constraints)",
    sets=("attention_backend", "decode_attention_backend", "prefill_attention_backend", "page_size", "kv_cache_dtype",
          "page_after_overrides", "mamba_radix_cache_strategy"),
)
def backends(r: Resolved) -> None:
    r.flag("kv_cache_dtype")
    page = r.flag("page_size")
    r.flag("attention_backend")
    dec = r.flag("decode_attention_backend").value
    pre = r.flag("prefill_attention_backend").value
    m, gpu = r.model, r.gpu
    unset = r.v("attention_backend") is None and dec is None and pre is None
    # The model overrides, which overwrite an explicit --page-size.
    if m is not None and m.family is Family.DSA:
        kv = r.v("kv_cache_dtype")
        if kv == "auto" and gpu is not None:
            r.put("kv_cache_dtype", "fp8_e4m3" if gpu.sm >= 100 else "bfloat16",
                  f"DSA model on SM{gpu.sm}: auto KV cache (overrides.py _dsa_kv_cache_dtype_default)", "gpu")
        elif kv == "bf16":
            r.put("kv_cache_dtype", "bfloat16", "bf16 is bfloat16 (overrides.py _dsa_kv_cache_dtype_default)", loc=r.place("kv_cache_dtype"))
        if unset:
            r.put("attention_backend", "dsa", "DSA model: the dsa attention backend (model_overrides/deepseek_v2.py L102)", "model")
        r.put("page_size", 64 * m.index_kpool, f"DSA model: page size 64 · index_kpool {m.index_kpool}, whatever --page-size says "
              "(model_overrides/deepseek_v2.py L162)", "model", page.loc)
    elif m is not None and m.architecture in QWEN35_ARCHS and gpu is not None and gpu.sm // 10 == 10 and r.v("attention_backend") is None:
        d = default_attention_backend(r)
        plain = r.v("mamba_radix_cache_strategy") not in ("extra_buffer", "extra_buffer_lazy") and not r.v("disable_radix_cache") \
            and r.user("speculative_algorithm") is None
        backend = "trtllm_mha" if d == "trtllm_mha" and not plain else "triton"
        r.put("attention_backend", backend, f"Qwen3-Next/3.5 on SM{gpu.sm}: {backend} (model_overrides/qwen3_5.py)", "model")
        r.put("page_size", 64 if backend == "trtllm_mha" else 1, f"Qwen3-Next/3.5 on SM{gpu.sm} with {backend}, whatever --page-size says "
              "(model_overrides/qwen3_5.py)", "model", page.loc)
    elif m is not None and m.architecture.startswith("NemotronH") and gpu is not None and gpu.sm // 10 in (10, 11, 12) and unset:
        _nemotron_h_override(r, gpu.sm)
    elif m is not None and m.architecture == "DeepseekV3ForCausalLM" and gpu is not None and gpu.sm // 10 == 10 and unset:
        r.put("attention_backend", "trtllm_mla", "DeepSeek-V3 on SM100: trtllm_mla (model_overrides/deepseek_v2.py L179)", "model")
    r.put("page_after_overrides", r.v("page_size"), "the page size after the model overrides, before the backends' constraints")
    # The default fill (_attention_backend_default).
    if pre is not None and pre == dec:
        r.put("attention_backend", pre, "--prefill-attention-backend = --decode-attention-backend", loc=r.place("prefill_attention_backend"))
    elif r.v("attention_backend") is None:
        default = default_attention_backend(r)
        if default is not None:
            assert gpu is not None
            r.put("attention_backend", default, f"SGLang's default on SM{gpu.sm} for this model (get_default_attn_backend)", "gpu")
    # The backends' page constraints.
    for backend, fields, allowed in _PAGE_CONSTRAINTS:
        if any((r.v(f) if f != "speculative_draft_attention_backend" else r.user(f)) == backend for f in fields):
            size = r.v("page_size")
            if size not in allowed:
                r.put("page_size", 64, f"{backend} supports page size {'/'.join(map(str, allowed)) or '64'} only: {size} → 64 "
                      "(overrides.py _mla_backend_page_constraints)", loc=page.loc)
    if r.v("page_size") is None:
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
    elif m is not None and m.ssm_dtype:  # only where SGLang's config class reads it (not Kimi, not Granite)
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
