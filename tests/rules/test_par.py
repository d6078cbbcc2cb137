"""PAR006 (the DP LM head needs attention DP)."""

from __future__ import annotations

from tests.helpers import codes, finding
from tests.helpers import lint_ok as lint

QWEN = "python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4 "


def test_par006_replicas_without_attention_dp() -> None:
    f = finding(lint(QWEN + "--dp-size 2 --enable-dp-lm-head"), "PAR006")
    assert f.message.startswith("--enable-dp-lm-head requires attention DP (--attn-dp-size).")
    assert "--attn-dp-size 2" in (f.fix or "")
    assert "PAR006" not in codes(lint(QWEN + "--attn-dp-size 2 --enable-dp-lm-head"))
    assert "PAR006" not in codes(lint(QWEN + "--dp-size 2 --enable-dp-attention --enable-dp-lm-head"))
    # one DP rank: SGLang turns the flag off itself (_data_parallelism_defaults), no assertion
    assert "PAR006" not in codes(lint(QWEN + "--enable-dp-lm-head"))
    assert "PAR006" not in codes(lint(QWEN + "--dp-size 2"))


def test_par006_older_wording() -> None:
    f = finding(lint(QWEN + "--dp-size 2 --enable-dp-lm-head", version="0.5.21"), "PAR006")
    assert f.message.startswith("Please enable dp attention when setting enable_dp_lm_head.")
    assert "--enable-dp-attention" in (f.fix or "")
    assert "PAR006" not in codes(lint(QWEN + "--dp-size 2 --enable-dp-attention --enable-dp-lm-head", version="0.5.19"))


DSV32 = "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 --tp-size 8 "


def test_par007_dcp_flags_in_order() -> None:
    assert finding(lint(DSV32 + "--dcp-size 0"), "PAR007").message == (
        "Decode context parallel size (--dcp-size / --decode-context-parallel-size) must be >= 1, but got dcp_size=0.")
    assert finding(lint(DSV32 + "--dcp-comm-backend fi_a2a"), "PAR007").message.startswith(
        "--dcp-comm-backend fi_a2a only affects the decode context-parallel attention reduction")
    # prefill CP with DCP: refused from 0.5.22, before the backend
    assert finding(lint(DSV32 + "--dcp-size 2 --enable-prefill-cp"), "PAR007").message == (
        "--dcp-size > 1 does not support --enable-prefill-cp.")
    assert "PAR007" not in codes(lint(DSV32 + "--dcp-size 2 --enable-prefill-cp", version="0.5.21"))
    # replicate-q-proj: DCP above 1 first, then an all-to-all backend
    assert finding(lint(DSV32 + "--dcp-replicate-q-proj --dcp-comm-backend ag_rs"), "PAR007").message == (
        "--dcp-replicate-q-proj requires --dcp-size > 1.")
    assert finding(lint(DSV32 + "--dcp-size 2 --dcp-replicate-q-proj --dcp-comm-backend ag_rs"), "PAR007").message.endswith(
        "got --dcp-comm-backend=ag_rs.")
    # unset backend: resolved (a2a/fi_a2a above DCP 1) from 0.5.20; 0.5.19's default is ag_rs
    assert "PAR007" not in codes(lint(DSV32 + "--dcp-size 2 --dcp-replicate-q-proj"))
    assert finding(lint(DSV32 + "--dcp-size 2 --dcp-replicate-q-proj", version="0.5.19"), "PAR007").message.endswith(
        "got --dcp-comm-backend=ag_rs.")
    assert "PAR007" not in codes(lint(DSV32 + "--dcp-size 8 --dcp-comm-backend a2a"))


def test_par007_fi_a2a_on_rocm() -> None:
    f = finding(lint(DSV32 + "--dcp-size 2 --dcp-comm-backend fi_a2a", gpu="mi300x"), "PAR007")
    assert f.message.startswith("--dcp-comm-backend fi_a2a delegates the exchange to FlashInfer's MNNVL All-to-All kernel")
    assert "PAR007" not in codes(lint(DSV32 + "--dcp-size 2 --dcp-comm-backend fi_a2a", gpu="b200"))
    assert "MNNVL fabric memory" in finding(lint(DSV32 + "--dcp-size 2 --dcp-comm-backend fi_a2a", version="0.5.19", gpu="mi300x"),
                                            "PAR007").message


