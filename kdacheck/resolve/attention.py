"""Attention and linear-attention backends, page size, SSM dtype.

Mirrors 0.5.23 ``srt/arg_groups/model_hook.py`` ``handle_model_specific_adjustments`` with the
``model_overrides/`` (page size 64 for DSA models), ``srt/arg_groups/attention_hook.py``
``handle_linear_attn_backend`` (decode and verify backends, the SSM dtype) and
``srt/arg_groups/kimi_k3_hook.py`` (Kimi-Linear keeps triton decode); the aiter backend's
× 0.85 on ``mem_fraction_static`` above 8192 tokens of context (``handle_attention_backend_compatibility``)
and ReplaySSM-spec's float32 ``mamba_ssm_dtype``.

Reads: the flags, the model's family, SSM dtype and context length, the GPU's SM, ``disable_radix_cache``,
``disaggregation_mode``, ``mem_fraction_static``. Sets: the names of ``backends.sets`` and ``linear_attention.sets``.
"""

from __future__ import annotations

from kdacheck import architectures, versions
from kdacheck.architectures.defaults import default_attention_backend
from kdacheck.models import Family
from kdacheck.resolve import kv4
from kdacheck.resolve.core import Event, Resolved, step

# Page sizes each backend accepts (0.5.23 overrides.py L1144 ``_mla_backend_page_constraints``):
# an unlisted page, or none, becomes 64 (a warning, never an error; an explicit --page-size too).
_PAGE_CONSTRAINTS = (
    ("flashmla", ("attention_backend", "decode_attention_backend"), ()),
    ("trtllm_mla", ("attention_backend", "decode_attention_backend"), (32, 64)),
    ("cutedsl_mla", ("attention_backend", "decode_attention_backend", "prefill_attention_backend"), (32, 64)),
    ("trtllm_mha", ("attention_backend", "decode_attention_backend", "prefill_attention_backend", "speculative_draft_attention_backend"), (16, 32, 64, 128)),
    ("hpc_ops", ("attention_backend", "decode_attention_backend", "prefill_attention_backend"), (64,)),
)


# 0.5.23 serving_hook.py L303-336 ``_handle_deprecated_args``: deprecated backend names, renamed
# before any other hook reads them
_ALIASES = {"compressed": "dsv4", "tokenspeed_mla": "cutedsl_mla"}
_BACKEND_FIELDS = ("attention_backend", "decode_attention_backend", "prefill_attention_backend")


def _deprecated_names(r: Resolved) -> None:
    if not r.at_least(versions.BACKEND_ALIASES):
        return
    given = {f: r.v(f) for f in _BACKEND_FIELDS}
    for field, old in given.items():
        if old in _ALIASES:
            # cutedsl_mla is decode-only: a renamed prefill backend becomes trtllm_mla
            new = "trtllm_mla" if field == "prefill_attention_backend" and _ALIASES[old] == "cutedsl_mla" else _ALIASES[old]
            r.put(field, new, f"{old} is a deprecated name: SGLang renames it {new} (serving_hook.py _handle_deprecated_args)",
                  loc=r.place(field))
    if "tokenspeed_mla" in (given["attention_backend"], given["decode_attention_backend"]) and r.v("kv_cache_dtype") != "fp8_e4m3":
        r.put("kv_cache_dtype", "fp8_e4m3", "tokenspeed_mla required an FP8 KV cache: SGLang sets fp8_e4m3 "
              "(serving_hook.py _handle_deprecated_args)", loc=r.place("attention_backend"))


