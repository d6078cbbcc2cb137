"""MODEL006-MODEL010 and ATTN009: what SGLang's model hook, model overrides and attention hook refuse, in SGLang's order."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import codes, finding, only
from tests.helpers import lint_ok as lint

ROOT = Path(__file__).resolve().parents[2]
MODELS = ROOT / "tests" / "data" / "models"
LAUNCH = "python -m sglang.launch_server --model-path "
DSV32 = LAUNCH + "deepseek-ai/DeepSeek-V3.2 "
GLM5 = LAUNCH + "zai-org/GLM-5.1 "
CP = "--enable-prefill-cp --cp-strategy interleave "


def _config(tmp: Path, source: str, **changes: object) -> str:
    """A copy of a public config.json with some fields changed (a hand-made model for one check)."""
    data = json.loads((MODELS / source / "config.json").read_text(encoding="utf-8"))
    data.update(changes)
    folder = tmp / source
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(data), encoding="utf-8")
    return LAUNCH + str(folder) + " "


def test_model006_cp_decode_attn_tp_only_for_sglangs_list() -> None:
    f = finding(lint(DSV32 + "--tp-size 8 --enable-cp-decode-attn-tp"), "MODEL006")
    assert f.message.startswith("--enable-cp-decode-attn-tp is only supported for models whose attention linears are replicated "
                                "across CP ranks (attn_tp_size=1). Got DeepseekV32ForCausalLM; supported: ['DeepseekV4ForCausalLM', "
                                "'DeepseekV4ForCausalLMDSpark', 'DeepseekV4ForCausalLMNextN', 'GlmMoeDsaForCausalLM', "
                                "'GlmMoeDsaForCausalLMNextN'].")
    assert "MODEL006" not in codes(lint(GLM5 + "--tp-size 8 --enable-cp-decode-attn-tp"))
    assert "MODEL006" not in codes(lint(DSV32 + "--tp-size 8"))
    for version in ("0.5.19", "0.5.21"):  # the same check in every version
        assert "MODEL006" in codes(lint(DSV32 + "--tp-size 8 --enable-cp-decode-attn-tp", version=version))


def test_model006_intern_s2_mobius_names_both_and_stops_before_cp_decode(tmp_path: Path) -> None:
    mobius = _config(tmp_path, "qwen3.5-27b", architectures=["InternS2MobiusForConditionalGeneration"])
    r = lint(mobius + "--tp-size 2 --pp-size 2 --ep-size 2 --enable-cp-decode-attn-tp")
    (f,) = only(r, "MODEL006")
    assert f.message == ("Intern-S2-Mobius does not support: pipeline parallelism (--pp-size must be 1); "
                         "expert parallelism (--ep-size must be 1).")
    f = finding(lint(mobius + "--tp-size 2 --enable-cp-decode-attn-tp"), "MODEL006")
    assert f.message.startswith("--enable-cp-decode-attn-tp is only supported")
    assert "MODEL006" not in codes(lint(mobius + "--tp-size 2"))


def test_model007_dsa_prefill_cp_across_nodes() -> None:
    f = finding(lint(DSV32 + "--tp-size 16 --nnodes 2 " + CP), "MODEL007")
    assert f.message.startswith("Context parallel only supports single machine (tp_size <= 8). Cross-machine CP has precision issues.")
    assert "MODEL007" not in codes(lint(DSV32 + "--tp-size 8 " + CP))
    assert "MODEL007" not in codes(lint(DSV32 + "--tp-size 16 --nnodes 2"))  # no prefill CP
    # DeepSeek-V3 style MLA models (no index_topk) are not is_deepseek_dsa: no assert
    assert "MODEL007" not in codes(lint(LAUNCH + "tests/data/models/llama-3-8b --tp-size 16 " + CP))


def test_model007_interleave_dp_before_022_then_the_tp_assert() -> None:
    launch = DSV32 + "--tp-size 16 --dp-size 2 --enable-dp-attention " + CP
    assert finding(lint(launch, version="0.5.21"), "MODEL007").message == "interleave DSA CP does not support DP attention."
    assert finding(lint(launch, version="0.5.19"), "MODEL007").message == "interleave DSA CP does not support DP attention."
    zigzag = DSV32 + "--tp-size 16 --dp-size 2 --enable-dp-attention --enable-prefill-cp --cp-strategy zigzag"
    assert finding(lint(zigzag, version="0.5.21"), "MODEL007").message.startswith("Context parallel only supports single machine")
    # 0.5.22+: no interleave DP assert; the tp assert is next
    assert finding(lint(launch, version="0.5.22"), "MODEL007").message.startswith("Context parallel only supports single machine")


def test_model007_prefill_cp_on_a_decode_server() -> None:
    f = finding(lint(DSV32 + "--tp-size 8 --disaggregation-mode decode " + CP), "MODEL007")
    assert f.message == "CP is only supported for prefill when PD disaggregation, please remove --enable-prefill-cp."
    assert "MODEL007" not in codes(lint(DSV32 + "--tp-size 8 --disaggregation-mode prefill " + CP))


def test_model007_hyv4_refuses_cp_from_020(tmp_path: Path) -> None:
    hyv4 = _config(tmp_path, "deepseek-v3.2", architectures=["HYV4ForCausalLM"])
    f = finding(lint(hyv4 + "--tp-size 8 " + CP), "MODEL007")
    assert f.message.startswith("--enable-prefill-cp is not supported for HYV4 because its attention path does not implement DSA "
                                "context-parallel metadata and sharding. Got architecture='HYV4ForCausalLM' and enable_prefill_cp=True.")
    r = lint(hyv4 + "--tp-size 8 --dcp-size 8 --enable-hierarchical-cache")
    assert finding(r, "MODEL007").message.startswith("--dcp-size > 1 is not supported for HYV4")
    assert "HSP008" not in codes(r)  # the HYV4 check comes before the DSA DCP checks
    assert "MODEL007" not in codes(lint(hyv4 + "--tp-size 8 " + CP, version="0.5.19"))


def test_model007_pooled_index_keys_refuse_dcp_from_022(tmp_path: Path) -> None:
    pooled = _config(tmp_path, "deepseek-v3.2", index_kpool=4)
    f = finding(lint(pooled + "--tp-size 8 --dcp-size 8"), "MODEL007")
    assert f.message == ("--dcp-size > 1 is not supported for DSA with index_kpool=4: a pooled index key spans positions owned by "
                         "different DCP ranks.")
    assert "MODEL007" not in codes(lint(pooled + "--tp-size 8 --dcp-size 8", version="0.5.21"))
    assert "MODEL007" not in codes(lint(DSV32 + "--tp-size 8 --dcp-size 8"))  # index_kpool 1
    # the DSA DCP checks come first (HSP008)
    r = lint(pooled + "--tp-size 8 --dcp-size 8 --enable-hierarchical-cache")
    assert "HSP008" in codes(r) and "MODEL007" not in codes(r)


V4 = LAUNCH + "deepseek-ai/DeepSeek-V4-Flash "


def test_model008_v4_cp_strategy_per_version() -> None:
    r = lint(V4 + "--tp-size 8 --enable-prefill-cp")
    assert finding(r, "MODEL008").message == "DeepSeekV4 only supports interleave/zigzag CP strategy, got None"
    old = lint(V4 + "--tp-size 8 --enable-prefill-cp --cp-strategy zigzag", version="0.5.20")
    assert finding(old, "MODEL008").message == "DeepSeekV4 only supports interleave CP strategy, got zigzag"
    assert finding(lint(V4 + "--tp-size 8 --enable-prefill-cp --cp-strategy zigzag", version="0.5.21"), "MODEL008").message == (
        "DeepSeekV4 zigzag CP requires the NPU backend; the CUDA backend reindexes with interleave order.")
    assert finding(lint(V4 + "--tp-size 8 --enable-prefill-cp --cp-strategy zigzag"), "MODEL008").message == (
        "DeepSeekV4 zigzag CP requires the NPU backend; CUDA/HIP backends reindex with interleave order.")
    assert "MODEL008" not in codes(lint(V4 + "--tp-size 8 --enable-prefill-cp --cp-strategy interleave"))
    assert "MODEL008" not in codes(lint(V4 + "--tp-size 8"))


def test_model008_attention_dp_then_one_node() -> None:
    cp = "--enable-prefill-cp --cp-strategy interleave "
    # both refusals apply: the attention-DP assert comes first
    f = finding(lint(V4 + "--tp-size 16 --attn-dp-size 2 " + cp), "MODEL008")
    assert f.message.startswith("For round-robin split mode, dp attention is not supported.")
    f = finding(lint(V4 + "--tp-size 8 --dp-size 2 --enable-dp-attention " + cp, version="0.5.19"), "MODEL008")
    assert f.message.startswith("For round-robin split mode, dp attention is not supported.")
    f = finding(lint(V4 + "--tp-size 16 " + cp), "MODEL008")
    assert f.message.startswith("Context parallel only supports single machine (tp_size <= 8).")
    # attention DP with DP replicas: context_parallel_attn_dp_size asserts first, in PAR002's words
    assert "MODEL008" not in codes(lint(V4 + "--tp-size 8 --attn-dp-size 2 --dp-size 2 " + cp))


def test_model008_after_model003_and_the_rocm_checks() -> None:
    # MODEL003 (apply_deepseek_v4_defaults) refuses first: a speculative algorithm V4 does not take
    r = lint(V4 + "--tp-size 8 --enable-prefill-cp --speculative-algorithm NGRAM")
    assert "MODEL003" in codes(r) and "MODEL008" not in codes(r)
    # on ROCm, the HIP prefill-CP checks (out of kdacheck's scope) come before the DP and tp asserts
    assert "MODEL008" not in codes(lint(V4 + "--tp-size 16 --nnodes 2 --enable-prefill-cp --cp-strategy interleave", gpu="mi355x"))
    assert "MODEL008" in codes(lint(V4 + "--tp-size 16 --enable-prefill-cp --cp-strategy interleave", gpu="mi355x"))


def test_model009_kimi_k3_dcp_decode_backend_per_version(tmp_path: Path) -> None:
    k3 = _config(tmp_path, "kimi-linear-48b", architectures=["KimiK3ForConditionalGeneration"]) + "--tp-size 8 --dcp-size 8 "
    f = finding(lint(k3 + "--attention-backend flashinfer"), "MODEL009")
    assert f.message == "Decode attention backend for Kimi-K3 DCP must be 'cutedsl_mla' or 'aiter', got 'flashinfer'."
    # the decode backend wins over the base one (attention_backends_of)
    assert "MODEL009" not in codes(lint(k3 + "--attention-backend flashinfer --decode-attention-backend aiter"))
    assert "MODEL009" not in codes(lint(k3 + "--decode-attention-backend aiter", version="0.5.20"))
    f = finding(lint(k3 + "--decode-attention-backend aiter", version="0.5.19"), "MODEL009")
    assert f.message == "Decode attention backend for Kimi-K3 DCP must be 'cutedsl_mla' or 'tokenspeed_mla', got 'aiter'."
    f = finding(lint(k3 + "--decode-attention-backend flashinfer", version="0.5.21"), "MODEL009")
    assert f.message.startswith("Decode attention backend for Kimi-K3 DCP must be 'cutedsl_mla', 'tokenspeed_mla' or 'aiter'")
    assert "MODEL009" not in codes(lint(k3.replace("--dcp-size 8 ", "") + "--attention-backend flashinfer"))


def test_model009_dspark_needs_the_static_ragged_verify_mode(tmp_path: Path) -> None:
    from kdacheck.known_bugs import env_names
    from kdacheck.rules.model import RAGGED_ENV

    assert RAGGED_ENV in env_names()  # the readers keep the variable only because a table names it
    k3 = _config(tmp_path, "kimi-linear-48b", architectures=["KimiK3ForConditionalGeneration"])
    launch = k3 + "--tp-size 8 --dcp-size 8 --speculative-algorithm DSPARK --speculative-draft-model-path d "
    f = finding(lint(f"{RAGGED_ENV}=compact " + launch + "--attention-backend flashinfer"), "MODEL009")
    assert f.message.startswith("Kimi-K3 DCP + DSPARK currently requires SGLANG_RAGGED_VERIFY_MODE=static; compact/cap-accept are "
                                "not validated under DCP (got 'compact').")  # before the backend check
    assert "MODEL009" not in codes(lint(f"{RAGGED_ENV}=static " + launch))
    assert "MODEL009" not in codes(lint(launch))


QWEN4 = LAUNCH + str(ROOT / "tests" / "data" / "qwen4-exp-handmade" / "qwen4-exp") + " --tp-size 4 "
QWEN4_QSA = LAUNCH + str(ROOT / "tests" / "data" / "qwen4-exp-handmade" / "qwen4-exp-qsa") + " --tp-size 4 "


def test_model010_qwen4_exp_in_sglangs_order() -> None:
    mori = "--disaggregation-mode prefill --disaggregation-transfer-backend mori --pp-size 2 "
    f = finding(lint(QWEN4 + mori + "--enable-unified-memory"), "MODEL010")
    assert f.message.startswith("Qwen4-Exp PD with MORI requires --pp-size 1;")
    assert finding(lint(QWEN4 + "--enable-unified-memory"), "MODEL010").message == "Qwen4-Exp does not support --enable-unified-memory yet"
    assert "MODEL010" not in codes(lint(QWEN4 + "--disaggregation-mode prefill --pp-size 2"))  # mooncake
    assert "MODEL010" not in codes(lint(QWEN4 + "--enable-unified-memory", version="0.5.19"))  # no Qwen4-Exp override yet


def test_model010_fp8_qsa_indexer_gpu() -> None:
    fp8 = QWEN4 + "--qsa-indexer-dtype fp8_e4m3"
    f = finding(lint(fp8, gpu="rtx-pro-6000"), "MODEL010")
    assert f.message.startswith("--qsa-indexer-dtype fp8_e4m3 requires a CUDA SM90/SM100 GPU")
    assert "MODEL010" in codes(lint(fp8, gpu="mi355x"))  # not CUDA
    for gpu in ("h100", "b200"):  # the GPU passes; this checkpoint has no compressed QSA indexer
        assert finding(lint(fp8, gpu=gpu), "MODEL010").message.startswith("--qsa-indexer-dtype fp8_e4m3 requires the compressed QSA indexer")
        assert "MODEL010" not in codes(lint(QWEN4_QSA + "--qsa-indexer-dtype fp8_e4m3", gpu=gpu))
    assert finding(lint(fp8), "MODEL010").message.startswith("could not be checked")


def test_qwen4_exp_with_the_qsa_indexer_gets_page_64_whatever_the_page_size():
    """SGLang's verdicts: classes-0.5.23.jsonl 348-350 (page 64 with --page-size 16 too)."""
    for extra in ("", "--page-size 16 "):
        assert lint(QWEN4_QSA + extra, gpu="h100").resolved[0].v("page_size") == 64
    assert lint(QWEN4, gpu="h100").resolved[0].v("page_size") == 1


