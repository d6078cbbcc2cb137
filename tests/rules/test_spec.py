"""SPEC rules: each code triggers on its case and not on the near miss."""

from __future__ import annotations

from kdacheck.results import FileResult
from tests.helpers import codes, lint_ok
from tests.helpers import lint_ok as lint

L = "python -m sglang.launch_server --model-path "
QWEN = L + "Qwen/Qwen3-Next-80B-A3B-Instruct --tp 4 "
LLAMA = L + "meta-llama/Llama-3.1-8B-Instruct --speculative-draft-model-path yuhuili/EAGLE-LLaMA3.1-Instruct-8B "






def find(result: FileResult, code: str):
    return [f for f in result.findings if f.code == code]


def test_spec003_tree_capacity():
    bad = lint(LLAMA + "--speculative-algorithm EAGLE --speculative-num-steps 1 --speculative-eagle-topk 2 --speculative-num-draft-tokens 8")
    (f,) = find(bad, "SPEC003")
    assert "offer only 2" in f.message and "--speculative-num-draft-tokens 3" in (f.fix or "")
    ok = lint(LLAMA + "--speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 2 --speculative-num-draft-tokens 8")
    assert "SPEC003" not in codes(ok)  # 7 ≤ 2 + 2·4 = 10


def test_spec004_page_tree_backend():
    base = LLAMA + "--speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 2 --speculative-num-draft-tokens 8 --page-size 16 "
    bad = lint(base + "--attention-backend flex_attention")
    assert find(bad, "SPEC004")[0].severity.name == "ERROR"
    assert "SPEC004" not in codes(lint(base + "--attention-backend fa3"))
    assert "SPEC004" not in codes(lint(LLAMA + "--speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 2 --speculative-num-draft-tokens 8 --attention-backend flex_attention"))


def test_spec005_trtllm_mha_topk():
    bad = lint(QWEN + "--speculative-algorithm NEXTN --speculative-num-steps 3 --speculative-eagle-topk 2 --speculative-num-draft-tokens 6 --decode-attention-backend trtllm_mha")
    assert "SPEC005" in codes(bad)
    ok = lint(QWEN + "--speculative-algorithm NEXTN --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4 --attention-backend trtllm_mha")
    assert "SPEC005" not in codes(ok)


def test_spec006_ngram():
    bad = lint(QWEN + "--speculative-algorithm NGRAM --page-size 64 --attention-backend fa3")
    assert "SPEC006" in codes(bad)
    assert "SPEC006" not in codes(lint(QWEN + "--speculative-algorithm NGRAM --page-size 64 --attention-backend flashinfer"))
    dp = lint(QWEN + "--dp-size 2 --enable-dp-attention --speculative-algorithm NGRAM")
    assert any("dp attention" in f.message for f in find(dp, "SPEC006"))


def test_spec007_adaptive():
    bad = lint(QWEN + "--speculative-algorithm NEXTN --speculative-adaptive --speculative-num-steps 4")
    (f,) = find(bad, "SPEC007")
    assert f.severity.name == "ERROR" and "[0, 1, 3, 5, 7]" in f.message
    # 0.5.19 candidates {0,1,3,7}: 5 is not among them, but is from 0.5.20 on
    assert "SPEC007" in codes(lint(QWEN + "--speculative-algorithm NEXTN --speculative-adaptive --speculative-num-steps 5", "0.5.19"))
    assert "SPEC007" not in codes(lint(QWEN + "--speculative-algorithm NEXTN --speculative-adaptive --speculative-num-steps 5", "0.5.20"))
    off = lint(QWEN + "--dp-size 2 --enable-dp-attention --speculative-algorithm NEXTN --speculative-adaptive")
    (w,) = find(off, "SPEC007")
    assert w.severity.name == "WARNING" and "attention DP" in w.message
    ok = lint(QWEN + "--speculative-algorithm NEXTN --speculative-adaptive")
    assert "SPEC007" not in codes(ok)
    cfg = ok.resolved[0]
    assert cfg.v("steps") == 3 and cfg.v("d_max") == 8 and cfg.v("verify_width_max") == 8


def test_spec008_plugin_only():
    assert "SPEC008" not in codes(lint(QWEN + "--speculative-algorithm NEXTN"))
    r = lint(QWEN + "--speculative-algorithm MY_PLUGIN --speculative-num-draft-tokens 16")
    assert find(r, "SPEC008")[0].severity.name == "INFO"


