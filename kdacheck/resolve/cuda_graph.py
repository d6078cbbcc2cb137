"""Decode CUDA graphs and the verify row map.

Mirrors 0.5.23 ``srt/arg_groups/memory_hook.py`` ``handle_gpu_memory_settings`` (the decode
graph's max batch by GPU memory and TP; capped by ``--max-running-requests`` from 0.5.22), ``srt/utils/common.py`` (``require_mlp_sync``,
``require_mlp_tp_gather``, ``require_attn_tp_gather``, ``get_eager_max_batch_size``) and the
CUDA-graph runner's ``get_batch_sizes_to_capture``: the verify row map is ``arange(R)`` then
``P − R`` copies of ``R``, and the largest captured batch is ``ceil_align(R, g)`` when the
decode batch-size list reaches it.

Reads: the flags, ``tp_size``, ``attn_dp_size``, ``attn_tp_size``, ``attn_cp_size``,
``dp_attention``, ``enable_two_batch_overlap``, ``R``, ``spec_on``.
Sets: ``decode_graph_max_bs`` (``graphs``); ``row_map_params``, ``row_map_len``,
``max_verify_batch`` (``row_map``).
"""

from __future__ import annotations

from typing import NamedTuple

from kdacheck import versions
from kdacheck.resolve.core import Resolved, ceil_align, step


def default_capacity(gpu_mib: int, tp: int) -> tuple[int, int]:
    """SGLang's chunked-prefill size and decode CUDA-graph max batch by GPU memory.

    0.5.23 ``srt/arg_groups/memory_hook.py`` ``handle_gpu_memory_settings`` L89-165 (same in 0.5.19).
    """
    if gpu_mib < 20 * 1024:
        return 2048, 8
    if gpu_mib < 35 * 1024:
        return 4096, 48 if tp < 4 else 160
    if gpu_mib < 60 * 1024:
        return 4096, 32 if tp < 4 else 160
    if gpu_mib < 160 * 1024:
        return 8192, 256 if tp < 4 else 512
    return 16384, 512


class RowMapParams(NamedTuple):
    """What the verify row map and the CUDA-graph batch sizes depend on."""

    attn_tp: int
    cp_align: int
    mlp_sync: bool
    mlp_sync_why: str
    gathered: bool
    g: int  # CUDA-graph batch alignment
    graph_cap: int | None  # the decode graph's max batch (None: graphs off)
    attn_dp: int


@step(
    "decode CUDA graphs",
    mirrors="0.5.23 srt/arg_groups/memory_hook.py handle_gpu_memory_settings (cuda_graph_max_bs); "
            "cuda_graph_hook.py apply_cuda_graph_disaggregation_roles",
    sets=("decode_graph_max_bs", "sglang_decode_graph_max_bs"),
)
def graphs(r: Resolved) -> None:
    """``sglang_decode_graph_max_bs`` is SGLang's ``cuda_graph_config.decode.max_bs`` (filled even
    where the decode graphs are off); ``decode_graph_max_bs`` is the cap in effect (None: off)."""
    tp = int(r.v("tp_size") or 1)
    bs_list = r.user("cuda_graph_bs_decode")
    if isinstance(bs_list, list) and bs_list:
        field = r.put("sglang_decode_graph_max_bs", max(int(x) for x in bs_list), "the largest of --cuda-graph-bs-decode")
    elif r.user("cuda_graph_max_bs_decode") is not None:
        field = r.flag("sglang_decode_graph_max_bs", "cuda_graph_max_bs_decode")
    else:
        if r.gpu is None:
            cap, why = 160, "assumed 160 (the GPU is not known: pass --gpu)"
        else:
            cap = default_capacity(r.gpu.memory_mib, tp)[1]
            why = f"SGLang's default for a {r.gpu.memory_mib} MiB GPU at tp {tp}"
        mrr = r.user("max_running_requests")
        if mrr is not None and cap > int(mrr) and r.at_least(versions.DECODE_GRAPH_CAPPED_BY_REQUESTS):
            cap, why = int(mrr), f"{why}, capped by --max-running-requests"
        field = r.put("sglang_decode_graph_max_bs", cap, why, "assumed" if r.gpu is None else "gpu")
    backend = r.user("cuda_graph_backend_decode")
    if r.user("disable_cuda_graph") or r.user("disable_decode_cuda_graph") or backend == "disabled":
        r.put("decode_graph_max_bs", None, "decode CUDA graphs disabled")
    elif r.v("disaggregation_mode") == "prefill" and backend is None:
        # 0.5.23 cuda_graph_hook.py L557-567: a PD prefill server never decodes; its decode
        # graphs are switched off unless --cuda-graph-backend-decode names one.
        r.put("decode_graph_max_bs", None, "a PD prefill server: SGLang disables the decode CUDA graphs "
              "(apply_cuda_graph_disaggregation_roles)", loc=r.place("disaggregation_mode"))
    else:
        r.put("decode_graph_max_bs", field.value, field.why, field.origin, field.loc)