@step(
    "attention backend and page size",
    mirrors="0.5.23 srt/arg_groups/model_hook.py handle_model_specific_adjustments (model_overrides/deepseek_v2.py, "
            "qwen3_5.py); attention_hook.py handle_attention_backend_compatibility (overrides.py _attention_backend_default, "
            "_mla_backend_page_constraints)",
    sets=("attention_backend", "decode_attention_backend", "prefill_attention_backend", "page_size", "kv_cache_dtype",
          "page_after_overrides", "mamba_radix_cache_strategy", "nvfp4_problem", "decode_graph_max_bs", "max_running_requests",
          "dsv4_attn_backend", "mem_fraction_static"),
)
def backends(r: Resolved) -> None:
    r.flag("kv_cache_dtype")
    page = r.flag("page_size")
    r.flag("attention_backend")
    r.flag("decode_attention_backend")
    r.flag("prefill_attention_backend")
    _deprecated_names(r)
    dec, pre = r.v("decode_attention_backend"), r.v("prefill_attention_backend")
    m, gpu = r.model, r.gpu
    unset = r.v("attention_backend") is None and dec is None and pre is None
    # The model overrides, which overwrite an explicit --page-size (kdacheck.architectures).
    if m is not None:
        for override in architectures.lookup(m.architecture).overrides:  # in registration order, as SGLang composes them
            override(r, m, gpu, unset)
    r.put("page_after_overrides", r.v("page_size"), "the page size after the model overrides, before the backends' constraints")
    kv4.nvfp4_prefill(r)  # may set the prefill/decode backends (pipeline.py: before the default fill)
    pre, dec = r.v("prefill_attention_backend"), r.v("decode_attention_backend")
    # The default fill (_attention_backend_default).
    if pre is not None and pre == dec:
        r.put("attention_backend", pre, "--prefill-attention-backend = --decode-attention-backend", loc=r.place("prefill_attention_backend"))
    elif r.v("attention_backend") is None:
        default = default_attention_backend(r)
        if default is not None:
            assert gpu is not None
            r.put("attention_backend", default, f"SGLang's default on {gpu.label} for this model (get_default_attn_backend)", "gpu")
    # The backends' page constraints (the draft backend as given, or Kimi's DSpark default on SM100:
    # kimi_k3_hook.py L42-55 apply_kimi_k3_spec_backend_defaults, run in the model hook before them).
    draft = r.user("speculative_draft_attention_backend")
    if draft is None and m is not None and m.family is Family.KDA and gpu is not None and gpu.sm // 10 == 10 \
            and str(r.user("speculative_algorithm") or "").upper() == "DSPARK":
        draft = "trtllm_mha"
    for backend, fields, allowed in _PAGE_CONSTRAINTS:
        if any((r.v(f) if f != "speculative_draft_attention_backend" else draft) == backend for f in fields):
            size = r.v("page_size")
            if size not in allowed:
                r.put("page_size", 64, f"{backend} supports page size {'/'.join(map(str, allowed)) or '64'} only: {size} → 64 "
                      "(overrides.py _mla_backend_page_constraints)", loc=page.loc)
    if r.v("attention_backend") in ("torch_native", "flex_attention") and r.v("decode_graph_max_bs") is not None:
        # attention_hook.py L122-160: CUDA graphs off for these two (after the memory fraction is set)
        r.put("decode_graph_max_bs", None, f"--attention-backend {r.v('attention_backend')}: SGLang disables CUDA graphs",
              loc=r.place("attention_backend"))
    # FA3 runs FP8 as fp8_e4m3 only: with fp8_e5m2 SGLang falls back to triton
    # (0.5.23 overrides.py L1262-1270 _attention_backend_fa3_fp8_fallback, attention_hook.py L239).
    if r.v("attention_backend") == "fa3" and r.v("kv_cache_dtype") == "fp8_e5m2":
        r.put("attention_backend", "triton", "FA3 supports FP8 as fp8_e4m3 only: with --kv-cache-dtype fp8_e5m2 SGLang "
              "falls back to triton (overrides.py _attention_backend_fa3_fp8_fallback)", loc=r.place("kv_cache_dtype"))
    # FA4 on SM100 for a non-MLA model runs page 128 only, unless EAGLE tree decoding as given
    # (0.5.23 overrides.py L1274-1296 _fa4_page_constraint, attention_hook.py L241).
    fa4 = any(r.v(f) == "fa4" for f in ("attention_backend", "decode_attention_backend", "prefill_attention_backend"))
    if fa4 and m is not None and not m.mla and gpu is not None and gpu.sm // 10 == 10 \
            and (r.user("speculative_eagle_topk") or 0) <= 1 and r.v("page_size") != 128:
        r.put("page_size", 128, f"FA4 on SM{gpu.sm} supports page size 128 only for a non-MLA model: "
              f"{r.v('page_size')} → 128 (overrides.py _fa4_page_constraint)", loc=page.loc)
    _aiter_fraction(r)
    # Intel XPU attention pages 64 or 128 (MLA: also 16, 32); any other page, or none, becomes 128
    # (0.5.23 overrides.py L1323-1337 _intel_xpu_page_constraint, attention_hook.py L278).
    base = r.v("attention_backend")
    if "intel_xpu" in (r.v("prefill_attention_backend") or base, r.v("decode_attention_backend") or base):
        allowed = (64, 128, 16, 32) if m is not None and m.mla else (64, 128)
        if r.v("page_size") not in allowed:
            r.put("page_size", 128, f"the Intel XPU attention backend supports page size {'/'.join(map(str, allowed))} only: "
                  f"{r.v('page_size')} → 128 (overrides.py _intel_xpu_page_constraint)", loc=page.loc)
    if r.v("page_size") is None:
        r.put("page_size", 1, f"SGLang {r.version} default (1)")