def test_spec009_dspark_dflash():
    kimi = L + "moonshotai/Kimi-Linear-48B-A3B-Instruct --tp 4 --speculative-draft-model-path DRAFT "
    bad = lint(kimi + "--speculative-algorithm DSPARK --speculative-dspark-block-size 7 --speculative-num-draft-tokens 4")
    assert "gamma + 1 (= 8 for gamma=7)" in find(bad, "SPEC009")[0].message
    assert "SPEC009" not in codes(lint(kimi + "--speculative-algorithm DSPARK --speculative-dspark-block-size 7 --speculative-num-draft-tokens 8"))
    df = lint(kimi + "--speculative-algorithm DFLASH --speculative-dflash-block-size 16 --speculative-num-draft-tokens 8")
    assert "SPEC009" in codes(df)
    assert "SPEC009" not in codes(lint(kimi + "--speculative-algorithm DFLASH --speculative-dflash-block-size 16"))


def test_spec010_positive_counts():
    bad = lint(QWEN + "--speculative-algorithm NEXTN --speculative-num-steps 0 --speculative-eagle-topk 1 --speculative-num-draft-tokens 1")
    assert "SPEC010" in codes(bad)
    assert "SPEC010" not in codes(lint(QWEN + "--speculative-algorithm NEXTN --speculative-num-steps 1 --speculative-eagle-topk 1 --speculative-num-draft-tokens 2"))


def test_spec012_steps_without_topk():
    bad = lint(QWEN + "--speculative-algorithm NEXTN --speculative-num-steps 3")
    (f,) = find(bad, "SPEC012")
    assert "TypeError: '>' not supported between instances of 'NoneType' and 'int'" in f.message
    assert "--speculative-eagle-topk 1" in (f.fix or "")
    assert "SPEC012" not in codes(lint(QWEN + "--speculative-algorithm NEXTN --speculative-num-steps 3 --speculative-eagle-topk 1"))
    assert "SPEC012" not in codes(lint(QWEN + "--speculative-algorithm NEXTN --speculative-adaptive --speculative-num-steps 3"))


def test_spec013_topk_without_draft_tokens():
    bad = lint(QWEN + "--speculative-algorithm NEXTN --speculative-num-steps 3 --speculative-eagle-topk 2")
    (f,) = find(bad, "SPEC013")
    assert "AssertionError" in f.message
    assert "SPEC013" not in codes(lint(QWEN + "--speculative-algorithm NEXTN --speculative-num-steps 3 --speculative-eagle-topk 2 --speculative-num-draft-tokens 6"))


def test_standalone_autochoose_is_314_even_for_llama():
    r = lint(LLAMA + "--speculative-algorithm STANDALONE")
    cfg = r.resolved[0]
    assert (cfg.v("steps"), cfg.v("topk"), cfg.v("draft_tokens")) == (3, 1, 4)


def test_ngram_keeps_given_steps():
    cfg = lint(QWEN + "--speculative-algorithm NGRAM --speculative-num-steps 2").resolved[0]
    assert cfg.v("steps") == 2 and cfg.v("topk") == 10 and cfg.v("draft_tokens") == 12


_EXAMPLES = [
    ("SPEC003", "tree-capacity", None), ("SPEC004", "page-tree-backend", None), ("SPEC005", "trtllm-mha-topk", None),
    ("SPEC006", "ngram-paged", None), ("SPEC007", "adaptive-steps", None), ("SPEC009", "dspark-window", None),
    ("SPEC010", "zero-steps", None), ("SPEC012", "steps-without-topk", None), ("SPEC013", "tree-without-draft-tokens", None),
    ("KDA002", "dp-attention-row-map", "b200"), ("KDA003", "ngram-flashinfer-verify", "b200"), ("KDA004", "sm100-ssm-dtype", "b200"),
    ("KDA005", "hopper-flashinfer", "h200"), ("KDA007", "tp3", None), ("RADIX001", "track-interval", None),
    ("RADIX002", "no-buffer-overlap", None), ("RSSM001", "replayssm-ring", None),
]


def test_examples_trigger_and_clean_twins_pass():
    from pathlib import Path

    from kdacheck.rules import REGISTRY

    root = Path(__file__).resolve().parents[2] / "examples"
    for code, short, g in _EXAMPLES:
        for path, want in ((root / "errors" / f"{code}-{short}.sh", True), (root / "clean" / f"{short}.sh", False)):
            r = lint_ok(path.read_text(), "0.5.23", gpu=g, path=str(path))
            errors = {f.code for f in r.findings if f.severity.name == "ERROR"}
            # at the rule's own severity (SPEC010 is a warning: SGLang's resolution accepts the counts)
            hits = {f.code for f in r.findings if f.severity >= REGISTRY[code].severity and not f.not_checked}
            assert (code in hits) if want else not errors, (path, hits)
