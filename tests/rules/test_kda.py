"""KDA rules: the issue's case (KDA002), its near misses, and each other code."""

from __future__ import annotations

from pathlib import Path

import pytest

from kdacheck import versions
from kdacheck.results import FileResult
from kdacheck.rules.kda import KDA002_MESSAGE
from tests.helpers import codes
from tests.helpers import lint_ok as lint

KIMI = "python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct "
QWEN = "python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp 4 "
ISSUE = (
    KIMI + "--speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1 "
    "--speculative-num-draft-tokens 4 --tp 8 --dp 2 --enable-dp-attention "
    "--linear-attn-verify-backend flashinfer --mamba-ssm-dtype bfloat16 --max-running-requests "
)
EAGLE = "--speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4 "






def find(result: FileResult, code: str):
    return [f for f in result.findings if f.code == code]


def test_kda002_issue_case():
    r = lint(ISSUE + "90", gpu="b200")
    (f,) = find(r, "KDA002")
    assert f.severity.name == "ERROR"
    assert KDA002_MESSAGE in f.message
    assert "45 requests per worker" in f.message and "padded to 48" in f.message
    assert "reads 3 padding rows" in f.message and len(f.message) <= 240  # the SGLang message is 135 of them
    picture = next(e.value for e in f.evidence if e.name == "row map")
    assert "[0 1 2 … 44 | 45 45 45]" in picture and "rows 45–47 all read row 45" in picture
    assert "--max-running-requests 94" in (f.fix or "")
    cfg = r.resolved[0]
    assert (cfg.v("R"), cfg.v("row_map_len"), cfg.v("max_verify_batch")) == (45, 48, 48)


@pytest.mark.parametrize("mrr", ["94", "96"])
def test_kda002_fixed_mrr_passes(mrr):
    assert "KDA002" not in codes(lint(ISSUE + mrr, gpu="b200"))


def test_kda002_fused_accept_skips():
    r = lint(ISSUE + "90 --disable-radix-cache", gpu="b200")
    assert "KDA002" not in codes(r)
    assert r.resolved[0].v("fused_accept") is True


@pytest.mark.parametrize("version", versions.KNOWN)
def test_kda002_every_version(version):
    assert "KDA002" in codes(lint(ISSUE + "90", version, gpu="b200"))
    assert "KDA002" not in codes(lint(ISSUE + "96", version, gpu="b200"))


def test_kda002_triton_verify_never():
    r = lint(ISSUE.replace("--linear-attn-verify-backend flashinfer ", "") + "90", gpu="b200")
    assert "KDA002" not in codes(r)
    assert r.resolved[0].v("verify_backend") == "nv_cutedsl"


def test_kda003_ngram_flashinfer_verify():
    r = lint(KIMI + "--tp 4 --speculative-algorithm NGRAM --linear-attn-verify-backend flashinfer --mamba-ssm-dtype bfloat16", gpu="b200")
    (f,) = find(r, "KDA003")
    assert "topk 10" in f.message
    ok = lint(KIMI + "--tp 4 --speculative-algorithm NGRAM --speculative-ngram-max-bfs-breadth 1 --linear-attn-verify-backend flashinfer --mamba-ssm-dtype bfloat16", gpu="b200")
    assert "KDA003" not in codes(ok)


def test_kda004_bf16_on_sm100():
    bad = lint(KIMI + "--tp 4 " + EAGLE + "--linear-attn-verify-backend flashinfer", gpu="b200")
    assert "KDA004" in codes(bad)
    assert "KDA004" not in codes(lint(KIMI + "--tp 4 " + EAGLE + "--linear-attn-verify-backend flashinfer --mamba-ssm-dtype bfloat16", gpu="b200"))
    unk = lint(KIMI + "--tp 4 " + EAGLE + "--linear-attn-verify-backend flashinfer")
    assert find(unk, "KDA004")[0].severity.name == "INFO"
    assert "KDA004" not in codes(lint(KIMI + "--tp 4 " + EAGLE))


def test_kda005_needs_blackwell():
    bad = lint(KIMI + "--tp 4 " + EAGLE + "--linear-attn-verify-backend flashinfer --mamba-ssm-dtype bfloat16", gpu="h200")
    assert "KDA005" in codes(bad)
    assert "KDA005" not in codes(lint(KIMI + "--tp 4 " + EAGLE + "--linear-attn-verify-backend flashinfer --mamba-ssm-dtype bfloat16", gpu="b200"))


def test_kda006_never_from_flags():
    assert "KDA006" not in codes(lint(KIMI + "--tp 4 " + EAGLE + "--disaggregation-mode prefill"))


def test_kda007_tp3():
    (f,) = find(lint(KIMI + "--tp 3"), "KDA007")
    assert "KDA num_heads (32) must be divisible by shard tp_size (3)" in f.message
    assert "KDA007" not in codes(lint(KIMI + "--tp 4"))


def test_kda008_dp_attention_warning():
    r = lint(KIMI + "--tp 8 --dp 2 --enable-dp-attention")
    assert find(r, "KDA008")[0].severity.name == "WARNING"
    assert "KDA008" not in codes(lint(KIMI + "--tp 8"))


def test_kda009_only_hybrid_with_spec():
    r = lint(KIMI + "--tp 4 " + EAGLE)
    (f,) = find(r, "KDA009")
    assert f.severity.name == "INFO" and "nv_cutedsl" in f.message
    assert "KDA009" not in codes(lint(KIMI + "--tp 4"))
    assert "KDA009" not in codes(lint("python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --speculative-algorithm EAGLE --speculative-draft-model-path D --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4"))


def test_kda001_never_static():
    for extra in (EAGLE, "--speculative-algorithm EAGLE --speculative-adaptive "):
        cfg = lint(KIMI + "--tp 4 " + extra).resolved[0]
        assert cfg.v("verify_width_max") <= cfg.v("d_max")
        assert "KDA001" not in codes(lint(KIMI + "--tp 4 " + extra))


def test_row_map_attn_tp_gather_without_dp_attention():
    cfg = lint(QWEN + EAGLE + "--moe-a2a-backend deepep --max-running-requests 45").resolved[0]
    assert cfg.v("row_map_len") == 48


def test_kda004_runs_on_a_model_whose_state_is_not_modelled() -> None:
    # MiniCPM-SALA: its lightning state is not modelled (MODEL001), but SGLang's check reads only the
    # backends and the flag (attention_hook.py L341-351), so KDA004 runs ("state", not "model")
    sala = str(Path(__file__).resolve().parents[2] / "benchmarks" / "sglang_diff" / "models" / "minicpm-sala")
    line = f"python -m sglang.launch_server --model-path {sala} --linear-attn-backend flashinfer"
    r = lint(line, gpu="b200", model=sala)
    assert r.resolved[0].model is not None and r.resolved[0].model.unmodelled
    assert "KDA004" in codes(r) and "KDA004" not in r.resolved[0].not_checked
    assert "KDA004" not in codes(lint(line + " --mamba-ssm-dtype bfloat16", gpu="b200", model=sala))