def row_map_params(r: Resolved) -> RowMapParams:
    """The inputs of the row map (0.5.23 ``srt/utils/common.py``)."""
    tp = int(r.v("tp_size") or 1)
    adp = int(r.v("attn_dp_size") or 1)
    attn_tp = int(r.v("attn_tp_size") or 1)
    cp = max(1, int(r.v("attn_cp_size") or 1))
    dpa = bool(r.v("dp_attention"))
    a2a = r.user("moe_a2a_backend")
    a2a_on = a2a not in (None, "none")
    dense = r.user("moe_dense_tp_size")
    # require_mlp_tp_gather: under DP attention, True unless moe_dense_tp_size and dp lm head
    # and an a2a backend other than flashinfer/megamoe are all set.
    if dpa:
        if dense is None or not r.user("enable_dp_lm_head") or not a2a_on or a2a in ("flashinfer", "flashinfer_megamoe"):
            mlp_gather = True
        else:
            mlp_gather = int(dense) > tp // max(1, adp)
    else:
        mlp_gather = False
    attn_gather = False
    if not r.user("disable_attn_tp_gather") and (a2a_on or dense is not None):
        attn_gather = (adp < tp) if dpa else True
    gathered = mlp_gather or attn_gather
    reasons = []
    if dpa:
        reasons.append("DP attention")
    if attn_gather and not dpa:
        reasons.append("attention-TP gather (MoE a2a backend or --moe-dense-tp-size)")
    g = (2 if r.v("enable_two_batch_overlap") else 1) * (attn_tp if gathered else 1)
    if g % cp:
        g *= cp
    return RowMapParams(attn_tp, cp, dpa or gathered, ", ".join(reasons) or "no", gathered, g, r.v("decode_graph_max_bs"), adp)


def row_map_geometry(R: int, p: RowMapParams) -> tuple[int, int]:
    """(row-map length P, largest verify batch B_max) for R requests per worker.

    ``build_verify_intermediate_state_indices``: ``arange(R)`` then ``P − R`` copies of ``R``
    with ``P = get_eager_max_batch_size(R)``; ``get_batch_sizes_to_capture``: the largest
    CUDA-graph batch is ``ceil_align(R, g)`` when the decode bs list reaches past it.
    """
    P = ceil_align(ceil_align(R, p.attn_tp), p.cp_align) if p.mlp_sync else R
    b_max = P
    cap = p.graph_cap
    if cap is not None:
        num_max = ceil_align(R, p.g)
        graph_max = num_max if cap >= num_max else cap - cap % max(1, p.g)
        b_max = max(P, graph_max)
    return P, b_max


def row_map_ok(R: int, p: RowMapParams) -> bool:
    """The first B entries of the map equal arange(B) for every batch B that can occur."""
    P, b_max = row_map_geometry(R, p)
    return b_max <= P and b_max <= R + 1


@step(
    "verify row map",
    mirrors="0.5.23 srt/utils/common.py get_eager_max_batch_size; cuda_graph_runner get_batch_sizes_to_capture",
    sets=("row_map_params", "row_map_len", "max_verify_batch"),
)
def row_map(r: Resolved) -> None:
    R = r.v("R")
    if R is None or not r.v("spec_on"):
        return
    p = row_map_params(r)
    P, b_max = row_map_geometry(R, p)
    if p.mlp_sync:
        why = f"ceil_align(ceil_align(R {R}, attention TP {p.attn_tp}), CP {p.cp_align}) (MLP sync: {p.mlp_sync_why})"
    else:
        why = "R (no MLP sync)"
    r.put("row_map_len", P, why)
    if p.graph_cap is None:
        gwhy = "CUDA graphs off: eager batches ≤ the row map"
    else:
        gwhy = f"largest CUDA-graph batch: ceil_align(R {R}, alignment {p.g}) when the decode bs list reaches it (max bs {p.graph_cap})"
    r.put("max_verify_batch", b_max, f"max(row map {P}, {gwhy})")
    r.put("row_map_params", p, "attention TP, CP alignment, MLP sync, CUDA-graph alignment and max bs")
