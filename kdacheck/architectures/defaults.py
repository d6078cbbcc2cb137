"""SGLang's default attention backend for a model and a GPU (0.5.23 ``model_override_base.py``),
shared by the attention step and the architecture overrides that consult it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kdacheck import versions

if TYPE_CHECKING:
    from kdacheck.resolve.core import Resolved


def default_attention_backend(r: Resolved) -> str | None:
    """SGLang's default attention backend for the model and GPU (0.5.23
    ``model_override_base.py`` L277 ``get_default_attn_backend``); None when the GPU is unknown.

    It reads the user's topk and page size: the speculative hook fills topk later.
    """
    m, gpu = r.model, r.gpu
    if gpu is None or m is None:
        return None
    topk, page = r.user("speculative_eagle_topk"), r.user("page_size")
    no_spec_or_chain = topk is None or (topk == 1 and page in (1, None))
    algo = (r.user("speculative_algorithm") or "").upper() or None
    if m.mla:
        return "fa3" if gpu.sm // 10 == 9 else "flashinfer" if gpu.sm // 10 == 10 else "triton"
    if gpu.sm // 10 == 9 and no_spec_or_chain:
        return "fa3"
    dflash = algo == "DFLASH" and r.at_least(versions.DFLASH_TRTLLM_MHA_DEFAULT)
    if gpu.sm // 10 == 10 and no_spec_or_chain and (algo is None or topk is not None or dflash):
        return "trtllm_mha"
    return "flashinfer"
