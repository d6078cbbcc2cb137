"""kdacheck's verify kernels against SGLang's own, on the inputs SGLang's kernels were run on.

The golden files (``tests/golden/kernels/*.pt``) hold the inputs and outputs of SGLang 0.5.23's
own Triton kernels, run unmodified in Triton's interpreter by
``benchmarks/sglang_diff/kernels/make_*.py`` in an SGLang environment:

- KDA and GDN: ``fused_sigmoid_gating_delta_rule_update``
  (``kernels/ops/attention/linear/fused_sigmoid_gating_recurrent.py``) called as
  ``target_verify`` calls it (``srt/layers/attention/linear/kernels/kda_triton.py`` L163-220,
  ``gdn_triton.py`` L217-254), chain (with a CUDA-graph padding request: cache index -1, zero
  tokens) and tree (parents built by SGLang's own ``causal_conv1d_update``).
- Mamba2: ``selective_state_update`` (``kernels/ops/mamba/triton_ops/mamba_ssm.py`` L351)
  called as ``srt/layers/attention/mamba/mamba.py`` L704-754 calls it, chain and tree, with a
  padding request (cache index -1, tokens computed from a zero state).

kdacheck's kernels must reproduce the output and every scratch state (including the untouched
stale regions, bit for bit) and leave the committed pool unchanged.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch
from kdacheck.kernels.kda_verify import kda_verify
from kdacheck.kernels.mamba2_verify import mamba2_verify

pytestmark = pytest.mark.slow  # the kernels in Triton's interpreter (python -m pytest -q -m 'not slow' skips them)

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "kernels"
AGREE = 1e-6  # ||ours - SGLang|| / ||SGLang|| per tensor; both accumulate in fp32 (measured ≤ 3e-7)


def _load(name: str) -> dict[str, Any]:
    g = torch.load(GOLDEN / f"{name}.pt", weights_only=True)
    assert g["sglang_version"] == "0.5.23"
    return g


def _rel(a: torch.Tensor, b: torch.Tensor) -> float:
    return float((a.double() - b.double()).norm() / b.double().norm())


def _parents(g: dict[str, Any]) -> torch.Tensor | None:
    par = g.get("retrieve_parent_token")
    if par is None:
        return None
    par = par.clone().contiguous()
    par[:, 0] = -1  # SGLang's array holds 0 at t = 0 (never read); kdacheck's contract says -1
    return par


@pytest.mark.parametrize("name", ["kda_chain", "kda_tree", "gdn_chain", "gdn_tree"])
def test_kda_and_gdn_verify_match_sglang(name: str) -> None:
    g = _load(name)
    N, T, HV, K = g["N"], g["T"], g["HV"], g["K"]
    NT = N * T
    q, k, v = (g[x][0].contiguous() for x in ("q", "k", "v"))
    if q.shape[0] < NT:  # tree files carry only the live requests' tokens
        assert q.shape[0] == NT, "every request owns T tokens"
    if g["is_kda"]:
        a = g["a"].view(NT, HV, K).contiguous()
        dt_bias = g["dt_bias"].contiguous()
        b = g["b"][0].contiguous()
    else:  # GDN: one gate per head, in SGLang's own shapes (a[T, HV], dt_bias[HV])
        a, dt_bias, b = g["a"].contiguous(), g["dt_bias"].contiguous(), g["b"].contiguous()
    A_log = g["A_log"].reshape(HV).contiguous()
    pool = g["initial_state_source"].clone()
    scratch = g["intermediate_states_buffer"].clone()
    o = kda_verify(q, k, v, a, b, A_log, dt_bias, pool, g["initial_state_indices"], scratch,
                   g["intermediate_state_indices"], _parents(g), scale=g["scale"])
    written = g["o_written"]
    ref_o = g["o"][0]
    assert _rel(o[written], ref_o[written]) < AGREE
    assert _rel(scratch, g["intermediate_states_buffer_after"]) < AGREE
    untouched = ~g["intermediate_states_written"]
    assert torch.equal(scratch[untouched], g["intermediate_states_buffer_after"][untouched])  # stale rows kept
    assert torch.equal(pool, g["initial_state_source_after"])


@pytest.mark.parametrize("name", ["mamba2_chain", "mamba2_tree"])
def test_mamba2_verify_matches_sglang(name: str) -> None:
    g = _load(name)
    N, T, H, P, DS, G = (g["dims"][x] for x in ("N", "T", "nheads", "head_dim", "dstate", "ngroups"))
    NT = N * T
    x = g["x"].reshape(NT, H, P).contiguous()
    dt = g["dt_per_head"].reshape(NT, H).contiguous()
    B, C = (g[n].reshape(NT, G, DS).contiguous() for n in ("B", "C"))
    pool = g["state"].clone()
    scratch = torch.full(g["intermediate_states_buffer_shape"], g["intermediate_states_buffer_fill_before"])
    o = mamba2_verify(x, dt, g["A_per_head"].contiguous(), B, C, g["D_per_head"].contiguous(), g["dt_bias_per_head"].contiguous(),
                      pool, g["state_batch_indices"], scratch, g["intermediate_state_indices"], _parents(g))
    assert _rel(o, g["out"].reshape(NT, H, P)) < AGREE  # padding rows too: SGLang computes them from zero
    after = g["intermediate_states_buffer_after"]
    assert _rel(scratch, after) < AGREE
    stale = after == g["intermediate_states_buffer_fill_before"]
    assert stale.any() and torch.equal(scratch[stale], after[stale])  # the padding request's row, unused rows
    assert torch.equal(pool, g["state_after"])


def test_goldens_are_sensitive() -> None:
    """The comparison can fail: a 0.5 % scale error moves KDA's output far past AGREE."""
    g = _load("kda_chain")
    NT, HV, K = g["N"] * g["T"], g["HV"], g["K"]
    q, k, v = (g[x][0].contiguous() for x in ("q", "k", "v"))
    scratch = g["intermediate_states_buffer"].clone()
    o = kda_verify(q, k, v, g["a"].view(NT, HV, K).contiguous(), g["b"][0].contiguous(), g["A_log"].reshape(HV).contiguous(),
                   g["dt_bias"], g["initial_state_source"].clone(), g["initial_state_indices"], scratch,
                   g["intermediate_state_indices"], scale=g["scale"] * 1.005)
    w = g["o_written"]
    assert _rel(o[w], g["o"][0][w]) > 100 * AGREE
