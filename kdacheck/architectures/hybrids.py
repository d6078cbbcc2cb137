"""The other hybrids SGLang keeps state for, and those that support the extra_buffer strategy.

``has_state``: SGLang gives them mamba / linear-attention state (0.5.23 ``srt/configs/
hybrid_arch.py``: short-conv, Mamba-1, Lightning and the rest), so kdacheck never says "no
mamba state" of them even where it reads no geometry. ``extra_buffer``: 0.5.23
``srt/arg_groups/overrides.py`` L403 ``_MAMBA_EXTRA_BUFFER_ARCHS``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kdacheck.architectures.registry import Override, register
from kdacheck.models import Family

if TYPE_CHECKING:
    from kdacheck.gpus import GPU
    from kdacheck.models import Model
    from kdacheck.resolve.core import Resolved

STATE = "0.5.23 srt/configs/hybrid_arch.py"
EXTRA = "0.5.23 srt/arg_groups/overrides.py L403 _MAMBA_EXTRA_BUFFER_ARCHS"
RADIX = "0.5.23 srt/arg_groups/overrides.py L369-399 _MAMBA_RADIX_CACHE_ARCHS"

register("FalconH1", "Lfm2", "Zaya", "Mamba", "FalconMamba", "GraniteMoeHybrid", "Bailing", "MiniCPM", "Jet", "InternS2",
         "Inkling", "GigaChat35", prefix=True, has_state=True, mirrors=STATE)
register("MiniCPMV4_6ForConditionalGeneration", "MiniCPMV4_7ForConditionalGeneration", extra_buffer=True, mamba_radix_cache=True,
         mirrors=f"{RADIX}; {EXTRA}")
register("InternS2PreviewForConditionalGeneration", extra_buffer=True, mamba_radix_cache=True, families=("gdn",),
         mirrors=f"{RADIX}; {EXTRA}; {STATE}")
register("BailingMoeV2_5ForCausalLM", "BailingMoeV3ForCausalLM", "BailingMoeV3VLForConditionalGeneration", extra_buffer=True,
         mamba_radix_cache=True, families=("kda", "lightning"), mirrors=f"{EXTRA}; {STATE} (use_kda: short_conv_kernel_size given)")


def _on_sm100(backend: str, source: str, needs_state: bool = False) -> Override:
    """An override that sets ``backend`` on SM100 when no attention backend is given (and, with
    ``needs_state``, only when the config has mamba layers), as ``source`` does."""

    def override(r: Resolved, m: Model, gpu: GPU | None, unset: bool) -> None:
        if gpu is None or gpu.sm // 10 != 10 or r.v("attention_backend") is not None:
            return
        if needs_state and not m.linear_layers:
            return
        r.put("attention_backend", backend, f"{m.architecture} on SM{gpu.sm}: {backend} ({source})", "model")

    return override


OVERRIDES = "0.5.23 srt/arg_groups/model_overrides/"
register("FalconH1ForCausalLM", extra_buffer=True, mamba_radix_cache=True, families=("mamba2",), mirrors=f"{EXTRA}; {STATE} mamba2_config; {OVERRIDES}falcon_h1.py",
         override=_on_sm100("triton", "model_overrides/falcon_h1.py"))
register("GraniteMoeHybridForCausalLM", extra_buffer=True, mamba_radix_cache=True, families=("mamba2",),
         mirrors=f"{EXTRA}; {STATE} mamba2_config; {OVERRIDES}granitemoehybrid.py (only with mamba layers)",
         override=_on_sm100("flashinfer", "model_overrides/granitemoehybrid.py", needs_state=True))
register("InklingForConditionalGeneration", "InklingForConditionalGenerationMTP",
         extra_buffer=True, families=("mamba2",), mirrors=f"{EXTRA}; {STATE} mamba2_config")
# a DSA architecture too (deepseek.py): its extra_buffer support and its KDA text model (glm5_next_config),
# as an entry of its own, merged on lookup
register("Glm5NextForConditionalGeneration", prefix=True, extra_buffer=True, families=("kda",), mirrors=f"{EXTRA}; {STATE} glm5_next_config")
register("Glm5NextForConditionalGeneration", mamba_radix_cache=True, mirrors=RADIX)
# the rest of hybrid_arch.py's classes, by their model classes' EntryClass names (srt/models/)
register("InternS2MobiusForConditionalGeneration", mamba_radix_cache=True, families=("gdn",), mirrors=f"{RADIX}; {STATE} hybrid_gdn_config")
# model_hook.py handle_model_specific_adjustments refuses pipeline and expert parallelism for it (0.5.23 L176-185,
# 0.5.19 L76-85): MODEL006
register("InternS2MobiusForConditionalGeneration", launch_hook="intern_s2_mobius", mirrors="0.5.23 srt/arg_groups/model_hook.py L176-185")
register("JetNemotronForCausalLM", "JetVLMForConditionalGeneration", mamba_radix_cache=True, families=("gdn",),
         mirrors=f"{RADIX}; {STATE} hybrid_gdn_config; {OVERRIDES}falcon_h1.py", override=_on_sm100("triton", "model_overrides/falcon_h1.py"))
register("GigaChat35ForCausalLM", "GigaChat35ForCausalLMNextN", mamba_radix_cache=True, linear_attn_spec=True, families=("gdn",),
         mirrors="0.5.23 srt/configs/gigachat35.py L241-253 register_linear_attn_model (GDNAttnBackend, uses_mamba_radix_cache=True)")
def _minicpm_sala(r: Resolved, m: Model, gpu: GPU | None, unset: bool) -> None:
    """0.5.23 model_overrides/minicpm.py _minicpm_sala_overrides: sparse or lightning layers turn the
    radix cache off; sparse layers with no attention backend given take minicpm_flashinfer on
    Blackwell (utils/common.py is_blackwell: SM 10.x-12.x), else minicpm_flashattn. Modelled for the
    configs with a lightning layer (kdacheck reads no sparse flag for the others); its refusals
    (DP attention, hierarchical cache, PD disaggregation) are MODEL005."""
    if m.family is not Family.LIGHTNING:
        return
    why = "MiniCPM-SALA (model_overrides/minicpm.py)"
    r.put("disable_radix_cache", True, f"{why}: sparse or lightning layers turn the radix cache off", "model")
    if m.sparse_attention and unset and gpu is not None:
        backend = "minicpm_flashinfer" if gpu.sm // 10 in (10, 11, 12) else "minicpm_flashattn"
        r.put("attention_backend", backend, f"{why}: sparse attention layers on SM{gpu.sm}", "model")


register("MiniCPMSALAForCausalLM", families=("lightning",), override=_minicpm_sala, launch_hook="minicpm",
         mirrors=f"{STATE} hybrid_lightning_config (has_lightning_layers); {OVERRIDES}minicpm.py")
# the dense MiniCPM shares the override and its DP-attention refusal (MODEL005)
register("MiniCPMForCausalLM", launch_hook="minicpm", mirrors=f"{OVERRIDES}minicpm.py L15-18")
# model_hook.py L716-721 (0.5.21 L672-677, 0.5.19 L547-553) asserts they do not run the triton attention
# backend; LFM2-VL is not in that list
register("Lfm2ForCausalLM", "Lfm2MoeForCausalLM", families=("conv",), no_triton=True, mamba_radix_cache=True,
         mirrors=f"{RADIX}; {STATE} mamba2_config; {OVERRIDES}lfm2.py; 0.5.23 srt/arg_groups/model_hook.py L716-721",
         override=_on_sm100("flashinfer", "model_overrides/lfm2.py"))
register("Lfm2VlForConditionalGeneration", families=("conv",), mirrors=f"{STATE} mamba2_config")
register("ZayaForCausalLM", mamba_radix_cache=True, families=("mamba2",), mirrors=f"{RADIX}; {STATE} mamba2_config")
register("MambaForCausalLM", "Mamba2ForCausalLM", "FalconMambaForCausalLM", families=("mamba2",), mirrors=f"{STATE} mamba2_config")
