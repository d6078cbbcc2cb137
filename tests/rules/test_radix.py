"""RADIX001, RADIX002, RSSM001, RSSM002."""

from __future__ import annotations

from pathlib import Path

from kdacheck.findings import Severity
from tests.helpers import codes, finding
from tests.helpers import lint_ok as lint

QWEN = "python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp 4 "
KIMI = "python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --tp 4 "
MODELS = Path(__file__).resolve().parents[2] / "tests" / "data" / "models"
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


def test_radix001_chunk_and_page_divide_one_another():
    """mamba_cache_chunk_size's assert, with each config class's chunk: GDN/KDA FLA's 64, Nemotron-H's
    chunk_size (128 for Nemotron-3-Nano), Granite's 256 (SGLang's verdicts: classes-0.5.23.jsonl 342-347)."""
    eb = "--mamba-radix-cache-strategy extra_buffer --mamba-track-interval 384 --chunked-prefill-size 18432 "
    f = finding(lint(QWEN + eb + "--page-size 96"), "RADIX001")
    assert f.message.startswith("For SSM models, either chunk_size or page_size must be divisible by the other, got chunk_size=64, page_size=96")
    nano = "python -m sglang.launch_server --model-path " + str(MODELS / "nemotron-3-nano") + " --tp 2 "
    assert "chunk_size=128, page_size=192" in finding(lint(nano + eb + "--page-size 192"), "RADIX001").message
    assert "RADIX001" not in codes(lint(nano + eb + "--page-size 128"))
    assert "RADIX001" not in codes(lint(QWEN + eb + "--page-size 128"))  # 128 is a multiple of 64
    granite = "python -m sglang.launch_server --model-path " + str(MODELS / "granite-4.0-h-small") + " --tp 2 "
    assert "RADIX001" not in codes(lint(granite + eb + "--page-size 128"))


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


REPLAY = "--enable-linear-replayssm "


def test_rssm003_default_prefix_cache_is_extra_buffer():
    # auto picks extra_buffer with the overlap schedule on: ReplaySSM decode refuses it (attention_hook.py L417)
    r = lint(QWEN + REPLAY, gpu="h200")
    (f,) = [f for f in r.findings if f.code == "RSSM003"]
    assert "--mamba-radix-cache-strategy no_buffer (the default)" in f.message and "'extra_buffer'" in f.message
    assert "RSSM003" not in codes(lint(QWEN + REPLAY + "--disable-overlap-schedule", gpu="h200"))  # auto: no_buffer
    assert "RSSM003" not in codes(lint(QWEN + REPLAY + "--mamba-radix-cache-strategy no_buffer --disable-overlap-schedule", gpu="h200"))
    assert "RSSM003" not in codes(lint(QWEN + REPLAY + "--disable-radix-cache", gpu="h200"))  # mamba_extra_buffer_of: radix on only
    assert "RSSM003" in codes(lint(QWEN + REPLAY + "--mamba-radix-cache-strategy extra_buffer --disable-overlap-schedule", gpu="h200"))
    assert "RSSM003" not in codes(lint(QWEN + "--disable-overlap-schedule", gpu="h200"))


def test_rssm003_decode_backend_pd_and_cache_len_in_every_version():
    line = QWEN + REPLAY + "--disable-radix-cache --linear-attn-backend cutedsl --disaggregation-mode prefill --linear-replayssm-cache-len 0"
    for version in ("0.5.19", "0.5.23"):
        msgs = [f.message for f in lint(line, version=version, gpu="h200").findings if f.code == "RSSM003"]
        assert any("got --linear-attn-decode-backend='cutedsl'" in m for m in msgs), msgs
        assert any("under PD disaggregation" in m and "'prefill'" in m for m in msgs), msgs
        assert any(m == "--linear-replayssm-cache-len must be >= 1, got 0." for m in msgs), msgs
    ok = QWEN + REPLAY + "--disable-radix-cache --linear-attn-backend helion"
    assert "RSSM003" not in codes(lint(ok, gpu="h200"))


