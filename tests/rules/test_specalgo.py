"""SPEC018 (handle_speculative_decoding's common checks), SPEC019 (rejection sampling), SPEC020
(NGRAM's external corpus), and SPEC014/SPEC009's DFLASH, DSPARK and UNO chains: each yields SGLang's
first refusal, with SGLang's words, in the versions that have it."""

from __future__ import annotations

from kdacheck import messages
from tests.helpers import codes, only
from tests.helpers import lint_ok as lint

QWEN = "python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4 "
LLAMA = "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct "
NEXTN = "--speculative-algorithm NEXTN --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4 "
TREE = "--speculative-algorithm NEXTN --speculative-num-steps 3 --speculative-eagle-topk 2 --speculative-num-draft-tokens 6 "


def messages_of(text: str, code: str, version: str = "0.5.23") -> list[str]:
    return [f.message for f in only(lint(text, version=version), code)]


# -- SPEC018 -------------------------------------------------------------------------------------

def test_spec018_window_and_sink_in_sglangs_order() -> None:
    assert messages_of(QWEN + NEXTN + "--speculative-draft-sink-size 4", "SPEC018") == [messages.SPEC_SINK_NEEDS_WINDOW]
    # the window comes first, and only the first refusal is reported
    assert messages_of(QWEN + NEXTN + "--speculative-draft-window-size -1 --speculative-draft-sink-size -2", "SPEC018") == [
        "--speculative-draft-window-size must be positive, got -1."]
    assert messages_of(QWEN + NEXTN + "--speculative-draft-window-size 64 --speculative-draft-sink-size -2", "SPEC018") == [
        "--speculative-draft-sink-size must be non-negative, got -2."]
    # without speculative decoding too (handle_speculative_decoding runs for every launch)
    assert messages_of(QWEN + "--speculative-draft-window-size 0", "SPEC018") == ["--speculative-draft-window-size must be positive, got 0."]
    assert "SPEC018" not in codes(lint(QWEN + NEXTN + "--speculative-draft-window-size 64 --speculative-draft-sink-size 4"))
    assert "SPEC018" not in codes(lint(QWEN + NEXTN + "--speculative-draft-window-size 64 --speculative-draft-sink-size 0"))


def test_spec018_block_verification_algorithms_from_0_5_22() -> None:
    ngram = QWEN + "--speculative-algorithm NGRAM --speculative-use-block-verification"
    assert messages_of(ngram, "SPEC018") == [messages.SPEC_BLOCK_VERIFY_ALGO]
    assert messages_of(ngram, "SPEC018", "0.5.22") == [messages.SPEC_BLOCK_VERIFY_ALGO]
    assert messages_of(QWEN + "--speculative-use-block-verification", "SPEC018") == [messages.SPEC_BLOCK_VERIFY_ALGO]
    assert "SPEC018" not in codes(lint(QWEN + "--speculative-algorithm DFLASH --speculative-draft-model-path d "
                                       "--speculative-use-block-verification"))
    # block verification before the window (0.5.23 L175 < L203)
    assert messages_of(ngram + " --speculative-draft-window-size 0", "SPEC018") == [messages.SPEC_BLOCK_VERIFY_ALGO]


def test_spec018_skip_dp_mlp_sync_only_before_0_5_23() -> None:
    cmd = QWEN + "--speculative-algorithm EAGLE3 --speculative-draft-model-path d --speculative-num-steps 3 " \
        "--speculative-eagle-topk 1 --speculative-num-draft-tokens 4 --speculative-skip-dp-mlp-sync"
    for version in ("0.5.19", "0.5.22"):
        assert messages_of(cmd, "SPEC018", version) == [
            "--speculative-skip-dp-mlp-sync is only supported with speculative_algorithm == EAGLE, got EAGLE3."]
    assert "SPEC018" not in codes(lint(QWEN + NEXTN + "--speculative-skip-dp-mlp-sync", version="0.5.22"))  # NEXTN is EAGLE
    assert "SPEC018" not in codes(lint(cmd.replace(" --speculative-skip-dp-mlp-sync", ""), version="0.5.22"))


