"""KDA speculative verify: a Triton kernel and a wrapper that enforces SGLang's contract.

Math (per request ``n`` and value head ``hv``; the state ``S`` is ``Kd x Vd`` but stored
transposed as ``[Vd, Kd]``, exactly like SGLang's ``ssm_states``/``intermediate_ssm``)::

    S <- ssm_states[cache_indices[n], hv]
    for t in 0 .. T-1:
        if tree and t > 0: S <- scratch[row_map[n], parents[n, t], hv]
        g    = -exp(A_log[hv]) * softplus(a[t] + dt_bias[hv])   # per key channel (KDA) or one
                                                                 # per head (GDN), threshold 20
        beta = sigmoid(b[t])
        q^   = q[t] / sqrt(|q[t]|^2 + 1e-6) * scale ;  k^ = k[t] / sqrt(|k[t]|^2 + 1e-6)
        S    = S * exp(g)[:, None]
        v'   = beta * (v[t] - S^T k^)
        S    = S + k^ (x) v'
        o[t] = S^T q^
        scratch[row_map[n], t, hv] = S

Conventions chosen here (documented because the spec leaves them open):

- ``o`` is always returned as float32 ``[N*T, HV, Vd]`` (the kernel accumulates in fp32);
  callers cast if they need the input dtype.
- Padding requests (``cache_indices[n] == -1``) are computed as SGLang 0.5.23's verify kernel
  computes them (``kernels/ops/attention/linear/fused_sigmoid_gating_recurrent.py`` L265-281,
  L490-504): from a zero state, every token's ``o`` row written and every step stored in the
  scratch row ``row_map[n]`` (SGLang's discard row: ``srt/layers/attention/linear/utils.py``
  L125-155 sends padded positions past the pool to row ``R``). Only the pool read is skipped.
  ``row_map[n] == -1`` means no scratch row: nothing stored, no parent re-read (SGLang's
  ``cache_idx >= 0`` guards, L300-320, L492-504); how a caller writes a zero-length request of
  SGLang's ragged layout (a CUDA-graph padding request) in kdacheck's dense one.
- States are stored in the scratch dtype rounded to nearest even (float32, bfloat16 or
  float16, as SGLang's ``b_h.to(cache_ptr.dtype.element_ty)``); a chain keeps the float32
  accumulator between steps, a tree re-reads the parent's rounded state.
- Tree mode: ``parents`` is ``[N, T]`` int32 with ``parents[n, 0] == -1`` (token 0 continues
  from the committed state) and ``0 <= parents[n, t] < t`` for ``t > 0``. The parent's state is
  re-read from scratch (in the scratch dtype), as the server does.
- The committed pool ``ssm_states`` is never written.
- Host-side validation of every index runs before any launch; indices are also clamped inside
  the kernel as a second line of defence (``validate=False`` skips only the host index checks,
  for deliberately broken runs in a subprocess).
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

from kdacheck.dtypes import SSM_DTYPES
from kdacheck.messages import KDA001_MESSAGE, KDA002_MESSAGE, KDA_TREE_FLASHINFER_MESSAGE

_FLOAT_DTYPES = (torch.float32, torch.bfloat16)
_STATE_DTYPES = tuple(getattr(torch, name) for name in SSM_DTYPES)  # SGLang's mamba_ssm_dtype choices


@triton.jit
def _to_bf16_rne(x):
    """fp32 -> bf16 with round-to-nearest-even done in integer arithmetic.

    Matches ``torch.Tensor.to(torch.bfloat16)`` bit for bit (except NaN payloads) on the GPU
    and in the interpreter alike; the interpreter's own fp32 -> bf16 cast truncates.
    """
    bits = x.to(tl.uint32, bitcast=True)
    lsb = (bits >> 16) & 1
    hi = ((bits + 0x7FFF + lsb) >> 16).to(tl.uint16)
    hi = tl.where(x != x, 0x7FC0, hi)  # keep NaN a (quiet) NaN
    return hi.to(tl.bfloat16, bitcast=True)


@triton.jit
def _kda_verify_kernel(
    q_ptr,  # [N*T, H, KD]
    k_ptr,  # [N*T, H, KD]
    v_ptr,  # [N*T, HV, VD]
    a_ptr,  # [N*T, HV, KD] (KDA) or [N*T, HV] (GDN: HEAD_GATE)
    b_ptr,  # [N*T, HV]
    alog_ptr,  # [HV]
    dtb_ptr,  # [HV*KD] (KDA) or [HV] (GDN)
    pool_ptr,  # [P, HV, VD, KD]   (read only)
    cache_idx_ptr,  # [N] int32
    scratch_ptr,  # [N_SCRATCH, T_ALLOC, HV, VD, KD]
    row_map_ptr,  # [>= N] int32
    parents_ptr,  # [N, T] int32 (unused when TREE is False)
    o_ptr,  # [N*T, HV, VD] fp32
    T,
    P,
    N_SCRATCH,
    T_ALLOC,
    scale,
    H: tl.constexpr,
    HV: tl.constexpr,
    KD: tl.constexpr,
    VD: tl.constexpr,
    BK: tl.constexpr,
    BV: tl.constexpr,
    TREE: tl.constexpr,
    STATE_BF16: tl.constexpr,
    STEP_GUARD: tl.constexpr = True,
    HEAD_GATE: tl.constexpr = False,
):
    # One program per (request, value head, block of BV value rows); it holds a [BV, BK] tile
    # of the transposed state in registers and walks the T draft tokens.
    i_n = tl.program_id(0)
    i_hv = tl.program_id(1)
    i_v = tl.program_id(2)
    i_h = i_hv // (HV // H)  # grouped heads: q/k head shared by HV/H value heads

    slot = tl.load(cache_idx_ptr + i_n)
    valid = slot >= 0  # -1 marks a padding request: it starts from a zero state
    # Second line of defence: clamp every index (the host already validated them; N_SCRATCH
    # counts the rows past the buffer a caller owns too, see kda_verify's owned_after).
    slot = tl.minimum(tl.maximum(slot, 0), P - 1).to(tl.int64)
    row = tl.load(row_map_ptr + i_n)
    vd_row = tl.where(row >= 0, VD, 0)  # row -1: no scratch row (no store, no parent reload)
    row = tl.minimum(tl.maximum(row, 0), N_SCRATCH - 1).to(tl.int64)

    # Masks are built as "offset < limit" with scalar integer limits (a padding request's pool
    # read gets limit 0): the interpreter mis-broadcasts scalar booleans with vector masks.
    vd_pool = tl.where(valid, VD, 0)
    offs_k = tl.arange(0, BK)
    offs_v = i_v * BV + tl.arange(0, BV)
    mk = offs_k < KD
    mv = offs_v < VD
    tile = offs_v[:, None] * KD + offs_k[None, :]  # offsets inside one [VD, KD] state

    # S <- ssm_states[cache_indices[n], hv] (fp32 right after the load); zero for padding
    m_pool = (offs_v < vd_pool)[:, None] & mk[None, :]
    S = tl.load(pool_ptr + (slot * HV + i_hv) * (VD * KD) + tile, mask=m_pool, other=0.0)
    S = S.to(tl.float32)

    A = tl.exp(tl.load(alog_ptr + i_hv).to(tl.float32))
    if HEAD_GATE:  # GDN: a scalar gate per head, as SGLang's is_kda=False path
        dtb = tl.load(dtb_ptr + i_hv).to(tl.float32)
    else:
        dtb = tl.load(dtb_ptr + i_hv * KD + offs_k, mask=offs_k < KD, other=0.0).to(tl.float32)
    scratch_head = (row * T_ALLOC) * (HV * VD * KD) + i_hv * (VD * KD)

    for t in range(T):
        tok = (i_n * T + t).to(tl.int64)
        if TREE:
            # S <- scratch[row_map[n], parents[n, t], hv] for t > 0
            par = tl.load(parents_ptr + i_n * T + t)
            par = tl.minimum(tl.maximum(par, 0), T_ALLOC - 1).to(tl.int64)
            tl.debug_barrier()  # the parent's tile was stored by this program, maybe other threads
            m_par = (offs_v < tl.where(t > 0, vd_row, 0))[:, None] & mk[None, :]
            S_par = tl.load(
                scratch_ptr + scratch_head + par * (HV * VD * KD) + tile, mask=m_par, other=0.0
            ).to(tl.float32)
            S = tl.where(m_par, S_par, S)

        q = tl.load(q_ptr + (tok * H + i_h) * KD + offs_k, mask=mk, other=0.0)
        k = tl.load(k_ptr + (tok * H + i_h) * KD + offs_k, mask=mk, other=0.0)
        v = tl.load(v_ptr + (tok * HV + i_hv) * VD + offs_v, mask=mv, other=0.0)
        if HEAD_GATE:
            a = tl.load(a_ptr + tok * HV + i_hv)
        else:
            a = tl.load(a_ptr + (tok * HV + i_hv) * KD + offs_k, mask=mk, other=0.0)
        b = tl.load(b_ptr + tok * HV + i_hv)
        q = q.to(tl.float32)
        k = k.to(tl.float32)
        v = v.to(tl.float32)
        a = a.to(tl.float32)
        b = b.to(tl.float32)

        # g = -exp(A_log) * softplus(a + dt_bias), softplus threshold 20 (masked lanes unused)
        x = a + dtb
        sp = tl.where(x > 20.0, x, tl.log(1.0 + tl.exp(tl.minimum(x, 20.0))))
        g = -A * sp
        beta = 1.0 / (1.0 + tl.exp(-b))
        # l2norm with eps inside the sqrt; scale folded into q
        q = q / tl.sqrt(tl.sum(q * q, axis=0) + 1e-6) * scale
        k = k / tl.sqrt(tl.sum(k * k, axis=0) + 1e-6)

        if HEAD_GATE:  # noqa: SIM108 (constexpr branch inside a Triton kernel)
            S = S * tl.exp(g)  # one decay for the whole head
        else:
            S = S * tl.exp(g)[None, :]  # decay each key channel
        kS = tl.sum(S * k[None, :], axis=1)  # S^T k^  -> [BV]
        v_new = beta * (v - kS)  # delta rule
        S = S + v_new[:, None] * k[None, :]  # S += k^ (x) v'   (transposed storage)
        o = tl.sum(S * q[None, :], axis=1)  # o[t] = S^T q^

        tl.store(o_ptr + (tok * HV + i_hv) * VD + offs_v, o, mask=mv)
        if STEP_GUARD:
            m_st = (offs_v < tl.where(t < T_ALLOC, vd_row, 0))[:, None] & mk[None, :]
        else:  # SGLang's Triton verify: step t is stored at row·T_alloc + t, wherever that is
            m_st = (offs_v < vd_row)[:, None] & mk[None, :]
        if STATE_BF16:  # noqa: SIM108 (constexpr branch inside a Triton kernel)
            S_out = _to_bf16_rne(S)
        else:  # float32 as is; float16 rounded to nearest even (the interpreter's cast too)
            S_out = S.to(scratch_ptr.dtype.element_ty)
        tl.store(scratch_ptr + scratch_head + t * (HV * VD * KD) + tile, S_out, mask=m_st)


def _check(cond: bool, msg: str) -> None:
    if not cond:
        raise ValueError(msg)


def _shape(t: torch.Tensor) -> tuple[int, ...]:
    return tuple(int(s) for s in t.shape)


def validate_verify_inputs(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    a: torch.Tensor,
    b: torch.Tensor,
    A_log: torch.Tensor,
    dt_bias: torch.Tensor,
    ssm_states: torch.Tensor,
    cache_indices: torch.Tensor,
    scratch: torch.Tensor,
    row_map: torch.Tensor,
    parents: torch.Tensor | None = None,
    *,
    flashinfer_compat: bool = False,
    validate_indices: bool = True,
    step_guard: bool = True,
    step_message: str = KDA001_MESSAGE,
    owned_after: int = 0,
) -> dict[str, int]:
    """Run every contract check of :func:`kda_verify` on the host; return the dimensions.

    Order: structure (ranks, shapes, dtypes, devices, contiguity); tree refused in
    FlashInfer mode (ValueError); KDA001 (RuntimeError); KDA002 (RuntimeError, FlashInfer
    mode); then index values (ValueError) unless ``validate_indices`` is False.
    ``step_message``: the step check's text (``{draft_token_num}``, ``{scratch_steps}``), the
    verify's own: KDA001 for KDA's FlashInfer verify, FlashInfer's assertion for GDN's.
    ``owned_after``: state elements after ``scratch`` the caller owns (a guarded buffer): rows
    past ``N_scratch`` (and, with ``step_guard`` False, steps past ``T_alloc``) may land there,
    as SGLang's verify stores them unchecked (``dims["row_limit"]``: the rows addressable).
    """
    named = {
        "q": q, "k": k, "v": v, "a": a, "b": b, "A_log": A_log, "dt_bias": dt_bias,
        "ssm_states": ssm_states, "cache_indices": cache_indices, "scratch": scratch,
        "row_map": row_map,
    }  # fmt: skip
    if parents is not None:
        named["parents"] = parents
    for name, t in named.items():
        _check(isinstance(t, torch.Tensor), f"{name} must be a torch.Tensor.")
    _check(cache_indices.ndim == 1, f"cache_indices must be 1-D [N], got {_shape(cache_indices)}.")
    N = int(cache_indices.shape[0])
    _check(N >= 1, "cache_indices must hold at least one request.")
    _check(q.ndim == 3, f"q must be [N*T, H, Kd], got {_shape(q)}.")
    NT, H, Kd = (int(s) for s in q.shape)
    _check(NT % N == 0, f"q has {NT} tokens, not a multiple of N={N} requests.")
    T = NT // N
    _check(T >= 1, "verify width T must be >= 1.")
    _check(_shape(k) == (NT, H, Kd), f"k must have q's shape {(NT, H, Kd)}, got {_shape(k)}.")
    _check(v.ndim == 3 and int(v.shape[0]) == NT, f"v must be [N*T, HV, Vd], got {_shape(v)}.")
    HV, Vd = int(v.shape[1]), int(v.shape[2])
    _check(H >= 1 and HV % H == 0, f"HV={HV} must be a multiple of H={H}.")
    _check(Kd >= 1 and Vd >= 1, "head dims must be >= 1.")
    head_gate = _shape(a) == (NT, HV)  # GDN: one gate logit per head (SGLang's a[T, HV], dt_bias[HV])
    _check(head_gate or _shape(a) == (NT, HV, Kd), f"a must be {(NT, HV, Kd)} (KDA) or {(NT, HV)} (GDN), got {_shape(a)}.")
    _check(_shape(b) == (NT, HV), f"b must be {(NT, HV)}, got {_shape(b)}.")
    _check(_shape(A_log) == (HV,), f"A_log must be ({HV},), got {_shape(A_log)}.")
    want_bias = (HV,) if head_gate else (HV * Kd,)
    _check(_shape(dt_bias) == want_bias, f"dt_bias must be {want_bias}, got {_shape(dt_bias)}.")
    _check(
        ssm_states.ndim == 4 and _shape(ssm_states)[1:] == (HV, Vd, Kd),
        f"ssm_states must be [P, {HV}, {Vd}, {Kd}], got {_shape(ssm_states)}.",
    )
    P = int(ssm_states.shape[0])
    _check(
        scratch.ndim == 5 and _shape(scratch)[2:] == (HV, Vd, Kd),
        f"scratch must be [N_scratch, T_alloc, {HV}, {Vd}, {Kd}], got {_shape(scratch)}.",
    )
    N_scratch, T_alloc = int(scratch.shape[0]), int(scratch.shape[1])
    _check(
        row_map.ndim == 1 and int(row_map.shape[0]) >= N,
        f"row_map must be 1-D with >= {N} entries, got {_shape(row_map)}.",
    )
    if parents is not None:
        _check(_shape(parents) == (N, T), f"parents must be [{N}, {T}], got {_shape(parents)}.")
    # dtypes
    for name in ("q", "k", "v", "a", "b"):
        _check(named[name].dtype in _FLOAT_DTYPES, f"{name} must be bfloat16 or float32.")
    _check(
        q.dtype == k.dtype == v.dtype == a.dtype,
        "q, k, v and a must share one dtype.",
    )
    _check(A_log.dtype == torch.float32, "A_log must be float32.")
    _check(dt_bias.dtype == torch.float32, "dt_bias must be float32.")
    _check(ssm_states.dtype in _STATE_DTYPES, "ssm_states must be float32, bfloat16 or float16.")
    _check(
        scratch.dtype in _STATE_DTYPES,
        "scratch (intermediate_ssm) must be float32, bfloat16 or float16.",
    )
    for name in ("cache_indices", "row_map") + (("parents",) if parents is not None else ()):
        _check(named[name].dtype == torch.int32, f"{name} must be int32.")
    dev = q.device
    for name, t in named.items():
        _check(t.device == dev, f"{name} is on {t.device}, q on {dev}: all on one device.")
        _check(t.is_contiguous(), f"{name} must be contiguous.")
    if flashinfer_compat and parents is not None:
        raise ValueError(KDA_TREE_FLASHINFER_MESSAGE)
    # KDA001: every mode, before any launch.
    if T_alloc < T and (step_guard or flashinfer_compat):
        raise RuntimeError(step_message.format(draft_token_num=T, scratch_steps=T_alloc))
    state = HV * Vd * Kd
    # rows a launch may address: the buffer's, plus whole rows of the owned room after it
    row_limit = N_scratch + (max(0, owned_after) // max(1, T_alloc * state) + 1 if owned_after > 0 else 0)
    dims = {"N": N, "T": T, "H": H, "HV": HV, "Kd": Kd, "Vd": Vd, "P": P, "N_scratch": N_scratch,
            "T_alloc": T_alloc, "head_gate": int(head_gate), "row_limit": row_limit}  # fmt: skip
    if not (flashinfer_compat or validate_indices):
        return dims  # nothing more to check on the host: no device-to-host copy, no sync
    rows = row_map[:N].to(device="cpu", dtype=torch.int64)
    if flashinfer_compat and not torch.equal(rows, torch.arange(N, dtype=torch.int64)):
        raise RuntimeError(KDA002_MESSAGE)
    if validate_indices:
        slots = cache_indices.to(device="cpu", dtype=torch.int64)
        bad = ((slots < -1) | (slots >= P)).nonzero()
        if bad.numel():
            n = int(bad[0, 0])
            raise ValueError(
                f"cache_indices[{n}] = {int(slots[n])} is outside [0, {P}) and not -1 (padding)."
            )
        bad = ((rows < -1) | (rows >= N_scratch)).nonzero()
        if bad.numel() and (owned_after <= 0 or int(rows.min()) < -1):
            n = int(bad[0, 0])
            raise ValueError(f"row_map[{n}] = {int(rows[n])} is outside [0, {N_scratch}) and not -1 (no row).")
        # SGLang's verify stores step t of row r at state r·T_alloc + t, unchecked: a row past
        # the buffer is allowed only when every such store lands in the room the caller owns
        top = int(rows.max()) * T_alloc + T
        if bad.numel() and (top - N_scratch * T_alloc) * state > owned_after:
            raise ValueError(
                f"row_map reaches state {top} of a scratch of {N_scratch * T_alloc} states and "
                f"{owned_after} owned elements after it: the launch would write outside."
            )
        live = [r for r in rows[slots >= 0].tolist() if r >= 0]
        if len(set(live)) != len(live):
            seen: set[int] = set()
            dup = next(r for r in live if r in seen or seen.add(r))  # type: ignore[func-returns-value]
            raise ValueError(f"row_map sends two live requests to scratch row {dup}.")
        if parents is not None:
            par = parents.to(device="cpu", dtype=torch.int64)
            bad = (par[:, 0] != -1).nonzero()
            if bad.numel():
                n = int(bad[0, 0])
                raise ValueError(
                    f"parents[{n}, 0] = {int(par[n, 0])}: token 0 must have parent -1 "
                    "(the committed state)."
                )
            if T > 1:
                steps = torch.arange(1, T, dtype=torch.int64)[None, :]
                bad = ((par[:, 1:] < 0) | (par[:, 1:] >= steps)).nonzero()
                if bad.numel():
                    n, step = int(bad[0, 0]), int(bad[0, 1]) + 1
                    raise ValueError(
                        f"parents[{n}, {step}] = {int(par[n, step])} must be in [0, {step})."
                    )
    return dims


def verify_blocks(Kd: int, Vd: int, block_v: int | None = None) -> tuple[int, int]:
    """Fixed tile sizes (no autotune): BK covers Kd; BV keeps the tile near 4096 elements."""
    BK = triton.next_power_of_2(Kd)
    if block_v is None:
        block_v = min(triton.next_power_of_2(Vd), max(16, 2048 // BK))
    BV = triton.next_power_of_2(block_v)
    return BK, BV


def kda_verify(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    a: torch.Tensor,
    b: torch.Tensor,
    A_log: torch.Tensor,
    dt_bias: torch.Tensor,
    ssm_states: torch.Tensor,
    cache_indices: torch.Tensor,
    scratch: torch.Tensor,
    row_map: torch.Tensor,
    parents: torch.Tensor | None = None,
    *,
    flashinfer_compat: bool = False,
    scale: float | None = None,
    block_v: int | None = None,
    validate: bool = True,
    out: torch.Tensor | None = None,
    step_guard: bool = True,
    step_message: str = KDA001_MESSAGE,
    owned_after: int = 0,
) -> torch.Tensor:
    """KDA speculative verify. Writes ``scratch`` in place and returns ``o`` (fp32).

    ``step_guard=False`` reproduces SGLang's Triton (and nv_cutedsl) verify, which checks no
    step count: with ``T > T_alloc`` step t of row r is stored at ``(r·T_alloc + t)`` states
    from the start, in the next row or past the end; a row past ``N_scratch`` (a missing
    discard row) is stored past the end too. Only for a caller that owns the elements after
    ``scratch`` those stores reach, passed as ``owned_after`` (the harness's guarded buffer).
    ``step_message``: the text of the step check (see ``validate_verify_inputs``).

    Shapes: see the module docstring and ``docs``/spec: q, k ``[N*T, H, Kd]``; v
    ``[N*T, HV, Vd]``; a ``[N*T, HV, Kd]`` with dt_bias ``[HV*Kd]`` (KDA), or a ``[N*T, HV]``
    with dt_bias ``[HV]`` (GDN: a scalar gate per head, SGLang's ``is_kda=False``); b
    ``[N*T, HV]``; A_log ``[HV]``; ssm_states ``[P, HV, Vd, Kd]``; cache_indices ``[N]``; scratch
    ``[N_scratch, T_alloc, HV, Vd, Kd]``; row_map ``[>= N]``; parents ``[N, T]`` (tree).

    Raises (before any launch): ``RuntimeError(KDA001_MESSAGE)`` when ``T > T_alloc``;
    ``RuntimeError(KDA002_MESSAGE)`` in ``flashinfer_compat`` mode when ``row_map[:N]`` is
    not ``arange(N)``; ``ValueError`` for tree mode under ``flashinfer_compat``, bad
    shapes/dtypes/devices/contiguity and (unless ``validate=False``) out-of-range indices.

    ``out``: optional preallocated fp32 ``[N*T, HV, Vd]`` output (padding requests' rows are
    written too, computed from a zero state, as SGLang's).
    """
    dims = validate_verify_inputs(
        q, k, v, a, b, A_log, dt_bias, ssm_states, cache_indices, scratch, row_map, parents,
        flashinfer_compat=flashinfer_compat, validate_indices=validate, step_guard=step_guard,
        step_message=step_message, owned_after=owned_after,
    )  # fmt: skip
    N, T, H, HV, Kd, Vd = (dims[x] for x in ("N", "T", "H", "HV", "Kd", "Vd"))
    if scale is None:
        scale = Kd**-0.5
    if out is None:
        o = torch.zeros((N * T, HV, Vd), dtype=torch.float32, device=q.device)
    else:
        if tuple(out.shape) != (N * T, HV, Vd) or out.dtype != torch.float32:
            raise ValueError(f"out must be float32 [{N * T}, {HV}, {Vd}], got {tuple(out.shape)}.")
        if out.device != q.device or not out.is_contiguous():
            raise ValueError("out must be contiguous and on q's device.")
        o = out
    BK, BV = verify_blocks(Kd, Vd, block_v)
    grid = (N, HV, triton.cdiv(Vd, BV))
    _kda_verify_kernel[grid](
        q, k, v, a, b, A_log, dt_bias, ssm_states, cache_indices, scratch, row_map,
        parents if parents is not None else cache_indices,  # dummy pointer in chain mode
        o, T, dims["P"], dims["row_limit"], dims["T_alloc"], float(scale),
        H=H, HV=HV, KD=Kd, VD=Vd, BK=BK, BV=BV, TREE=parents is not None,
        STATE_BF16=scratch.dtype == torch.bfloat16, STEP_GUARD=step_guard, HEAD_GATE=bool(dims["head_gate"]),
        num_warps=4,
    )  # fmt: skip
    return o
