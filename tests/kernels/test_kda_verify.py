"""KDA verify kernel: against the float64 reference, against fla-core, and its contract."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from dataclasses import dataclass
from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kdacheck.kernels import canary as cn
from kdacheck.kernels.harness import random_parents
from kdacheck.kernels.kda_verify import (
    KDA001_MESSAGE,
    KDA002_MESSAGE,
    KDA_TREE_FLASHINFER_MESSAGE,
    kda_verify,
)
from kdacheck.kernels.kda_verify_ref import kda_verify_reference

pytestmark = pytest.mark.slow  # the kernels in Triton's interpreter (python -m pytest -q -m 'not slow' skips them)

F32, BF16 = torch.float32, torch.bfloat16


@dataclass
class Inputs:
    args: list[Any]  # positional arguments of kda_verify (scratch is the guarded view)
    scratch: cn.Guarded
    pool_before: torch.Tensor
    N: int
    T: int


def make_inputs(
    seed: int,
    N: int = 3,
    T: int = 3,
    H: int = 2,
    HV: int = 4,
    Kd: int = 32,
    Vd: int = 32,
    in_dt: torch.dtype = F32,
    st_dt: torch.dtype = F32,
    tree: bool = False,
    K: int = 2,
    padding: int = 0,
    T_alloc: int | None = None,
    N_scratch: int | None = None,
    P: int | None = None,
) -> Inputs:
    g = torch.Generator().manual_seed(seed)
    NT = N * T
    P = P if P is not None else N + 2
    T_alloc = T_alloc if T_alloc is not None else T + 1
    N_scratch = N_scratch if N_scratch is not None else N + 1

    def r(*s: int, dt: torch.dtype = F32, scale: float = 1.0) -> torch.Tensor:
        return (torch.randn(*s, generator=g) * scale).to(dt)

    slots = torch.randperm(P, generator=g)[:N].to(torch.int32)
    if padding:
        pad = torch.randperm(N, generator=g)[:padding]
        slots[pad] = -1
    scratch = cn.guarded_empty((N_scratch, T_alloc, HV, Vd, Kd), st_dt, "cpu")
    pool = r(P, HV, Vd, Kd, dt=st_dt, scale=0.5)
    args = [
        r(NT, H, Kd, dt=in_dt),
        r(NT, H, Kd, dt=in_dt),
        r(NT, HV, Vd, dt=in_dt),
        r(NT, HV, Kd, dt=in_dt),
        r(NT, HV, dt=in_dt),
        torch.log(1 + 15 * torch.rand(HV, generator=g)),
        r(HV * Kd, scale=0.5),
        pool,
        slots,
        scratch.tensor,
        torch.randperm(N_scratch, generator=g)[:N].to(torch.int32),  # any distinct rows
        random_parents(N, T, K, g) if tree else None,
    ]
    return Inputs(args, scratch, pool.clone(), N, T)


def run_and_check(inp: Inputs, tol: float, **kw: Any) -> None:
    """Launch, compare with the reference, check every canary bit for bit."""
    args = inp.args
    o = kda_verify(*args, **kw)
    ref_scratch = torch.empty_like(inp.scratch.tensor)
    o_ref, s_ref = kda_verify_reference(*args[:9], cn.poison_(ref_scratch), *args[10:])
    slots, rows = args[8], args[10]
    # every request, padding ones too: SGLang 0.5.23's verify computes a cache-index -1 request
    # from a zero state and stores its states in its scratch row
    # (kernels/ops/attention/linear/fused_sigmoid_gating_recurrent.py L265-281, L492-504)
    everyone = list(range(inp.N))
    T = inp.T
    tok = torch.tensor([n * T + t for n in everyone for t in range(T)], dtype=torch.long)
    lrows = rows[everyone].long()
    s_k = inp.scratch.tensor
    assert (o[tok].double() - o_ref[tok]).norm() <= tol * o_ref[tok].norm()
    s_kd, s_rd = s_k[lrows, :T].double(), s_ref[lrows, :T].double()
    assert (s_kd - s_rd).norm() <= tol * s_rd.norm()
    # canaries: margins, rows/steps no request owns, committed pool
    written = torch.zeros(s_k.shape[:2], dtype=torch.bool)
    written[lrows, :T] = True
    ws = written[:, :, None, None, None].expand(s_k.shape)
    reports = [
        cn.check_margins(inp.scratch),
        cn.check_poison(s_k, ~ws),
        cn.check_written(s_k, ws),
        cn.check_equal_bits(args[7], inp.pool_before, "pool"),
    ]
    for r in reports:
        assert r.intact, r
    pad_tok = [n * T + t for n in range(inp.N) if int(slots[n]) < 0 for t in range(T)]
    if pad_tok:  # computed (from a zero state), not skipped
        assert torch.count_nonzero(o[pad_tok]) > 0


CASES = [
    # (name, kwargs, tol)
    ("fp32 chain 48", dict(Kd=48, Vd=48, in_dt=F32, st_dt=F32), 1e-5),
    ("bf16 in, odd 33, padding", dict(Kd=33, Vd=33, in_dt=BF16, padding=1), 1e-2),
    ("fp32 in, bf16 state, tree", dict(in_dt=F32, st_dt=BF16, tree=True, T=4), 1e-2),
    (
        "bf16/bf16 tree, H=HV",
        dict(H=2, HV=2, Kd=40, Vd=24, in_dt=BF16, st_dt=BF16, tree=True),
        1e-2,
    ),
    ("fp32 tree K=3, padding", dict(N=4, T=5, tree=True, K=3, padding=2, Kd=16, Vd=20), 1e-5),
]


@pytest.mark.parametrize("name,kw,tol", CASES, ids=[c[0] for c in CASES])
def test_matches_reference(seed: int, name: str, kw: dict[str, Any], tol: float) -> None:
    run_and_check(make_inputs(seed, **kw), tol)


def test_several_value_blocks(seed: int) -> None:
    """block_v smaller than Vd: several programs per head, last block partly masked."""
    run_and_check(make_inputs(seed, N=2, T=2, H=1, HV=2, Kd=20, Vd=40), 1e-5, block_v=16)


def test_scale_argument(seed: int) -> None:
    inp = make_inputs(seed, N=2, T=2)
    o = kda_verify(*inp.args, scale=0.3)
    o_ref, _ = kda_verify_reference(*inp.args, scale=0.3)
    assert (o.double() - o_ref).norm() <= 1e-5 * o_ref.norm()


@settings(
    max_examples=4,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    seed=st.integers(0, 2**31 - 1),
    N=st.integers(1, 3),
    T=st.integers(1, 4),
    H=st.sampled_from([1, 2]),
    G=st.sampled_from([1, 2]),
    Kd=st.integers(3, 40),
    Vd=st.integers(3, 40),
    tree=st.booleans(),
    bf16=st.booleans(),
)
def test_random_shapes(
    seed: int, N: int, T: int, H: int, G: int, Kd: int, Vd: int, tree: bool, bf16: bool
) -> None:
    dt = BF16 if bf16 else F32
    inp = make_inputs(seed, N=N, T=T, H=H, HV=H * G, Kd=Kd, Vd=Vd, in_dt=dt, st_dt=dt, tree=tree)
    run_and_check(inp, 1e-2 if bf16 else 1e-5)


def test_reference_matches_fla_naive(seed: int) -> None:
    """Independent oracle: fla-core's naive_kda_gate + naive_recurrent_kda (chain mode)."""
    naive = pytest.importorskip("fla.ops.kda.naive")
    gate = pytest.importorskip("fla.ops.kda.gate")
    N, T, H, HV, Kd, Vd = 3, 5, 2, 4, 24, 20
    inp = make_inputs(seed, N=N, T=T, H=H, HV=HV, Kd=Kd, Vd=Vd, P=N + 1)
    q, k, v, a, b, A_log, dt_bias, pool, slots, _, rows, _ = inp.args
    o_ref, s_ref = kda_verify_reference(*inp.args)

    def l2(x: torch.Tensor) -> torch.Tensor:  # fla's naive does not normalise: do it here
        return x / torch.sqrt((x * x).sum(-1, keepdim=True) + 1e-6)

    # layouts: fla wants [B, T, H, K] and a state [B, HV, K, V]; SGLang stores [Vd, Kd]
    qf = l2(q.double()).view(N, T, H, Kd)
    kf = l2(k.double()).view(N, T, H, Kd)
    g = gate.naive_kda_gate(a.view(N, T, HV, Kd), A_log, dt_bias)
    beta = torch.sigmoid(b.double()).view(N, T, HV)
    h0 = pool[slots.long()].double().transpose(-1, -2)
    o_fla, s_fla = naive.naive_recurrent_kda(
        qf, kf, v.double().view(N, T, HV, Vd), g, beta, scale=Kd**-0.5,
        initial_state=h0, output_final_state=True,
    )  # fmt: skip
    o_mine = o_ref.view(N, T, HV, Vd)
    assert (o_fla.double() - o_mine).norm() <= 1e-5 * o_mine.norm()
    s_last = s_ref[rows.long(), T - 1].double().transpose(-1, -2)  # [N, HV, Kd, Vd]
    assert (s_fla.double() - s_last).norm() <= 1e-5 * s_last.norm()


