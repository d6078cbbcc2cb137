"""DeepSeek and the DSA architectures: 0.5.23 ``model_overrides/deepseek_v2.py`` L37-179 and
``configs/model_config.py`` L191-212 (``is_deepseek_dsa``), L395-400 (``is_deepseek_v4``).

A DSA model (a DSA architecture whose config has ``index_topk``): the auto KV cache is
fp8_e4m3 on SM100+ and bfloat16 below (``bf16`` spelled out), the ``dsa`` attention backend
when none is given, and page size 64 · ``index_kpool`` whatever ``--page-size`` says.
DeepSeek-V3 (no ``index_topk``) on SM100 with no backend given: trtllm_mla.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

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
        if kv == "auto" and gpu is not None:
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


# DeepSeek-V4: its own sparse attention (is_deepseek_v4), not is_deepseek_dsa's: full attention as far as kdacheck models it
register("DeepseekV4", prefix=True, hisparse="v4", mirrors="0.5.23 srt/configs/model_config.py L395-400 is_deepseek_v4")
# MiniMax-M2 / M2.5: full-attention MoE (models/minimax_m2.py); none of hybrid_arch.py's classes, no state
register("MiniMaxM2ForCausalLM", mirrors="0.5.23 srt/models/minimax_m2.py EntryClass (full attention, no hybrid_arch.py class)")
register("MiniMaxM3SparseForCausalLM", "MiniMaxM3SparseForConditionalGeneration", hisparse="m3",
         mirrors="0.5.23 srt/configs/model_config.py L426-431 is_minimax_sparse")