def test_spec018_pd_decode_radix_cache_in_0_5_23() -> None:
    base = QWEN + "--disaggregation-mode decode --disaggregation-decode-enable-radix-cache "
    ngram = base + "--speculative-algorithm NGRAM"
    assert messages_of(ngram, "SPEC018") == [
        "--disaggregation-decode-enable-radix-cache is incompatible with speculative decoding (--speculative-algorithm NGRAM)"]
    assert "SPEC018" not in codes(lint(base + NEXTN))  # NEXTN resolves to EAGLE: accepted
    assert "SPEC018" not in codes(lint(ngram, version="0.5.22"))


# -- SPEC019 -------------------------------------------------------------------------------------

def test_spec019_rejection_sampling_order() -> None:
    rs = "--speculative-use-rejection-sampling "
    assert messages_of(QWEN + TREE + rs, "SPEC019") == [messages.SPEC_REJECTION_TOPK]
    assert messages_of(LLAMA + "--speculative-algorithm STANDALONE --speculative-draft-model-path d " + rs, "SPEC019") == [
        "--speculative-use-rejection-sampling is only supported for EAGLE / EAGLE3 / NEXTN, not speculative_algorithm=STANDALONE."]
    # the thresholds after topk
    assert messages_of(QWEN + TREE + rs + "--speculative-accept-threshold-acc 0.5", "SPEC019") == [messages.SPEC_REJECTION_TOPK]
    assert messages_of(QWEN + NEXTN + rs + "--speculative-accept-threshold-acc 0.5", "SPEC019") == [messages.SPEC_REJECTION_THRESHOLDS]
    assert "SPEC019" not in codes(lint(QWEN + NEXTN + rs))
    assert "SPEC019" not in codes(lint(QWEN + TREE))


def test_spec019_auto_chosen_topk_counts() -> None:
    # Llama's auto-chosen EAGLE parameters are 5/4/8: rejection sampling then refuses topk 4
    cmd = LLAMA + "--speculative-algorithm EAGLE --speculative-draft-model-path d --speculative-use-rejection-sampling"
    (message,) = messages_of(cmd, "SPEC019")
    assert message.startswith(messages.SPEC_REJECTION_TOPK) and "topk 4" in message


def test_spec019_deterministic_refused_before_0_5_23_only() -> None:
    cmd = QWEN + NEXTN + "--speculative-use-rejection-sampling --enable-deterministic-inference"
    assert messages_of(cmd, "SPEC019", "0.5.22") == [messages.SPEC_REJECTION_DETERMINISTIC]
    assert messages_of(cmd, "SPEC019", "0.5.19") == [messages.SPEC_REJECTION_DETERMINISTIC]
    assert "SPEC019" not in codes(lint(cmd))  # 0.5.23: refused only off CUDA


def test_spec019_block_verification_turns_it_on_from_0_5_22() -> None:
    cmd = QWEN + TREE + "--speculative-use-block-verification"
    assert messages_of(cmd, "SPEC019") == [messages.SPEC_REJECTION_TOPK]
    assert "SPEC019" not in codes(lint(QWEN + NEXTN + "--speculative-use-block-verification"))


# -- SPEC020 -------------------------------------------------------------------------------------

def test_spec020_external_corpus() -> None:
    ngram = QWEN + "--speculative-algorithm NGRAM --speculative-ngram-external-corpus-path /c "
    assert messages_of(ngram, "SPEC020") == [messages.NGRAM_SAM_BUDGET]  # the budget's default is 0
    assert messages_of(ngram + "--speculative-ngram-external-sam-budget 4 --speculative-ngram-external-corpus-max-tokens 0",
                       "SPEC020") == [messages.NGRAM_CORPUS_MAX_TOKENS]
    (over,) = messages_of(ngram + "--speculative-ngram-external-sam-budget 12", "SPEC020")  # D defaults to 12
    assert over.startswith("speculative_ngram_external_sam_budget must be less than or equal to speculative_num_draft_tokens - 1 (11).")
    assert "SPEC020" not in codes(lint(ngram + "--speculative-ngram-external-sam-budget 11"))
    assert "SPEC020" in codes(lint(ngram + "--speculative-ngram-external-sam-budget 11 --speculative-num-draft-tokens 8"))
    assert "SPEC020" not in codes(lint(QWEN + "--speculative-algorithm NGRAM --speculative-ngram-external-sam-budget 0"))


# -- SPEC014 / SPEC009: DFLASH, DSPARK, UNO ----------------------------------------------------------

UNO = LLAMA + "--speculative-algorithm UNO --uno-lora-path /lora --attention-backend fa3 "


