"""BUILD004: the prefill CUDA graphs' context size, page-aligned, within the model's context length."""

from __future__ import annotations

from tests.helpers import codes, lint


def test_build004_prefill_graph_context_positive_and_within_the_model():
    llama = "python -m sglang.launch_server --model-path meta-llama/Meta-Llama-3-8B-Instruct "
    (f,) = [f for f in lint(llama + "--cuda-graph-prefill-max-context 65536").findings if f.code == "BUILD004"]
    assert f.message.startswith("--cuda-graph-prefill-max-context exceeds the model context length: aligned size 65536 > 8192")
    (f,) = [f for f in lint(llama + "--cuda-graph-prefill-max-context 0").findings if f.code == "BUILD004"]
    assert f.message.startswith("--cuda-graph-prefill-max-context must be a positive integer")
    assert "BUILD004" not in codes(lint(llama + "--cuda-graph-prefill-max-context 8192"))
    # page-aligned first: 8,190 tokens at page 64 is 8,192 (fits); 8,193 is 8,256 (does not)
    assert "BUILD004" not in codes(lint(llama + "--page-size 64 --cuda-graph-prefill-max-context 8190"))
    assert "BUILD004" in codes(lint(llama + "--page-size 64 --cuda-graph-prefill-max-context 8193"))
    # a smaller --context-length is the model config's context_len
    assert "BUILD004" in codes(lint(llama + "--context-length 4096 --cuda-graph-prefill-max-context 8192"))
    assert "BUILD004" not in codes(lint(llama + "--cuda-graph-prefill-max-context 65536", version="0.5.20"))  # no such flag check


def test_json_model_override_args_update_the_derived_context():
    # SGLang passes --json-model-override-args to get_config before deriving the context length
    # (0.5.23 configs/model_config.py L612-626): a larger max_position_embeddings there allows a larger --context-length
    llama = "python -m sglang.launch_server --model-path meta-llama/Meta-Llama-3-8B-Instruct --context-length 131072 "
    (f,) = [f for f in lint(llama).findings if f.code == "BUILD002"]
    assert "(8192)" in f.message
    override = "--json-model-override-args '{\"max_position_embeddings\": 131072}' "
    assert "BUILD002" not in codes(lint(llama + override))
    r = lint(llama.replace("131072", "262144") + override)
    (f,) = [f for f in r.findings if f.code == "BUILD002"]
    assert "(131072)" in f.message and "after --json-model-override-args" in f.message
    # a key the derivation does not read, or not a JSON object, leaves it alone
    assert "BUILD002" in codes(lint(llama + "--json-model-override-args '{\"vocab_size\": 1}'"))
    plain = "python -m sglang.launch_server --model-path meta-llama/Meta-Llama-3-8B-Instruct "
    assert "BUILD004" not in codes(lint(plain + override + "--cuda-graph-prefill-max-context 65536"))


def test_build005_gptq_on_cuda_only_as_gptq_marlin() -> None:
    """SGLang's verdicts: classes-0.5.23.jsonl 351-353 (the asymmetric checkpoint and --quantization gptq refused as an
    unknown method, the symmetric one converted to gptq_marlin and started)."""
    from pathlib import Path

    from tests.helpers import finding

    gptq = Path(__file__).resolve().parents[2] / "tests" / "data" / "gptq-handmade"
    serve = "python -m sglang.launch_server --model-path "
    asym = finding(lint(serve + str(gptq / "llama-3-8b-gptq-asym")), "BUILD005")
    assert asym.message.startswith("Unknown quantization method: gptq.") and "sym false" in asym.message
    forced = finding(lint(serve + str(gptq / "llama-3-8b-gptq") + " --quantization gptq"), "BUILD005")
    assert "--quantization gptq keeps the plain method" in forced.message and "gptq_marlin" in (forced.fix or "")
    assert "BUILD005" not in codes(lint(serve + str(gptq / "llama-3-8b-gptq")))
    assert "BUILD005" not in codes(lint(serve + str(gptq / "llama-3-8b-gptq-asym"), version="0.5.19"))  # GPTQConfig on CUDA then
    # ROCm registers neither gptq nor gptq_marlin (read in the source: the CPU oracle simulates no ROCm GPU)
    rocm = finding(lint(serve + str(gptq / "llama-3-8b-gptq"), gpu="mi300x"), "BUILD005")
    assert rocm.message.startswith("gptq_marlin quantization is currently not supported in ROCm.")
    assert finding(lint(serve + str(gptq / "llama-3-8b-gptq-asym"), gpu="mi300x"), "BUILD005").message.startswith("Unknown quantization")


def test_build006_quantization_method_as_verify_quantization_decides() -> None:
    """SGLang's verdicts: classes-0.5.23.jsonl 354-360 (moe_wna16 and awq over an fp8 checkpoint refused, modelopt_fp4
    over it and humming accepted, mlx_q4 unknown on CUDA, fp8 on an unquantized model accepted, gptq asked for by
    name unknown: BUILD005)."""
    from tests.helpers import finding

    v32 = "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 --tp-size 8 --quantization "
    llama = "python -m sglang.launch_server --model-path meta-llama/Meta-Llama-3-8B-Instruct --quantization "
    for method in ("moe_wna16", "awq"):
        f = finding(lint(v32 + method, gpu="h200"), "BUILD006")
        assert f.message.startswith(f"Quantization method specified in the model config (fp8) does not match the quantization method "
                                    f"specified in the `quantization` argument ({method}).")
    for method in ("modelopt_fp4", "humming", "fp8", "quark_mxfp4"):  # paired, humming's override, the same, a requantization
        assert "BUILD006" not in codes(lint(v32 + method, gpu="h200"))
    assert finding(lint(llama + "mlx_q4", gpu="h100"), "BUILD006").message.startswith("Unknown quantization method: mlx_q4.")
    assert "BUILD006" in codes(lint(llama + "mlx_q4"))  # ROCm lacks it too: refused without --gpu
    assert "BUILD006" not in codes(lint(llama + "fp8", gpu="h100"))
    gptq = lint(llama + "gptq", gpu="h100")
    assert "BUILD005" in codes(gptq) and "BUILD006" not in codes(gptq)
    rocm = finding(lint(llama + "w8a8_int8", gpu="mi300x"), "BUILD006")  # registered on ROCm, not in its supported list
    assert rocm.message == "w8a8_int8 quantization is currently not supported in ROCm."
    assert "BUILD006" not in codes(lint(llama + "w8a8_int8", gpu="h100"))


def test_every_version_has_its_quantization_table() -> None:
    """Read from each wheel (benchmarks/sglang_diff/quantization_table.py): 0.5.19 registered plain gptq on CUDA,
    0.5.20+ only gptq_marlin; ROCm's list never holds gptq_marlin."""
    from kdacheck import versions
    from kdacheck.rules.build import quantization_table

    for v in versions.KNOWN:
        t = quantization_table(v)
        assert t["sglang_version"] == v and "fp8" in t["cuda"] and "gptq_marlin" in t["cuda"] and "gptq_marlin" not in t["rocm_listed"]
        assert ("gptq" in t["cuda"]) == (v == "0.5.19")
        assert "fp8" in t["compatible"]["modelopt_fp4"] and t["requantization"] == ["quark_mxfp4"]
