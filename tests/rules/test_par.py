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