def test_model012_qsa_indexer_dtype_on_a_hybrid_without_the_indexer():
    f = finding(lint(LAUNCH + "Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4 --qsa-indexer-dtype bfloat16"), "MODEL012")
    assert f.message.startswith("--qsa-indexer-dtype bfloat16 needs a model with a compressed QSA indexer (Qwen4-Exp); this model has none")
    assert "MODEL012" in codes(lint(QWEN4 + "--qsa-indexer-dtype bfloat16"))  # Qwen4-Exp without the indexer: at the pool
    assert "MODEL012" not in codes(lint(QWEN4 + "--qsa-indexer-dtype fp8_e4m3", gpu="h100"))  # MODEL010 refuses first
    assert "MODEL012" not in codes(lint(QWEN4_QSA + "--qsa-indexer-dtype bfloat16"))
    assert "MODEL012" not in codes(lint(LAUNCH + "Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4 --qsa-indexer-dtype auto"))
    assert "MODEL012" not in codes(lint(LAUNCH + "meta-llama/Meta-Llama-3-8B-Instruct --qsa-indexer-dtype bfloat16"))  # no hybrid pool
    assert "MODEL012" not in codes(lint(LAUNCH + "Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4 --qsa-indexer-dtype bfloat16",
                                        version="0.5.21"))  # no such flag before 0.5.22 (ARG)