def test_spec014_uno_chain_in_order() -> None:
    assert messages_of(UNO, "SPEC014") == [messages.UNO_VERIFY_WIDTH]
    assert messages_of(UNO + "--speculative-num-draft-tokens 4 --enable-strict-thinking --enable-deterministic-inference",
                       "SPEC014") == [messages.UNO_DETERMINISTIC]
    assert "SPEC014" not in codes(lint(UNO + "--speculative-num-draft-tokens 4"))
    assert messages_of(UNO + "--speculative-num-draft-tokens 4 --tp-size 2 --enable-lora", "SPEC014") == [messages.UNO_TP_PP]
    assert messages_of(UNO + "--speculative-num-draft-tokens 4 --enable-lora", "SPEC014") == [messages.UNO_LORA]
    assert messages_of(UNO.replace("fa3", "flashinfer") + "--speculative-num-draft-tokens 4", "SPEC014") == [
        "UNO requires FA3 for both prefill and decode attention; got prefill='flashinfer', decode='flashinfer'."]
    assert messages_of(UNO + "--speculative-num-draft-tokens 4 --speculative-use-rejection-sampling", "SPEC014") == [
        messages.UNO_REJECTION]
    assert "SPEC014" not in codes(lint(UNO + "--speculative-num-draft-tokens 4", version="0.5.19"))  # no UNO in 0.5.19


def test_spec014_uno_tree_mode() -> None:
    tree = UNO + "--speculative-eagle-topk 2 "
    assert messages_of(tree + "--speculative-num-draft-tokens 6", "SPEC014") == [messages.UNO_TREE_STEPS]
    assert messages_of(tree + "--speculative-num-draft-tokens 3 --speculative-num-steps 3", "SPEC014") == [
        "UNO tree mode requires Q >= F; got Q=3, F=4."]
    assert messages_of(tree + "--speculative-num-draft-tokens 8 --speculative-num-steps 3", "SPEC014") == [
        "UNO tree mode cannot represent the requested Q in EAGLE's parent-list ABI: Q-1=7 exceeds K*(F-2)+1=5 for F=4, K=2."]
    assert messages_of(tree + "--speculative-num-draft-tokens 200 --speculative-num-steps 3", "SPEC014") == [
        "UNO tree mode currently supports at most Q=128 verify nodes, got Q=200."]
    assert messages_of(tree + "--speculative-num-draft-tokens 4 --speculative-num-steps 1", "SPEC014") == [
        "UNO tree mode cannot build the requested Q from F and K: Q=4 exceeds capacity=3 for F=2, K=2."]
    assert messages_of(tree + "--speculative-num-draft-tokens 5 --speculative-num-steps 2", "SPEC014") == [
        "UNO tree mode cannot represent the requested Q in EAGLE's parent-list ABI: Q-1=4 exceeds K*(F-2)+1=3 for F=3, K=2."]
    assert messages_of(tree + "--speculative-num-draft-tokens 6 --speculative-num-steps 0", "SPEC014") == [
        "UNO tree mode requires --speculative-num-steps to be positive, got 0."]
    assert messages_of(UNO + "--speculative-eagle-topk 0 --speculative-num-draft-tokens 4", "SPEC014") == [
        "UNO requires --speculative-eagle-topk to be at least 1, got 0."]
    assert messages_of(UNO + "--speculative-eagle-topk 64 --speculative-num-draft-tokens 40 --speculative-num-steps 39", "SPEC014") == [
        "UNO tree mode currently supports Q*K <= 2048; got Q*K=40*64=2560."]
    ok = tree + "--speculative-num-draft-tokens 6 --speculative-num-steps 3"
    assert "SPEC014" not in codes(lint(ok))
    assert messages_of(ok + " --enable-two-batch-overlap", "SPEC014") == [messages.UNO_TREE_TBO]


def test_spec014_dspark_dp_backends_by_version() -> None:
    kimi = ("python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --tp-size 4 --dp-size 2 "
            "--enable-dp-attention --enable-dp-lm-head --speculative-algorithm DSPARK --speculative-draft-model-path d ")
    assert messages_of(kimi + "--moe-a2a-backend mori", "SPEC014", "0.5.20") == [
        "DSpark with dp attention supports moe_a2a_backend 'none' (built-in TP MoE) or 'megamoe', got 'mori'."]
    assert "SPEC014" not in codes(lint(kimi + "--moe-a2a-backend mori"))
    assert messages_of(kimi + "--moe-a2a-backend megamoe --speculative-moe-a2a-backend none", "SPEC014") == [
        "DSpark ignores --speculative-moe-a2a-backend; with dp attention it must match the target moe_a2a_backend='megamoe' "
        "(got 'none')."]


