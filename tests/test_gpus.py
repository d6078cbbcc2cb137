"""GPU profiles and the platform facts SGLang reads from them: each profile complete and cited,
`--gpu` listing them all, SGLang's platform probes (is_hip, is_sm90, is_sm100, is_sm120,
is_blackwell) as the profiles answer them, the ROCm defaults, each new GPU's example pair, and
the memory solve on the new memory sizes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from kdacheck.gpus import GPUS
from kdacheck.gpus import gpu as profile
from tests.helpers import KIMI, LAUNCH, codes, lint, resolved

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
QWEN = f"{LAUNCH} --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4"
DSV32 = f"{LAUNCH} --model-path deepseek-ai/DeepSeek-V3.2 --tp-size 8"
NEW = ("rtx-pro-6000", "rtx-5090", "gb10", "mi300x", "mi325x", "mi355x")


@pytest.mark.parametrize("name", sorted(GPUS))
def test_every_profile_is_complete(name: str) -> None:
    g = GPUS[name]
    assert g.name == name and g.memory_mib > 0 and g.units > 0 and g.bandwidth > 0 and g.link > 0 and g.source
    if name in NEW:  # the new profiles cite the public specification of each number
        assert g.urls and all(u.startswith("https://") for u in g.urls), name


# name → (sm, hip, hopper, sm100, sm120, blackwell, label): SGLang 0.5.23's probes
# (srt/runtime_context.py _PLATFORM_PROBES; srt/utils/common.py is_sm120_supported: major 12)
PROBES = {
    "h200": (90, False, True, False, False, False, "SM90"),
    "b200": (100, False, False, True, False, True, "SM100"),
    "b300": (103, False, False, True, False, True, "SM103"),
    "rtx-pro-6000": (120, False, False, False, True, True, "SM120"),
    "rtx-5090": (120, False, False, False, True, True, "SM120"),
    "gb10": (121, False, False, False, True, True, "SM121"),
    "mi300x": (94, True, False, False, False, False, "gfx942"),
    "mi325x": (94, True, False, False, False, False, "gfx942"),
    "mi355x": (95, True, False, False, False, False, "gfx950"),
}


@pytest.mark.parametrize("name", sorted(PROBES))
def test_platform_probes(name: str) -> None:
    g = profile(name)
    assert (g.sm, g.hip, g.hopper, g.sm100, g.sm120, g.blackwell, g.label) == PROBES[name]


def test_gpu_option_lists_every_profile() -> None:
    for command in ("lint", "plan", "run"):
        out = subprocess.run([sys.executable, "-m", "kdacheck", command, "--help"], cwd=ROOT, capture_output=True,
                             text=True, timeout=60, env={"COLUMNS": "400", "PATH": ""}).stdout
        assert all(name in out for name in GPUS), (command, out[-600:])


def test_plan_reads_the_profile_bandwidth() -> None:
    from kdacheck.plan import cost

    assert "BANDWIDTH" not in vars(cost)  # one home: kdacheck.gpus
    assert profile("mi355x").bandwidth == 8.0e12 and profile("gb10").bandwidth == 0.273e12


def test_rocm_defaults() -> None:
    """ROCm: aiter attention for an MHA model (model_override_base.py L326-327), triton on both DSA
    sides without the CUDA-only refusal (overrides.py L685-689, L563-572); CUDA keeps its own."""
    assert resolved(QWEN, gpu="mi355x").v("attention_backend") == "aiter"
    assert resolved(QWEN, gpu="rtx-pro-6000").v("attention_backend") == "flashinfer"
    rocm = resolved(DSV32, gpu="mi355x")
    assert rocm.v("dsa_backends") == ("triton", "triton") and rocm.v("dsa_backend_problem") is None
    assert rocm.v("kv_cache_dtype") == "bfloat16"  # torch reports capability 9.5 on gfx950: major < 10
    triton = f"{DSV32} --dsa-prefill-backend triton --dsa-decode-backend triton"
    assert "ATTN004" not in codes(lint(triton, gpu="mi300x")) and "ATTN004" in codes(lint(triton, gpu="h200"))


def test_nvfp4_kv_on_every_sm12x() -> None:
    """The platform's is_sm120 is major 12: GB10 (12.1) takes an nvfp4 KV cache as SM120 does."""
    nvfp4 = f"{QWEN} --kv-cache-dtype nvfp4 --attention-backend trtllm_mha"
    assert "ATTN003" not in codes(lint(nvfp4, gpu="gb10")) and "ATTN003" in codes(lint(nvfp4, gpu="h200"))
    assert "GPU003" in codes(lint(nvfp4, gpu="mi355x")) and "ATTN003" not in codes(lint(nvfp4, gpu="mi355x"))


