"""SGLang's default attention backend for a model and a GPU (0.5.23 ``model_override_base.py``),
shared by the attention step and the architecture overrides that consult it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kdacheck import versions

if TYPE_CHECKING:
    from kdacheck.resolve.core import Resolved


def default_attention_backend(r: Resolved) -> str | None:
    """SGLang's default attention backend for the model and GPU (0.5.23
    ``model_override_base.py`` L277 ``get_default_attn_backend``); None when the GPU is unknown, and
    for an MLA model on ROCm (aiter or triton by the KV heads per rank).

    It reads the user's topk and page size: the speculative hook fills topk later.
    """
    m, gpu = r.model, r.gpu
    if gpu is None or m is None:
        return None
    topk, page = r.user("speculative_eagle_topk"), r.user("page_size")
    no_spec_or_chain = topk is None or (topk == 1 and page in (1, None))
    algo = (r.user("speculative_algorithm") or "").upper() or None
    if m.mla:
        if gpu.hip:  # aiter for 16 or 128 KV heads per rank, else triton (L341-347): a count kdacheck does not read
            return None
        return "fa3" if gpu.hopper else "flashinfer" if gpu.sm100 else "triton"
    if gpu.hopper and no_spec_or_chain:
        return "fa3"
    dflash = algo == "DFLASH" and r.at_least(versions.DFLASH_TRTLLM_MHA_DEFAULT)
    if gpu.sm100 and no_spec_or_chain and (algo is None or topk is not None or dflash):
        return "trtllm_mha"
    return "aiter" if gpu.hip else "flashinfer"  # ROCm: L326-327; SM120 and the rest: FlashInfer (L329-334)