def test_spec009_dflash_block_and_window() -> None:
    dflash = LLAMA + "--speculative-algorithm DFLASH --speculative-draft-model-path d "
    assert messages_of(dflash + "--speculative-dflash-block-size 0", "SPEC009") == [
        "DFLASH requires --speculative-dflash-block-size to be positive, got 0."]
    assert messages_of(dflash + "--speculative-dflash-block-size 16 --speculative-draft-window-size 8", "SPEC009") == [
        "--speculative-draft-window-size must be >= --speculative-num-draft-tokens (block_size). window_size=8, block_size=16."]
    assert "SPEC009" not in codes(lint(dflash + "--speculative-dflash-block-size 16 --speculative-draft-window-size 16"))
    # the block size from the draft's config is not read: said, not judged
    (f,) = only(lint(dflash + "--speculative-draft-window-size 8"), "SPEC009")
    assert f.not_checked
    # SPEC014's refusal comes first: SGLang stops there
    assert "SPEC009" not in codes(lint(LLAMA + "--speculative-algorithm DFLASH --speculative-dflash-block-size 0"))


# -- SGLang's environment switches, as the launch script sets them -----------------------------------

COORD = "export SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION=1\n"


def script_messages(text: str, code: str, version: str = "0.5.23") -> list[str]:
    return [f.message for f in only(lint(text, version=version, path="run.sh"), code)]


def test_spec018_dp_spec_coordination_by_version() -> None:
    ngram = COORD + QWEN + "--speculative-algorithm NGRAM\n"
    assert script_messages(ngram, "SPEC018") == [messages.DP_SPEC_COORDINATION]
    assert script_messages(ngram, "SPEC018", "0.5.21") == [messages.DP_SPEC_COORDINATION_OLD]
    assert script_messages(ngram, "SPEC018", "0.5.20") == []  # no such check before 0.5.21
    assert script_messages(ngram.replace("=1", "=0"), "SPEC018") == []
    dspark = COORD + QWEN + "--speculative-algorithm DSPARK --speculative-draft-model-path d\n"
    assert script_messages(dspark, "SPEC018") == [] and script_messages(dspark, "SPEC018", "0.5.21") == [messages.DP_SPEC_COORDINATION_OLD]
    assert script_messages(COORD + QWEN + NEXTN + "--enable-multi-layer-eagle\n", "SPEC018") == [messages.DP_SPEC_COORDINATION]
    assert script_messages(COORD + QWEN + NEXTN + "\n", "SPEC018") == []
    # after the sink checks (L222-229 < L251-257): the first refusal only
    assert script_messages(COORD + QWEN + "--speculative-algorithm NGRAM --speculative-draft-sink-size 1\n", "SPEC018") == [
        messages.SPEC_SINK_NEEDS_WINDOW]


def test_spec014_dspark_ragged_verify_mode() -> None:
    kimi = ("python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --tp-size 4 --dp-size 2 "
            "--enable-dp-attention --enable-dp-lm-head --speculative-algorithm DSPARK --speculative-draft-model-path d ")
    compact = "export SGLANG_RAGGED_VERIFY_MODE=compact\n"
    assert script_messages(compact + kimi + "--moe-a2a-backend megamoe\n", "SPEC014") == [messages.DSPARK_DP_RAGGED]
    assert script_messages(compact + kimi + "--moe-a2a-backend megamoe\n", "SPEC014", "0.5.21") == [
        "DSpark with dp attention + moe_a2a_backend='megamoe' requires SGLANG_RAGGED_VERIFY_MODE=static."]
    assert script_messages(compact + kimi + "\n", "SPEC014") == []  # the built-in TP MoE needs no static mode
    assert script_messages(kimi + "--moe-a2a-backend megamoe\n", "SPEC014") == []  # static is the default


