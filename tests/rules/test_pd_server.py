"""PD008 (a PD server's own disaggregation flags, handle_pd_disaggregation), in SGLang's order per version."""

from __future__ import annotations

from tests.helpers import codes, finding
from tests.helpers import lint_ok as lint

QWEN = "python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4 "
DEC = QWEN + "--disaggregation-mode decode "
PRE = QWEN + "--disaggregation-mode prefill "
MTP = "--speculative-algorithm NEXTN --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4 "


def msg(cmd: str, version: str | None = None) -> str:
    return finding(lint(cmd, version=version) if version else lint(cmd), "PD008").message


def test_role_switch_lists_by_version() -> None:
    cmd = DEC + "--enable-pd-role-switch --ep-size 4 --pp-size 2 --dcp-size 2 " + MTP
    assert msg(cmd) == ("--enable-pd-role-switch does not rebuild role-specific state for the following features: "
                        "expert parallelism (--ep-size 4), pipeline parallelism (--pp-size 2), decode context parallelism "
                        "(--dcp-size 2), speculative decoding (--speculative-algorithm NEXTN). Remove these options or drop "
                        "--enable-pd-role-switch.")
    # DP replicas: refused in 0.5.21-0.5.22, not in 0.5.23; attention DP alone only in 0.5.22
    assert "data parallelism (--dp-size 2)" in msg(DEC + "--enable-pd-role-switch --dp-size 2", "0.5.21")
    assert "PD008" not in codes(lint(DEC + "--enable-pd-role-switch --dp-size 2"))
    assert "attention DP (--attn-dp-size 2)" in msg(DEC + "--enable-pd-role-switch --attn-dp-size 2", "0.5.22")
    assert "PD008" not in codes(lint(DEC + "--enable-pd-role-switch --attn-dp-size 2"))
    assert "DP attention local control broadcast" in msg(
        DEC + "--enable-pd-role-switch --attn-dp-size 2 --enable-dp-attention-local-control-broadcast")
    assert "DP attention (--enable-dp-attention)" in msg(
        DEC + "--enable-pd-role-switch --dp-size 2 --enable-dp-attention", "0.5.21")
    # not before 0.5.21 (no flag), not on an aggregated server
    assert "PD008" not in codes(lint(QWEN + "--enable-pd-role-switch " + MTP))
    assert "PD008" not in codes(lint(DEC + "--enable-pd-role-switch --ep-size 4", version="0.5.20"))


def test_decode_radix_cache() -> None:
    radix = DEC + "--disaggregation-decode-enable-radix-cache "
    assert msg(radix + "--disaggregation-transfer-backend fake").startswith(
        "--disaggregation-decode-enable-radix-cache is incompatible with --disaggregation-transfer-backend fake")
    # speculative decoding: refused until 0.5.22 (DSPARK allowed from 0.5.21), accepted in 0.5.23
    assert msg(radix + MTP, "0.5.22") == ("--disaggregation-decode-enable-radix-cache is incompatible with speculative "
                                         "decoding (--speculative-algorithm NEXTN)")
    assert "PD008" not in codes(lint(radix + MTP))
    # hisparse comes first
    assert "--enable-hisparse" in msg(radix + "--enable-hisparse --disaggregation-transfer-backend fake", "0.5.22")