# Each new GPU: a launch SGLang refuses on it only (examples/errors/) and its clean twin (examples/clean/).
PAIRS = {
    "rtx-pro-6000": "GPU001-qwen3-next-fa4-rtx-pro.sh",
    "gb10": "GPU001-qwen3.5-fa4-gb10.sh",
    "rtx-5090": "GPU002-trtllm-fp8-rtx-5090.sh",
    "mi300x": "GPU003-fp4-kv-mi300x.sh",
    "mi325x": "GPU002-nemotron-trtllm-mi325x.sh",
    "mi355x": "GPU002-qwen3-next-trtllm-decode-mi355x.sh",
}


def test_every_new_gpu_has_an_example_pair() -> None:
    assert sorted(PAIRS) == sorted(NEW)


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_example_pair_is_refused_on_that_platform_only(name: str) -> None:
    error = EXAMPLES / "errors" / PAIRS[name]
    clean = EXAMPLES / "clean" / PAIRS[name].split("-", 1)[1]
    code = error.name.split("-", 1)[0]
    assert f"--gpu {name}" in error.read_text(encoding="utf-8")
    text = error.read_text(encoding="utf-8")
    assert code in codes(lint(text, gpu=name, path=str(error)))
    for other in ("h200", "b200"):  # the same launch on Hopper and datacenter Blackwell: no such refusal
        assert not [f for f in lint(text, gpu=other, path=str(error)).findings if f.severity.label == "error"], other
    assert not [f for f in lint(clean.read_text(encoding="utf-8"), gpu=name, path=str(clean)).findings
                if f.severity.label in ("error", "warning")]


def test_kimi_linear_memory_solve_on_mi355x() -> None:
    """288 GiB at SGLang's default fraction: 0.91 (26 GiB reserved above 60 GiB), 22.35 GiB of weights per
    rank at tp 4 and 0.83 GiB of the draft's (one MTP layer: SGLang builds one, 48 B × 2 bytes / 27 layers / 4),
    238.90 GiB left; the 48 requests the EAGLE chain asks for all fit."""
    cfg = resolved(f"{KIMI} --tp-size 4 --trust-remote-code --speculative-algorithm EAGLE --speculative-num-steps 3 "
                   "--speculative-eagle-topk 1 --speculative-num-draft-tokens 4", gpu="mi355x")
    assert cfg.v("mem_fraction_static") == 0.91
    assert cfg.v("draft_weight_bytes_per_rank") == int(48e9 * 2 / 27 / 4)
    assert cfg.v("mem_rest_gib") == pytest.approx(239.73 - 0.83, abs=0.01)
    assert cfg.v("R_after_solve") == 48 and cfg.v("mem_kv_rest_gib") == pytest.approx(174.07, abs=0.01)
    small = resolved(f"{KIMI} --tp-size 4 --trust-remote-code --speculative-algorithm EAGLE --speculative-num-steps 3 "
                     "--speculative-eagle-topk 1 --speculative-num-draft-tokens 4", gpu="rtx-5090")
    assert small.v("R_after_solve") == 7  # 32 GiB: SGLang's solve caps the running requests (MEM003; 11 without the draft's layer)


def test_hisparse_backends_per_platform() -> None:
    """HiSparse's DSA backends: tilelang, triton or aiter on ROCm, any KV dtype (hisparse_hook.py L22, L32-38)."""
    hisparse = f"{DSV32} --enable-hisparse --disable-radix-cache"
    for backend, rocm_ok, cuda_ok in (("tilelang", True, False), ("flashmla_sparse", False, True)):
        both = f"{hisparse} --dsa-prefill-backend {backend} --dsa-decode-backend {backend}"
        assert ("HSP006" not in codes(lint(both, gpu="mi355x"))) is rocm_ok, backend
        assert ("HSP006" not in codes(lint(both, gpu="h200"))) is cuda_ok, backend
