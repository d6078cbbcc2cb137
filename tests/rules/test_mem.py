"""MEM002–MEM005: the hybrid-state memory solve (MEM001 too, for the worked figure)."""

from __future__ import annotations

from kdacheck.findings import Severity
from tests.helpers import codes, finding
from tests.helpers import lint_ok as lint

KIMI = "python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --trust-remote-code "
EAGLE = "--speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4 "








def test_worked_figure_and_clean_solve_on_h200() -> None:
    r = lint(KIMI + "--tp-size 4 " + EAGLE, gpu="h200")
    cfg = r.resolved[0]
    assert cfg.v("intermediate_ssm_bytes") == 2_055_208_960
    assert cfg.v("R") == 48 and cfg.v("R_after_solve") == 48
    assert cfg.v("mamba_ratio") == 5  # extra_buffer with the overlap schedule: 3 + 2
    assert cfg.v("mem_fraction_static") == 0.9
    assert cfg.v("weight_bytes_per_rank") == 24_000_000_000
    for code in ("MEM002", "MEM003", "MEM004", "MEM005"):
        assert code not in codes(r)
    assert "2,055,208,960" in finding(r, "MEM001").message


def test_mem002_weights_do_not_fit_on_l40s_tp1() -> None:
    r = lint(KIMI + "--tp-size 1 " + EAGLE, gpu="l40s")
    f = finding(r, "MEM002")
    assert f.severity == Severity.ERROR
    assert f.message.startswith("Not enough GPU memory for hybrid (mamba/linear-attention) state cache. Computed max_mamba_cache_size=")
    assert "assumes" in f.message  # the message says what it rests on
    assert f.fix is not None and "--tp-size 4" in f.fix


def test_mem002_reservation_eats_the_rest_with_disable_radix_cache() -> None:
    r = lint(KIMI + "--tp-size 4 --disable-radix-cache --max-running-requests 4096 " + EAGLE, gpu="l40s")
    f = finding(r, "MEM002")
    assert "Loaded weights leave no GPU memory for the KV cache" in f.message
    assert f.fix is not None and "--max-running-requests" in f.fix
    # the fix it names really solves
    n = int(f.fix.split("--max-running-requests ")[1].split()[0])
    ok = lint(KIMI + f"--tp-size 4 --disable-radix-cache --max-running-requests {n} " + EAGLE, gpu="l40s")
    assert "MEM002" not in codes(ok)


def test_mem002_near_miss_tp4_on_l40s_and_unchecked_without_gpu() -> None:
    assert "MEM002" not in codes(lint(KIMI + "--tp-size 4 " + EAGLE, gpu="l40s"))
    r = lint(KIMI + "--tp-size 4 " + EAGLE)
    f = finding(r, "MEM002")
    assert f.severity == Severity.INFO and "needs --gpu" in f.message


def test_mem003_cap_and_kda002_recheck() -> None:
    r = lint(KIMI + "--tp-size 4 --max-running-requests 512 " + EAGLE, gpu="l40s")
    f = finding(r, "MEM003")
    assert f.severity == Severity.INFO  # an estimate: a note (docs/ci.md, severity policy)
    cfg = r.resolved[0]
    capped = cfg.v("R_after_solve")
    assert capped < 512
    assert f"from 512 to {capped}" in f.message
    assert f"Row map with the capped R {capped}: length P = {capped}" in f.message
    assert "KDA002 does not apply here" in f.message  # Kimi's default verify is nv_cutedsl
    assert f.fix is not None and f"--max-running-requests {capped}" in f.fix


def test_mem003_recheck_with_flashinfer_verify_and_dp_attention() -> None:
    r = lint(KIMI + "--tp-size 4 --dp-size 2 --enable-dp-attention --max-running-requests 2048 "
             "--linear-attn-verify-backend flashinfer " + EAGLE, gpu="l40s")
    f = finding(r, "MEM003")
    assert "KDA002 applies" in f.message


def test_mem003_near_miss() -> None:
    # the requested 48 fits; --disable-radix-cache never caps
    assert "MEM003" not in codes(lint(KIMI + "--tp-size 4 " + EAGLE, gpu="l40s"))
    assert "MEM003" not in codes(lint(KIMI + "--tp-size 4 --disable-radix-cache --max-running-requests 256 " + EAGLE, gpu="l40s"))


def test_mem004_adaptive_undercount() -> None:
    r = lint(KIMI + "--tp-size 4 --speculative-algorithm EAGLE --speculative-adaptive", gpu="h200")
    f = finding(r, "MEM004")
    cfg = r.resolved[0]
    assert cfg.v("draft_tokens") == 4 and cfg.v("d_max") == 8
    per_req = cfg.v("per_request_state_bytes")
    assert f"{per_req * 49 * 4:,} bytes" in f.message
    assert "MEM004" not in codes(lint(KIMI + "--tp-size 4 " + EAGLE, gpu="h200"))


def test_mem005_threshold_default_and_configured() -> None:
    cmd = KIMI + "--tp-size 4 --disable-radix-cache --max-running-requests 512 " + EAGLE
    f = finding(lint(cmd, gpu="h200"), "MEM005")  # 14.8% of an H200
    assert "above the 10% threshold" in f.message
    assert f.fix is not None and "--max-running-requests 346" in f.fix
    assert "MEM005" not in codes(lint(cmd, gpu="h200", share=0.20))
    f = finding(lint(KIMI + "--tp-size 4 " + EAGLE, gpu="h200", share=0.01), "MEM005")  # 1.4% > 1%
    assert "above the 1% threshold" in f.message
    assert "MEM005" not in codes(lint(KIMI + "--tp-size 4 " + EAGLE, gpu="h200"))


