"""HSP001–HSP008: HiSparse with speculative decoding on DSA models."""

from __future__ import annotations

from kdacheck.findings import Severity
from kdacheck.results import FileResult
from tests.helpers import codes, finding
from tests.helpers import lint_ok as lint

DSV32 = "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 --tp-size 8 --trust-remote-code "
HISPARSE = "--enable-hisparse --disable-radix-cache "


def eagle(s: int, k: int, d: int) -> str:
    return f"--speculative-algorithm EAGLE --speculative-num-steps {s} --speculative-eagle-topk {k} --speculative-num-draft-tokens {d} "








def hsp_errors(result: FileResult) -> list[str]:
    return [c for c in codes(result, Severity.ERROR) if c.startswith("HSP")]


def test_eagle_4_1_5_breaks_hsp001_and_hsp002() -> None:
    r = lint(DSV32 + HISPARSE + eagle(4, 1, 5))
    f1 = finding(r, "HSP001")
    assert f1.severity == Severity.ERROR
    assert f1.message.startswith("HiSparse speculative swap requires 2-4 steps, got 5.")
    assert "HiSparse spec swap requires 2-4 draft tokens and top_k >= 1024." in f1.message
    assert f1.fix is not None and "--speculative-num-draft-tokens 4" in f1.fix
    f2 = finding(r, "HSP002")
    assert f2.severity == Severity.ERROR and "5 × top_k 2048 = 10240" in f2.message
    assert sorted(hsp_errors(r)) == ["HSP001", "HSP002"]


def test_hsp001_hsp002_warn_before_022() -> None:
    r = lint(DSV32 + HISPARSE + eagle(4, 1, 5), version="0.5.21")
    assert finding(r, "HSP001").severity == Severity.WARNING
    assert finding(r, "HSP002").severity == Severity.WARNING
    assert "does not call the speculative swap kernel" in finding(r, "HSP001").message


def test_hsp002_small_top_k() -> None:
    r = lint("python -m sglang.launch_server --model-path my-org/unknown-dsa " + HISPARSE + eagle(1, 1, 2)
             + """--hisparse-config '{"top_k": 512}'""")
    assert "HiSparse speculative swap requires top_k >= 1024." in finding(r, "HSP002").message


def test_eagle_3_2_6_hsp007_from_022_only() -> None:
    r = lint(DSV32 + HISPARSE + eagle(3, 2, 6), version="0.5.23")
    f = finding(r, "HSP007")
    assert f.message.startswith("The minimal HiSparse spec integration supports linear speculation only; use --speculative-eagle-topk 1.")
    assert f.severity == Severity.ERROR
    assert "HSP007" not in codes(lint(DSV32 + HISPARSE + eagle(3, 2, 6), version="0.5.21"))


def test_hsp007_adaptive_and_near_miss() -> None:
    r = lint(DSV32 + HISPARSE + "--speculative-algorithm EAGLE --speculative-adaptive")
    assert any(f.code == "HSP007" and "--speculative-adaptive is not supported" in f.message for f in r.findings)
    assert "HSP007" not in codes(lint(DSV32 + HISPARSE + eagle(3, 1, 4)))


def test_clean_3_1_4_reports_the_plan_and_no_error() -> None:
    r = lint(DSV32 + HISPARSE + eagle(3, 1, 4))
    assert hsp_errors(r) == []
    assert codes(r, Severity.ERROR) == []
    f = finding(r, "HSP003")
    assert f.severity == Severity.INFO
    assert "capacity 8192 per request (top_k 2048 × D 4)" in f.message
    assert r.resolved[0].v("plan_capacity") == 8192


