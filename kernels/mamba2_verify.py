"""Mamba2 speculative verify: selective state update over the draft tokens, with every step's
state written to the intermediate (scratch) buffer; a Triton kernel and a contract-checking
wrapper.

This is the recurrence SGLang 0.5.23 runs for Nemotron-H, Falcon-H1 and Granite-4.0-H in
target-verify (``srt/layers/attention/mamba/mamba.py`` L653-754 calls
``kernels/ops/mamba/triton_ops/mamba_ssm.py`` ``selective_state_update`` with
``disable_state_update=True``, ``z=None`` and per-head ``A``/``dt``/``dt_bias``/``D``). Per
request ``n``, head ``h`` (group ``g = h // (H / G)``)::

    S <- ssm_states[cache_indices[n], h]          ([P, DS]; zero for a padding request)
    for t in 0 .. T-1:
        if tree and t > 0: S <- scratch_flat[row·pitch + parents[n, t], h]
        d    = softplus(dt[t, h] + dt_bias[h])      (threshold 20)
        S    = S · exp(A[h] · d) + d · x[t, h] ⊗ B[t, g]
        y[t] = S · C[t, g] + D[h] · x[t, h]
        scratch_flat[row·pitch + t, h] = S          (not for a padding request)

Conventions (the same as SGLang's, where it has one):

- Padding requests (``cache_indices[n] == -1``) run from a zero state: their output rows are
  written (mamba_ssm.py L308), their scratch rows are not (L287-301).
- ``pitch`` is the draft-token count ``T``: SGLang passes ``cache_steps = draft_token_num`` and
  addresses the buffer as flat ``[row·cache_steps + t]`` blocks, ignoring its strides
  (mamba_ssm.py L236-244, L291-298). With ``T_alloc < T`` nothing checks the step count and the
  stores run into the next rows and past the end; only a caller owning the overflow may launch
  that, as the harness's guarded buffer does.
- Tree mode: ``parents[n, 0] == -1`` and ``0 <= parents[n, t] < t`` (SGLang's array has 0 at
  t = 0, never read). The parent's state is re-read from scratch in the scratch dtype; a
  padding request restarts from zero at every t > 0 (its masked parent load).
- ``o`` is float32 ``[N*T, H, P]``; the committed pool is never written.
- States are stored in the scratch dtype, rounded to nearest even (float16 too: SGLang's
  stochastic rounding, ``enable_stochastic_rounding``, applies only to the final pool write,
  mamba_ssm.py L319-345, which verify never makes).
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

from kdacheck.dtypes import SSM_DTYPES

from .kda_verify import _check, _to_bf16_rne

_FLOAT_DTYPES = (torch.float32, torch.bfloat16)
_STATE_DTYPES = tuple(getattr(torch, name) for name in SSM_DTYPES)  # SGLang's mamba_ssm_dtype choices


@triton.jit
def _mamba2_verify_kernel(
    x_ptr,  # [N*T, H, P]
    dt_ptr,  # [N*T, H]
    A_ptr,  # [H] fp32 (negative: -exp(A_log))
    B_ptr,  # [N*T, G, DS]
    C_ptr,  # [N*T, G, DS]
    D_ptr,  # [H]
    dtb_ptr,  # [H]
    pool_ptr,  # [POOL, H, P, DS] (read only)
    cache_idx_ptr,  # [N] int32
    scratch_ptr,  # [N_SCRATCH * T_ALLOC (+ overflow), H, P, DS], addressed flat
    row_map_ptr,  # [>= N] int32
    parents_ptr,  # [N, T] int32 (unused unless TREE)
    o_ptr,  # [N*T, H, P] fp32
    T,
    POOL,
    N_SCRATCH,
    H: tl.constexpr,
    G: tl.constexpr,
    PD: tl.constexpr,
    DS: tl.constexpr,
    BP: tl.constexpr,
    BDS: tl.constexpr,
    TREE: tl.constexpr,
    STATE_BF16: tl.constexpr,
):
    # One program per (request, head, block of BP head-dim rows): a [BP, BDS] state tile.
    i_n = tl.program_id(0)
    i_h = tl.program_id(1)
    i_p = tl.program_id(2)
    i_g = i_h // (H // G)

    slot = tl.load(cache_idx_ptr + i_n)
    live = slot >= 0
    slot = tl.minimum(tl.maximum(slot, 0), POOL - 1).to(tl.int64)
    row = tl.load(row_map_ptr + i_n)
    row = tl.minimum(tl.maximum(row, 0), N_SCRATCH - 1).to(tl.int64)

    offs_p = i_p * BP + tl.arange(0, BP)
    offs_s = tl.arange(0, BDS)
    mp = offs_p < PD
    ms = offs_s < DS
    # a padding request: zero start and no scratch store (scalar limits, see kda_verify.py)
    m_live = (offs_p < tl.where(live, PD, 0))[:, None] & ms[None, :]
    tile = offs_p[:, None] * DS + offs_s[None, :]
    block = H * PD * DS

    S = tl.load(pool_ptr + (slot * H + i_h) * (PD * DS) + tile, mask=m_live, other=0.0).to(tl.float32)
    A = tl.load(A_ptr + i_h).to(tl.float32)
    Dh = tl.load(D_ptr + i_h).to(tl.float32)
    dtb = tl.load(dtb_ptr + i_h).to(tl.float32)
    base = row * T  # SGLang's pitch: cache_steps = T

    for t in range(T):
        tok = (i_n * T + t).to(tl.int64)
        if TREE:
            par = tl.load(parents_ptr + i_n * T + t)
            par = tl.minimum(tl.maximum(par, 0), T - 1).to(tl.int64)
            tl.debug_barrier()
            # t > 0 restarts from the parent's state; a padding request's loads are masked to
            # zero, as SGLang's are (mamba_ssm.py L226-245)
            m_par = (offs_p < tl.where(t > 0, PD, 0))[:, None] & ms[None, :]
            m_par_live = (offs_p < tl.where(t > 0, tl.where(live, PD, 0), 0))[:, None] & ms[None, :]
            S_par = tl.load(scratch_ptr + (base + par) * block + i_h * (PD * DS) + tile, mask=m_par_live, other=0.0)
            S = tl.where(m_par, S_par.to(tl.float32), S)
        x = tl.load(x_ptr + (tok * H + i_h) * PD + offs_p, mask=mp, other=0.0).to(tl.float32)
        Bv = tl.load(B_ptr + (tok * G + i_g) * DS + offs_s, mask=ms, other=0.0).to(tl.float32)
        Cv = tl.load(C_ptr + (tok * G + i_g) * DS + offs_s, mask=ms, other=0.0).to(tl.float32)
        d = tl.load(dt_ptr + tok * H + i_h).to(tl.float32) + dtb
        d = tl.where(d > 20.0, d, tl.log(1.0 + tl.exp(tl.minimum(d, 20.0))))
        S = S * tl.exp(A * d) + (x * d)[:, None] * Bv[None, :]
        y = tl.sum(S * Cv[None, :], axis=1) + Dh * x
        tl.store(o_ptr + (tok * H + i_h) * PD + offs_p, y, mask=mp)
        if STATE_BF16:  # noqa: SIM108 (constexpr branch inside a Triton kernel)
            S_out = _to_bf16_rne(S)
        else:  # float32 as is; float16 rounded to nearest even, as SGLang's state.to(...) (L299-300)
            S_out = S.to(scratch_ptr.dtype.element_ty)
        tl.store(scratch_ptr + (base + t) * block + i_h * (PD * DS) + tile, S_out, mask=m_live)
        if TREE:
            tl.debug_barrier()


def verify_blocks(P: int, DS: int, block_p: int | None = None) -> tuple[int, int]:
    """Fixed tile sizes (no autotune), the launch config: BDS covers DS; BP rows of the head
    dim keep the ``[BP, BDS]`` state tile near 4096 elements."""
    BDS = triton.next_power_of_2(DS)
    BP = triton.next_power_of_2(block_p) if block_p else min(triton.next_power_of_2(P), max(4, 2048 // BDS))
    return BP, BDS


def mamba2_verify(
    x: torch.Tensor,
    dt: torch.Tensor,
    A: torch.Tensor,
    B: torch.Tensor,
    C: torch.Tensor,
    D: torch.Tensor,
    dt_bias: torch.Tensor,
    ssm_states: torch.Tensor,
    cache_indices: torch.Tensor,
    scratch: torch.Tensor,
    row_map: torch.Tensor,
    parents: torch.Tensor | None = None,
    *,
    alloc: tuple[int, int] | None = None,
    out: torch.Tensor | None = None,
    block_p: int | None = None,
    validate: bool = True,
) -> torch.Tensor:
    """Mamba2 speculative verify; writes ``scratch`` in place and returns ``o`` (fp32).

    Shapes: x ``[N*T, H, P]``; dt ``[N*T, H]``; A, D, dt_bias ``[H]`` (A fp32); B, C
    ``[N*T, G, DS]``; ssm_states ``[POOL, H, P, DS]``; cache_indices ``[N]`` int32 (-1:
    padding); scratch ``[N_scratch, T_alloc, H, P, DS]``, or a flat ``[M, H, P, DS]`` block
    array holding the ``N_scratch·T_alloc`` blocks and room for SGLang's overflow after them
    (``alloc = (N_scratch, T_alloc)``); row_map ``[>= N]`` int32; parents ``[N, T]`` int32 (tree).

    Raises ``ValueError`` for bad shapes, dtypes, devices or indices, and when the stores of
    ``T > T_alloc`` would leave the buffer (SGLang raises nothing there: the harness owns a
    guarded overflow region and passes it as the flat form)."""
    _check(x.dim() == 3, f"x must be [N*T, H, P], got {tuple(x.shape)}")
    NT, H, P = (int(s) for s in x.shape)
    N = int(cache_indices.shape[0])
    _check(N > 0 and NT % N == 0, f"x has {NT} token rows, not a multiple of {N} requests")
    T = NT // N
    _check(B.dim() == 3 and B.shape[0] == NT and tuple(C.shape) == tuple(B.shape), "B and C must be [N*T, G, DS]")
    G, DS = int(B.shape[1]), int(B.shape[2])
    _check(G > 0 and H % G == 0, f"heads ({H}) must be a multiple of groups ({G})")
    _check(tuple(dt.shape) == (NT, H), f"dt must be [{NT}, {H}], got {tuple(dt.shape)}")
    for name, t in (("A", A), ("D", D), ("dt_bias", dt_bias)):
        _check(tuple(t.shape) == (H,), f"{name} must be [{H}], got {tuple(t.shape)}")
    _check(A.dtype == torch.float32, "A must be float32 (SGLang casts it: mamba.py L711)")
    _check(ssm_states.dim() == 4 and tuple(ssm_states.shape[1:]) == (H, P, DS), f"ssm_states must be [POOL, {H}, {P}, {DS}]")
    if scratch.dim() == 5:
        _check(tuple(scratch.shape[2:]) == (H, P, DS), f"scratch must be [rows, steps, {H}, {P}, {DS}]")
        n_scratch, t_alloc = int(scratch.shape[0]), int(scratch.shape[1])
        blocks = n_scratch * t_alloc
    else:
        _check(scratch.dim() == 4 and tuple(scratch.shape[1:]) == (H, P, DS) and alloc is not None,
               "a flat scratch must be [blocks, H, P, DS] with alloc = (rows, steps) given")
        assert alloc is not None
        (n_scratch, t_alloc), blocks = alloc, int(scratch.shape[0])
        _check(n_scratch * t_alloc <= blocks, f"alloc {alloc} is larger than the {blocks} blocks given")
    for name, t in (("x", x), ("dt", dt), ("B", B), ("C", C), ("D", D), ("dt_bias", dt_bias)):
        _check(t.dtype in _FLOAT_DTYPES, f"{name} must be float32 or bfloat16, got {t.dtype}")
    _check(ssm_states.dtype in _STATE_DTYPES and scratch.dtype in _STATE_DTYPES, "states must be float32, bfloat16 or float16")
    tensors = [x, dt, A, B, C, D, dt_bias, ssm_states, cache_indices, scratch, row_map] + ([parents] if parents is not None else [])
    _check(all(t.device == x.device and t.is_contiguous() for t in tensors), "every tensor must be contiguous on x's device")
    _check(cache_indices.dtype == torch.int32 and row_map.dtype == torch.int32, "cache_indices and row_map must be int32")
    _check(int(row_map.shape[0]) >= N, f"row_map has {int(row_map.shape[0])} entries for {N} requests")
    if parents is not None:
        _check(tuple(parents.shape) == (N, T) and parents.dtype == torch.int32, f"parents must be int32 [{N}, {T}]")
    rows = [int(r) for r in row_map[:N].tolist()]
    live = [int(s) >= 0 for s in cache_indices.tolist()]
    if validate:
        pool = int(ssm_states.shape[0])
        _check(all(-1 <= int(s) < pool for s in cache_indices.tolist()), f"cache_indices must be in [-1, {pool})")
        _check(all(0 <= r < n_scratch for r in rows), f"row_map[:N] must be in [0, {n_scratch})")
        if parents is not None:
            par = parents.tolist()
            _check(all(p[0] == -1 and all(0 <= p[t] < t for t in range(1, T)) for p in par),
                   "parents[n, 0] must be -1 and 0 <= parents[n, t] < t")
    needed = (max((r for r, ok in zip(rows, live, strict=True) if ok), default=-1) + 1) * T
    _check(needed <= blocks, f"the verify stores {needed} state blocks (rows × T = {T}) but the buffer holds {blocks}; "
                             "SGLang would write past intermediate_ssm unchecked (pass a guarded flat buffer)")
    o = out if out is not None else torch.zeros((NT, H, P), dtype=torch.float32, device=x.device)
    _check(tuple(o.shape) == (NT, H, P) and o.dtype == torch.float32, f"out must be float32 [{NT}, {H}, {P}]")
    if block_p is None and x.device.type == "cpu":
        # Triton's interpreter (the only CPU path): one program per (request, head), as
        # ``kdacheck run`` launches KDA there; its cost is per program and step, so the GPU's
        # split of the head dim only multiplies it (the rows are independent: same results)
        block_p = P
    BP, BDS = verify_blocks(P, DS, block_p)
    grid = (N, H, triton.cdiv(P, BP))
    _mamba2_verify_kernel[grid](
        x, dt, A, B, C, D, dt_bias, ssm_states, cache_indices, scratch, row_map,
        parents if parents is not None else cache_indices, o, T, int(ssm_states.shape[0]), max(n_scratch, 1),
        H=H, G=G, PD=P, DS=DS, BP=BP, BDS=BDS, TREE=parents is not None, STATE_BF16=scratch.dtype == torch.bfloat16,
        num_warps=4,
    )  # fmt: skip
    return o
