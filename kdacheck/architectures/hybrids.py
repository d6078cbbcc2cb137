"""The other hybrids SGLang keeps state for, and those that support the extra_buffer strategy.

``has_state``: SGLang gives them mamba / linear-attention state (0.5.23 ``srt/configs/
hybrid_arch.py``: short-conv, Mamba-1, Lightning and the rest), so kdacheck never says "no
mamba state" of them even where it reads no geometry. ``extra_buffer``: 0.5.23
``srt/arg_groups/overrides.py`` L403 ``_MAMBA_EXTRA_BUFFER_ARCHS``.
"""

from __future__ import annotations

from kdacheck.architectures.registry import register

STATE = "0.5.23 srt/configs/hybrid_arch.py"
EXTRA = "0.5.23 srt/arg_groups/overrides.py L403 _MAMBA_EXTRA_BUFFER_ARCHS"

register("FalconH1", "Lfm2", "Zaya", "Mamba", "FalconMamba", "GraniteMoeHybrid", "Bailing", "MiniCPM", "Jet", "InternS2",
         "Inkling", "GigaChat35", prefix=True, has_state=True, mirrors=STATE)
register("InternS2PreviewForConditionalGeneration", "MiniCPMV4_6ForConditionalGeneration", "MiniCPMV4_7ForConditionalGeneration",
         "BailingMoeV2_5ForCausalLM", "BailingMoeV3ForCausalLM", "BailingMoeV3VLForConditionalGeneration", "FalconH1ForCausalLM",
         "GraniteMoeHybridForCausalLM", "InklingForConditionalGeneration", "InklingForConditionalGenerationMTP",
         extra_buffer=True, mirrors=EXTRA)
# a DSA architecture too (deepseek.py): its extra_buffer support as an entry of its own, merged on lookup
register("Glm5NextForConditionalGeneration", prefix=True, extra_buffer=True, mirrors=EXTRA)
