"""Qwen3-Next and Qwen3.5 (GDN hybrids): 0.5.23 ``model_overrides/qwen3_5.py`` L17-49.

On SM100 with no attention backend given, SGLang picks ``trtllm_mha`` (page 64) where its
default would be trtllm_mha and the launch is not a plain one (a non-default radix strategy,
the radix cache off, or speculation), else ``triton`` (page 1), whatever ``--page-size`` says.
SGLang registers the override for InternS2 (Preview, Mobius) too: it composes with their own
entries (``hybrids.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kdacheck import versions
from kdacheck.architectures.defaults import default_attention_backend
from kdacheck.architectures.registry import architecture, register

if TYPE_CHECKING:
    from kdacheck.gpus import GPU
    from kdacheck.models import Model
    from kdacheck.resolve.core import Resolved

MIRRORS = "0.5.23 srt/arg_groups/model_overrides/qwen3_5.py L17-49; overrides.py L369-403 _MAMBA_RADIX_CACHE_ARCHS, _MAMBA_EXTRA_BUFFER_ARCHS"


@architecture("Qwen3NextForCausalLM", "Qwen3_5MoeForConditionalGeneration", "Qwen3_5ForConditionalGeneration",
              mirrors=MIRRORS, extra_buffer=True, mamba_radix_cache=True, has_state=True, families=("gdn",))
def qwen3_5(r: Resolved, m: Model, gpu: GPU | None, unset: bool) -> None:
    if gpu is None or gpu.sm // 10 != 10 or r.v("attention_backend") is not None:
        return
    page = r["page_size"]  # as the step read it, before any override
    d = default_attention_backend(r)
    plain = r.user("mamba_radix_cache_strategy") not in ("extra_buffer", "extra_buffer_lazy") and not r.v("disable_radix_cache") \
        and r.user("speculative_algorithm") is None
    backend = "trtllm_mha" if d == "trtllm_mha" and not plain else "triton"
    r.put("attention_backend", backend, f"Qwen3-Next/3.5 on SM{gpu.sm}: {backend} (model_overrides/qwen3_5.py)", "model")
    r.put("page_size", 64 if backend == "trtllm_mha" else 1, f"Qwen3-Next/3.5 on SM{gpu.sm} with {backend}, whatever --page-size says "
          "(model_overrides/qwen3_5.py)", "model", page.loc)


architecture("InternS2PreviewForConditionalGeneration", "InternS2MobiusForConditionalGeneration",
             mirrors="0.5.23 srt/arg_groups/model_overrides/qwen3_5.py L17-49 (_register_for names them)")(qwen3_5)
register("Qwen3_5MoeForCausalLM", "Qwen3_5ForCausalLM", mirrors=MIRRORS, extra_buffer=True, mamba_radix_cache=True, has_state=True, families=("gdn",))
register("Qwen4ExpForConditionalGeneration", mirrors=MIRRORS + "; configs/qwen4_exp.py (a Qwen3NextConfig: hybrid_gdn_config)",
         extra_buffer=True, mamba_radix_cache=True, has_state=True, families=("gdn",))
# its own model override's refusals (0.5.23 srt/arg_groups/model_overrides/qwen4_exp.py L20-88): MODEL010
register("Qwen4ExpForConditionalGeneration", launch_hook="qwen4_exp", mirrors="0.5.23 srt/arg_groups/model_overrides/qwen4_exp.py L20-88")


@architecture("Qwen4ExpForConditionalGeneration", mirrors="0.5.23 srt/arg_groups/model_overrides/qwen4_exp.py L57-96 (0.5.20+)")
def qwen4_exp(r: Resolved, m: Model, gpu: GPU | None, unset: bool) -> None:
    """Qwen4-Exp's own override (0.5.20+): Qwen3.5's SM100 attention default (L57-71), then with the
    compressed QSA indexer (``indexer_n_heads`` in the text config) page 64, whatever ``--page-size``
    says: the compressed slots are full slots // ratio, page-aligned (L89-96)."""
    if not r.at_least(versions.QWEN4_EXP_CHECKS):
        return
    qwen3_5(r, m, gpu, unset)
    if m.qsa_indexer:
        r.put("page_size", 64, "Qwen4-Exp's compressed QSA indexer: page 64, whatever --page-size says (model_overrides/qwen4_exp.py)",
              "model", r["page_size"].loc)
register("Qwen4Exp", mirrors="0.5.23 srt/configs/hybrid_arch.py", prefix=True, has_state=True)
