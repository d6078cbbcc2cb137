"""The speculative scratch buffers: their shapes and bytes per rank, and one request's state.

Mirrors 0.5.23 ``srt/mem_cache/memory_pool.py`` ``MambaPool.SpeculativeState`` (allocated with
``R + 1`` rows, the extra one the discard row for padding, and ``max_speculative_num_draft_tokens``
steps) with the family's shape formulas (``kdacheck.models.Family``). No scratch on a PD
prefill server or under ReplaySSM-spec.

Reads: the model, ``draft_tokens``, ``d_max``, ``R``, ``spec_on``, ``pd_prefill``,
``enable_linear_replayssm_spec``, ``pp_size``, ``attn_tp_size``, ``tp_size``, ``ssm_dtype``, ``topk``.
Sets: the names of ``scratch.sets``.
"""

from __future__ import annotations

import math

from kdacheck import families, versions
from kdacheck.dtypes import DTYPE_BYTES
from kdacheck.models import Family, Model
from kdacheck.resolve.core import Resolved, step


def put_scratch(r: Resolved, rows: int, capped: str = "") -> None:
    """``intermediate_ssm`` and ``intermediate_conv_window`` for ``rows`` request rows (R + 1:
    the discard row for padding), the widest draft ``d_max`` and the rank's heads; ``why`` says
    ``capped``: why R is smaller than requested (the memory solve re-puts them when SGLang caps R)."""
    m = r.model
    assert m is not None
    L, hv, attn_tp, ssm_dtype = int(r.v("L")), int(r.v("HV")), r.v("attn_tp_size"), r.v("ssm_dtype")
    fam = families.formulas(m.family)
    shape, layout = fam.ssm_scratch_shape(L, rows, r.v("d_max"), hv, m)
    nbytes = math.prod(shape) * DTYPE_BYTES.get(ssm_dtype, 4)
    r.put("intermediate_ssm_shape", shape, f"{layout}, {ssm_dtype}" + (f"; {capped}" if capped else ""))
    r.put("intermediate_ssm_bytes", nbytes, f"{nbytes / 2**30:.3f} GiB per rank ({rows} rows)")
    conv_ch = fam.conv_dim(m, attn_tp or 1) // (attn_tp or 1)  # mamba_utils: tp = attention TP
    cshape, clayout = fam.conv_scratch_shape(L, rows, r.v("d_max"), conv_ch, r.v("topk") or 1, m)
    cbytes = math.prod(cshape) * 2
    r.put("intermediate_conv_window_shape", cshape, f"{clayout}, bfloat16")
    r.put("intermediate_conv_window_bytes", cbytes, f"{cbytes / 2**30:.3f} GiB per rank ({rows} rows)")
    r.put("scratch_R", rows - 1, capped or "the requested R: the scratch has R + 1 rows")


def replayssm_ring_bytes(m: Model, layers: int, tp: int, record_len: int) -> int:
    """One request's ReplaySSM-spec ring, all ``layers`` of the rank (0.5.23 ``srt/configs/mamba_utils.py``
    L127-160 ``replayssm_ring_bytes_per_req``, the conv dtype bfloat16: GDN keeps d and the normalised k
    with their low parts and a scalar gate; KDA its raw v/k fold window, beta, the per-channel gate, d
    and k). Heads per attention-TP rank: value heads divided, key heads divided rounded up."""
    hv, hk = m.linear_v_heads // tp, -(-m.linear_k_heads // tp)
    v, k, n, cb = m.linear_v_dim, m.linear_k_dim, record_len, 2
    if m.family is Family.KDA:
        per_layer = hv * n * v * cb + hk * n * k * cb + hv * n * 4 + hv * n * k * 4 + hv * n * v * cb + hk * n * k * cb
    else:
        per_layer = hv * n * v * cb + hk * n * k * cb + hv * n * 4 + hv * n * v * cb + hk * n * k * cb
    return per_layer * layers


@step(
    "speculative scratch",
    mirrors="0.5.23 srt/mem_cache/memory_pool.py MambaPool.SpeculativeState; kv_cache_configurator.py _build_hybrid_req_pool",
    sets=("scratch_allocated", "L", "HV", "intermediate_ssm_shape", "intermediate_ssm_bytes",
          "intermediate_conv_window_shape", "intermediate_conv_window_bytes", "per_request_state_bytes", "scratch_R",
          "replayssm_ring_bytes_per_req"),
)
def scratch(r: Resolved) -> None:
    m = r.model
    D = r.v("draft_tokens")
    R = r.v("R")
    if m is None or not m.hybrid or not r.v("spec_on") or R is None or D is None:
        return
    allocated = not r.v("pd_prefill") and not r.v("enable_linear_replayssm_spec")
    r.put("scratch_allocated", allocated, "speculative scratch allocated" if allocated else "no scratch (PD prefill or ReplaySSM-spec)")
    pp = max(1, int(r.v("pp_size") or 1))
    attn_tp = r.v("attn_tp_size")
    L = math.ceil(m.linear_layers / pp)
    fam = families.formulas(m.family)
    hv = fam.heads(m, attn_tp) if attn_tp else 0
    ssm_bytes = DTYPE_BYTES.get(r.v("ssm_dtype"), 4)
    r.put("L", L, f"{m.linear_layers} {'conv' if m.family is Family.CONV else 'linear-attention'} layers"
          + (f" / pp {pp}" if pp > 1 else ""), "model")
    if m.family is Family.CONV:  # lfm2.py mamba2_cache_params: num_heads = attention TP, state_size 0 (an empty temporal state)
        r.put("HV", hv, f"short conv: SGLang passes num_heads = attention TP {attn_tp}, so one empty temporal head per rank", "model")
    else:
        r.put("HV", hv, f"{m.linear_v_heads} {'value' if m.family is not Family.MAMBA2 else 'mamba'} heads / attention TP {attn_tp}", "model")
    put_scratch(r, R + 1)
    conv_ch = fam.conv_dim(m, attn_tp or 1) // (attn_tp or 1)  # mamba_utils: tp = attention TP
    state = fam.state_bytes(L, hv, conv_ch, ssm_bytes, m)
    r.put("per_request_state_bytes", state, "one request's SSM + conv state, all layers, per rank")
    if r.v("enable_linear_replayssm_spec") and m.family in (Family.GDN, Family.KDA):
        # the memory budget counts the ReplaySSM-spec rings for GDN and KDA only (kv_cache_configurator.py L3270-3272)
        n = int(r.v("linear_replayssm_cache_len") or 16)
        if m.family is Family.GDN and not r.at_least(versions.REPLAYSSM_GDN_FIXED_RING) and r.v("d_max"):
            n = int(r.v("d_max"))  # 0.5.19: GDN's fold window is the draft maximum long
        ring = replayssm_ring_bytes(m, L, attn_tp or 1, n)
        r.put("replayssm_ring_bytes_per_req", ring, f"one request's ReplaySSM-spec ring of {n} steps, all layers, per rank")