def test_radix001_model_override_extra_buffer_on_a_non_triton_backend():
    # Nemotron-H's override declares extra_buffer on SM100 (auto is still auto when it runs: the strategy
    # is resolved before the overrides only for LinearAttnModelSpec models); cutedsl does not support it
    nemo = ("python -m sglang.launch_server --model-path nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16 --tp-size 2 "
            "--speculative-algorithm EAGLE --speculative-draft-model-path D --speculative-num-steps 3 "
            "--speculative-eagle-topk 1 --speculative-num-draft-tokens 4 ")
    r = lint(nemo + "--linear-attn-backend cutedsl", gpu="b200")
    assert r.resolved[0]["mamba_radix_cache_strategy"].origin == "model"
    f = [f for f in r.findings if f.code == "RADIX001"]
    assert f and f[0].message.startswith("extra_buffer is not supported for NemotronHForCausalLM; use no_buffer.")
    assert "RADIX002" not in codes(r)
    ok = lint(nemo + "--disable-overlap-schedule", gpu="b200")  # triton: the override's extra_buffer at page 64 is fine
    assert ok.resolved[0].v("mamba_radix_cache_strategy") == "extra_buffer"
    assert "RADIX001" not in codes(ok) and "RADIX002" not in codes(ok)
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


def test_radix004_lmcache_refusals_in_sglang_order():
    def first(line: str, version: str = "0.5.23") -> str:
        (f,) = [f for f in lint(line, version=version).findings if f.code == "RADIX004"]
        return f.message

    lm = LLAMA + "--enable-lmcache "
    assert first(lm + "--disable-radix-cache") == "--enable-lmcache requires radix cache to be enabled"
    assert first(lm + "--dp-size 2 --enable-dp-attention --tp-size 2").startswith("LMCacheUnifiedRadixCache does not yet support DP attention")
    assert "streaming sessions" in first(lm + "--enable-streaming-session")
    assert "buffer_only is a HiCache-only mode" in first(lm + "--hicache-host-memory-mode buffer_only")
    assert "colocated" in first(lm + "--disaggregation-mode prefill")
    # a decode server's radix cache is off (handle_pd_disaggregation, before the cache check)
    assert first(lm + "--disaggregation-mode decode").startswith("--enable-lmcache requires radix")
    spec = first(QWEN + NEXTN + "--enable-lmcache")
    assert spec.startswith("LMCacheUnifiedRadixCache does not yet support speculative decoding")
    # the radix check comes before the speculative one, as in SGLang
    assert first(QWEN + NEXTN + "--enable-lmcache --disable-radix-cache").startswith("--enable-lmcache requires radix")
    for v in ("0.5.19", "0.5.20"):  # no LMCache checks before 0.5.21
        assert "RADIX004" not in codes(lint(QWEN + NEXTN + "--enable-lmcache", version=v))
    assert "RADIX004" not in codes(lint(lm))


def test_radix004_hicache_without_the_radix_cache_in_every_version():
    line = LLAMA + "--enable-hierarchical-cache --disable-radix-cache"
    for v in ("0.5.19", "0.5.23"):
        msgs = [f.message for f in lint(line, version=v).findings if f.code == "RADIX004"]
        assert msgs and msgs[0].startswith("The arguments enable-hierarchical-cache and disable-radix-cache are mutually exclusive")
    assert "RADIX004" not in codes(lint(LLAMA + "--enable-hierarchical-cache"))


def test_radix005_buffer_only_needs_a_storage_backend():
    qwen35 = "python -m sglang.launch_server --model-path Qwen/Qwen3.5-27B "
    mode = "--hicache-host-memory-mode buffer_only "
    (f,) = [f for f in lint(qwen35 + "--enable-hierarchical-cache " + mode).findings if f.code == "RADIX005"]
    assert f.message.startswith("--hicache-host-memory-mode buffer_only requires a storage backend")
    assert "RADIX005" not in codes(lint(qwen35 + "--enable-hierarchical-cache " + mode + "--hicache-storage-backend file"))
    assert "RADIX005" not in codes(lint(qwen35 + mode))  # no host pool: handle_hicache returns before the check
    # a PD decode server sets up its retraction host pool by default
    assert "RADIX005" in codes(lint(qwen35 + mode + "--disaggregation-mode decode"))
    assert "RADIX005" in codes(lint(qwen35 + "--enable-hierarchical-cache " + mode, version="0.5.19"))


