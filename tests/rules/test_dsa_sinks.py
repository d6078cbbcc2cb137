"""A DSA config with learnable attention sinks (``learnable_sink``, SGLang 0.5.20+): a bfloat16 KV
cache for ``auto`` on every GPU, flashmla_sparse on both sides, and the two refusals (ATTN002's
first check, ATTN012), read as SGLang's overrides read them (0.5.23 overrides.py L526-534, L645-660)."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import codes, lint

ROOT = Path(__file__).resolve().parents[2]
SINK = f"python -m sglang.launch_server --model-path {ROOT}/tests/data/dsa-sink-handmade/v32-sink --tp-size 8 "
PLAIN = f"python -m sglang.launch_server --model-path {ROOT}/tests/data/models/deepseek-v3.2 --tp-size 8 "


def test_sinks_resolve_bfloat16_and_flashmla_sparse_on_blackwell():
    r = lint(SINK, gpu="b200")
    assert r.error is None and not [f for f in r.findings if f.severity.label == "error"], r.findings
    cfg = r.resolved[0]
    assert cfg.v("kv_cache_dtype") == "bfloat16"
    assert cfg.v("dsa_backends") == ("flashmla_sparse", "flashmla_sparse")
    plain = lint(PLAIN, gpu="b200").resolved[0]  # without sinks: fp8 and trtllm on SM100
    assert plain.v("kv_cache_dtype") == "fp8_e4m3" and plain.v("dsa_backends") == ("trtllm", "trtllm")


def test_a_non_bfloat16_kv_cache_is_refused_first():
    r = lint(SINK + "--kv-cache-dtype fp8_e4m3 --dsa-decode-backend trtllm", gpu="b200")
    (f,) = [f for f in r.findings if f.code == "ATTN002"]
    assert f.message == "Learnable DSA attention sinks require a bfloat16 KV cache; got kv_cache_dtype=fp8_e4m3."
    assert "ATTN012" not in codes(r)  # _dsa_kv_cache_dtype_default raises before the backends are resolved


def test_another_backend_is_refused_naming_the_option():
    r = lint(SINK + "--dsa-prefill-backend flashmla_kv", gpu="h200")
    (f,) = [f for f in r.findings if f.code == "ATTN012"]
    assert f.message == ("DeepseekV32ForCausalLM uses learnable attention sinks and requires --dsa-prefill-backend "
                         "'flashmla_sparse'; got 'flashmla_kv'")
    assert "ATTN012" not in codes(lint(SINK + "--dsa-decode-backend flashmla_sparse", gpu="h200"))


def test_sglang_0_5_19_reads_no_sinks():
    r = lint(SINK + "--kv-cache-dtype fp8_e4m3 --dsa-decode-backend trtllm", version="0.5.19", gpu="b200")
    assert not {"ATTN002", "ATTN012"} & set(codes(r))
    assert lint(SINK, version="0.5.19", gpu="b200").resolved[0].v("kv_cache_dtype") == "fp8_e4m3"