def test_hsp003_plan_given_too_small_is_the_seed_error() -> None:
    from kdacheck import args as argmod
    from kdacheck import rules as rulemod
    from kdacheck.model_source import load_model
    from kdacheck.readers import read_text
    from kdacheck.resolve import resolve

    cmd = read_text(DSV32 + HISPARSE + eagle(3, 1, 4), "<cmd>", None)[0]
    parsed = argmod.parse(cmd, "0.5.23")
    model, note = load_model(None, "deepseek-ai/DeepSeek-V3.2")
    cfg = resolve(parsed, cmd, model, note, None)
    cfg.options.plan_capacity = 2048
    f = next(x for x in rulemod.check(cfg) if x.code == "HSP003")
    assert f.severity == Severity.ERROR
    assert f.message.startswith("speculative miss_src/miss_dst must have shape [batch, >= steps * top_k] (capacity 2048).")
    cfg.options.plan_capacity = 8192
    assert [x.severity for x in rulemod.check(cfg) if x.code == "HSP003"] == [Severity.INFO]


def test_hsp003_single_step_plan_before_022() -> None:
    f = finding(lint(DSV32 + HISPARSE + eagle(3, 1, 4), version="0.5.21"), "HSP003")
    assert f.severity == Severity.INFO and "(capacity 2048)" in f.message


def test_hsp004_buffer_and_block() -> None:
    r = lint(DSV32 + HISPARSE + """--hisparse-config '{"device_buffer_size": 1024, "swap_in_block_size": 2000}'""")
    msgs = [f.message for f in r.findings if f.code == "HSP004"]
    assert "device_buffer_size (1024) must be no smaller than top_k (2048)" in msgs
    assert "swap_in_block_size (2000) must be in the range [1, 1024]" in msgs
    # config top_k lowered: parse passes, the decode kernel's assert against index_topk does not
    r = lint(DSV32 + HISPARSE + """--hisparse-config '{"top_k": 512}'""")
    assert "hot_buffer_size (1024) must be >= num_top_k (2048)" in finding(r, "HSP004").message
    assert "HSP004" not in codes(lint(DSV32 + HISPARSE + """--hisparse-config '{"device_buffer_size": 2048}'"""))


def test_hsp005_request_slots_and_page() -> None:
    r = lint(DSV32 + HISPARSE + eagle(3, 1, 4) + "--max-running-requests 4096")
    f = finding(r, "HSP005")
    assert f.message.startswith("HiSparse spec request capacity must not exceed device_buffer_size.")
    assert f.fix is not None and "--max-running-requests 4095" in f.fix
    assert "HSP005" not in codes(lint(DSV32 + HISPARSE + eagle(3, 1, 4) + "--max-running-requests 4095"))
    assert "HSP005" not in codes(lint(DSV32 + HISPARSE + eagle(3, 1, 4) + "--max-running-requests 4096", version="0.5.21"))
    # SGLang 0.5.23 sets a DSA model's page size to 64 · index_kpool whatever --page-size says
    # (model_overrides/deepseek_v2.py L162), so a small --page-size cannot starve the extra page
    r = lint(DSV32 + HISPARSE + eagle(3, 1, 4) + "--page-size 4")
    assert not any("extra page has only" in f.message for f in r.findings)
    assert r.resolved[0].v("page_size") == 64


def test_hsp006_launch_validation() -> None:
    r = lint(DSV32 + "--enable-hisparse " + eagle(3, 1, 4))
    assert "Hierarchical sparse attention currently requires --disable-radix-cache." in finding(r, "HSP006").message
    r = lint("python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct " + HISPARSE)
    assert finding(r, "HSP006").message.startswith("--enable-hisparse is only supported for DSA")
    r = lint(DSV32 + HISPARSE + "--kv-cache-dtype fp8_e5m2")
    assert "HiSparse requires one of ('bfloat16', 'fp8_e4m3') KV cache dtypes" in finding(r, "HSP006").message
    # auto on an H200 (SM90) is bfloat16: only flashmla_sparse matches
    r = lint(DSV32 + HISPARSE + "--dsa-decode-backend flashmla_kv", gpu="h200")
    assert "but got --dsa-decode-backend=flashmla_kv" in finding(r, "HSP006").message
    assert "HSP006" not in codes(lint(DSV32 + HISPARSE + "--dsa-decode-backend flashmla_kv", gpu="b200"))
    assert "HSP006" not in codes(lint(DSV32 + HISPARSE + "--kv-cache-dtype fp8_e4m3 --dsa-decode-backend flashinfer_sparse_mla"))
    r = lint(DSV32 + HISPARSE + "--enable-mixed-chunk")
    assert "--enable-hisparse does not support --enable-mixed-chunk yet." in [f.message for f in r.findings]
    assert "HSP006" not in codes(lint(DSV32 + HISPARSE + "--enable-mixed-chunk", version="0.5.21"))
    assert finding(lint("python -m sglang.launch_server --model-path my-org/unknown " + HISPARSE), "HSP006").severity == Severity.INFO