def test_rssm002_for_every_model():
    # handle_linear_attn_backend reads the flags, not the architecture: a dense or lightning model is refused alike
    spec = ("--speculative-algorithm EAGLE --speculative-draft-model-path D --speculative-num-steps 3 "
            "--speculative-eagle-topk 3 --speculative-num-draft-tokens 8 --enable-linear-replayssm-spec")
    for model in ("meta-llama/Meta-Llama-3-8B-Instruct", "openbmb/MiniCPM-SALA"):
        msgs = [f.message for f in lint(f"python -m sglang.launch_server --model-path {model} {spec}").findings if f.code == "RSSM002"]
        assert msgs and msgs[0].startswith("--enable-linear-replayssm-spec requires a linear draft chain"), (model, msgs)
def test_radix004_decode_host_pool_and_offload_in_sglang_order():
    def first(line: str, version: str = "0.5.23") -> str:
        (f,) = [f for f in lint(line, version=version).findings if f.code == "RADIX004"]
        return f.message

    backup, dec = "--disaggregation-decode-retraction-backup host_pool ", "--disaggregation-mode decode "
    for v in ("0.5.19", "0.5.23"):
        assert first(LLAMA + backup, v).startswith("--disaggregation-decode-retraction-backup=host_pool is only supported on a PD decode")
    assert "does not support --dcp-size > 1" in first(LLAMA + dec + backup + "--dcp-size 2 --enable-priority-scheduling")
    assert "--disable-priority-preemption" in first(LLAMA + dec + backup + "--enable-priority-scheduling")
    assert "RADIX004" not in codes(lint(LLAMA + dec + backup + "--enable-priority-scheduling --disable-priority-preemption"))
    # the host-pool checks come before HiCache without the radix cache, as in SGLang
    assert "host_pool is only supported" in first(LLAMA + backup + "--enable-hierarchical-cache --disable-radix-cache")
    off = "--disaggregation-decode-enable-offload-kvcache "
    assert first(LLAMA + off + "--hicache-storage-backend file").endswith("only supported for decode side.")
    assert "hicache-storage-backend is provided" in first(LLAMA + dec + off)
    assert "mutually exclusive: both build a decode host pool" in first(LLAMA + dec + off + backup + "--hicache-storage-backend file")
    assert "RADIX004" not in codes(lint(LLAMA + dec + off + "--hicache-storage-backend file"))
    # offload comes before LMCache's checks
    assert "decode side" in first(LLAMA + off + "--enable-lmcache --enable-hierarchical-cache")


def test_radix004_swa_ratio_and_prefix_tails():
    def msgs(line: str, version: str = "0.5.23") -> list[str]:
        return [f.message for f in lint(line, version=version).findings if f.code == "RADIX004"]

    for v in ("0.5.19", "0.5.23"):
        assert msgs(LLAMA + "--swa-full-tokens-ratio 1.5", v)[0].startswith("--swa-full-tokens-ratio should be in range (0, 1.0].")
        assert msgs(LLAMA + "--swa-full-tokens-ratio 0", v)
    assert not msgs(LLAMA + "--swa-full-tokens-ratio 1.0")
    assert msgs(LLAMA + "--swa-prefix-tails -1")[0].startswith("--swa-prefix-tails should be a non-negative integer.")
    assert not msgs(LLAMA + "--swa-prefix-tails 0")
    # the ratio before the tails, and both before LMCache
    assert "swa-full-tokens-ratio" in msgs(LLAMA + "--swa-full-tokens-ratio 2 --swa-prefix-tails -1 --enable-lmcache --disable-radix-cache")[0]


def test_radix006_int8_mamba_checkpoint_in_sglang_order():
    q35 = "python -m sglang.launch_server --model-path Qwen/Qwen3.5-27B --enable-int8-mamba-checkpoint "

    def msgs(line: str, version: str = "0.5.23") -> list[str]:
        return [f.message for f in lint(line, version=version).findings if f.code == "RADIX006"]

    assert not msgs(q35)
    (m,) = msgs(q35 + "--enable-hierarchical-cache --radix-cache-backend flexkv --enable-lmcache")
    assert m.startswith("--enable-int8-mamba-checkpoint is not supported together with --enable-hierarchical-cache")
    (m,) = msgs(q35 + "--radix-cache-backend flexkv --enable-lmcache")
    assert m.startswith("--enable-int8-mamba-checkpoint only supports the built-in mamba radix cache; --radix-cache-backend='flexkv'")
    (m,) = msgs(q35 + "--enable-lmcache", "0.5.21")
    assert "LMCache is not int8-aware" in m
    assert not msgs(q35 + "--enable-lmcache", "0.5.20")  # no LMCache check before 0.5.21
    assert msgs(q35 + "--enable-hierarchical-cache", "0.5.19")
    assert not msgs("python -m sglang.launch_server --model-path Qwen/Qwen3.5-27B --enable-hierarchical-cache")