# ----------------------------------------------------------------------------- contract


@pytest.mark.parametrize("mode", ["chain", "tree", "flashinfer"])
def test_kda001_exact_message_and_no_write(mode: str) -> None:
    inp = make_inputs(7, N=2, T=4, T_alloc=3, tree=mode == "tree")
    with pytest.raises(RuntimeError) as exc:
        kda_verify(*inp.args, flashinfer_compat=mode == "flashinfer")
    assert str(exc.value) == "KDA verify needs 4 scratch steps, but intermediate_ssm only has 3."
    assert str(exc.value) == KDA001_MESSAGE.format(draft_token_num=4, scratch_steps=3)
    assert cn.check_poison(inp.scratch.base).intact  # nothing launched


def test_kda002_identity_row_map() -> None:
    inp = make_inputs(3, N=3, T=2)
    inp.args[10] = torch.tensor([0, 2, 1], dtype=torch.int32)
    with pytest.raises(RuntimeError) as exc:
        kda_verify(*inp.args, flashinfer_compat=True)
    assert str(exc.value) == (
        "FlashInfer KDA verify requires an identity intermediate row-map "
        "(verify_intermediate_state_indices must be arange)."
    )
    assert str(exc.value) == KDA002_MESSAGE
    assert cn.check_poison(inp.scratch.base).intact
    # a longer map whose first N entries are arange passes (SGLang's arange(R) + padding rows)
    inp.args[10] = torch.tensor([0, 1, 2, 3, 3], dtype=torch.int32)
    kda_verify(*inp.args, flashinfer_compat=True)


