#!/usr/bin/env python
"""Oracle goldens for SGLang 0.5.23 Mamba2 speculative-verify selective_state_update.

Run with:  python make_mamba2.py (in an environment with sglang==0.5.23, torch and triton; KDACHECK_GOLDEN_OUT=tests/golden/kernels)
(no GPU needed: TRITON_INTERPRET=1 is set below, before triton/sglang import;
 all tensors are CPU).

SGLang is only *imported* (never copied).  The only shim is one torch attribute:
`selective_state_update` (mamba_ssm.py:500) does
`with torch.get_device_module(x.device).device(x.device.index):` and
`torch.cpu` has no `.device` context manager in torch 2.14, so on CPU we add a
no-op `torch.cpu.device`.  Nothing in SGLang is patched.

Writes (next to this file): chain.pt, tree.pt, results.json.

``python make_mamba2.py fp16`` writes only ``mamba2_chain_fp16.pt`` and ``mamba2_tree_fp16.pt``:
the same calls with a float16 state pool and intermediate buffer (``--mamba-ssm-dtype
float16``); the tree's parents are the array SGLang's conv kernel produced for the float32
tree golden (asserted in ``main``), so no conv kernel runs (Triton 3.9's interpreter cannot).
"""

import os

os.environ["TRITON_INTERPRET"] = "1"  # must precede the triton / sglang imports

import contextlib
import json
import types
from pathlib import Path

import torch

if not hasattr(torch.cpu, "device"):  # the one shim (see docstring)
    torch.cpu.device = lambda idx=None: contextlib.nullcontext()

import sglang  # noqa: E402
from sglang.kernels.ops.mamba import causal_conv1d_triton  # noqa: E402
from sglang.kernels.ops.mamba.triton_ops import (  # noqa: E402  (== what mamba.py:7-10 imports)  # noqa: E402
    PAD_SLOT_ID,
    initialize_mamba_selective_state_update_backend,
    selective_state_update,
    ssu_dispatch,
)

HERE = Path(os.environ.get("KDACHECK_GOLDEN_OUT", Path(__file__).resolve().parent))
SGL_ROOT = Path(sglang.__file__).resolve().parent
SRC_KERNEL = "sglang/kernels/ops/mamba/triton_ops/mamba_ssm.py"  # selective_state_update L351
SRC_DISPATCH = "sglang/kernels/ops/mamba/triton_ops/ssu_dispatch.py"  # selective_state_update L235
SRC_CALLER = "sglang/srt/layers/attention/mamba/mamba.py"  # verify call L720-754
SRC_PARENT = "sglang/kernels/ops/mamba/causal_conv1d_triton.py"  # retrieve_parent_token L800-1017

# Dims from the brief.
NHEADS, HEAD_DIM, DSTATE, NGROUPS = 4, 8, 16, 2
NUM_SLOTS = 4  # MambaPool temporal has size+1 slots; slot 0 = reserved dummy (allocator/mamba.py:85)
SCRATCH_ROWS = 4  # intermediate_ssm rows = spec_state_size + 1 (memory_pool.py:883-891)
STATE_BATCH_INDICES = [3, 1, PAD_SLOT_ID]  # 2 real requests + 1 cuda-graph padding row (-1)
SENTINEL = -777.0  # pre-fill of scratch / out, to show exactly what the kernel writes
SEED = 20250523

# Exactly what ssu_dispatch.initialize_mamba_selective_state_update_backend reads (L206-221);
# "triton" is the default --mamba-backend (arg_groups/fields/exec_.py:483-489).
initialize_mamba_selective_state_update_backend(
    types.SimpleNamespace(
        mamba_backend="triton",
        enable_mamba_cache_stochastic_rounding=False,
        mamba_cache_philox_rounds=0,
    )
)
assert ssu_dispatch._mamba_ssu_backend.name == "triton"