def test_radix007_hicache_resolution_in_sglang_order():
    q35 = "python -m sglang.launch_server --model-path Qwen/Qwen3.5-27B "
    kimi = KIMI + "--enable-hierarchical-cache --dcp-size 2 "

    def msgs(line: str, version: str = "0.5.23") -> list[str]:
        return [f.message for f in lint(line, version=version).findings if f.code == "RADIX007"]

    # the fraction: every launch, from 0.5.21 (no such flag before), and before everything else
    (m,) = msgs(q35 + "--hicache-host-memory-fraction 0 --disaggregation-mode decode --hicache-host-memory-mode buffer_only "
                "--hicache-storage-backend file")
    assert m.startswith("--hicache-host-memory-fraction must be in (0, 1].")
    assert not msgs(q35 + "--hicache-host-memory-fraction 1")
    buf = "--hicache-host-memory-mode buffer_only --hicache-storage-backend file "
    assert msgs(q35 + "--disaggregation-mode decode " + buf)[0].startswith("--hicache-host-memory-mode buffer_only is not supported on decode instances")
    assert not msgs(q35 + "--disaggregation-mode prefill --enable-hierarchical-cache " + buf)
    assert not msgs(q35 + buf)  # no host pool: handle_hicache returns first
    # buffer_only without storage is RADIX005's, the same function's first refusal
    assert not msgs(q35 + "--disaggregation-mode decode --hicache-host-memory-mode buffer_only")
    wb = q35 + "--enable-hierarchical-cache --hicache-write-policy write_back " + buf
    assert msgs(wb, "0.5.21")[0].startswith("--hicache-host-memory-mode buffer_only does not support --hicache-write-policy write_back")
    assert not msgs(wb, "0.5.22")  # resolved to write_through
    # DCP: L3 storage (any before 0.5.23, buffer_only in 0.5.23), then the draft, LMCache, HiSparse, MLA
    assert msgs(kimi + "--hicache-storage-backend file", "0.5.22")[0].startswith("--hicache-storage-backend (L3) with --dcp-size > 1")
    assert not msgs(kimi + "--hicache-storage-backend file")
    assert msgs(kimi + buf)[0] == "HiCache L3 with DCP does not support buffer_only host memory."
    assert msgs(kimi + NEXTN)[0].startswith("HiCache with --dcp-size > 1 only supports DSPARK")
    assert msgs(kimi + "--enable-lmcache --enable-hisparse")[0].startswith("--enable-lmcache with --dcp-size > 1")
    assert msgs(kimi + "--enable-hisparse")[0].startswith("--enable-hisparse with --dcp-size > 1")
    assert not msgs(kimi)
    assert msgs(q35 + "--tp-size 2 --enable-hierarchical-cache --dcp-size 2")[0].startswith("HiCache with --dcp-size > 1 is only supported for MLA")
    assert not msgs(q35 + "--tp-size 2 --dcp-size 2")


def test_radix008_hicache_on_hybrid_and_deepseek_v4_warns_with_the_open_issues():
    q35 = "python -m sglang.launch_server --model-path Qwen/Qwen3.5-27B "

    def found(line: str, version: str = "0.5.23") -> list[str]:
        return [f.message for f in lint(line, version=version).findings if f.code == "RADIX008"]

    (m,) = found(q35 + "--enable-hierarchical-cache")
    assert "issues/39830" in m and "hybrid" in m
    assert found(KIMI + "--enable-hierarchical-cache", "0.5.20")
    assert not found(q35 + "--enable-hierarchical-cache", "0.5.19")  # reported from 0.5.20's line
    assert not found(q35) and not found(LLAMA + "--enable-hierarchical-cache")
    (m,) = found("python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V4-Flash --tp-size 8 --enable-hierarchical-cache")
    assert "issues/33656" in m
    r = lint(q35 + "--enable-hierarchical-cache")
    assert [f.severity for f in r.findings if f.code == "RADIX008"] == [Severity.WARNING]