def test_flashinfer_refuses_tree() -> None:
    inp = make_inputs(1, N=2, T=2, tree=True)
    with pytest.raises(ValueError, match="only supports topk=1") as exc:
        kda_verify(*inp.args, flashinfer_compat=True)
    assert str(exc.value) == KDA_TREE_FLASHINFER_MESSAGE


def _set(inp: Inputs, i: int, value: Any) -> Inputs:
    inp.args[i] = value
    return inp


def _three_qk_heads(inp: Inputs) -> Inputs:
    inp.args[0], inp.args[1] = torch.randn(4, 3, 32), torch.randn(4, 3, 32)
    return inp


BAD = [
    ("slot >= P", lambda x: _set(x, 8, torch.tensor([0, 5], dtype=torch.int32)), "cache_indices"),
    ("slot < -1", lambda x: _set(x, 8, torch.tensor([-2, 0], dtype=torch.int32)), "cache_indices"),
    ("row >= N_scratch", lambda x: _set(x, 10, torch.tensor([0, 3], dtype=torch.int32)), "row_map"),
    ("row < -1", lambda x: _set(x, 10, torch.tensor([-2, 0], dtype=torch.int32)), "row_map"),
    ("rows shared", lambda x: _set(x, 10, torch.tensor([1, 1], dtype=torch.int32)), "two live requests"),
    ("short row_map", lambda x: _set(x, 10, torch.tensor([0], dtype=torch.int32)), "row_map"),
    ("int64 slots", lambda x: _set(x, 8, x.args[8].long()), "int32"),
    ("parent[0]", lambda x: _set(x, 11, torch.tensor([[0, 0], [-1, 0]], dtype=torch.int32)), "parents"),
    ("parent >= t", lambda x: _set(x, 11, torch.tensor([[-1, 1], [-1, 0]], dtype=torch.int32)), r"\[0, 1\)"),
    ("parents shape", lambda x: _set(x, 11, torch.full((2, 3), -1, dtype=torch.int32)), "parents"),
    ("HV not multiple", _three_qk_heads, "multiple of H=3"),
    ("k shape", lambda x: _set(x, 1, torch.randn(4, 2, 31)), "k must have"),
    ("non-contiguous", lambda x: _set(x, 2, torch.randn(4, 32, 4).transpose(1, 2)), "contiguous"),
    ("A_log dtype", lambda x: _set(x, 5, x.args[5].double()), "A_log"),
    ("mixed dtypes", lambda x: _set(x, 2, x.args[2].to(BF16)), "share one dtype"),
    ("tokens not N*T", lambda x: _set(x, 0, torch.randn(5, 2, 32)), "multiple"),
]  # fmt: skip