# --------------------------------------------------------------------------
# inputs, built the way MambaMixer2.forward builds them (mamba.py:485-754)
# --------------------------------------------------------------------------
def make_inputs(T, seed):
    g = torch.Generator().manual_seed(seed)
    N = len(STATE_BATCH_INDICES)
    H, P, DS, G = NHEADS, HEAD_DIM, DSTATE, NGROUPS
    intermediate = H * P
    conv_dim = intermediate + 2 * G * DS

    # per-head parameters (mamba.py:406-413); A = -exp(A_log) (weight loader, mamba.py:420-423)
    A_log = torch.linspace(-0.7, 0.7, H)
    A = -torch.exp(A_log)  # fp32, [H]
    D = torch.tensor([1.0, 0.5, -0.25, 2.0])
    dt_bias = torch.tensor([0.5, -1.0, 2.0, 18.0])  # head 3 pushes dt+dt_bias past 20

    # post-conv x|B|C rows (contiguous [N*T, conv_dim], mamba.py:686-688) and the
    # in_proj output from which dt is a column slice (mamba.py:485-493)
    xBC = torch.randn(N * T, conv_dim, generator=g)
    projected = torch.randn(N * T, intermediate + conv_dim + H, generator=g)
    dt_raw = 1.5 * torch.randn(N * T, H, generator=g)
    # softplus threshold coverage (softplus(v) = v when v > 20, mamba_ssm.py:24)
    dt_raw.view(N, T, H)[0, 1, 0] = 24.0  # 24.5  -> linear branch
    dt_raw.view(N, T, H)[1, 0, 1] = 22.0  # 21.0  -> linear branch
    dt_raw.view(N, T, H)[0, 2, 2] = -12.0  # -10.0 -> tiny softplus
    dt_raw.view(N, T, H)[1, T - 1, 3] = 1.5  # 19.5  -> log(exp+1) branch just below 20
    dt_raw.view(N, T, H)[0, 0, 3] = 2.0  # 20.0  -> == 20 takes the log branch (<=)
    dt_raw.view(N, T, H)[1, 2, 3] = 82.0  # 100.0 -> exp(100) overflows fp32: only the threshold keeps it finite
    projected[:, -H:] = dt_raw
    _, _, dt = torch.split(projected, [intermediate, conv_dim, H], dim=-1)

    state_pool = 0.5 * torch.randn(NUM_SLOTS, H, P, DS, generator=g)
    return dict(N=N, T=T, A=A, D=D, dt_bias=dt_bias, xBC=xBC, dt=dt, state_pool=state_pool)


