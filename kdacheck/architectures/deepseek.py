"""DeepSeek and the DSA architectures: 0.5.23 ``model_overrides/deepseek_v2.py`` L37-179 and
``configs/model_config.py`` L191-212 (``is_deepseek_dsa``), L395-400 (``is_deepseek_v4``).

A DSA model (a DSA architecture whose config has ``index_topk``): the auto KV cache is
fp8_e4m3 on SM100+ and bfloat16 below (``bf16`` spelled out), the ``dsa`` attention backend
when none is given, and page size 64 · ``index_kpool`` whatever ``--page-size`` says.
DeepSeek-V3 (no ``index_topk``) on SM100 with no backend given: trtllm_mla.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kdacheck import versions
from kdacheck.architectures.registry import architecture, register
from kdacheck.models import Family

if TYPE_CHECKING:
    from kdacheck.gpus import GPU
    from kdacheck.models import Model
    from kdacheck.resolve.core import Resolved

DSA = ("DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM", "DeepseekV3ForCausalLMNextN", "MistralLarge3ForCausalLM",
       "PixtralForConditionalGeneration", "GlmMoeDsaForCausalLM", "GlmMoeDsaForCausalLMNextN",
       "Glm5NextForConditionalGenerationNextN", "Glm5NextForConditionalGeneration", "LongcatFlashForCausalLM",
       "LongcatFlashForCausalLMNextN", "Dots3NoteForCausalLM", "Dots3NoteForCausalLMNextN", "HYV4ForCausalLM",
       "HYV4ForCausalLMNextN")
MIRRORS = "0.5.23 srt/arg_groups/model_overrides/deepseek_v2.py L102-179; configs/model_config.py L191-212 is_deepseek_dsa"


@architecture(*DSA, mirrors=MIRRORS, dsa=True, hisparse="dsa", families=("dsa",))
def deepseek_v2(r: Resolved, m: Model, gpu: GPU | None, unset: bool) -> None:
    page = r["page_size"]  # as the step read it, before any override
    if m.family is Family.DSA:
        kv = r.v("kv_cache_dtype")
        if kv == "auto" and m.learnable_sink and r.at_least(versions.DSA_LEARNABLE_SINKS):
            r.put("kv_cache_dtype", "bfloat16", "DSA model with learnable attention sinks: auto KV cache is bfloat16 "
                  "(overrides.py L532-535 _dsa_kv_cache_dtype_default)", "model")
        elif kv == "auto" and gpu is not None:
            r.put("kv_cache_dtype", "fp8_e4m3" if gpu.sm >= 100 else "bfloat16",
                  f"DSA model on SM{gpu.sm}: auto KV cache (overrides.py _dsa_kv_cache_dtype_default)", "gpu")
        elif kv == "bf16":
            r.put("kv_cache_dtype", "bfloat16", "bf16 is bfloat16 (overrides.py _dsa_kv_cache_dtype_default)", loc=r.place("kv_cache_dtype"))
        if unset:
            r.put("attention_backend", "dsa", "DSA model: the dsa attention backend (model_overrides/deepseek_v2.py L102)", "model")
        r.put("page_size", 64 * m.index_kpool, f"DSA model: page size 64 · index_kpool {m.index_kpool}, whatever --page-size says "
              "(model_overrides/deepseek_v2.py L162)", "model", page.loc)
    elif m.architecture == "DeepseekV3ForCausalLM" and gpu is not None and gpu.sm // 10 == 10 and unset:
        r.put("attention_backend", "trtllm_mla", "DeepSeek-V3 on SM100: trtllm_mla (model_overrides/deepseek_v2.py L179)", "model")


# HYV4 refuses prefill and decode context parallelism in the DeepSeek override (0.5.23 deepseek_v2.py L61-76,
# from 0.5.20): MODEL007
register("HYV4ForCausalLM", "HYV4ForCausalLMNextN", launch_hook="hyv4", mirrors="0.5.23 srt/arg_groups/model_overrides/deepseek_v2.py L61-76")
# SGLang's CP_DECODE_ATTN_TP_SUPPORTED_ARCHS (0.5.23 srt/layers/cp/cp_decode_attn_tp.py L29-36; 0.5.19-0.5.22 the same)
register("DeepseekV4ForCausalLM", "DeepseekV4ForCausalLMNextN", "DeepseekV4ForCausalLMDSpark", "GlmMoeDsaForCausalLM",
         "GlmMoeDsaForCausalLMNextN", cp_decode_attn_tp=True, mirrors="0.5.23 srt/layers/cp/cp_decode_attn_tp.py L29-36")


# DeepSeek-V4: its own sparse attention (is_deepseek_v4), not is_deepseek_dsa's. Its KV cache (a
# sliding-window pool, the c4/c128 compressed pools and their compress state, 0.5.23
# mem_cache/deepseek_v4_memory_pool.py, model_executor/pool_configurator.py L1353-1500) is not
# modelled: ``kv_unmodelled`` says so wherever a KV figure would be given (families/dense.py).
V4_KV = ("DeepSeek-V4's compressed KV cache (a sliding-window pool, the c4 and c128 compressed pools and their compress "
         "state: mem_cache/deepseek_v4_memory_pool.py, model_executor/pool_configurator.py)")
register("DeepseekV4", prefix=True, hisparse="v4", kv_unmodelled=V4_KV, mirrors="0.5.23 srt/configs/model_config.py L395-400 is_deepseek_v4")
V4_MIRRORS = ("0.5.23 srt/arg_groups/model_overrides/deepseek_v4.py L18-66 _deepseek_v4_overrides; "
              "deepseek_v4_hook.py L63-158 apply_deepseek_v4_defaults; overrides.py L892-913 _deepseek_v4_kv_cache_dtype")


@architecture("DeepseekV4ForCausalLM", mirrors=V4_MIRRORS, launch_hook="deepseek_v4")
def deepseek_v4(r: Resolved, m: Model, gpu: GPU | None, unset: bool) -> None:
    """The declarations SGLang's V4 provider makes whatever the flags say (a declaration wins over
    the raw input: overrides.py ``resolution_result``), then the V4 hook's defaults (CUDA)."""
    why = "DeepSeek-V4: the dsv4 attention backend, page size 256 (model_overrides/deepseek_v4.py L24, L50-63)"
    r.put("attention_backend", "dsv4", why, "model", r.place("attention_backend"))
    r.put("page_size", 256, why, "model", r.place("page_size"))
    if r.v("kv_cache_dtype") == "auto":
        r.put("kv_cache_dtype", "fp8_e4m3", "DeepSeek-V4: auto KV cache is fp8_e4m3 (overrides.py L902 _deepseek_v4_kv_cache_dtype)", "model")
    given = r.user("dsv4_attn_backend")
    if given not in (None, "auto"):
        r.put("dsv4_attn_backend", given, f"given: --dsv4-attn-backend {given}", "user", r.place("dsv4_attn_backend"))
    elif m.model_type != "deepseek_v41":
        # _default_dsv4_attention_backend (deepseek_v4_hook.py L45-60): flashmla_mega only for V4.1
        r.put("dsv4_attn_backend", "flashmla", "DeepSeek-V4 (not V4.1): the flashmla V4 attention backend "
              "(deepseek_v4_hook.py L45-60 _default_dsv4_attention_backend)", "model")
    if r.user("max_running_requests") is None:
        r.put("max_running_requests", 256, "DeepSeek-V4: max running requests 256 (deepseek_v4_hook.py L139-147)", "model")
