"""HiSparse speculative gather: miss plan + item copy (two Triton kernels) and the wrapper.

For request ``b``, the ``D`` verified positions each select ``top_k`` token positions
(``top_k_tokens[b, d, j]``; valid when ``0 <= tok < seq_lens[b]``, anything else is a pad).
Every selected token must be on the device before attention runs:

- a hit (``device_slot[b, tok] >= 0``) resolves to its resident slot;
- a token selected by several steps is a single miss: one copy, one device slot;
- unique misses are numbered ``i = 0, 1, ...`` in order of their FIRST occurrence in
  row-major ``(d, j)`` order (deterministic on GPU too), and get
  ``miss_dst[b, i] = free_slots[b, i]``, ``miss_src[b, i] = host_loc[b, tok]``;
- ``miss_count[b]`` is the number of unique misses;
- ``out_locs[b, d, j]`` is the device slot of every selected token after the swap (the hit's
  slot or the miss's new slot), ``-1`` for pads;
- items are copied ``host_cache[miss_src] -> device_buffer[miss_dst]``.

``device_slot`` is read only (kdacheck's dense ``[B, max_seq]`` table); the post-swap mapping
is reported through ``out_locs``.

The plan runs as five launches, each over a ``(request, tile of BLOCK selections)`` grid, so
every request and tile works in parallel and the launch boundaries order the passes (no
fences, no serial program per request): (0) the marker entries of this call's missing tokens
are reset (the marker table is allocated uninitialised: no per-call memset of its
``[B, max_seq]`` entries, which grows with the context; the work is one store per missing
selection, and no later pass reads an entry this one did not reset); (1) ``atomic_min`` (relaxed) of the flat position
into a per-request ``[max_seq]`` marker table, so the marker holds each missing token's first
position; (2) each tile counts its first occurrences (positions equal to their marker);
(3) each tile numbers its first occurrences after the tiles before it (a sum over the tile
counts, then an exclusive count inside the tile), writes the plan and overwrites the marker
with the encoded new slot ``-2 - slot``; (4) every selection reads its slot.
Kernel 2 (copy, one program per ``(request, chunk of misses)``) moves items as 8-, 4- or 1-byte
words, whichever divides the item size.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import triton
import triton.language as tl

from kdacheck.messages import (
    HSP001_MESSAGE,
    HSP002_MESSAGE,
    HSP003_CAPACITY_MESSAGE,
    HSP003_COUNT_DTYPE_MESSAGE,
    HSP003_COUNT_SHAPE_MESSAGE,
    HSP003_PLAN_DTYPE_MESSAGE,
    HSP003_STRIDE_MESSAGE,
    HSP003_TOGETHER_MESSAGE,
)

from .cases import HISPARSE_MAX_SELECTIONS, HISPARSE_MIN_TOP_K, HISPARSE_STEPS


@dataclass
class GatherResult:
    """What :func:`hisparse_spec_gather` produced (the plan tensors are the caller's when given)."""

    miss_src: torch.Tensor  # [B, >= D*top_k] int64
    miss_dst: torch.Tensor  # [B, >= D*top_k] int32
    miss_count: torch.Tensor  # [>= B] int32
    out_locs: torch.Tensor  # [B, D, top_k] int32


@triton.jit
def _selections(tok_ptr, seq_lens_ptr, dev_slot_ptr, b, tile, N_SEL: tl.constexpr, MAX_SEQ, BLOCK: tl.constexpr):
    """One tile of request ``b``'s selections: (flat positions, in range, clamped token,
    resident slot, is a miss, table base)."""
    seq_len = tl.minimum(tl.load(seq_lens_ptr + b).to(tl.int32), MAX_SEQ)
    offs = tile * BLOCK + tl.arange(0, BLOCK)
    m = offs < N_SEL
    tok = tl.load(tok_ptr + b * N_SEL + offs, mask=m, other=-1)
    ok = m & (tok >= 0) & (tok < seq_len)
    tok = tl.where(ok, tok, 0)  # clamp pads: second line of defence
    base = b * MAX_SEQ
    ds = tl.load(dev_slot_ptr + base + tok, mask=ok, other=0)
    return offs, m, ok, tok, ds, ok & (ds < 0), base


@triton.jit
def _plan_reset_kernel(tok_ptr, seq_lens_ptr, dev_slot_ptr, marker_ptr, MAX_SEQ, N_SEL: tl.constexpr, BLOCK: tl.constexpr):
    # 0. marker[tok] = INT32_MAX for every missing token of this call (a token picked twice is
    #    stored twice with the same value); the rest of the table is never read
    b, tile = tl.program_id(0).to(tl.int64), tl.program_id(1)
    _offs, _m, _ok, tok, _ds, miss, base = _selections(tok_ptr, seq_lens_ptr, dev_slot_ptr, b, tile, N_SEL, MAX_SEQ, BLOCK)
    tl.store(marker_ptr + base + tok, tl.full([BLOCK], 2147483647, tl.int32), mask=miss)


@triton.jit
def _plan_mark_kernel(tok_ptr, seq_lens_ptr, dev_slot_ptr, marker_ptr, MAX_SEQ, N_SEL: tl.constexpr, BLOCK: tl.constexpr):
    # 1. marker[tok] = the first flat position (d*top_k + j) at which a missing token appears
    b, tile = tl.program_id(0).to(tl.int64), tl.program_id(1)
    offs, _m, _ok, tok, _ds, miss, base = _selections(tok_ptr, seq_lens_ptr, dev_slot_ptr, b, tile, N_SEL, MAX_SEQ, BLOCK)
    tl.atomic_min(marker_ptr + base + tok, offs, mask=miss, sem="relaxed")  # ordered by the launch boundary


@triton.jit
def _plan_count_kernel(tok_ptr, seq_lens_ptr, dev_slot_ptr, marker_ptr, counts_ptr, MAX_SEQ, N_TILES,
                       N_SEL: tl.constexpr, BLOCK: tl.constexpr):
    # 2. how many first occurrences each tile holds
    b, tile = tl.program_id(0).to(tl.int64), tl.program_id(1)
    offs, _m, _ok, tok, _ds, miss, base = _selections(tok_ptr, seq_lens_ptr, dev_slot_ptr, b, tile, N_SEL, MAX_SEQ, BLOCK)
    first = miss & (tl.load(marker_ptr + base + tok, mask=miss, other=-1) == offs)
    tl.store(counts_ptr + b * N_TILES + tile, tl.sum(first.to(tl.int32), axis=0))


@triton.jit
def _plan_write_kernel(
    tok_ptr, seq_lens_ptr, dev_slot_ptr, host_loc_ptr, free_ptr, marker_ptr, counts_ptr,
    miss_src_ptr, miss_dst_ptr, miss_count_ptr,
    MAX_SEQ, N_TILES, FREE_STRIDE, FREE_COLS, PLAN_STRIDE, PLAN_COLS, CAP, N_DEV,
    N_SEL: tl.constexpr, BLOCK: tl.constexpr, BT: tl.constexpr,
):
    # 3. first occurrences numbered in flat order (the tiles before this one, then an exclusive
    #    count inside it); the plan written; the marker becomes the encoded new slot -2 - slot.
    #    Only the tile holding a token's first occurrence writes its marker: no race.
    b, tile = tl.program_id(0).to(tl.int64), tl.program_id(1)
    offs, _m, _ok, tok, _ds, miss, base = _selections(tok_ptr, seq_lens_ptr, dev_slot_ptr, b, tile, N_SEL, MAX_SEQ, BLOCK)
    t_offs = tl.arange(0, BT)
    counts = tl.load(counts_ptr + b * N_TILES + t_offs, mask=t_offs < N_TILES, other=0)
    before = tl.sum(tl.where(t_offs < tile, counts, 0), axis=0)
    first = miss & (tl.load(marker_ptr + base + tok, mask=miss, other=-1) == offs)
    f = first.to(tl.int32)
    idx = before + tl.cumsum(f, axis=0) - f
    keep = first & (idx < PLAN_COLS) & (idx < FREE_COLS)
    slot = tl.load(free_ptr + b * FREE_STRIDE + idx, mask=keep, other=0)
    slot = tl.minimum(tl.maximum(slot, 0), N_DEV - 1)
    src = tl.load(host_loc_ptr + base + tok, mask=keep, other=0)
    tl.store(miss_src_ptr + b * PLAN_STRIDE + idx, src, mask=keep)
    tl.store(miss_dst_ptr + b * PLAN_STRIDE + idx, slot, mask=keep)
    tl.store(marker_ptr + base + tok, -2 - slot, mask=keep)
    if tile == N_TILES - 1:
        tl.store(miss_count_ptr + b, tl.minimum(tl.sum(counts, axis=0), CAP))


@triton.jit
def _plan_out_kernel(tok_ptr, seq_lens_ptr, dev_slot_ptr, marker_ptr, out_ptr, MAX_SEQ, N_SEL: tl.constexpr, BLOCK: tl.constexpr):
    # 4. out_locs: the resident slot for a hit, the miss's new slot, -1 for a pad
    b, tile = tl.program_id(0).to(tl.int64), tl.program_id(1)
    offs, m, ok, tok, ds, miss, base = _selections(tok_ptr, seq_lens_ptr, dev_slot_ptr, b, tile, N_SEL, MAX_SEQ, BLOCK)
    enc = tl.load(marker_ptr + base + tok, mask=miss, other=0)
    new_slot = tl.where(enc < 0, -2 - enc, -1)
    loc = tl.where(ok, tl.where(miss, new_slot, ds), -1)
    tl.store(out_ptr + b * N_SEL + offs, loc, mask=m)


@triton.jit
def _hisparse_copy_kernel(
    host_ptr,  # [N_HOST, WORDS] words
    dev_ptr,  # [N_DEV, WORDS] words
    miss_src_ptr,  # [B, PLAN_STRIDE] int64
    miss_dst_ptr,  # [B, PLAN_STRIDE] int32
    miss_count_ptr,  # [B] int32
    PLAN_STRIDE,
    N_HOST,
    N_DEV,
    WORDS: tl.constexpr,
    BM: tl.constexpr,
    BW: tl.constexpr,
):
    # device_buffer[miss_dst[b, i]] = host_cache[miss_src[b, i]]   for i < miss_count[b]
    b = tl.program_id(0).to(tl.int64)
    chunk = tl.program_id(1)
    cnt = tl.load(miss_count_ptr + b)
    offs_m = chunk * BM + tl.arange(0, BM)
    mm = offs_m < cnt
    src = tl.load(miss_src_ptr + b * PLAN_STRIDE + offs_m, mask=mm, other=0)
    dst = tl.load(miss_dst_ptr + b * PLAN_STRIDE + offs_m, mask=mm, other=0).to(tl.int64)
    src = tl.minimum(tl.maximum(src, 0), N_HOST - 1)  # second line of defence
    dst = tl.minimum(tl.maximum(dst, 0), N_DEV - 1)
    for w0 in range(0, WORDS, BW):
        offs_w = w0 + tl.arange(0, BW)
        mask = mm[:, None] & (offs_w < WORDS)[None, :]
        x = tl.load(host_ptr + src[:, None] * WORDS + offs_w[None, :], mask=mask, other=0)
        tl.store(dev_ptr + dst[:, None] * WORDS + offs_w[None, :], x, mask=mask)


def _shape(t: torch.Tensor) -> tuple[int, ...]:
    return tuple(int(s) for s in t.shape)


def check_sglang_limits(steps: int, top_k: int) -> None:
    """HSP001 (2 <= steps <= 4) and HSP002 (top_k >= 1024, steps*top_k <= 8192): the limits
    in ``cases.py``, where the work estimate reads them too."""
    if not HISPARSE_STEPS[0] <= steps <= HISPARSE_STEPS[1]:
        raise ValueError(HSP001_MESSAGE.format(n=steps))
    if top_k < HISPARSE_MIN_TOP_K or steps * top_k > HISPARSE_MAX_SELECTIONS:
        raise ValueError(HSP002_MESSAGE.format(top_k=top_k, total=steps * top_k))


def check_miss_plan(
    batch: int,
    steps: int,
    top_k: int,
    miss_src: torch.Tensor | None,
    miss_dst: torch.Tensor | None,
    miss_count: torch.Tensor | None,
) -> bool:
    """HSP003: SGLang's seven checks of the miss-plan buffers, in SGLang's order.

    Returns True when a plan was given, False when none was (all three None)."""
    if miss_src is None:
        if miss_dst is not None or miss_count is not None:
            raise ValueError(HSP003_TOGETHER_MESSAGE)
        return False
    if miss_dst is None or miss_count is None:
        raise ValueError(HSP003_TOGETHER_MESSAGE)
    if miss_src.dtype != torch.int64 or miss_dst.dtype != torch.int32:
        raise ValueError(HSP003_PLAN_DTYPE_MESSAGE)
    if miss_count.dtype != torch.int32:
        raise ValueError(HSP003_COUNT_DTYPE_MESSAGE)
    plan_capacity = steps * top_k
    if (
        miss_src.ndim != 2
        or miss_dst.ndim != 2
        or miss_src.size(0) < batch
        or miss_dst.size(0) < batch
        or miss_src.size(1) < plan_capacity
        or miss_dst.size(1) < plan_capacity
    ):
        raise ValueError(HSP003_CAPACITY_MESSAGE.format(plan_capacity=plan_capacity))
    if miss_count.ndim != 1 or miss_count.numel() < batch:
        raise ValueError(HSP003_COUNT_SHAPE_MESSAGE)
    if miss_src.stride(0) != miss_dst.stride(0):
        raise ValueError(HSP003_STRIDE_MESSAGE)
    return True


def _word_dtype(item_bytes: int, *tensors: torch.Tensor) -> torch.dtype:
    for dt, size in ((torch.int64, 8), (torch.int32, 4)):
        if item_bytes % size == 0 and all(t.data_ptr() % size == 0 for t in tensors):
            return dt
    return torch.uint8


def hisparse_spec_gather(
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
    *,
    emulate_sglang_limits: bool = True,
    validate: bool = True,
    block: int = 128,
    copy_block_m: int = 16,
    copy_items: bool = True,
    workspace: torch.Tensor | None = None,
) -> GatherResult:
    """Build the speculative miss plan and copy the missing items (five plan launches, one copy).

    Checks, all before any launch and in SGLang's order: HSP001 (steps in 2..4) when
    ``emulate_sglang_limits``; the seven HSP003 plan checks (the plan buffers are optional:
    all three or none; when none, the wrapper allocates them); HSP002 (top_k >= 1024,
    steps*top_k <= 8192) when ``emulate_sglang_limits``; then kdacheck's own structural checks
    and (unless ``validate=False``) index checks, as ValueError.

    ``device_buffer`` is written in place (only rows named by the plan); ``out_locs`` is
    written when given, else allocated; ``copy_items=False`` builds the plan only.
    ``workspace``: an int32 ``[B, max_seq]`` marker table to reuse across calls, any content
    (each call resets the entries it reads); allocated uninitialised when None. Returns
    :class:`GatherResult`.
    """
    if top_k_tokens.ndim != 3:
        raise ValueError(f"top_k_tokens must be [batch, steps, top_k], got {_shape(top_k_tokens)}.")
    B, D, top_k = _shape(top_k_tokens)
    if emulate_sglang_limits and not 2 <= D <= 4:
        raise ValueError(HSP001_MESSAGE.format(n=D))
    have_plan = check_miss_plan(B, D, top_k, miss_src, miss_dst, miss_count)
    if emulate_sglang_limits:
        check_sglang_limits(D, top_k)
    n_sel = D * top_k
    _check_gather_inputs(
        top_k_tokens, seq_lens, device_slot, host_loc, host_cache, device_buffer, free_slots,
        out_locs, n_sel, validate,
    )  # fmt: skip
    dev = top_k_tokens.device
    if not have_plan:
        miss_src = torch.empty((B, n_sel), dtype=torch.int64, device=dev)
        miss_dst = torch.empty((B, n_sel), dtype=torch.int32, device=dev)
        miss_count = torch.empty((B,), dtype=torch.int32, device=dev)
    assert miss_src is not None and miss_dst is not None and miss_count is not None
    for name, t in (("miss_src", miss_src), ("miss_dst", miss_dst), ("miss_count", miss_count)):
        if t.device != dev:
            raise ValueError(f"{name} is on {t.device}, top_k_tokens on {dev}.")
        if t.stride(-1) != 1:
            raise ValueError(f"{name} must have unit stride in its last dimension.")
    if out_locs is None:
        out_locs = torch.empty((B, D, top_k), dtype=torch.int32, device=dev)
    if B == 0 or n_sel == 0:
        return GatherResult(miss_src, miss_dst, miss_count, out_locs)

    max_seq = int(device_slot.shape[1])
    n_dev, item_bytes = _shape(device_buffer)
    n_host = int(host_cache.shape[0])
    # uninitialised: _plan_reset_kernel sets the entries this call reads (work ∝ its misses)
    if workspace is None:
        marker = torch.empty((B, max_seq), dtype=torch.int32, device=dev)
    else:
        if _shape(workspace) != (B, max_seq) or workspace.dtype != torch.int32:
            raise ValueError(f"workspace must be int32 [{B}, {max_seq}], got {_shape(workspace)}.")
        if workspace.device != dev or not workspace.is_contiguous():
            raise ValueError("workspace must be contiguous and on top_k_tokens' device.")
        marker = workspace
    BLOCK = min(triton.next_power_of_2(n_sel), block)
    n_tiles = triton.cdiv(n_sel, BLOCK)
    counts = torch.empty((B, n_tiles), dtype=torch.int32, device=dev)
    grid = (B, n_tiles)  # every request and tile in parallel; the launches order the passes
    sel = (top_k_tokens, seq_lens, device_slot)
    _plan_reset_kernel[grid](*sel, marker, max_seq, N_SEL=n_sel, BLOCK=BLOCK, num_warps=4)
    _plan_mark_kernel[grid](*sel, marker, max_seq, N_SEL=n_sel, BLOCK=BLOCK, num_warps=4)
    _plan_count_kernel[grid](*sel, marker, counts, max_seq, n_tiles, N_SEL=n_sel, BLOCK=BLOCK, num_warps=4)
    _plan_write_kernel[grid](
        *sel, host_loc, free_slots, marker, counts, miss_src, miss_dst, miss_count,
        max_seq, n_tiles, free_slots.stride(0), int(free_slots.shape[1]),
        miss_src.stride(0), int(miss_src.shape[1]),
        min(int(miss_src.shape[1]), int(miss_dst.shape[1]), int(free_slots.shape[1])), n_dev,
        N_SEL=n_sel, BLOCK=BLOCK, BT=triton.next_power_of_2(n_tiles), num_warps=4,
    )  # fmt: skip
    _plan_out_kernel[grid](*sel, marker, out_locs, max_seq, N_SEL=n_sel, BLOCK=BLOCK, num_warps=4)
    del marker, counts
    if not copy_items:  # the plan alone (benchmarks time the plan and the copy apart)
        return GatherResult(miss_src, miss_dst, miss_count, out_locs)
    word = _word_dtype(item_bytes, host_cache, device_buffer)
    words = item_bytes // torch.empty((), dtype=word).element_size()
    host_w = host_cache.view(word)
    dev_w = device_buffer.view(word)
    BW = min(triton.next_power_of_2(words), 256)
    BM = copy_block_m
    _hisparse_copy_kernel[(B, triton.cdiv(n_sel, BM))](
        host_w, dev_w, miss_src, miss_dst, miss_count,
        miss_src.stride(0), n_host, n_dev,
        WORDS=words, BM=BM, BW=BW, num_warps=4,
    )  # fmt: skip
    return GatherResult(miss_src, miss_dst, miss_count, out_locs)


def _check_gather_inputs(
    top_k_tokens: torch.Tensor,
    seq_lens: torch.Tensor,
    device_slot: torch.Tensor,
    host_loc: torch.Tensor,
    host_cache: torch.Tensor,
    device_buffer: torch.Tensor,
    free_slots: torch.Tensor,
    out_locs: torch.Tensor | None,
    n_sel: int,
    validate: bool,
) -> None:
    def need(cond: bool, msg: str) -> None:
        if not cond:
            raise ValueError(msg)

    B, D, top_k = _shape(top_k_tokens)
    need(top_k_tokens.dtype == torch.int32, "top_k_tokens must be int32.")
    need(
        seq_lens.ndim == 1 and int(seq_lens.shape[0]) == B,
        f"seq_lens must be [{B}], got {_shape(seq_lens)}.",
    )
    need(seq_lens.dtype in (torch.int32, torch.int64), "seq_lens must be int32 or int64.")
    need(
        device_slot.ndim == 2 and int(device_slot.shape[0]) == B,
        f"device_slot must be [{B}, max_seq], got {_shape(device_slot)}.",
    )
    max_seq = int(device_slot.shape[1])
    need(device_slot.dtype == torch.int32, "device_slot must be int32.")
    need(
        _shape(host_loc) == (B, max_seq),
        f"host_loc must be [{B}, {max_seq}], got {_shape(host_loc)}.",
    )
    need(host_loc.dtype == torch.int64, "host_loc must be int64.")
    need(
        host_cache.ndim == 2 and host_cache.dtype == torch.uint8,
        f"host_cache must be a 2-D uint8 [n_host, item_bytes] tensor, got {_shape(host_cache)}.",
    )
    need(
        device_buffer.ndim == 2 and device_buffer.dtype == torch.uint8,
        f"device_buffer must be a 2-D uint8 [n_dev, item_bytes] tensor, got {_shape(device_buffer)}.",
    )
    need(
        int(host_cache.shape[1]) == int(device_buffer.shape[1]),
        f"host_cache items ({int(host_cache.shape[1])} B) and device_buffer items "
        f"({int(device_buffer.shape[1])} B) differ.",
    )
    need(int(host_cache.shape[0]) >= 1 and int(device_buffer.shape[0]) >= 1, "empty cache.")
    need(
        free_slots.ndim == 2
        and int(free_slots.shape[0]) == B
        and int(free_slots.shape[1]) >= n_sel,
        f"free_slots must be [{B}, >= steps * top_k = {n_sel}], got {_shape(free_slots)}.",
    )
    need(free_slots.dtype == torch.int32, "free_slots must be int32.")
    if out_locs is not None:
        need(
            _shape(out_locs) == (B, D, top_k) and out_locs.dtype == torch.int32,
            f"out_locs must be int32 [{B}, {D}, {top_k}], got {_shape(out_locs)}.",
        )
    named = {
        "top_k_tokens": top_k_tokens, "seq_lens": seq_lens, "device_slot": device_slot,
        "host_loc": host_loc, "host_cache": host_cache, "device_buffer": device_buffer,
        "free_slots": free_slots,
    }  # fmt: skip
    if out_locs is not None:
        named["out_locs"] = out_locs
    dev = top_k_tokens.device
    for name, t in named.items():
        need(t.device == dev, f"{name} is on {t.device}, top_k_tokens on {dev}.")
        need(t.is_contiguous(), f"{name} must be contiguous.")
    if not validate:
        return
    n_host, n_dev = int(host_cache.shape[0]), int(device_buffer.shape[0])
    sl = seq_lens.to("cpu", torch.int64)
    bad = ((sl < 0) | (sl > max_seq)).nonzero()
    if bad.numel():
        i = int(bad[0, 0])
        raise ValueError(f"seq_lens[{i}] = {int(sl[i])} is outside [0, {max_seq}].")
    live = torch.arange(max_seq)[None, :] < sl[:, None]  # [B, max_seq]
    ds = device_slot.to("cpu", torch.int64)
    bad = (live & ((ds < -1) | (ds >= n_dev))).nonzero()
    if bad.numel():
        row, col = (int(x) for x in bad[0])
        raise ValueError(
            f"device_slot[{row}, {col}] = {int(ds[row, col])} is outside [0, {n_dev}) and not -1."
        )
    hl = host_loc.to("cpu", torch.int64)
    bad = (live & (ds < 0) & ((hl < 0) | (hl >= n_host))).nonzero()
    if bad.numel():
        row, col = (int(x) for x in bad[0])
        raise ValueError(f"host_loc[{row}, {col}] = {int(hl[row, col])} is outside [0, {n_host}).")
    fs = free_slots.to("cpu", torch.int64)[:, :n_sel]
    bad = ((fs < 0) | (fs >= n_dev)).nonzero()
    if bad.numel():
        b, i = (int(x) for x in bad[0])
        raise ValueError(f"free_slots[{b}, {i}] = {int(fs[b, i])} is outside [0, {n_dev}).")
    if int(torch.unique(fs).numel()) != fs.numel():
        raise ValueError(
            "free_slots[:, :steps * top_k] must be pairwise distinct (two misses would land in "
            "one device slot)."
        )
