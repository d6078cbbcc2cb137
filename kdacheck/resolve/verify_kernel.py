"""Which verify kernel SGLang runs for a resolved launch (a resolution fact, read by ``kdacheck run``).

The verify backend (``resolve/attention.py``) names what the user or SGLang picked; the kernel
that runs can differ: KDA's FlashInfer verify checks its row map, GDN sends tree drafts to its
Triton kernel whatever the backend, and GDN's chain verify runs FlashInfer's kernel only when
decode or prefill is FlashInfer's on an SM90/SM100 GPU, a kernel chosen by SM. Each function
appends what it could not check, or why the flag is overridden, to ``notes``.
"""

from __future__ import annotations

from kdacheck.messages import (
    FLASHINFER_GDN_MTP_BF16_STEPS_MESSAGE,
    FLASHINFER_GDN_MTP_STATE_MESSAGE,
    LINEAR_FLASHINFER_SM100_DECODE_MESSAGE,
    LINEAR_FLASHINFER_SM100_VERIFY_MESSAGE,
)
from kdacheck.models import Family
from kdacheck.resolve.core import Resolved
from kdacheck.sanitize import visible_name


def gdn_tree_on_triton(family: Family, topk: int) -> bool:
    """GDN sends tree drafts (topk > 1) to its Triton verify whatever the backend (0.5.23
    ``gdn_backend.py`` L505-512)."""
    return family is Family.GDN and topk > 1


def kda_flashinfer_row_map(cfg: Resolved) -> bool:
    """Whether the verify is KDA's FlashInfer kernel with its identity row-map check (0.5.23
    ``layers/attention/linear/kernels/kda_flashinfer.py``): FlashInfer's verify without fused
    accept; GDN's FlashInfer verify copies non-identity rows through a scratch and raises nothing."""
    return cfg.v("verify_backend") == "flashinfer" and not cfg.v("fused_accept") and cfg.model is not None and cfg.model.family is Family.KDA


def gdn_verify_on_flashinfer(cfg: Resolved, notes: list[str]) -> bool:
    """Whether SGLang 0.5.23 runs GDN's chain verify on FlashInfer's kernel: not when
    ``--linear-attn-verify-backend triton``; else when decode or prefill is FlashInfer's on an
    SM90/SM100 GPU (``srt/layers/attention/linear/gdn_backend.py`` L347-361,
    ``kernels/gdn_flashinfer.py`` L211); otherwise its Triton kernel, whatever the verify flag says."""
    if cfg.v("verify_backend") == "triton":
        return False
    prefill_given = cfg.user("linear_attn_prefill_backend")
    prefill = prefill_given or cfg.v("linear_attn_backend")
    if cfg.v("decode_backend") != "flashinfer" and prefill != "flashinfer":
        if cfg.v("verify_backend") == "flashinfer":
            notes.append("GDN verify: neither decode nor prefill is FlashInfer's, so SGLang runs its Triton verify kernel "
                         "whatever --linear-attn-verify-backend says (gdn_backend.py L347-361)")
        if prefill_given is None and cfg.v("linear_attn_backend") == "triton" and (cfg.gpu is None or cfg.gpu.hopper or cfg.gpu.sm100):
            notes.append("could not be checked: SGLang may pick FlashInfer's GDN prefill by default on SM90/SM100 (gdn_backend.py "
                         "L191-226: CUDA version, chunk size, state dtype), which would put the verify on FlashInfer's kernel too; "
                         "kdacheck runs the Triton verify")
        return False
    if cfg.gpu is None:
        notes.append("could not be checked: no GPU profile (--gpu); GDN's FlashInfer verify runs only on SM90/SM100, "
                     "assumed here (gdn_flashinfer.py L211)")
        return True
    if not (cfg.gpu.hopper or cfg.gpu.sm100):
        notes.append(f"GDN verify: FlashInfer's kernel needs SM90/SM100, this is {cfg.gpu.label}: SGLang runs its Triton verify "
                     "(gdn_flashinfer.py L211, gdn_backend.py L347-361)")
        return False
    return True


def gdn_flashinfer_kernel(cfg: Resolved, dtype: str, notes: list[str]) -> tuple[str | None, str | None]:
    """The FlashInfer 0.7.2 kernel GDN's FlashInfer verify calls, by SM (0.5.23
    ``gdn_flashinfer.py`` L205-264): SM90 its float32-state ``gated_delta_rule_mtp``, SM100 the
    bfloat16-state one; each asserts its state dtype, then the scratch's steps. Returns (what it
    raises before launching with this state dtype, its step check's text)."""
    if cfg.gpu is not None and cfg.gpu.sm100:
        # SGLang refuses any other state dtype at start-up (attention_hook.py L335-377), before
        # the bfloat16-state kernel's own assert (gdn_decode_bf16_state.py L3676) could
        refusal = None
        if dtype != "bfloat16":
            given = repr(cfg.user("mamba_ssm_dtype"))
            text = LINEAR_FLASHINFER_SM100_DECODE_MESSAGE if cfg.v("decode_backend") == "flashinfer" else LINEAR_FLASHINFER_SM100_VERIFY_MESSAGE
            refusal = text.format(given=visible_name(given))
        return refusal, FLASHINFER_GDN_MTP_BF16_STEPS_MESSAGE
    if cfg.gpu is None:
        notes.append("could not be checked: which FlashInfer GDN verify kernel (SM90: float32 state, SM100: bfloat16) "
                     "without a GPU profile; the SM90 one assumed")
    return (None if dtype == "float32" else FLASHINFER_GDN_MTP_STATE_MESSAGE.format(dtype=f"torch.{dtype}")), None