def test_model013_nemotron_h_modelopt_needs_relu2():
    swiglu = LAUNCH + str(ROOT / "tests" / "data" / "nemotron-h-handmade" / "swiglu") + " --tp-size 2 "
    f = finding(lint(swiglu + "--quantization modelopt_fp8"), "MODEL013")
    assert "mlp_hidden_act == 'relu2'" in f.message and "'silu'" in f.message
    assert "MODEL013" not in codes(lint(swiglu))  # no ModelOpt: the activation is not checked
    nano = LAUNCH + str(ROOT / "tests" / "data" / "models" / "nemotron-3-nano") + " --tp-size 2 "
    assert "MODEL013" not in codes(lint(nano + "--quantization modelopt_fp8"))  # relu2


def test_attn009_trtllm_mha_prefill_with_attention_cp_only_on_sm100() -> None:
    llama = LAUNCH + "meta-llama/Meta-Llama-3-8B-Instruct --tp-size 4 --attn-cp-size 2 "
    f = finding(lint(llama + "--attention-backend trtllm_mha", gpu="h200"), "ATTN009")
    assert f.message.startswith("Prefill context parallelism with the TRTLLM MHA prefill backend requires SM100 (trtllm-gen context "
                                "kernel): the SM90/SM120 fmha_v2 prefill path does not implement CP shard masking.")
    assert "ATTN009" in codes(lint(llama + "--attention-backend trtllm_mha", gpu="rtx-pro-6000"))
    assert "ATTN009" not in codes(lint(llama + "--attention-backend trtllm_mha", gpu="b200"))
    assert "ATTN009" not in codes(lint(llama + "--prefill-attention-backend fa3 --decode-attention-backend trtllm_mha", gpu="h200"))
    assert "ATTN009" not in codes(lint(llama.replace("--attn-cp-size 2 ", "") + "--attention-backend trtllm_mha", gpu="h200"))
    # GPU002 first: SM12x's FMHAv2 prefill takes no fp8_e4m3 KV cache; no trtllm_mha at all on ROCm
    r = lint(llama + "--attention-backend trtllm_mha --kv-cache-dtype fp8_e4m3", gpu="rtx-pro-6000")
    assert "GPU002" in codes(r) and "ATTN009" not in codes(r)
    r = lint(llama + "--attention-backend trtllm_mha", gpu="mi355x")
    assert "GPU002" in codes(r) and "ATTN009" not in codes(r)
    assert finding(lint(llama + "--attention-backend trtllm_mha"), "ATTN009").message.startswith("could not be checked")


