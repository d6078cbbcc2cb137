"""KDA: hybrid linear-attention verify (KDA and, where marked, GDN)."""

from __future__ import annotations

from collections.abc import Iterator

from kdacheck.findings import Severity
from kdacheck.resolve import Resolved
from kdacheck.rules.base import Hit, rule, unchecked

KDA001_MESSAGE = "KDA verify needs {draft_token_num} scratch steps, but intermediate_ssm only has {scratch_steps}."


@rule(
    "KDA001", Severity.ERROR,
    summary="verify width ≤ allocated scratch steps (D ≤ D_max)",
    what="""
        The verify kernel writes one state per draft token into `intermediate_ssm`
        `[L, R + 1, D_max, HV, Vd, Kd]`. Every verify batch's width D must fit in the D_max
        steps allocated at start-up.
    """,
    why="""
        The FlashInfer verify path raises at the first verify batch; the Triton path has no
        check and writes past the row into the next request's scratch (silent corruption).
    """,
    sglang_message=KDA001_MESSAGE,
    fix="Size the scratch for the widest verify batch: resize to ≥ D steps, or lower the draft width.",
    example="kdacheck run --steps 4 --topk 1 --buffer-steps 3",
    sources=(
        "0.5.18 `srt/layers/attention/linear/kernels/kda_flashinfer.py:270`; 0.5.23 line 296",
        "0.5.19 `srt/mem_cache/memory_pool.py:714-822` (intermediate_ssm allocation)",
    ),
    inferred="The Triton path's missing bound check is inferred from 0.5.23 `fused_sigmoid_gating_recurrent.py` (`cache_idx * cache_steps + step`, unchecked); `kdacheck run --buffer-steps` reproduces it with canaries.",
)
def kda001(cfg: Resolved) -> Iterator[Hit]:
    if not cfg.v("spec_on"):
        return
    if cfg.model is None:
        yield unchecked("needs the model geometry (pass --model)")
        return
    if not cfg.model.hybrid or not cfg.v("scratch_allocated"):
        return
    width = cfg.v("verify_width_max", cfg.v("draft_tokens"))
    dmax = cfg.v("d_max")
    if width is not None and dmax is not None and width > dmax:
        yield Hit(
            KDA001_MESSAGE.format(draft_token_num=width, scratch_steps=dmax),
            f"resize to ≥ {width} scratch steps",
            values=("draft_tokens", "d_max"),
        )
