"""Kimi-Linear and Kimi-K3 (KDA hybrids): 0.5.23 ``overrides.py`` L403 ``_MAMBA_EXTRA_BUFFER_ARCHS``."""

from __future__ import annotations

from kdacheck.architectures.registry import register

register("KimiLinearForCausalLM", "KimiK3ForConditionalGeneration", extra_buffer=True, has_state=True, families=("kda",),
         mirrors="0.5.23 srt/arg_groups/overrides.py L403 _MAMBA_EXTRA_BUFFER_ARCHS; configs/hybrid_arch.py kimi_linear_config")
register("KimiK3LinearForCausalLM", has_state=True, families=("kda",),
         mirrors="0.5.23 srt/configs/hybrid_arch.py kimi_linear_config (models/kimi_k3.py EntryClass)")