def _aiter_fraction(r: Resolved) -> None:
    """The aiter attention backend with a context above 8192 tokens: SGLang scales
    ``mem_fraction_static`` (given or its default) by 0.85 for the non-static workspace (0.5.23
    attention_hook.py L244-268; 0.5.19 L183-200). Only ``SGLANG_AITER_HONOR_EXPLICIT_MEM_FRACTION``
    (off by default, and not visible to kdacheck) keeps a given fraction as it is."""
    mfs = r.v("mem_fraction_static")
    if r.v("attention_backend") != "aiter" or not isinstance(mfs, (int, float)):
        return
    asked = r.user("context_length")
    g = r.model.geometry if r.model is not None else None
    context = asked if isinstance(asked, int) else g.context if g is not None else 0
    if context > 8192:
        r.put("mem_fraction_static", mfs * 0.85,
              f"{mfs} × 0.85: --attention-backend aiter with context length {context} > 8192 reserves workspace "
              "(attention_hook.py handle_attention_backend_compatibility)", loc=r.place("attention_backend", "mem_fraction_static"))


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
    declared = True  # SGLang writes the decode backend into its own field (not a kernel fallback)
    if dec_given.value is not None:
        r.put("decode_backend", dec_given.value, dec_given.why, "user", dec_given.loc)
        declared = False
    elif gpu is not None and gpu.sm >= 100 and ssm_given.value == "bfloat16" and ssm_given.origin == "user" and base.value != "helion":
        if kimi:
            r.put("decode_backend", "triton", "SM100 + bfloat16 SSM would pick flashinfer; Kimi-Linear keeps triton (kimi_k3_hook)")
        else:
            r.put("decode_backend", "flashinfer", f"SM{gpu.sm} with --mamba-ssm-dtype bfloat16 ⇒ flashinfer")
    elif base.value == "flashkda":
        r.put("decode_backend", "triton", "--linear-attn-backend flashkda is prefill-only: decode falls back to triton", loc=base.loc)
    else:
        r.put("decode_backend", base.value or "triton", f"--linear-attn-backend ({base.why})", base.origin, base.loc)
        declared = False
    # SGLang's own fields keep only what the launch gives or a hook declares (attention_hook.py
    # L289-330, kimi_k3_hook.py L18-76); the kernels' fallbacks are kdacheck's decode_backend /
    # verify_backend above and below.
    if declared:
        r.put("linear_attn_decode_backend", r.v("decode_backend"), f"declared by SGLang: {r['decode_backend'].why}")
    if ver_given.value is None and kimi and spec:
        r.put("linear_attn_verify_backend", "nv_cutedsl", "declared by SGLang (kimi_k3_hook.py apply_kimi_k3_spec_backend_defaults)")
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
    if r.v("enable_linear_replayssm_spec") and ssm_given.value is None:
        # 0.5.23 attention_hook.py L506-516 (0.5.19 L439-449): ReplaySSM-spec declares SGLang's own
        # --mamba-ssm-dtype float32 when none is given (compensated checkpoint projection), so the
        # model config's SSM dtype no longer counts
        why = "--enable-linear-replayssm-spec declares float32 (attention_hook.py handle_linear_attn_backend)"
        r.put("mamba_ssm_dtype", "float32", why, loc=r.place("enable_linear_replayssm_spec"))
        r.put("ssm_dtype", "float32", why, loc=r.place("enable_linear_replayssm_spec"))
    fused = (
        r.v("verify_backend") == "flashinfer"
        and spec
        and bool(r.v("disable_radix_cache"))
        and not r.v("enable_linear_replayssm_spec")
        and r.v("disaggregation_mode") in (None, "null")
    )
    r.put("fused_accept", fused, "flashinfer verify + --disable-radix-cache, no ReplaySSM-spec, no PD" if fused else "needs flashinfer verify, speculation, --disable-radix-cache, no ReplaySSM-spec, no PD")
