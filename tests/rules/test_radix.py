"""RADIX001, RADIX002, RSSM001, RSSM002."""

from __future__ import annotations

from tests.helpers import codes
from tests.helpers import lint_ok as lint

QWEN = "python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp 4 "
KIMI = "python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --tp 4 "
NEXTN = "--speculative-algorithm NEXTN --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4 "






def test_radix001_track_interval_below_draft_tokens():
    r = lint(QWEN + NEXTN + "--mamba-track-interval 2")
    (f,) = [f for f in r.findings if f.code == "RADIX001"]
    assert "--mamba-track-interval 4" in (f.fix or "")
    assert r.resolved[0].v("mamba_radix_cache_strategy") == "extra_buffer"
    assert "RADIX001" not in codes(lint(QWEN + NEXTN + "--mamba-track-interval 4"))
    assert "RADIX001" not in codes(lint(QWEN + NEXTN + "--mamba-track-interval 2 --disable-radix-cache"))


def test_radix001_page_multiple():
    assert "RADIX001" in codes(lint(QWEN + NEXTN + "--page-size 64 --mamba-track-interval 100"))
    assert "RADIX001" not in codes(lint(QWEN + NEXTN + "--page-size 64 --mamba-track-interval 128"))


def test_radix002_no_buffer_needs_overlap_off():
    assert "RADIX002" in codes(lint(QWEN + "--mamba-radix-cache-strategy no_buffer"))
    assert "RADIX002" not in codes(lint(QWEN + "--mamba-radix-cache-strategy no_buffer --disable-overlap-schedule"))


def test_radix002_auto_no_buffer_with_pages():
    # a non-triton linear backend makes auto pick no_buffer, which refuses page size 64
    r = lint(QWEN + "--linear-attn-backend flashinfer --page-size 64")
    assert r.resolved[0].v("mamba_radix_cache_strategy") == "no_buffer"
    assert "RADIX002" in codes(r)
    assert "RADIX002" not in codes(lint(QWEN + "--page-size 64"))


def test_rssm001_ring_and_topk():
    r = lint(KIMI + "--speculative-algorithm EAGLE --speculative-num-steps 8 --speculative-eagle-topk 1 --speculative-num-draft-tokens 9 --enable-linear-replayssm-spec")
    (f,) = [f for f in r.findings if f.code == "RSSM001"]
    assert "16 < 2 * 9" in f.message and "--linear-replayssm-cache-len 32" in (f.fix or "")
    ok = lint(KIMI + "--speculative-algorithm EAGLE --speculative-num-steps 8 --speculative-eagle-topk 1 --speculative-num-draft-tokens 9 --enable-linear-replayssm-spec --linear-replayssm-cache-len 32")
    assert "RSSM001" not in codes(ok)
    tree = lint(KIMI + "--speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 2 --speculative-num-draft-tokens 6 --enable-linear-replayssm-spec")
    # a topk given above 1: SGLang's own flag check during resolution (attention_hook.py L450), RSSM002
    assert any("linear draft chain" in f.message for f in tree.findings if f.code == "RSSM002")
    assert "RSSM001" not in codes(tree)
    assert "RSSM001" not in codes(lint(KIMI + NEXTN)) and "RSSM002" not in codes(lint(KIMI + NEXTN))


LLAMA = "python -m sglang.launch_server --model-path meta-llama/Meta-Llama-3-8B-Instruct "


def test_radix004_lmcache_with_hicache():
    (f,) = [f for f in lint(LLAMA + "--enable-lmcache --enable-hierarchical-cache").findings if f.code == "RADIX004"]
    assert "mutually exclusive" in f.message and "or `--enable-hierarchical-cache`" in (f.fix or "")
    assert "RADIX004" not in codes(lint(LLAMA + "--enable-lmcache"))
    assert "RADIX004" not in codes(lint(LLAMA + "--enable-hierarchical-cache"))
    # 0.5.19 and 0.5.20 have no such check (registry.py builds the LMCache tree)
    assert "RADIX004" not in codes(lint(LLAMA + "--enable-lmcache --enable-hierarchical-cache", version="0.5.20"))
    assert "RADIX004" in codes(lint(LLAMA + "--enable-lmcache --enable-hierarchical-cache", version="0.5.21"))


def test_radix004_fix_keeps_what_sglang_accepts():
    # LMCache is refused under speculative decoding too: the fix keeps the hierarchical cache
    r = lint(QWEN + NEXTN + "--enable-lmcache --enable-hierarchical-cache")
    (f,) = [f for f in r.findings if f.code == "RADIX004"]
    assert (f.fix or "").startswith("remove `--enable-lmcache`") and "hierarchical" not in (f.fix or "").split("(")[0]