NANO = "python -m sglang.launch_server --model-path nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16 --tp-size 2 "


def test_par008_nemotron_h_attention_cp() -> None:
    assert finding(lint(NANO + "--attn-cp-size 2"), "PAR008").message.startswith("Nemotron-H does not support --attn-cp-size > 1")
    assert "PAR008" not in codes(lint(NANO + "--attn-cp-size 2", version="0.5.20"))
    assert "PAR008" not in codes(lint(NANO))
    assert "PAR008" not in codes(lint(DSV32 + "--attn-cp-size 2"))


def test_par002_from_0_5_22() -> None:
    # 0.5.22 already rewrites --enable-dp-attention and refuses replicas with attention DP (parallel_hook.py L280-287)
    cmd = QWEN + "--dp-size 2 --attn-dp-size 2"
    assert finding(lint(cmd, version="0.5.22"), "PAR002").message.startswith("--dp-size 2 with --attn-dp-size 2:")
    assert "PAR002" not in codes(lint(QWEN + "--dp-size 2 --enable-dp-attention", version="0.5.22"))


def test_par009_final_check_in_order() -> None:
    # the node count first, then the micro-batch size
    f = finding(lint(QWEN + "--nnodes 3 --pp-max-micro-batch-size 0"), "PAR009")
    assert f.message.startswith("tp_size must be divisible by number of nodes (tp 4 × pp 1 over 3 nodes)")
    assert "PAR009" not in codes(lint(QWEN + "--nnodes 3 --elastic-ep-join-mode scale"))
    assert "PAR009" not in codes(lint(QWEN + "--pp-size 3 --nnodes 3"))
    assert finding(lint(QWEN + "--pp-max-micro-batch-size 0"), "PAR009").message.endswith("Got: 0")
    # PP: PAR003's speculative refusals come before --min-free-slots-delay
    assert finding(lint(QWEN + "--pp-size 2 --min-free-slots-delay 4"), "PAR009").message.startswith("--min-free-slots-delay")
    spec = "--speculative-algorithm NEXTN --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4 "
    assert "PAR009" not in codes(lint(QWEN + "--pp-size 2 --min-free-slots-delay 4 " + spec))
    assert "PAR009" in codes(lint(QWEN + "--pp-size 2 --min-free-slots-delay 4 --disaggregation-mode prefill " + spec))


def test_par009_multi_node_dp_by_version() -> None:
    cmd = QWEN + "--dp-size 2 --nnodes 2 "
    assert finding(lint(cmd), "PAR009").message == (
        "multi-node data-parallel replicas are not supported; use attention DP (--attn-dp-size) across nodes")
    assert finding(lint(cmd, version="0.5.21"), "PAR009").message == "multi-node data parallel is not supported unless dp attention!"
    assert "PAR009" not in codes(lint(cmd + "--enable-dp-attention", version="0.5.21"))
    assert "PAR009" not in codes(lint(cmd + "--enable-dp-attention"))  # rewritten to attention DP 2, one replica
    assert "PAR009" not in codes(lint(QWEN + "--attn-dp-size 2 --nnodes 2"))


def test_par009_moe_dense_tp() -> None:
    assert finding(lint(QWEN + "--moe-dense-tp-size 2"), "PAR009").message.startswith(
        "moe_dense_tp_size only supports None, 1, or tp_size currently")
    assert "PAR009" not in codes(lint(QWEN + "--moe-dense-tp-size 4"))
    assert "PAR009" not in codes(lint(QWEN + "--moe-dense-tp-size 1"))
    # the speculative hook turns mixed chunking off for NGRAM first: SGLang starts (its own run, 0.5.23-cpar-013)
    assert "PAR009" not in codes(lint(QWEN + "--speculative-algorithm NGRAM --enable-mixed-chunk"))


def test_par003_before_0_5_21() -> None:
    spec = "--speculative-algorithm NEXTN --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4 "
    f = finding(lint(QWEN + "--pp-size 2 --disaggregation-mode prefill " + spec, version="0.5.20"), "PAR003")
    assert f.message.startswith("Pipeline parallelism is not compatible with overlap schedule, speculative decoding")
    assert "PAR003" not in codes(lint(QWEN + "--pp-size 2 --disaggregation-mode prefill " + spec))


