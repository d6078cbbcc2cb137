"""Both kernels through the run harness on the test device (reference + canaries).

With ``KDACHECK_TEST_DEVICE=cuda`` every case runs on the GPU (compiled Triton, real timing);
in the default interpreter run only the tiny cases run (the rest is covered by the CPU tests).
"""

from __future__ import annotations

from typing import Any

import pytest
from kdacheck.kernels.harness import GatherCase, VerifyCase, run_gather, run_verify

pytestmark = pytest.mark.slow  # the kernels in Triton's interpreter (python -m pytest -q -m 'not slow' skips them)

KIMI: dict[str, Any] = {"Kd": 128, "Vd": 128}

# fmt: off
VERIFY: list[tuple[str, dict[str, Any], bool]] = [
    ("tiny-chain", {"N": 2, "T": 2, "T_alloc": 3, "H": 2, "HV": 4, "Kd": 16, "Vd": 16}, True),
    ("kimi-tp8-chain-fp32", {"N": 16, "T": 4, "T_alloc": 4, "H": 4, "HV": 4, **KIMI}, False),
    ("kimi-tp4-chain-bf16-state", {"N": 24, "T": 4, "T_alloc": 6, "H": 8, "HV": 8,
                                   "state_dtype": "bfloat16", **KIMI}, False),
    ("kimi-tp4-fp32-inputs", {"N": 8, "T": 3, "T_alloc": 3, "H": 8, "HV": 8,
                              "input_dtype": "float32", **KIMI}, False),
    ("kimi-tp1-padding", {"N": 48, "T": 4, "T_alloc": 4, "H": 32, "HV": 32, "n_padding": 5,
                          **KIMI}, False),
    ("kimi-tp4-tree", {"N": 12, "T": 8, "T_alloc": 8, "H": 8, "HV": 8, "tree": True, "K": 3,
                       **KIMI}, False),
    ("kimi-tp4-tree-bf16", {"N": 12, "T": 9, "T_alloc": 9, "H": 8, "HV": 8, "tree": True, "K": 8,
                            "state_dtype": "bfloat16", **KIMI}, False),
    ("kimi-tp4-chain-fp16-state", {"N": 24, "T": 4, "T_alloc": 4, "H": 8, "HV": 8,
                                   "state_dtype": "float16", **KIMI}, False),
    ("kimi-tp4-tree-fp16-padding", {"N": 12, "T": 7, "T_alloc": 7, "H": 8, "HV": 8, "tree": True, "K": 3,
                                    "n_padding": 2, "state_dtype": "float16", **KIMI}, False),
    ("tiny-fp16-padding", {"N": 3, "T": 3, "T_alloc": 3, "H": 2, "HV": 4, "Kd": 16, "Vd": 16,
                           "n_padding": 1, "state_dtype": "float16"}, True),
    ("grouped-heads", {"N": 6, "T": 5, "T_alloc": 5, "H": 2, "HV": 8, "Kd": 64, "Vd": 96}, False),
    ("flashinfer-identity", {"N": 8, "T": 4, "T_alloc": 4, "H": 8, "HV": 8,
                             "flashinfer_compat": True, **KIMI}, False),
]

GATHER: list[tuple[str, dict[str, Any], bool]] = [
    ("tiny", {"B": 1, "D": 2, "top_k": 1024, "max_seq": 2048, "hit_rate": 0.5}, True),
    ("d4-all-miss", {"B": 8, "D": 4, "top_k": 2048, "max_seq": 16384, "hit_rate": 0.0}, False),
    ("d3-half", {"B": 16, "D": 3, "top_k": 2048, "max_seq": 8192, "hit_rate": 0.5}, False),
    ("d2-all-hit", {"B": 4, "D": 2, "top_k": 1024, "max_seq": 4096, "hit_rate": 1.0}, False),
    ("bf16-items", {"B": 4, "D": 2, "top_k": 1024, "max_seq": 4096, "item_bytes": 1152}, False),
    ("odd-items", {"B": 4, "D": 2, "top_k": 1024, "max_seq": 4096, "item_bytes": 657}, False),
]
# fmt: on


def _skip_on_cpu(kernel_device: str, on_cpu: bool) -> None:
    if kernel_device == "cpu" and not on_cpu:
        pytest.skip("GPU-sized case: runs with KDACHECK_TEST_DEVICE=cuda")


@pytest.mark.parametrize(("name", "kw", "on_cpu"), VERIFY, ids=[v[0] for v in VERIFY])
def test_verify_on_device(
    name: str, kw: dict[str, Any], on_cpu: bool, kernel_device: str, seed: int
) -> None:
    _skip_on_cpu(kernel_device, on_cpu)
    res = run_verify(VerifyCase(seed=seed, **kw), kernel_device)
    assert res.error is None, res.error
    assert res.canaries_intact, [c for c in res.canaries if not c.get("intact", True)]
    assert res.passed, (res.rel_err, res.notes)
    assert res.time_s is not None and res.time_s > 0


def test_verify_refuses_short_scratch_on_device(kernel_device: str) -> None:
    res = run_verify(VerifyCase(N=2, T=5, T_alloc=4, Kd=16, Vd=16), kernel_device)
    assert res.error == "KDA verify needs 5 scratch steps, but intermediate_ssm only has 4."
    assert res.canaries_intact


@pytest.mark.parametrize(("name", "kw", "on_cpu"), GATHER, ids=[g[0] for g in GATHER])
def test_gather_on_device(
    name: str, kw: dict[str, Any], on_cpu: bool, kernel_device: str, seed: int
) -> None:
    _skip_on_cpu(kernel_device, on_cpu)
    res = run_gather(GatherCase(seed=seed, **kw), kernel_device)
    assert res.error is None, res.error
    assert res.canaries_intact, [c for c in res.canaries if not c.get("intact", True)]
    assert res.passed, res.notes


def test_gather_refuses_small_plan_on_device(kernel_device: str) -> None:
    res = run_gather(GatherCase(B=2, D=2, top_k=1024, max_seq=2048, plan_capacity=1024),
                     kernel_device)  # fmt: skip
    assert res.error is not None and "capacity 2048" in res.error
