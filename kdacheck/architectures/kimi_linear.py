"""Kimi-Linear and Kimi-K3 (KDA hybrids): 0.5.23 ``overrides.py`` L369-403 ``_MAMBA_RADIX_CACHE_ARCHS``, ``_MAMBA_EXTRA_BUFFER_ARCHS``."""

from __future__ import annotations

from kdacheck.architectures.registry import register

register("KimiLinearForCausalLM", "KimiK3ForConditionalGeneration", extra_buffer=True, mamba_radix_cache=True, has_state=True,
         families=("kda",), mirrors="0.5.23 srt/arg_groups/overrides.py L369-403 _MAMBA_RADIX_CACHE_ARCHS, _MAMBA_EXTRA_BUFFER_ARCHS; "
         "configs/hybrid_arch.py kimi_linear_config")
register("KimiK3LinearForCausalLM", has_state=True, families=("kda",),
         mirrors="0.5.23 srt/configs/hybrid_arch.py kimi_linear_config (models/kimi_k3.py EntryClass)")
# the Kimi-K3 model override's DCP refusals (0.5.23 srt/arg_groups/model_overrides/kimi_k3.py L51-112): MODEL009
register("KimiK3ForConditionalGeneration", launch_hook="kimi_k3", mirrors="0.5.23 srt/arg_groups/model_overrides/kimi_k3.py L51-112")