@pytest.mark.parametrize("name,mutate,match", BAD, ids=[b[0] for b in BAD])
def test_host_validation(name: str, mutate: Any, match: str) -> None:
    inp = mutate(make_inputs(2, N=2, T=2, N_scratch=3, P=5))
    with pytest.raises(ValueError, match=match):
        kda_verify(*inp.args)
    assert cn.check_poison(inp.scratch.base).intact


def test_out_of_range_row_in_subprocess() -> None:
    """Host validation bypassed: the kernel clamps the row; the canaries report the damage."""
    code = textwrap.dedent(
        """
        import os
        os.environ["TRITON_INTERPRET"] = "1"
        import torch
        from kdacheck.kernels import canary as cn
        from kdacheck.kernels.kda_verify import kda_verify
        N, T, H, HV, Kd, Vd = 2, 2, 1, 1, 8, 8
        g = cn.guarded_empty((N + 1, T, HV, Vd, Kd), torch.float32, "cpu")
        x = lambda *s: torch.randn(*s)
        rows = torch.tensor([0, 1000], dtype=torch.int32)   # 1000 >= N_scratch
        kda_verify(x(N*T, H, Kd), x(N*T, H, Kd), x(N*T, HV, Vd), x(N*T, HV, Kd), x(N*T, HV),
                   torch.zeros(HV), torch.zeros(HV*Kd), x(3, HV, Vd, Kd),
                   torch.tensor([0, 1], dtype=torch.int32), g.tensor, rows, validate=False)
        print("margins", cn.check_margins(g).intact)
        print("padding row written", not cn.check_poison(g.tensor[N]).intact)
        """
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "margins True" in proc.stdout
    assert "padding row written True" in proc.stdout
    # and with validation on, the same call is refused before launch
    with pytest.raises(ValueError, match=r"row_map\[1\] = 1000"):
        inp = make_inputs(0, N=2, T=2)
        inp.args[10] = torch.tensor([0, 1000], dtype=torch.int32)
        kda_verify(*inp.args)


def test_row_minus_one_stores_nothing() -> None:
    """``row_map[n] == -1``: no scratch row, as SGLang's ``cache_idx >= 0`` guard
    (fused_sigmoid_gating_recurrent.py L300-320, L492-504): the request's output is computed
    and its states are stored nowhere; the other request's row is written as usual."""
    inp = make_inputs(5, N=2, T=3, N_scratch=3, P=5, tree=True)
    inp.args[10] = torch.tensor([-1, 2], dtype=torch.int32)
    o = kda_verify(*inp.args)
    s = inp.scratch.tensor
    assert cn.check_poison(s[:2]).intact and cn.check_margins(inp.scratch).intact
    assert not cn.check_poison(s[2, :3]).intact
    o_ref, _ = kda_verify_reference(*inp.args[:9], cn.poison_(torch.empty_like(s)), *inp.args[10:])
    assert (o.double() - o_ref).norm() <= 1e-5 * o_ref.norm()