# MiniMax-M2 / M2.5: full-attention MoE (models/minimax_m2.py); none of hybrid_arch.py's classes, no state
register("MiniMaxM2ForCausalLM", mirrors="0.5.23 srt/models/minimax_m2.py EntryClass (full attention, no hybrid_arch.py class)")
register("MiniMaxM3SparseForCausalLM", "MiniMaxM3SparseForConditionalGeneration", hisparse="m3",
         mirrors="0.5.23 srt/configs/model_config.py L426-431 is_minimax_sparse")
# the M3 model override's NVFP4 refusals (0.5.23 srt/arg_groups/model_overrides/minimax_m3.py L37-122): MODEL011; only
# the vision-language wrapper exposes the draft's hidden-state capture (L61-66)
register("MiniMaxM3SparseForCausalLM", launch_hook="minimax_m3", mirrors="0.5.23 srt/arg_groups/model_overrides/minimax_m3.py L37-122")
register("MiniMaxM3SparseForConditionalGeneration", launch_hook="minimax_m3_vl",
         mirrors="0.5.23 srt/arg_groups/model_overrides/minimax_m3.py L37-122")
# _boundary_parallelism_overrides: LongCat-Flash (model_type longcat_flash) refuses prefill CP over attention CP
register("LongcatFlashForCausalLM", context_parallel="no_prefill_cp_with_attn_cp",
         mirrors="0.5.23 srt/arg_groups/parallel_hook.py L66-81 _boundary_parallelism_overrides")
