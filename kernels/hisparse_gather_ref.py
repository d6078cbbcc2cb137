"""Reference of the HiSparse speculative gather: a Python loop over requests with a set.

Same contract as :func:`hisparse_gather.hisparse_spec_gather`: unique misses are numbered in
order of first occurrence in row-major ``(d, j)`` order, miss ``i`` lands in
``free_slots[b, i]``, hits keep their resident slot, pads (``tok < 0`` or
``tok >= seq_lens[b]``) give ``-1``. Nothing passed in is modified: the copy is applied to a
clone of ``device_buffer``.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass
class GatherReference:
    miss_src: list[list[int]]  # per request, in miss order
    miss_dst: list[list[int]]
    miss_count: list[int]
    out_locs: torch.Tensor  # [B, D, top_k] int32 (CPU)
    device_buffer: torch.Tensor  # clone of device_buffer after the copy (CPU)


def hisparse_spec_gather_reference(
    top_k_tokens: torch.Tensor,
    seq_lens: torch.Tensor,
    device_slot: torch.Tensor,
    host_loc: torch.Tensor,
    host_cache: torch.Tensor,
    device_buffer: torch.Tensor,
    free_slots: torch.Tensor,
) -> GatherReference:
    toks = top_k_tokens.to("cpu", torch.int64)
    B, D, top_k = (int(s) for s in toks.shape)
    sl = seq_lens.to("cpu", torch.int64).tolist()
    ds = device_slot.to("cpu", torch.int64)
    hl = host_loc.to("cpu", torch.int64)
    fs = free_slots.to("cpu", torch.int64)
    host = host_cache.to("cpu")
    buf = device_buffer.to("cpu").clone()
    out = torch.full((B, D, top_k), -1, dtype=torch.int32)
    miss_src: list[list[int]] = []
    miss_dst: list[list[int]] = []
    for b in range(B):
        new_slot: dict[int, int] = {}
        seen: set[int] = set()
        srcs: list[int] = []
        dsts: list[int] = []
        flat = toks[b].reshape(-1).tolist()
        for p, tok in enumerate(flat):
            if not 0 <= tok < sl[b]:
                continue
            slot = int(ds[b, tok])
            if slot < 0:
                if tok not in seen:
                    seen.add(tok)
                    new_slot[tok] = int(fs[b, len(srcs)])
                    srcs.append(int(hl[b, tok]))
                    dsts.append(new_slot[tok])
                slot = new_slot[tok]
            out[b, p // top_k, p % top_k] = slot
        for s, d in zip(srcs, dsts, strict=True):
            buf[d] = host[s]
        miss_src.append(srcs)
        miss_dst.append(dsts)
    return GatherReference(miss_src, miss_dst, [len(s) for s in miss_src], out, buf)