def test_mem_rules_quiet_for_non_hybrid_models() -> None:
    r = lint("python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 --tp-size 8 " + EAGLE, gpu="h200")
    assert not [c for c in codes(r) if c.startswith("MEM")]


def test_replayssm_spec_budget_is_sglangs() -> None:
    """Under --enable-linear-replayssm-spec SGLang reserves no intermediates for GDN and KDA and counts the
    rings instead (0.5.23 kv_cache_configurator.py L3262-3298; auto-fit L3374-3382:
    K = int((budget − fixed − per_slot) // per_slot), per_slot = per_req + (KDA: ring), fixed = (GDN:
    ring · (max(1, MRR // dp) + 1)); the pool holds (K + 1) · per_slot + fixed, L3398-3402)."""
    spec = ("--speculative-algorithm NEXTN --speculative-num-steps 3 --speculative-eagle-topk 1 "
            "--speculative-num-draft-tokens 4 --enable-linear-replayssm-spec")
    for model, kda in (("Qwen/Qwen3-Next-80B-A3B-Instruct", False), ("moonshotai/Kimi-Linear-48B-A3B-Instruct", True)):
        algo = spec if not kda else spec.replace("NEXTN", "DSPARK --speculative-draft-model-path DRAFT").replace(
            "--speculative-num-steps 3 --speculative-eagle-topk 1 ", "--speculative-dspark-block-size 3 ")
        r = lint(f"python -m sglang.launch_server --model-path {model} --tp-size 4 {algo}", gpu="h200").resolved[0]
        res, per_req, ring = r.v("mem_solve"), int(r.v("per_request_state_bytes")), int(r.v("replayssm_ring_bytes_per_req"))
        assert ring > 0 and res.reserve_bytes == 0 and not res.failure
        budget = res.rest_gib * 0.9 / 1.9 * 2**30
        extra, fixed = (ring, 0) if kda else (0, ring * (max(1, 48 // 1) + 1))
        assert res.max_mamba_cache_size == int((budget - fixed - (per_req + extra)) // (per_req + extra)), model
        pool = ((res.max_mamba_cache_size + 1) * (per_req + extra) + fixed) / 2**30
        assert abs(res.rest_after_gib - (res.rest_gib - pool)) < 1e-9
    # without the flag the intermediates are reserved again
    plain = lint(f"python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4 {spec.rsplit(' ', 1)[0]}",
                 gpu="h200").resolved[0]
    assert plain.v("mem_solve").reserve_bytes > 0


def test_replayssm_spec_gdn_ring_before_0_5_20_is_per_slot_and_d_max_long() -> None:
    # 0.5.19 kv_cache_configurator.py L2242-2263, L2344: GDN's fold window is D_max long and rides on every
    # state slot (0.5.20 made it a fixed request scratch of --linear-replayssm-cache-len steps)
    from tests.helpers import lint as lint_any

    line = ("python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4 --speculative-algorithm "
            "NEXTN --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4 --enable-linear-replayssm-spec")
    old, new = (lint_any(line, v, "h200").resolved[0] for v in ("0.5.19", "0.5.23"))
    assert old.v("replayssm_ring_bytes_per_req") * 16 == new.v("replayssm_ring_bytes_per_req") * 4  # the ring is linear in its length
    res, per_req = old.v("mem_solve"), int(old.v("per_request_state_bytes"))
    per_slot = per_req + old.v("replayssm_ring_bytes_per_req")
    assert res.max_mamba_cache_size == int((res.rest_gib * 0.9 / 1.9 * 2**30 - per_slot) // per_slot)


def test_mem006_mamba_cache_options_in_sglang_order():
    q35 = "python -m sglang.launch_server --model-path Qwen/Qwen3.5-27B "
    sr = "--enable-mamba-cache-stochastic-rounding --mamba-ssm-dtype float16 "

    def msgs(line: str, version: str = "0.5.23", gpu: str | None = None) -> list[str]:
        return [f.message for f in lint(line, version=version, gpu=gpu).findings if f.code == "MEM006"]

    for v in ("0.5.19", "0.5.23"):
        assert msgs(q35 + "--mamba-cache-philox-rounds -1 --mamba-max-states-per-path 0", v) == [
            "--mamba-cache-philox-rounds must be non-negative."]
    assert msgs(q35 + "--mamba-max-states-per-path -2") == [
        "--mamba-max-states-per-path must be -1 (unlimited) or a positive integer, got -2."]
    assert not msgs(q35 + "--mamba-max-states-per-path 8 --mamba-cache-philox-rounds 0")
    (m,) = msgs(q35 + "--enable-mamba-cache-stochastic-rounding --mamba-ssm-dtype bfloat16", gpu="mi300x")
    assert m.startswith("Stochastic rounding for the Mamba SSM cache requires --mamba-ssm-dtype float16, got 'bfloat16'")
    (m,) = msgs(q35 + sr + "--mamba-backend flashinfer", gpu="mi300x")
    assert m.startswith("Stochastic rounding for the Mamba SSM cache is only supported on NVIDIA CUDA platforms")
    (m,) = msgs(q35 + sr, gpu="h100")
    assert m.startswith("Stochastic rounding for the Mamba SSM cache with --mamba-backend triton requires SM100")
    assert not msgs(q35 + sr, gpu="b200")
    assert not msgs(q35 + sr + "--mamba-backend flashinfer", gpu="h100")
    (f,) = [f for f in lint(q35 + sr).findings if f.code == "MEM006"]  # no GPU: said, not guessed
    assert f.severity is Severity.INFO
