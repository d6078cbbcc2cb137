"""The Mamba2 verify kernel against its float64 reference (the harness), and its contract."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from kdacheck.kernels import mamba2_verify as mv
from kdacheck.kernels.cases import Mamba2Case
from kdacheck.kernels.harness import TOLERANCE, run_mamba2
from kdacheck.kernels.mamba2_verify import mamba2_verify

pytestmark = pytest.mark.slow  # the kernels in Triton's interpreter (python -m pytest -q -m 'not slow' skips them)


@pytest.mark.parametrize(
    "case",
    [
        Mamba2Case(seed=1),
        Mamba2Case(seed=2, tree=True, K=2, T=6, T_alloc=6, n_padding=1),
        Mamba2Case(seed=3, state_dtype="bfloat16"),
        Mamba2Case(seed=4, dt_scale=40.0),  # softplus's linear branch (dt + dt_bias > 20)
        Mamba2Case(seed=5, H=8, G=8, P=8, DS=16, N=3, n_padding=2),  # one head per group, mostly padding
        Mamba2Case(seed=6, H=6, G=3, P=24, DS=40),  # dims that are not powers of two
        Mamba2Case(seed=7, state_dtype="float16", tree=True, K=2, T=5, T_alloc=5, n_padding=1),  # --mamba-ssm-dtype float16
        # Nemotron-H's head (P 64, DS 128): a GPU splits it into 4 programs, the interpreter runs one
        Mamba2Case(seed=9, N=2, H=2, G=1, P=64, DS=128, tree=True, K=2, T=5, T_alloc=5, n_padding=1),
    ],
    ids=["chain", "tree+padding", "bf16-state", "large-dt", "groups=heads", "odd-dims", "fp16-tree+padding", "nemotron-head"],
)
def test_mamba2_verify_matches_reference(case: Mamba2Case, kernel_device: str) -> None:
    r = run_mamba2(case, kernel_device)
    assert r.passed, (r.error, r.rel_err, r.canaries)
    assert r.rel_err is not None and r.rel_err < TOLERANCE[case.state_dtype] / 10


def test_short_scratch_is_reported_as_sglangs_silent_corruption() -> None:
    r = run_mamba2(Mamba2Case(seed=7, N=2, T=5, T_alloc=4, N_scratch=2), "cpu")
    assert not r.passed and r.error is not None
    assert "silent corruption" in r.error and "r·D + t" in r.error
    assert "rows 1" in r.error and "written past the end" in r.error
    past = next(c for c in r.canaries if c["name"] == "past the end of intermediate_ssm")
    assert past["count"] == 2 * 4 * 16 * 32  # request 1's steps 3..4 land in blocks 8..9: two blocks past the 8


def test_wrapper_refuses_an_unguarded_overflow() -> None:
    N, T, H, P, DS = 2, 5, 2, 4, 8
    x = torch.randn(N * T, H, P)
    with pytest.raises(ValueError, match="past intermediate_ssm unchecked"):
        mamba2_verify(x, torch.randn(N * T, H), -torch.ones(H), torch.randn(N * T, 1, DS), torch.randn(N * T, 1, DS),
                      torch.ones(H), torch.zeros(H), torch.zeros(3, H, P, DS), torch.tensor([0, 1], dtype=torch.int32),
                      torch.zeros(N, 4, H, P, DS), torch.arange(N, dtype=torch.int32))


def test_mutations_are_caught() -> None:
    """The comparison can fail: a wrong dt_bias sign in the reference's input moves the error
    far past the tolerance (the harness compares against the reference, not itself)."""
    from kdacheck.kernels import mamba2_verify_ref as ref

    real = ref.mamba2_verify_reference

    def wrong(*args, **kw):  # type: ignore[no-untyped-def]
        a = list(args)
        a[6] = -a[6] + 0.3  # dt_bias
        return real(*a, **kw)

    ref.mamba2_verify_reference = wrong
    try:
        r = run_mamba2(Mamba2Case(seed=8), "cpu")
    finally:
        ref.mamba2_verify_reference = real
    assert not r.passed and r.rel_err is not None and r.rel_err > 1e-3


def _nemotron_head_inputs(N: int = 2, T: int = 3, H: int = 2, P: int = 64, DS: int = 128) -> tuple[Any, ...]:
    g = torch.Generator().manual_seed(11)

    def rnd(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=g)

    return (rnd(N * T, H, P).bfloat16(), rnd(N * T, H).bfloat16(), -torch.rand(H, generator=g) - 0.5, rnd(N * T, 1, DS).bfloat16(),
            rnd(N * T, 1, DS).bfloat16(), rnd(H).bfloat16(), rnd(H).bfloat16(), rnd(N, H, P, DS), torch.arange(N, dtype=torch.int32),
            torch.zeros(N, T, H, P, DS), torch.arange(N, dtype=torch.int32))  # fmt: skip


def test_interpreter_runs_one_program_per_request_and_head(monkeypatch: pytest.MonkeyPatch) -> None:
    """In the interpreter (CPU tensors) the grid is (N, H, 1), as ``kdacheck run`` launches KDA
    there; a GPU's split of the head dim (``verify_blocks``: BP 16 at P 64, DS 128) stays
    reachable through ``block_p`` and stores bitwise the same states and outputs."""
    grids: list[tuple[int, ...]] = []
    real = mv._mamba2_verify_kernel

    class Recording:
        def __getitem__(self, grid: tuple[int, ...]) -> Any:
            grids.append(grid)
            return real[grid]

    monkeypatch.setattr(mv, "_mamba2_verify_kernel", Recording())
    whole = _nemotron_head_inputs()
    o_whole = mv.mamba2_verify(*whole)
    split = _nemotron_head_inputs()
    o_split = mv.mamba2_verify(*split, block_p=mv.verify_blocks(64, 128)[0])
    assert grids == [(2, 2, 1), (2, 2, 4)]
    assert torch.equal(o_whole, o_split) and torch.equal(whole[9], split[9])