DCP = "--dcp-size 8 "
EAGLE_TREE = "--speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 2 --speculative-num-draft-tokens 6 "


def test_hsp008_dsa_dcp_refuses_hisparse_before_hsp006():
    # HiSparse without --disable-radix-cache: SGLang stops at the DSA DCP override first, not at validate_hisparse
    r = lint(DSV32 + DCP + "--enable-hisparse")
    (f,) = [f for f in r.findings if f.code == "HSP008"]
    assert f.message.startswith("DSA DCP does not support HiSparse or HiCache.")
    assert "HSP006" not in codes(r)
    assert "HSP006" in codes(lint(DSV32 + "--enable-hisparse"))  # without DCP the prerequisites are reached


def test_hsp008_hicache_and_topk_named_together_so_the_fix_is_whole():
    r = lint(DSV32 + DCP + "--enable-hierarchical-cache " + EAGLE_TREE + "--page-size 64")
    (f,) = [f for f in r.findings if f.code == "HSP008"]
    assert "DSA DCP requires --speculative-eagle-topk 1." in f.message
    assert "remove `--enable-hierarchical-cache`" in (f.fix or "") and "--speculative-eagle-topk 1" in (f.fix or "")
    assert "SPEC004" not in codes(r)
    fixed = lint(DSV32 + DCP + "--speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4 --page-size 64")
    assert not codes(fixed, Severity.ERROR)


def test_hsp008_pd_and_versions():
    r = lint(DSV32 + DCP + "--disaggregation-mode decode")
    assert any(f.message.startswith("DSA DCP does not support PD disaggregation.") for f in r.findings if f.code == "HSP008")
    assert "HSP008" not in codes(lint(DSV32 + DCP + "--enable-hierarchical-cache", version="0.5.21"))
    assert "HSP008" in codes(lint(DSV32 + DCP + "--enable-hierarchical-cache", version="0.5.22"))
    assert "HSP008" not in codes(lint(DSV32 + "--dcp-size 1 --enable-hierarchical-cache"))
    # not a DSA model: the override does not run
    llama = "python -m sglang.launch_server --model-path meta-llama/Meta-Llama-3-8B-Instruct --tp-size 8 "
    assert "HSP008" not in codes(lint(llama + DCP + "--enable-hierarchical-cache"))


def test_hsp006_deepseek_v4_on_rocm_stops_before_the_dsa_backend_checks():
    # validate_hisparse returns for DeepSeek-V4 on ROCm before the dtype/backend checks (0.5.23 hisparse_hook.py L131-148)
    v4 = ("python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V4-Flash --tp-size 8 --enable-hisparse "
          "--disable-radix-cache --dsa-prefill-backend flashmla_sparse")
    assert "HSP006" not in codes(lint(v4, gpu="mi355x"))
    f = finding(lint(v4, gpu="h200"), "HSP006")
    assert f.message.startswith("HiSparse supports DSA prefill backend(s) ['flashinfer_sparse_mla', 'flashmla_kv'] on this platform "
                                "with --kv-cache-dtype=fp8_e4m3, but got --dsa-prefill-backend=flashmla_sparse.")