def test_spec021_multi_layer_eagle_width() -> None:
    ml = "--speculative-algorithm NEXTN --enable-multi-layer-eagle --speculative-num-steps 3 --speculative-eagle-topk 2 "
    (f,) = only(lint(QWEN + ml + "--speculative-num-draft-tokens 6"), "SPEC021")
    assert f.message.startswith(messages.MULTI_LAYER_EAGLE_WIDTH.format(d=6, s=3))
    assert "SPEC021" not in codes(lint(QWEN + ml + "--speculative-num-draft-tokens 4"))
    assert "SPEC021" not in codes(lint(QWEN + TREE))  # the single-layer worker verifies a tree of 6
    # topk 1: SGLang sets the draft tokens to steps + 1 itself (SPEC002 says so), the worker agrees
    assert "SPEC021" not in codes(lint(QWEN + NEXTN.replace("--speculative-num-draft-tokens 4", "--speculative-num-draft-tokens 8")
                                       + "--enable-multi-layer-eagle"))
    from kdacheck.rules.sglang import AFTER_RESOLUTION

    assert "SPEC021" in AFTER_RESOLUTION  # SGLang's resolution starts it; the worker stops it


def test_spec019_after_the_earlier_refusals_of_its_function() -> None:
    rs = " --speculative-use-rejection-sampling"
    # trtllm_mha with a tree stops _handle_eagle_family first (SPEC005)
    r = lint(QWEN + TREE + "--attention-backend trtllm_mha" + rs)
    assert "SPEC005" in codes(r) and "SPEC019" not in codes(r)
    # topk without steps: SGLang's bare assertion comes first (SPEC001)
    r = lint(QWEN + "--speculative-algorithm NEXTN --speculative-eagle-topk 2" + rs)
    assert "SPEC001" in codes(r) and "SPEC019" not in codes(r)


def test_spec020_after_the_step_division() -> None:
    r = lint(QWEN + "--speculative-algorithm NGRAM --speculative-ngram-max-bfs-breadth 0 "
             "--speculative-ngram-external-corpus-path /c")
    assert "SPEC010" in codes(r) and "SPEC020" not in codes(r)


def test_spec014_uno_attention_dp_by_version() -> None:
    dp = UNO + "--speculative-num-draft-tokens 4 --dp-size 2 --enable-dp-attention"
    assert messages_of(dp, "SPEC014") == [messages.UNO_DP_CP]
    assert messages_of(dp, "SPEC014", "0.5.21") == [messages.UNO_DP_CP]


def test_the_coordination_switch_is_compared_never_echoed() -> None:
    hostile = "export SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION=$'\\x1b[31mYES\\x1b[0m'\n" + QWEN + "--speculative-algorithm NGRAM\n"
    r = lint(hostile, path="run.sh")
    assert all("\x1b" not in f.message for f in r.findings)
    long = "export SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION=" + "1" * 100_000 + "\n" + QWEN + "--speculative-algorithm NGRAM\n"
    assert "SPEC018" not in codes(lint(long, path="run.sh"))  # not one of EnvBool's words: SGLang raises its own error


def test_spec022_standalone_draft_needs_the_targets_vocabulary() -> None:
    """Both config.json files read from the tree (the Hub ids are not looked up without the cache)."""
    from pathlib import Path

    models = Path(__file__).resolve().parents[2] / "tests" / "data" / "models"
    spec = "--speculative-algorithm STANDALONE --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4 "
    target = f"python -m sglang.launch_server --model-path {models / 'qwen3-next-80b'} --tp-size 4 " + spec
    (m,) = messages_of(target + f"--speculative-draft-model-path {models / 'llama-3-8b'}", "SPEC022")
    assert m == messages.STANDALONE_VOCAB.format(target=151936, draft=128256)
    assert "SPEC022" not in codes(lint(target + f"--speculative-draft-model-path {models / 'qwen3-coder-next'}"))  # 151936 both
    unread = lint(target + "--speculative-draft-model-path Qwen/Qwen3-0.6B")  # the draft's config not read: said, not judged
    (note,) = [f for f in unread.findings if f.code == "SPEC022"]
    assert note.severity.name == "INFO" and note.message.startswith("could not be checked") and "not read" in note.message
    eagle = target.replace("STANDALONE", "EAGLE")
    assert "SPEC022" not in codes(lint(eagle + f"--speculative-draft-model-path {models / 'llama-3-8b'}"))  # EAGLE maps its own head
