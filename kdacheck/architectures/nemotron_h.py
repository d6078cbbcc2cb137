"""Nemotron-H (Mamba2 hybrids): 0.5.23 ``model_overrides/nemotron_h.py`` L17-148.

On Blackwell (SM100-SM120) with no attention backend given: with speculation and topk 1 (or
unset) on SM100, trtllm_mha at page 64 and the extra_buffer strategy; with a tree, triton;
without speculation on SM100, trtllm_mha. SGLang registers the override for
``NemotronHForCausalLM``, ``NemotronHPuzzleForCausalLM`` and ``NemotronH_Omni_Reasoning_V3``;
kdacheck matches every ``NemotronH*`` name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kdacheck.architectures.registry import architecture, register

if TYPE_CHECKING:
    from kdacheck.gpus import GPU
    from kdacheck.models import Model
    from kdacheck.resolve.core import Resolved


@architecture("NemotronH", prefix=True, has_state=True, mirrors="0.5.23 srt/arg_groups/model_overrides/nemotron_h.py L122-148")
def nemotron_h(r: Resolved, m: Model, gpu: GPU | None, unset: bool) -> None:
    if gpu is None or gpu.sm // 10 not in (10, 11, 12) or not unset:
        return
    sm = gpu.sm
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


# a draft model of these is their MTP module, NemotronHForCausalLMMTP with num_nextn_predict_layers 1
# (0.5.23 configs/model_config.py L1190-1203; models/nemotron_h_mtp.py)
register("NemotronHForCausalLM", "NemotronHPuzzleForCausalLM", "NemotronH_Omni_Reasoning_V3", extra_buffer=True,
         mamba_radix_cache=True, families=("mamba2",), mtp_draft="NemotronHForCausalLMMTP",
         mirrors="0.5.23 srt/arg_groups/overrides.py L369-403 _MAMBA_RADIX_CACHE_ARCHS, _MAMBA_EXTRA_BUFFER_ARCHS; configs/model_config.py L1190-1203 (MTP draft)")
# the VL wrappers: hybrid_arch.py mamba2_config returns their llm_config (models/nano_nemotron_vl.py EntryClass)
register("NemotronH_Nano_VL_V2", "NemotronH_Nano_Omni_Reasoning_V3", families=("mamba2",),
         mirrors="0.5.23 srt/configs/hybrid_arch.py mamba2_config (NemotronH_Nano_VL_V2_Config.llm_config)")
# _boundary_parallelism_overrides refuses attention CP for the nemotron_h / nemotron_h_puzzle text model types:
# every Nemotron-H name, the VL wrappers' llm_config included (0.5.23 srt/arg_groups/parallel_hook.py L64-78)
register("NemotronH", prefix=True, context_parallel="no_attn_cp",
         mirrors="0.5.23 srt/arg_groups/parallel_hook.py L64-78 _boundary_parallelism_overrides (model_type nemotron_h*)")
# the names _nemotron_h_overrides is registered for: its ModelOpt relu2 assert (0.5.23 model_overrides/nemotron_h.py L17-43): MODEL013
register("NemotronHForCausalLM", "NemotronHPuzzleForCausalLM", "NemotronH_Omni_Reasoning_V3", launch_hook="nemotron_h",
         mirrors="0.5.23 srt/arg_groups/model_overrides/nemotron_h.py L17-43")
