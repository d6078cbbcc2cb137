"""Kimi-Linear and Kimi-K3 (KDA hybrids): 0.5.23 ``overrides.py`` L403 ``_MAMBA_EXTRA_BUFFER_ARCHS``."""

from __future__ import annotations

from kdacheck.architectures.registry import register

register("KimiLinearForCausalLM", "KimiK3ForConditionalGeneration", extra_buffer=True, has_state=True,
         mirrors="0.5.23 srt/arg_groups/overrides.py L403 _MAMBA_EXTRA_BUFFER_ARCHS")