def sglang_verify_call(inp, retrieve_parent_token, materialize=False, buffer=None, state_dtype=torch.float32):
    """Mirror mamba.py:664 and 704-754 (is_target_verify branch)."""
    N, T = inp["N"], inp["T"]
    H, P, DS, G = NHEADS, HEAD_DIM, DSTATE, NGROUPS
    hidden_states_d, B_d, C_d = torch.split(inp["xBC"], [H * P, G * DS, G * DS], dim=-1)
    A_d = inp["A"][:, None, ...][:, :, None].expand(-1, P, DS).to(dtype=torch.float32)
    dt_d = inp["dt"][:, :, None].expand(-1, -1, P)
    dt_bias = inp["dt_bias"][:, None, ...].expand(-1, P)
    D_d = inp["D"][:, None, ...].expand(-1, P)
    B_d = B_d.view(-1, G, B_d.shape[1] // G)  # column slices of xBC: views, like SGLang
    C_d = C_d.view(-1, G, C_d.shape[1] // G)
    hidden_states_d = hidden_states_d.view(-1, H, P)
    x = hidden_states_d.view(N, T, H, P)
    dt_arg = dt_d.view(N, T, H, P)
    B_arg = B_d.view(N, T, G, -1)
    C_arg = C_d.view(N, T, G, -1)
    if materialize:  # same values, no stride-0 dims -> TIE_HDIM=False kernel path
        A_d, dt_arg, dt_bias, D_d = (t.contiguous() for t in (A_d, dt_arg, dt_bias, D_d))
    state = inp["state_pool"].clone().to(state_dtype)
    if buffer is None:
        buffer = torch.full((SCRATCH_ROWS, T, H, P, DS), SENTINEL, dtype=state_dtype)
    out = torch.full((N * T, H * P), SENTINEL)  # preallocated_ssm_out_d (mamba.py:549-565)
    state_batch_indices = torch.tensor(STATE_BATCH_INDICES, dtype=torch.int32)
    intermediate_state_indices = torch.arange(N, dtype=torch.int32)  # mamba.py:664-666
    args = dict(
        state=state, x=x, dt=dt_arg, A=A_d, B=B_arg, C=C_arg, D=D_d, z=None,
        dt_bias=dt_bias, dt_softplus=True, state_batch_indices=state_batch_indices,
        out=out.view(N, T, H, P), disable_state_update=True,
        intermediate_states_buffer=buffer, cache_steps=T,
        retrieve_parent_token=retrieve_parent_token,
        intermediate_state_indices=intermediate_state_indices,
    )
    tie = (A_d.stride(-1) == 0 and A_d.stride(-2) == 0 and dt_arg.stride(-1) == 0
           and dt_bias.stride(-1) == 0)  # same predicate as mamba_ssm.py:480-485
    selective_state_update(**args)
    return args, out.view(N, T, H, P), tie


# --------------------------------------------------------------------------
# retrieve_parent_token exactly as SGLang builds it: written by the fused
# causal_conv1d_update Triton kernel from retrieve_next_token/_sibling
# (mamba.py:673-685, causal_conv1d_triton.py:800-863,1010-1017)
# --------------------------------------------------------------------------
def build_parent_with_sglang(next_token, next_sibling):
    N, T = next_token.shape
    conv_dim, K = 8, 4
    g = torch.Generator().manual_seed(SEED + 7)
    x = torch.randn(N, T, conv_dim, generator=g).transpose(1, 2)  # (batch, dim, seqlen) as mamba.py:669-671
    conv_state = torch.randn(NUM_SLOTS, conv_dim, K - 1, generator=g)
    w = torch.randn(conv_dim, K, generator=g)
    inter_conv = torch.zeros(SCRATCH_ROWS, T, conv_dim, K - 1)  # dense layout for topk>1 (memory_pool.py:939-964)
    parent = torch.zeros(N, T, dtype=torch.int32)  # static cuda-graph buffer (hybrid_linear_attn_backend.py:652-656)
    causal_conv1d_triton.causal_conv1d_update(
        x, conv_state, w, None, "silu",
        conv_state_indices=torch.tensor(STATE_BATCH_INDICES, dtype=torch.int32),
        intermediate_conv_window=inter_conv,
        intermediate_state_indices=torch.arange(N, dtype=torch.int32),
        retrieve_next_token=next_token, retrieve_next_sibling=next_sibling,
        retrieve_parent_token=parent,
    )
    return parent


# --------------------------------------------------------------------------
# float64 reference of the math as read from mamba_ssm.py:169-345
# --------------------------------------------------------------------------
def reference(inp, parent=None, slots=None, f=torch.float64, store=None):
    """``store``: the intermediate buffer's dtype, when not float32: each stored state rounded
    to it (SGLang: state.to(cache_ptrs.dtype.element_ty)), a tree re-reading the rounded one."""
    N, T = inp["N"], inp["T"]
    H, P, DS, G = NHEADS, HEAD_DIM, DSTATE, NGROUPS
    x, B, C = torch.split(inp["xBC"].to(f), [H * P, G * DS, G * DS], dim=-1)
    x = x.reshape(N, T, H, P)
    B = B.reshape(N, T, G, DS)
    C = C.reshape(N, T, G, DS)
    dt = inp["dt"].to(f).reshape(N, T, H)
    A, D, dtb = inp["A"].to(f), inp["D"].to(f), inp["dt_bias"].to(f)
    pool = inp["state_pool"].to(store).to(f) if store is not None else inp["state_pool"].to(f)
    out = torch.zeros(N, T, H, P, dtype=f)
    inter = torch.zeros(N, T, H, P, DS, dtype=f)
    ratio = H // G
    slots = STATE_BATCH_INDICES if slots is None else slots
    for b in range(N):
        slot = slots[b]
        pad = slot == PAD_SLOT_ID
        for h in range(H):
            s = torch.zeros(P, DS, dtype=f) if pad else pool[slot, h].clone()
            g_ = h // ratio
            for t in range(T):
                if parent is not None and t != 0:
                    p = int(parent[b, t])
                    if 0 <= p < T:
                        s = torch.zeros(P, DS, dtype=f) if pad else inter[b, p, h].clone()
                v = dt[b, t, h] + dtb[h]
                v = v if v > 20.0 else torch.log(torch.exp(v) + 1.0)
                dA = torch.exp(A[h] * v)
                s = s * dA + (B[b, t, g_] * v)[None, :] * x[b, t, h][:, None]
                if not pad:
                    inter[b, t, h] = s.to(store).to(f) if store is not None else s
                out[b, t, h] = s @ C[b, t, g_] + x[b, t, h] * D[h]
    return out, inter


def errs(got, ref):
    got = got.to(torch.float64)
    d = (got - ref).abs()
    scale = ref.abs().max().item()
    big = ref.abs() > 1e-3 * scale
    return {
        "max_abs_err": d.max().item(),
        "max_abs_ref": scale,
        "normwise_rel": d.max().item() / scale,
        "max_elementwise_rel_where_|ref|>1e-3*max": (d[big] / ref.abs()[big]).max().item(),
    }


def run_case(name, T, next_token=None, next_sibling=None, state_dtype=torch.float32, parent=None):
    torch.manual_seed(SEED)
    inp = make_inputs(T, SEED + T)
    N = inp["N"]
    if next_token is not None and parent is None:
        parent = build_parent_with_sglang(next_token, next_sibling)
    store = None if state_dtype == torch.float32 else state_dtype
    args, out, tie = sglang_verify_call(inp, parent, state_dtype=state_dtype)
    assert tie, "verify path must hit TIE_HDIM=True"
    buf = args["intermediate_states_buffer"]
    state_after = args["state"]

    out_ref, inter_ref = reference(inp, parent, store=store)
    real = [b for b in range(N) if STATE_BATCH_INDICES[b] != PAD_SLOT_ID]
    out_r32, inter_r32 = reference(inp, parent, f=torch.float32)
    res = {
        "out": errs(out, out_ref),
        # rounding floor: the same formula evaluated in float32 torch, vs float64
        "float32_torch_reference_out_vs_float64": errs(out_r32, out_ref),
        "float32_torch_reference_intermediate_vs_float64": errs(inter_r32[real], inter_ref[real]),
        "intermediate_real_rows": errs(buf[real], inter_ref[real]),
        "state_pool_unchanged": bool(torch.equal(state_after, inp["state_pool"])),
        "pad_scratch_row_untouched": bool((buf[2] == SENTINEL).all()),
        "unused_scratch_row3_untouched": bool((buf[3] == SENTINEL).all()),
        "pad_row_out_written": bool((out[2] != SENTINEL).all()),
        "pad_row_out_equals_zero_initial_state_ref": errs(out[2], out_ref[2]),
    }
    if parent is not None:  # tokens whose parent != t-1 must differ from a plain chain
        out_chain, _ = reference(inp)
        res["tokens_where_tree_differs_from_chain"] = [
            [t for t in range(T) if not torch.allclose(out_chain[b, t], out_ref[b, t])] for b in range(N)]
    v = inp["dt"].reshape(N, T, NHEADS) + inp["dt_bias"]
    res["dt_plus_bias_max"] = v.max().item()
    res["count_dt_plus_bias_gt_20"] = int((v > 20).sum())
    res["all_outputs_finite"] = bool(torch.isfinite(out).all() and torch.isfinite(buf).all())
    # same values passed as dense tensors -> TIE_HDIM=False path
    args2, out2, tie2 = sglang_verify_call(inp, parent, materialize=True, state_dtype=state_dtype)
    assert not tie2
    res["tie_hdim_false_path_vs_true_path_max_abs_diff"] = {
        "out": (out2 - out).abs().max().item(),
        "intermediate": (args2["intermediate_states_buffer"].double() - buf.double()).abs().max().item(),
    }

    xs, Bs, Cs = torch.split(inp["xBC"], [NHEADS * HEAD_DIM, NGROUPS * DSTATE, NGROUPS * DSTATE], dim=-1)
    dt_ph = inp["dt"].reshape(N, T, NHEADS)
    golden = {
        "sglang_version": sglang.__version__ if hasattr(sglang, "__version__") else "0.5.23",
        "source": SRC_KERNEL + "::selective_state_update (L351), called via " + SRC_DISPATCH
        + "::selective_state_update (L235) from " + SRC_CALLER + " L720-754",
        "source_file": str(SGL_ROOT / "kernels/ops/mamba/triton_ops/mamba_ssm.py"),
        "mode": name,
        # --- arguments, SGLang names, contiguous copies (see layout notes) ---
        "state": inp["state_pool"].clone().to(state_dtype),  # committed pool BEFORE: [NUM_SLOTS, H, P, DS]
        "state_dtype": str(state_dtype).replace("torch.", ""),
        "x": args["x"].contiguous().clone(),  # [N, T, H, P]
        "dt": args["dt"].contiguous().clone(),  # [N, T, H, P]  (SGLang passes stride-0 over P)
        "A": args["A"].contiguous().clone(),  # [H, P, DS]     (SGLang passes stride (1,0,0))
        "B": args["B"].contiguous().clone(),  # [N, T, G, DS]
        "C": args["C"].contiguous().clone(),  # [N, T, G, DS]
        "D": args["D"].contiguous().clone(),  # [H, P]         (stride-0 over P)
        "z": None,
        "dt_bias": args["dt_bias"].contiguous().clone(),  # [H, P] (stride-0 over P)
        "dt_softplus": True,
        "state_batch_indices": args["state_batch_indices"].clone(),  # int32 [N]
        "pad_slot_id": PAD_SLOT_ID,
        "disable_state_update": True,
        "cache_steps": T,
        "retrieve_parent_token": None if parent is None else parent.clone(),  # int32 [N, T]
        "intermediate_state_indices": args["intermediate_state_indices"].clone(),  # int32 [N]
        "intermediate_states_buffer_shape": list(buf.shape),  # [SCRATCH_ROWS, T, H, P, DS]
        "intermediate_states_buffer_fill_before": SENTINEL,  # buffer was torch.full(shape, this)
        "out_fill_before": SENTINEL,
        # --- compact per-head originals (what the model actually holds) ---
        "A_per_head": inp["A"].clone(),
        "dt_per_head": dt_ph.contiguous().clone(),  # [N, T, H]
        "dt_bias_per_head": inp["dt_bias"].clone(),
        "D_per_head": inp["D"].clone(),
        "x_B_C_rows": inp["xBC"].clone(),  # [N*T, H*P + 2*G*DS] post-conv rows x|B|C
        # --- outputs ---
        "out": out.contiguous().clone(),  # [N, T, H, P]
        "state_after": state_after.clone(),  # == state (disable_state_update=True)
        "intermediate_states_buffer_after": buf.clone(),
        "dims": dict(N=N, T=T, nheads=NHEADS, head_dim=HEAD_DIM, dstate=DSTATE,
                     ngroups=NGROUPS, num_slots=NUM_SLOTS, scratch_rows=SCRATCH_ROWS),
        "dtypes": ("all float32 (SGLang default: state/intermediate fp32, A fp32, x/dt/B/C/D/dt_bias/out = model dtype e.g. bf16)"
                   if store is None else "state pool and intermediate buffer float16 (--mamba-ssm-dtype float16), the rest float32"),
        "seed": SEED,
        "errors_vs_float64_reference": res,
    }
    if next_token is not None:
        golden["retrieve_next_token"] = next_token.clone()
        golden["retrieve_next_sibling"] = next_sibling.clone()
    torch.save(golden, HERE / f"mamba2_{name}.pt")
    return res, parent


def main_fp16():
    """The float16-state goldens (see the module docstring)."""
    results = {"chain_fp16": run_case("chain_fp16", T=4, state_dtype=torch.float16)[0]}
    parent = torch.tensor(TREE_PARENT, dtype=torch.int32)
    results["tree_fp16"] = run_case("tree_fp16", T=6, state_dtype=torch.float16, parent=parent)[0]
    print(json.dumps(results, indent=1))


# --------------------------------------------------------------------------
# experiments on the scratch indexing (not saved as goldens)
# --------------------------------------------------------------------------
def experiment_T_gt_cache_steps():
    """T=4 tokens but the buffer / cache_steps only hold 2 steps per row."""
    T, steps = 4, 2
    inp = make_inputs(T, SEED + 100)
    N = inp["N"]
    # backing store with 2 guard rows after the 'allocated' 3-row buffer
    backing = torch.full((N + 2, steps, NHEADS, HEAD_DIM, DSTATE), SENTINEL)
    buffer = backing[:N]
    H, P, DS, G = NHEADS, HEAD_DIM, DSTATE, NGROUPS
    hs, B_d, C_d = torch.split(inp["xBC"], [H * P, G * DS, G * DS], dim=-1)
    out = torch.empty(N, T, H, P)
    state = inp["state_pool"].clone()
    sbi = torch.tensor([3, 1, 2], dtype=torch.int32)  # no pad row here: 3 real rows
    selective_state_update(
        state, hs.reshape(N, T, H, P),
        inp["dt"][:, :, None].expand(-1, -1, P).view(N, T, H, P),
        inp["A"][:, None, None].expand(-1, P, DS),
        B_d.reshape(N, T, G, DS), C_d.reshape(N, T, G, DS),
        inp["D"][:, None].expand(-1, P), z=None,
        dt_bias=inp["dt_bias"][:, None].expand(-1, P), dt_softplus=True,
        state_batch_indices=sbi, out=out, disable_state_update=True,
        intermediate_states_buffer=buffer, cache_steps=steps,
        retrieve_parent_token=None,
        intermediate_state_indices=torch.arange(N, dtype=torch.int32),
    )
    # which (row, step) of each request's chain landed where
    _, inter_ref = reference(inp, slots=[3, 1, 2])
    flat = backing.reshape((N + 2) * steps, H, P, DS)
    where = {}
    for j in range(flat.shape[0]):
        hit = []
        for b in range(N):
            for t in range(T):
                if torch.allclose(flat[j].double(), inter_ref[b, t], rtol=1e-5, atol=1e-5):
                    hit.append(f"req{b}.tok{t}")
        where[f"backing[{j // steps},{j % steps}]"] = hit or (
            ["sentinel"] if (flat[j] == SENTINEL).all() else ["other"])
    return where


def experiment_buffer_wider_than_cache_steps():
    """Buffer allocated with max draft tokens (6) but verify runs T=cache_steps=4
    (speculative_adaptive: pool sized by max_speculative_num_draft_tokens)."""
    T, T_max = 4, 6
    inp = make_inputs(T, SEED + 200)
    N = inp["N"]
    buf = torch.full((SCRATCH_ROWS, T_max, NHEADS, HEAD_DIM, DSTATE), SENTINEL)
    args, out, _ = sglang_verify_call(inp, None, buffer=buf)
    _, inter_ref = reference(inp)
    where = {}
    for r in range(SCRATCH_ROWS):
        for s in range(T_max):
            hit = [f"req{b}.tok{t}" for b in range(N) for t in range(T)
                   if STATE_BATCH_INDICES[b] != PAD_SLOT_ID
                   and torch.allclose(buf[r, s].double(), inter_ref[b, t], rtol=1e-5, atol=1e-5)]
            where[f"buffer[{r},{s}]"] = hit or (["sentinel"] if (buf[r, s] == SENTINEL).all() else ["other"])
    return where


def replay(name):
    """Reload a golden and re-run SGLang on the saved (contiguous) arguments."""
    d = torch.load(HERE / f"mamba2_{name}.pt", weights_only=False)
    state = d["state"].clone()
    buf = torch.full(d["intermediate_states_buffer_shape"], d["intermediate_states_buffer_fill_before"])
    out = torch.full_like(d["x"], d["out_fill_before"])
    selective_state_update(
        state, d["x"], d["dt"], d["A"], d["B"], d["C"], D=d["D"], z=d["z"],
        dt_bias=d["dt_bias"], dt_softplus=d["dt_softplus"],
        state_batch_indices=d["state_batch_indices"], pad_slot_id=d["pad_slot_id"], out=out,
        disable_state_update=d["disable_state_update"], intermediate_states_buffer=buf,
        cache_steps=d["cache_steps"], retrieve_parent_token=d["retrieve_parent_token"],
        intermediate_state_indices=d["intermediate_state_indices"],
    )
    return bool(torch.equal(out, d["out"]) and torch.equal(buf, d["intermediate_states_buffer_after"])
                and torch.equal(state, d["state_after"]))


# retrieve_parent_token of the tree case, as SGLang's causal_conv1d_update writes it (main asserts it)
TREE_PARENT = [[0, 0, 0, 1, 1, 2], [0, 0, 1, 0, 3, 4], [0, 0, 0, 0, 0, 0]]


def main():
    results = {}
    res_chain, _ = run_case("chain", T=4)
    results["chain"] = res_chain

    # Tree (EAGLE topk>1) with T=6.  retrieve_next_token / retrieve_next_sibling are the
    # spec_info tensors (first child / next sibling, -1 = none); row 2 is the padding row
    # (stale zeros of the static cuda-graph buffer).
    #   req0:   0 -> {1, 2}; 1 -> {3, 4}; 2 -> {5}      parents [0,0,0,1,1,2]
    #   req1:   0 -> {1, 3}; 1 -> {2}; 3 -> {4}; 4 -> {5} parents [0,0,1,0,3,4]
    next_token = torch.tensor([[1, 3, 5, -1, -1, -1],
                               [1, 2, -1, 4, 5, -1],
                               [0, 0, 0, 0, 0, 0]], dtype=torch.int32)
    next_sibling = torch.tensor([[-1, 2, -1, 4, -1, -1],
                                 [-1, 3, -1, -1, -1, -1],
                                 [0, 0, 0, 0, 0, 0]], dtype=torch.int32)
    res_tree, parent = run_case("tree", T=6, next_token=next_token, next_sibling=next_sibling)
    expect = torch.tensor(TREE_PARENT, dtype=torch.int32)
    assert torch.equal(parent, expect), parent
    res_tree["retrieve_parent_token_from_sglang_conv_kernel"] = parent.tolist()
    results["tree"] = res_tree

    results["replay_from_saved_pt_bitwise"] = {n: replay(n) for n in ("chain", "tree")}
    results["experiment_T4_cache_steps2"] = experiment_T_gt_cache_steps()
    results["experiment_buffer_T_max6_cache_steps4"] = experiment_buffer_wider_than_cache_steps()
    results["sizes_bytes"] = {p.name: p.stat().st_size for p in sorted(HERE.glob("mamba2_*.pt"))}
    (HERE / "mamba2_results.json").write_text(json.dumps(results, indent=1))
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    import sys

    main_fp16() if sys.argv[1:] == ["fp16"] else main()