def test_attn010_fp4_indexer_gpus_per_version() -> None:
    fp4 = V4 + "--tp-size 8 --enable-deepseek-v4-fp4-indexer"
    f = finding(lint(fp4, gpu="h200"), "ATTN010")
    assert f.message.startswith("--enable-deepseek-v4-fp4-indexer requires SM100, SM120, or gfx95 GPUs with FP4 indexer support.")
    for gpu in ("b200", "b300", "rtx-pro-6000", "gb10", "mi355x"):
        assert "ATTN010" not in codes(lint(fp4, gpu=gpu)), gpu
    assert "ATTN010" in codes(lint(fp4, gpu="mi300x"))  # gfx942
    old = finding(lint(fp4, gpu="mi355x", version="0.5.19"), "ATTN010")  # gfx95 only from 0.5.20
    assert old.message.startswith("--enable-deepseek-v4-fp4-indexer requires SM100 or SM120 GPUs with DeepGEMM FP4 indexer support.")
    assert finding(lint(fp4), "ATTN010").message.startswith("could not be checked")
    assert "ATTN010" not in codes(lint(V4 + "--tp-size 8", gpu="h200"))


QNEXT = LAUNCH + "Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4 --enable-linear-replayssm-spec "
CHAIN = "--speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4 "


def test_attn011_ragged_verify_mode_under_replayssm_spec() -> None:
    nextn = QNEXT + "--speculative-algorithm NEXTN " + CHAIN
    f = finding(lint("SGLANG_RAGGED_VERIFY_MODE=cap-accept " + nextn), "ATTN011")
    assert f.message == ("--enable-linear-replayssm-spec with SGLANG_RAGGED_VERIFY_MODE=cap-accept requires the KDA fold-every-commit "
                         "family (DSPARK/DFLASH) and a ring-writing verify kernel (--linear-attn-verify-backend triton or "
                         "nv_cutedsl); got algorithm='NEXTN', verify=None. Use SGLANG_RAGGED_VERIFY_MODE=static.")
    for env in ("", "SGLANG_RAGGED_VERIFY_MODE=static ", "SGLANG_RAGGED_VERIFY_MODE=bogus "):
        assert "ATTN011" not in codes(lint(env + nextn)), env
    # DFLASH with a triton verify writes the ring in the ragged layout; a flashinfer verify never does
    dflash = QNEXT + "--speculative-algorithm DFLASH --speculative-draft-model-path z-lab/Qwen3-8B-DFlash " + CHAIN
    assert "ATTN011" not in codes(lint("SGLANG_RAGGED_VERIFY_MODE=compact " + dflash + "--linear-attn-verify-backend triton"))
    assert "ATTN011" in codes(lint("SGLANG_RAGGED_VERIFY_MODE=compact " + dflash + "--linear-attn-verify-backend flashinfer"))
    # RSSM002's draft-tree refusal comes first
    tree = QNEXT + "--speculative-algorithm NEXTN --speculative-num-steps 3 --speculative-eagle-topk 4 --speculative-num-draft-tokens 8"
    r = lint("SGLANG_RAGGED_VERIFY_MODE=compact " + tree)
    assert "RSSM002" in codes(r) and "ATTN011" not in codes(r)