def test_par010_tp_lm_head_all_to_all_in_order() -> None:
    flag = "--enable-tp-lm-head-all-to-all "
    assert finding(lint(QWEN + flag), "PAR010").message == "--enable-tp-lm-head-all-to-all requires attention DP (--attn-dp-size)."
    assert finding(lint(QWEN + flag + "--attn-dp-size 4 --enable-dp-lm-head"), "PAR010").message.endswith(
        "incompatible with --enable-dp-lm-head.")
    assert finding(lint(QWEN + flag + "--attn-dp-size 2"), "PAR010").message == (
        "--enable-tp-lm-head-all-to-all currently requires tp_size == attn_dp_size, got tp_size=4, attn_dp_size=2.")
    assert finding(lint(QWEN + flag + "--attn-dp-size 4 --attn-cp-size 2"), "PAR010").message.endswith("attn_cp_size == 1, got 2.")
    assert "PAR010" not in codes(lint(QWEN + flag + "--attn-dp-size 4"))
    assert "PAR010" not in codes(lint(QWEN + "--attn-dp-size 2"))  # unset: SGLang's default is valid
    # 0.5.21: --enable-dp-attention and --dp-size
    old = finding(lint(QWEN + flag + "--dp-size 2 --enable-dp-attention", version="0.5.21"), "PAR010").message
    assert old == "--enable-tp-lm-head-all-to-all currently requires tp_size == dp_size, got tp_size=4, dp_size=2."
    assert finding(lint(QWEN + flag, version="0.5.21"), "PAR010").message == (
        "Please enable dp attention when setting enable_tp_lm_head_all_to_all.")
    # PAR006's assert comes first
    r = lint(QWEN + flag + "--dp-size 2 --enable-dp-lm-head")
    assert "PAR006" in codes(r) and "PAR010" not in codes(r)


def test_par011_attention_dp_size_positive() -> None:
    assert finding(lint(QWEN + "--attn-dp-size 0"), "PAR011").message == "--attn-dp-size must be positive (got 0)."
    assert "PAR011" in codes(lint(QWEN + "--attn-dp-size -2 --enable-dp-attention"))  # not rewritten: only a size of 1 is
    assert "PAR011" not in codes(lint(QWEN + "--attn-dp-size 1"))
    assert "PAR011" in codes(lint(QWEN + "--attn-dp-size 0", version="0.5.22"))


def test_par003_with_sglang_enable_pp_spec() -> None:
    spec = "--speculative-algorithm NEXTN --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4 "
    env = "SGLANG_ENABLE_PP_SPEC=1 "
    assert "PAR003" not in codes(lint(env + QWEN + "--pp-size 2 " + spec))
    assert finding(lint(env + QWEN + "--pp-size 2 --disaggregation-mode prefill " + spec), "PAR003").message == (
        "SGLANG_ENABLE_PP_SPEC is not compatible with --disaggregation-mode")
    assert finding(lint(env + QWEN + "--pp-size 2 --attn-dp-size 2 " + spec), "PAR003").message == (
        "SGLANG_ENABLE_PP_SPEC is not compatible with attention DP (--attn-dp-size)")
    assert finding(lint(env + QWEN + "--pp-size 2 --dp-size 2 --enable-dp-attention " + spec, version="0.5.21"), "PAR003").message == (
        "SGLANG_ENABLE_PP_SPEC is not compatible with --enable-dp-attention")
    assert "PAR003" in codes(lint("SGLANG_ENABLE_PP_SPEC=0 " + QWEN + "--pp-size 2 " + spec))


def test_par008_unread_model_and_longcat() -> None:
    r = lint("python -m sglang.launch_server --model-path acme/private-model --tp-size 2 --attn-cp-size 2")
    assert any(f.code == "PAR008" and "not be checked" in f.message for f in r.findings) or "PAR008" in r.resolved[0].not_checked
    assert "PAR008" not in lint("python -m sglang.launch_server --model-path acme/private-model --tp-size 2").resolved[0].not_checked
    from kdacheck import architectures

    assert architectures.lookup("LongcatFlashForCausalLM").context_parallel == "no_prefill_cp_with_attn_cp"
    assert architectures.lookup("NemotronH_Nano_VL_V2").context_parallel == "no_attn_cp"
