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