M3 = LAUNCH + str(ROOT / "tests" / "data" / "minimax-m3-handmade" / "m3-nvfp4") + " --tp-size 4 "
M3_TEXT = LAUNCH + str(ROOT / "tests" / "data" / "minimax-m3-handmade" / "m3-nvfp4-text") + " --tp-size 4 "


def test_model011_m3_nvfp4_speculation() -> None:
    assert finding(lint(M3 + "--speculative-algorithm EAGLE", gpu="b200"), "MODEL011").message == (
        "M3.1 NVFP4 only supports DSPARK or DFLASH speculation")
    dspark = "--speculative-algorithm DSPARK --speculative-draft-model-path d "
    assert finding(lint(M3_TEXT + dspark, gpu="b200"), "MODEL011").message == (
        "M3.1 NVFP4 DSPARK requires MiniMaxM3SparseForConditionalGeneration, got MiniMaxM3SparseForCausalLM")
    assert finding(lint(M3 + dspark, gpu="h200"), "MODEL011").message.startswith("M3.1 NVFP4 DSPARK requires Blackwell")
    assert finding(lint("SGLANG_RAGGED_VERIFY_MODE=compact " + M3 + dspark, gpu="b200"), "MODEL011").message == (
        "M3.1 NVFP4 DSPARK requires SGLANG_RAGGED_VERIFY_MODE=static")
    assert finding(lint(M3 + dspark + "--pp-size 2", gpu="b200"), "MODEL011").message == "M3.1 NVFP4 DSPARK requires PP=1"
    dflash = "--speculative-algorithm DFLASH --speculative-draft-model-path d --disaggregation-mode decode "
    assert finding(lint(M3 + dflash, gpu="b200"), "MODEL011").message == "M3.1 NVFP4 DFLASH currently requires colocated serving"
    assert "MODEL011" not in codes(lint(M3 + dspark, gpu="b200"))
    assert finding(lint(M3 + dspark), "MODEL011").message.startswith("could not be checked")


def test_model011_m3_nvfp4_page_and_kv_cache() -> None:
    assert finding(lint(M3 + "--page-size 64", gpu="h200"), "MODEL011").message == "M3.1 NVFP4 requires --page-size 128"
    assert finding(lint(M3 + "--kv-cache-dtype bfloat16", gpu="b200"), "MODEL011").message == (
        "M3.1 NVFP4 requires --kv-cache-dtype fp8_e4m3")
    assert "MODEL011" not in codes(lint(M3 + "--kv-cache-dtype bfloat16", gpu="h200"))  # off Blackwell: page 128, fa3, no KV check
    assert "MODEL011" not in codes(lint(M3 + "--kv-cache-dtype bfloat16 --moe-a2a-backend deepep", gpu="b200"))  # the a2a check first
    # --quantization given: not served as minimax_m3_nvfp4; before 0.5.23 no NVFP4 branch
    assert "MODEL011" not in codes(lint(M3 + "--kv-cache-dtype bfloat16 --quantization mxfp8", gpu="b200"))
    assert "MODEL011" not in codes(lint(M3 + "--kv-cache-dtype bfloat16", gpu="b200", version="0.5.22"))