def test_radix009_lazy_extra_buffer_needs_the_overlap_schedule():
    lazy = QWEN + "--mamba-radix-cache-strategy extra_buffer_lazy "

    def msgs(line: str, version: str = "0.5.23") -> list[str]:
        return [f.message for f in lint(line, version=version).findings if f.code == "RADIX009"]

    for v in ("0.5.19", "0.5.23"):
        assert msgs(lazy + "--disable-overlap-schedule", v) == [
            "Lazy extra buffer requires overlap schedule (--disable-overlap-schedule is incompatible)"]
    assert not msgs(lazy)
    assert not msgs(lazy + "--disable-overlap-schedule --disable-radix-cache")
    assert not msgs(QWEN + "--mamba-radix-cache-strategy extra_buffer --disable-overlap-schedule")
    # resolution refuses first (validate_mamba_extra_buffer): PD, so the pools are never sized
    assert not msgs(lazy + "--disable-overlap-schedule --disaggregation-mode prefill")


def test_rssm004_replayssm_spec_under_dspark_or_dflash_needs_kda():
    dflash = "--speculative-algorithm DFLASH --speculative-draft-model-path z-lab/Qwen3-Next-DFlash "

    def msgs(line: str, version: str = "0.5.23") -> list[str]:
        return [f.message for f in lint(line, version=version).findings if f.code == "RSSM004"]

    (m,) = msgs(QWEN + dflash + "--enable-linear-replayssm-spec")
    assert m.startswith("--enable-linear-replayssm-spec with DSPARK/DFLASH requires a KDA model; got a non-KDA model.")
    (m,) = msgs(QWEN + dflash + "--enable-linear-replayssm-spec", "0.5.19")
    assert m.startswith("--enable-linear-replayssm-spec with DSPARK/DFLASH requires a KDA (kimi_linear) model")
    assert not msgs(QWEN + dflash)
    assert not msgs(QWEN + NEXTN + "--enable-linear-replayssm-spec")  # EAGLE-style drafts verify through the ring
    assert not msgs(KIMI + dflash + "--enable-linear-replayssm-spec")


def test_decode_host_receive_declares_the_host_pool_and_keeps_it_layer_first():
    recv = "--disaggregation-decode-host-receive-threshold 0.5 "

    def msgs(code: str, line: str, version: str = "0.5.23") -> list[str]:
        return [f.message for f in lint(line, version=version).findings if f.code == code]

    # a threshold below 1 (0.5.22 on; above 0 in 0.5.21) declares the host-pool retraction backup
    for v in ("0.5.21", "0.5.23"):
        assert msgs("RADIX004", LLAMA + recv, v)[0].startswith("--disaggregation-decode-retraction-backup=host_pool is only supported")
    assert not msgs("RADIX004", LLAMA + "--disaggregation-decode-host-receive-threshold 1")
    assert msgs("RADIX004", LLAMA + "--disaggregation-decode-host-receive-threshold 1", "0.5.21")  # 0.5.21: above 0
    assert "--disable-priority-preemption" in msgs("RADIX004", LLAMA + "--disaggregation-mode decode " + recv + "--enable-priority-scheduling")[0]
    # ... and a layer_first host pool, which the Mooncake storage would rewrite
    dec = LLAMA + "--disaggregation-mode decode --hicache-storage-backend mooncake "
    assert msgs("RADIX007", dec + recv) == [
        "The resolved HiCache storage layout 'page_first' cannot share the layer_first decode host pool used by KV transfer"
        " (--hicache-storage-backend mooncake)"]
    assert "'page_first_direct'" in msgs("RADIX007", dec + recv + "--hicache-io-backend direct")[0]
    assert not msgs("RADIX007", dec)
    assert not msgs("RADIX007", LLAMA + "--disaggregation-mode decode --hicache-storage-backend file " + recv)
    assert not msgs("RADIX007", dec + recv, "0.5.20")
