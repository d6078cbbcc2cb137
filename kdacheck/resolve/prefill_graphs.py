"""The prefill CUDA graphs SGLang captures: their backend as it resolves it (or why they are
off) and how many, for the graph reserve of the default ``--mem-fraction-static``
(``memory.py``). Mirrors 0.5.23 ``srt/arg_groups/cuda_graph_hook.py`` and
``srt/model_executor/cuda_graph_config.py``; steps live in ``memory.py``."""

from __future__ import annotations

from kdacheck import architectures
from kdacheck.models import Family
from kdacheck.resolve.core import Resolved

_PREFILL_SIZES = (*range(4, 33, 4), *range(48, 257, 16), *range(288, 513, 32), *range(576, 1025, 64), *range(1280, 4097, 256))


def prefill_graph_sizes(max_bs: int, deepep: bool = False) -> int:
    """How many prefill CUDA graphs SGLang captures up to ``max_bs`` tokens
    (0.5.23 ``cuda_graph_hook.py`` L480 ``generate_prefill_cuda_graph_batch_sizes``). With
    DeepEP the breakable prefill graphs' sizes are rounded up to multiples of 8 and deduplicated
    (``apply_deepep_adjustments``, L315-345: 4, 12, 20, 28 become 8, 16, 24, 32)."""
    if deepep:  # bounded: max_bs ≤ the 4096 of the list here (the caller passes 2048 or a given cap)
        capped = min(max_bs, 1 << 16)
        sizes = [x for x in _PREFILL_SIZES if x <= capped] + list(range(4608, capped + 1, 512))
        return len({-(-x // 8) * 8 for x in sizes})
    return sum(1 for x in _PREFILL_SIZES if x <= max_bs) + (len(range(4608, max_bs + 1, 512)) if max_bs >= 4608 else 0)


def prefill_backend(r: Resolved) -> tuple[str, str | None]:
    """The prefill CUDA-graph backend SGLang resolves, and why it is off (None: on). An explicit
    ``--cuda-graph-backend-prefill`` wins over the off-switches and skips the auto-disable
    cascade and the PD decode role (0.5.23 ``cuda_graph_hook.py`` ``parse_cuda_graph_config``
    L40-100: precedence and ``_cuda_graph_config_locked``; ``apply_cuda_graph_compatibility``
    L142; ``apply_cuda_graph_disaggregation_roles`` L569); the default is breakable on CUDA and
    off elsewhere (``cuda_graph_config.py`` ``default_prefill_backend``)."""
    given = r.user("cuda_graph_backend_prefill")
    if isinstance(given, str):
        return given, ("--cuda-graph-backend-prefill disabled" if given == "disabled" else None)
    if r.user("disable_cuda_graph") or r.user("disable_prefill_cuda_graph"):
        return "disabled", "prefill CUDA graphs disabled"
    if r.gpu is not None and r.gpu.hip:
        return "disabled", "not CUDA (prefill graphs are opt-in there: default_prefill_backend)"
    why = _cascade(r)
    return ("disabled", why) if why else ("breakable", None)


def _cascade(r: Resolved) -> str | None:
    """The auto-disable of the default breakable prefill graphs (0.5.23 ``cuda_graph_hook.py``
    ``apply_cuda_graph_disaggregation_roles``, ``disable_breakable_cudagraph_if_incompatible``)."""
    m = r.model
    if r.v("disaggregation_mode") == "decode":
        return "a PD decode server"
    if int(r.v("pp_size") or 1) > 1:
        return "pipeline parallelism (opt-in: cuda_graph_hook.py L145-161)"
    if m is not None and m.family is Family.KDA:
        return "KDA hybrid linear attention"
    if m is not None and architectures.lookup(m.architecture).hisparse == "v4" and not r.user("enable_prefill_cp"):
        # is_deepseek_v4 without the prefill-CP path (layers/cp/bcg supports_prefill_cp_bcg needs --enable-prefill-cp)
        return "DeepSeek-V4 (heavy capture-pool memory pressure: cuda_graph_hook.py L193-200)"
    if (r.user("attn_cp_size") or 1) > 1 or (r.user("dcp_size") or 1) > 1:
        return "context parallelism"
    if r.user("enable_two_batch_overlap"):
        return "two-batch overlap"
    if (r.user("moe_a2a_backend") or "none") not in ("none", "deepep", "megamoe", "flashinfer"):
        return "an unvalidated a2a backend"
    return None


def prefill_graph_count(r: Resolved, chunk: int, deepep_aligned: bool) -> int:
    """How many prefill graphs SGLang captures: the ``--cuda-graph-bs-prefill`` list as given,
    else the generated list up to the prefill max batch; with DeepEP under breakable graphs
    each size rounded up to a multiple of 8 and deduplicated (``apply_deepep_adjustments``)."""
    sizes = r.user("cuda_graph_bs_prefill")
    if isinstance(sizes, (list, tuple)) and sizes and all(isinstance(x, int) for x in sizes):
        return len({-(-x // 8) * 8 for x in sizes}) if deepep_aligned else len(sizes)
    given = r.user("cuda_graph_max_bs_prefill")
    if deepep_aligned:
        # DeepEP aligns the list while its max batch is still unresolved: the documented 2048, not
        # the chunk (cuda_graph_hook.py L322-327 apply_deepep_adjustments, run in handle_cuda_graph_config)
        return prefill_graph_sizes(given if isinstance(given, int) else 2048, deepep=True)
    return prefill_graph_sizes(given if isinstance(given, int) else chunk)