def test_prefill_fake_and_dcp_backend() -> None:
    assert msg(PRE + "--disaggregation-transfer-backend fake") == "Prefill server does not support 'fake' as the transfer backend"
    assert "PD008" not in codes(lint(DEC + "--disaggregation-transfer-backend fake"))
    # decode DCP over ascend: refused before 0.5.22, accepted after
    got = msg(DEC + "--dcp-size 2 --disaggregation-transfer-backend ascend", "0.5.21")
    assert got == ("PD decode DCP requires --disaggregation-transfer-backend mooncake, nixl, or fake for synthetic "
                   "benchmarking, got 'ascend'.")
    assert "PD008" not in codes(lint(DEC + "--dcp-size 2 --disaggregation-transfer-backend ascend"))
    # mooncake_tcp is mooncake
    assert "PD008" not in codes(lint(DEC + "--dcp-size 2 --disaggregation-transfer-backend mooncake_tcp", version="0.5.19"))
    # 0.5.19-0.5.20: decode DCP needs the chunk cache; the backend check first
    assert msg(DEC + "--dcp-size 2 --disaggregation-decode-enable-radix-cache", "0.5.20").startswith(
        "PD decode DCP currently requires chunk cache; --disaggregation-decode-enable-radix-cache")
    assert msg(DEC + "--dcp-size 2 --enable-hierarchical-cache", "0.5.19").endswith("--enable-hierarchical-cache is not supported.")
    assert msg(DEC + "--dcp-size 2 --enable-hierarchical-cache --disaggregation-transfer-backend ascend", "0.5.19").startswith(
        "PD decode DCP requires")
    assert "chunk cache" not in msg(DEC + "--dcp-size 2 --disaggregation-decode-enable-radix-cache --enable-hisparse", "0.5.21")


def test_host_receive() -> None:
    thr = "--disaggregation-decode-host-receive-threshold "
    assert msg(DEC + thr + "1.5") == "--disaggregation-decode-host-receive-threshold must be between 0 and 1"
    assert msg(DEC + thr + "0.5 --enable-hisparse") == "Decode host receive does not yet support HiSparse or role switching"
    assert msg(DEC + thr + "0.5 --disaggregation-decode-retraction-backup cpu_tensor") == (
        "Decode host KV buffering requires host_pool retraction")
    # 0.5.21: on above 0 (default 0); 0.5.22+: on below 1 (default 1)
    assert "PD008" not in codes(lint(DEC + thr + "0 --enable-hisparse", version="0.5.21"))
    assert "PD008" in codes(lint(DEC + thr + "0 --enable-hisparse", version="0.5.22"))
    assert "PD008" in codes(lint(DEC + thr + "1 --enable-hisparse", version="0.5.21"))
    assert "PD008" not in codes(lint(DEC + thr + "1.5", version="0.5.20"))


def test_prefill_complete() -> None:
    pc = "--disaggregation-decode-allocation-policy prefill_complete "
    assert msg(QWEN + pc) == ("--disaggregation-decode-allocation-policy prefill_complete does not yet support aggregated "
                              "serving, attention tensor parallelism greater than one")
    one = "python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --disaggregation-mode prefill "
    assert "PD008" not in codes(lint(one + pc))
    assert msg(one + pc + "--enable-hierarchical-cache").endswith("prefill HiCache other than L2 write_back")
    assert "PD008" not in codes(lint(one + pc + "--enable-hierarchical-cache --hicache-write-policy write_back"))
    # it runs before the host-receive checks
    assert msg(one + pc + "--disaggregation-decode-host-receive-threshold 0.5 --enable-hisparse").endswith(
        "HiSparse, decode host KV buffering")


def test_staging_buffer_from_the_launch_environment() -> None:
    staged = "SGLANG_DISAGG_STAGING_BUFFER=1 " + DEC + "--disaggregation-transfer-backend mori"
    assert msg(staged) == "SGLANG_DISAGG_STAGING_BUFFER requires disaggregation_transfer_backend='mooncake' or 'nixl', got 'mori'."
    assert "PD008" not in codes(lint(DEC + "--disaggregation-transfer-backend mori"))
    assert "PD008" not in codes(lint("SGLANG_DISAGG_STAGING_BUFFER=0 " + DEC + "--disaggregation-transfer-backend mori"))
    assert "PD008" not in codes(lint("SGLANG_DISAGG_STAGING_BUFFER=1 " + DEC + "--disaggregation-transfer-backend mooncake_tcp"))
    # exported in the script; prefill_complete names it among what it does not support
    one = "python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --disaggregation-mode prefill "
    got = msg("export SGLANG_DISAGG_STAGING_BUFFER=true\n" + one + "--disaggregation-decode-allocation-policy prefill_complete")
    assert got.endswith("does not yet support staging buffers")
