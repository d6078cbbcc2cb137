"""The plain PyTorch HiSparse speculative gather: the peer the Triton kernels are timed against.

The obvious implementation with stock PyTorch ops, one request at a time: look up each
selection's resident slot, ``torch.unique`` the missing tokens, number them in order of first
occurrence (``scatter_reduce`` amin of positions + ``argsort``, so the plan equals the
kernel's and the reference's exactly), then ``index_select`` the items out of the host tier and
``index_copy_`` them into the device buffer. Several launches and host syncs per request
(``unique`` and boolean indexing have data-dependent sizes): this is what the Triton kernels
must beat.

Same arguments and contract as :func:`hisparse_gather.hisparse_spec_gather` (pads are
``tok < 0`` or ``tok >= seq_lens[b]``; miss ``i`` of request ``b`` lands in
``free_slots[b, i]``); no argument checks (the benchmark feeds it valid inputs). Pure PyTorch:
no Triton, runs on any device.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass
class TorchGatherResult:
    miss_src: torch.Tensor  # [B, >= D*top_k] int64
    miss_dst: torch.Tensor  # [B, >= D*top_k] int32
    miss_count: torch.Tensor  # [B] int32
    out_locs: torch.Tensor  # [B, D, top_k] int32


def hisparse_spec_gather_torch(
    top_k_tokens: torch.Tensor,
    seq_lens: torch.Tensor,
    device_slot: torch.Tensor,
    host_loc: torch.Tensor,
    host_cache: torch.Tensor,
    device_buffer: torch.Tensor,
    free_slots: torch.Tensor,
    miss_src: torch.Tensor | None = None,
    miss_dst: torch.Tensor | None = None,
    miss_count: torch.Tensor | None = None,
    out_locs: torch.Tensor | None = None,
) -> TorchGatherResult:
    """Miss plan + copy with stock PyTorch ops; writes ``device_buffer`` in place."""
    B, D, top_k = (int(s) for s in top_k_tokens.shape)
    n_sel = D * top_k
    dev = top_k_tokens.device
    if miss_src is None:
        miss_src = torch.empty((B, n_sel), dtype=torch.int64, device=dev)
    if miss_dst is None:
        miss_dst = torch.empty((B, n_sel), dtype=torch.int32, device=dev)
    if miss_count is None:
        miss_count = torch.empty((B,), dtype=torch.int32, device=dev)
    if out_locs is None:
        out_locs = torch.empty((B, D, top_k), dtype=torch.int32, device=dev)
    positions = torch.arange(n_sel, device=dev)
    for b in range(B):
        flat = top_k_tokens[b].reshape(-1).long()
        valid = (flat >= 0) & (flat < seq_lens[b])
        safe = torch.where(valid, flat, torch.zeros_like(flat))
        resident = device_slot[b].index_select(0, safe)
        miss = valid & (resident < 0)
        pos = positions[miss]  # positions of missing selections (host sync: data-dependent)
        miss_toks = flat.index_select(0, pos)
        uniq, inverse = torch.unique(miss_toks, return_inverse=True)
        # number unique misses in order of first occurrence, like the kernel
        first = torch.full((uniq.numel(),), n_sel, dtype=torch.long, device=dev)
        first.scatter_reduce_(0, inverse, pos, reduce="amin")
        order = torch.argsort(first)
        rank = torch.empty_like(order)
        rank[order] = torch.arange(order.numel(), device=dev)
        m = int(order.numel())
        dst = free_slots[b, :m]
        src = host_loc[b].index_select(0, uniq.index_select(0, order))
        device_buffer.index_copy_(0, dst.long(), host_cache.index_select(0, src))
        loc = torch.where(valid, resident, torch.full_like(resident, -1))
        loc[pos] = dst.index_select(0, rank.index_select(0, inverse))
        out_locs[b] = loc.view(D, top_k)
        miss_src[b, :m] = src
        miss_dst[b, :m] = dst
        miss_count[b] = m
    return TorchGatherResult(miss_src, miss_dst, miss_count, out_locs)
