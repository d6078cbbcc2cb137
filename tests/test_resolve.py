"""Resolution: every value with its provenance, the speculative derivation, the buffers."""

from __future__ import annotations

from pathlib import Path

from kdacheck.resolve import Event
from tests.helpers import KIMI, LAUNCH, resolved


def test_worked_figure_kimi_tp4_eagle_314() -> None:
    cfg = resolved(f"{KIMI} --tp-size 4 --speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4")
    assert cfg.v("R") == 48 and cfg["R"].origin == "derived"
    assert cfg["max_running_requests"].why == "SGLang default under speculative decoding"
    assert cfg.v("draft_tokens") == 4 and cfg["draft_tokens"].origin == "user"
    assert cfg.v("intermediate_ssm_shape") == [20, 49, 4, 8, 128, 128]
    assert cfg.v("intermediate_ssm_bytes") == 2_055_208_960
    assert cfg.v("ssm_dtype") == "float32"


def test_auto_choice_314_for_kimi_and_548_for_llama(tmp_path) -> None:  # type: ignore[no-untyped-def]
    cfg = resolved(f"{KIMI} --speculative-algorithm EAGLE")
    assert (cfg.v("steps"), cfg.v("topk"), cfg.v("draft_tokens")) == (3, 1, 4)
    assert "auto-chosen" in cfg["steps"].why
    (tmp_path / "config.json").write_text('{"architectures": ["LlamaForCausalLM"], "num_hidden_layers": 32}')
    cfg = resolved(f"{LAUNCH} --model-path {tmp_path} --speculative-algorithm EAGLE3")
    assert (cfg.v("steps"), cfg.v("topk"), cfg.v("draft_tokens")) == (5, 4, 8)


def test_topk1_forces_d_is_s_plus_1() -> None:
    cfg = resolved(f"{KIMI} --speculative-algorithm NEXTN --speculative-num-steps 2 --speculative-eagle-topk 1 --speculative-num-draft-tokens 8")
    assert cfg.v("speculative_algorithm") == "EAGLE"
    assert cfg.v("draft_tokens") == 3
    assert "topk 1 ⇒ steps + 1" in cfg["draft_tokens"].why
    assert Event.DRAFT_TOKENS_OVERRIDDEN in cfg.events


def test_ngram_derivation() -> None:
    cfg = resolved(f"{KIMI} --speculative-algorithm NGRAM")
    assert (cfg.v("topk"), cfg.v("draft_tokens"), cfg.v("steps")) == (10, 12, 1)


def test_dp_attention_splits_requests() -> None:
    cfg = resolved(f"{KIMI} --tp-size 8 --dp-size 2 --enable-dp-attention --speculative-algorithm EAGLE --max-running-requests 90")
    assert cfg.v("attn_dp_size") == 2 and cfg.v("attn_tp_size") == 4
    assert cfg.v("R") == 45
    assert cfg.v("row_map_len") == 48


def test_backends_kimi_b200_bf16() -> None:
    cfg = resolved(f"{KIMI} --speculative-algorithm EAGLE --mamba-ssm-dtype bfloat16", gpu="b200")
    assert cfg.v("decode_backend") == "triton"
    assert cfg.v("verify_backend") == "nv_cutedsl"
    assert cfg.v("ssm_dtype") == "bfloat16"


def test_backends_qwen_next_b200_bf16_flashinfer() -> None:
    cfg = resolved(f"{LAUNCH} --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --speculative-algorithm NEXTN --mamba-ssm-dtype bfloat16", gpu="b200")
    assert cfg.v("decode_backend") == "flashinfer"
    assert cfg.v("verify_backend") == "flashinfer"


def test_no_speculation_no_buffers() -> None:
    cfg = resolved(f"{KIMI} --tp-size 4")
    assert not cfg.v("spec_on")
    assert "intermediate_ssm_bytes" not in cfg


def test_unknown_model_has_no_geometry() -> None:
    cfg = resolved(f"{LAUNCH} --model-path some-org/some-model --speculative-algorithm EAGLE")
    assert cfg.model is None
    assert "intermediate_ssm_bytes" not in cfg


def test_local_model_folder_wins_over_preset(tmp_path) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "Kimi-Linear-48B-A3B-Instruct"
    folder.mkdir()
    (folder / "config.json").write_text(
        '{"architectures": ["KimiLinearForCausalLM"], "num_hidden_layers": 27,'
        ' "linear_attn_config": {"num_heads": 16, "head_dim": 64, "short_conv_kernel_size": 4, "kda_layers": [1, 2, 3]}}'
    )
    cfg = resolved(f"{LAUNCH} --model-path {folder} --speculative-algorithm EAGLE --tp-size 2")
    assert cfg.model is not None and cfg.model.source.startswith("config.json")
    assert cfg.v("intermediate_ssm_shape") == [3, 49, 4, 8, 64, 64]


def test_hf_cache_lookup(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    snap = tmp_path / "models--acme--Qwen3-Next-Tiny" / "snapshots" / "abc123"
    snap.mkdir(parents=True)
    (tmp_path / "models--acme--Qwen3-Next-Tiny" / "refs").mkdir()
    (tmp_path / "models--acme--Qwen3-Next-Tiny" / "refs" / "main").write_text("abc123")  # huggingface_hub: refs/main names the snapshot
    (snap / "config.json").write_text(
        '{"architectures": ["Qwen3NextForCausalLM"], "num_hidden_layers": 8, "full_attention_interval": 4,'
        ' "linear_num_key_heads": 4, "linear_num_value_heads": 8, "linear_key_head_dim": 32,'
        ' "linear_value_head_dim": 32, "linear_conv_kernel_dim": 4}'
    )
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    cfg = resolved(f"{LAUNCH} --model-path acme/Qwen3-Next-Tiny --speculative-algorithm NEXTN")
    assert cfg.model is not None and cfg.model.family == "gdn" and cfg.model.linear_layers == 6


def test_unknown_model_says_which_rules_could_not_be_checked() -> None:
    from tests.helpers import lint, only

    result = lint(f"{LAUNCH} --model-path /models/private-llm --speculative-algorithm EAGLE")
    (f,) = only(result, "MODEL001")  # one note under its own code, shown in every format (issue 24)
    assert f.severity.label == "info"
    assert "not checked (needs the model)" in f.message and "KDA001" in f.message and "MEM001" in f.message
    assert f.location.col == len(LAUNCH) + 2  # the --model-path flag
    assert not [x for x in result.findings if x.code != "MODEL001" and "needs the model" in x.message]


def test_gdn_tree_drafts_with_flashinfer_verify_are_not_refused() -> None:
    """SGLang 0.5.23 gdn_backend.py L505-512: tree drafts use the Triton verify even when the
    chain verify is FlashInfer; only KDA's backend refuses topk > 1 (kda_backend.py L507-511)."""
    from tests.helpers import lint

    spec = "--speculative-num-steps 3 --speculative-eagle-topk 4 --speculative-num-draft-tokens 8 --linear-attn-verify-backend flashinfer"
    qwen = lint(f"python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4 --speculative-algorithm NEXTN {spec}", gpu="h200")
    kimi = lint(f"python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --tp-size 4 --speculative-algorithm EAGLE {spec} --mamba-ssm-dtype bfloat16", gpu="b200")
    assert "KDA003" not in {f.code for f in qwen.findings}
    assert "KDA003" in {f.code for f in kimi.findings}


def test_dspark_gamma_comes_from_the_draft_checkpoint(tmp_path: Path) -> None:
    """SGLang 0.5.23 speculative_hook.py L796-834: without --speculative-dspark-block-size, gamma
    is the draft config's block size (dspark_config.py:295), and D must be gamma + 1."""
    from tests.helpers import lint

    (tmp_path / "draft").mkdir()
    (tmp_path / "draft" / "config.json").write_text('{"architectures": ["DSparkDraft"], "block_size": 16}')
    base = f"python -m sglang.launch_server --model-path Qwen/Qwen3-8B --speculative-algorithm DSPARK --speculative-draft-model-path {tmp_path / 'draft'}"
    bad = lint(base + " --speculative-num-draft-tokens 8")
    assert "SPEC009" in {f.code for f in bad.findings if f.severity.label == "error"}
    good = lint(base)
    assert good.resolved[0].v("draft_tokens") == 17 and good.resolved[0].vals["dspark_gamma"].origin == "model"


def test_dspark_without_a_draft_is_an_error_when_the_checkpoint_is_read(tmp_path: Path) -> None:
    """L720-755: no draft path and no DSpark draft in the target checkpoint (a dspark_* key or a
    dspark/config.json beside it) raises; a preset or Hub id cannot tell, so it stays a warning."""
    import json

    from tests.helpers import lint

    root = Path(__file__).resolve().parent.parent
    target = tmp_path / "target"
    target.mkdir()
    (target / "config.json").write_text((root / "tests/data/models/llama-3-8b/config.json").read_text())
    cmd = "python -m sglang.launch_server --model-path meta-llama/Meta-Llama-3-8B --speculative-algorithm DSPARK"
    sev = {f.severity.label for f in lint(cmd, model=str(target)).findings if f.code == "SPEC014"}
    assert sev == {"error"}
    (target / "dspark").mkdir()
    (target / "dspark" / "config.json").write_text(json.dumps({"block_size": 7}))
    assert "SPEC014" not in {f.code for f in lint(cmd, model=str(target)).findings}
    assert {f.severity.label for f in lint(cmd).findings if f.code == "SPEC014"} <= {"warning"}


def test_no_buffer_with_a_default_trtllm_mha_starts() -> None:
    """mamba_hook.py:156-165 runs before the default backend fill (pipeline.py L225 < L242):
    only a trtllm_mha the user or a model override set is refused."""
    from tests.helpers import lint

    base = ("python -m sglang.launch_server --model-path nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16 --tp-size 2 "
            "--mamba-radix-cache-strategy no_buffer --disable-overlap-schedule")
    assert "RADIX002" not in {f.code for f in lint(base + " --decode-attention-backend fa3", gpu="b200").findings}
    assert "RADIX002" in {f.code for f in lint(base, gpu="b200").findings}


def test_dflash_refuses_dp_attention_before_0_5_23() -> None:
    """0.5.21 speculative_hook.py L273-278 refuses DFLASH with DP attention on CUDA whatever
    --enable-dp-lm-head says; 0.5.23 L303-317 asks for --enable-dp-lm-head instead."""
    from tests.helpers import lint

    cmd = ("python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp-size 2 --dp-size 2 --enable-dp-attention "
           "--enable-dp-lm-head --speculative-algorithm DFLASH --speculative-draft-model-path x")
    old = [f.message for f in lint(cmd, version="0.5.21").findings if f.code == "SPEC014"]
    assert old == ["Currently DFLASH speculative decoding does not support dp attention on non-NPU devices."]
    assert "SPEC014" not in {f.code for f in lint(cmd, version="0.5.23").findings}


def test_extra_buffer_lazy_is_refused_under_pd() -> None:
    """0.5.23 mamba_hook.py L125-128 (validate_mamba_extra_buffer, in the model hook)."""
    from tests.helpers import lint

    base = ("python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --tp-size 8 "
            "--mamba-radix-cache-strategy extra_buffer_lazy")
    pd = [f.message for f in lint(base + " --disaggregation-mode prefill", gpu="b200").findings if f.code == "RADIX001"]
    assert pd and pd[0].startswith("extra_buffer_lazy unsupported under PD disaggregation")
    assert "RADIX001" not in {f.code for f in lint(base, gpu="b200").findings}


# ---- the resolution classes of issue 22, each with its SGLang 0.5.23 place --------------------

MODELS = Path(__file__).resolve().parent.parent / "benchmarks" / "sglang_diff" / "models"
QWEN35 = f"{LAUNCH} --model-path {MODELS / 'qwen3.5-27b'}"


def test_qwen35_vision_tower_reduces_the_memory_fraction() -> None:
    # SGLang 0.5.23 srt/arg_groups/memory_hook.py L331-337, L417-462 adjust_mem_fraction_for_vlm:
    # mfs × 0.95 × clamp(1 − 0.1 · (layers · hidden² / (24 · 1024²) − 1), 0.8, 1.05); Qwen3.5's
    # vision_config has `depth`, not num_hidden_layers, so SGLang reads 24 layers × 1152 hidden.
    # SGLang's own value for this launch: tests/data/sglang-golden/classes-0.5.23.jsonl case 000.
    vlm = resolved(QWEN35, gpu="h200")
    assert vlm.model is not None and vlm.model.vision == (24, 1152)
    assert vlm.v("mem_fraction_static") == 0.835063359375  # 0.903 × 0.95 × (1 − 0.1 · (1152²/1024² − 1))
    assert "vision-tower" in vlm["mem_fraction_static"].why
    # is_vlm excludes a PD decode server (memory_hook.py L283-288)
    decode = resolved(f"{QWEN35} --disaggregation-mode decode", gpu="h200")
    assert "vision-tower" not in decode["mem_fraction_static"].why


def test_pd_prefill_server_has_no_decode_graph_cap() -> None:
    # cuda_graph_hook.py L557-567 apply_cuda_graph_disaggregation_roles: a prefill server's decode
    # graphs are disabled unless --cuda-graph-backend-decode names one; ServerArgs keeps max_bs
    # (memory_hook.py L89-165: 256 on an H200 at tp 1).
    cfg = resolved(f"{KIMI} --disaggregation-mode prefill", gpu="h200")
    assert cfg.v("decode_graph_max_bs") is None and cfg.v("sglang_decode_graph_max_bs") == 256
    kept = resolved(f"{KIMI} --disaggregation-mode prefill --cuda-graph-backend-decode full", gpu="h200")
    assert kept.v("decode_graph_max_bs") == 256


def test_radix001_reads_the_page_size_the_qwen_sm100_override_writes() -> None:
    # model_hook.py L225 and L737 both run validate_mamba_extra_buffer (mamba_hook.py L115-139);
    # the second sees model_overrides/qwen3_5.py's page size: trtllm_mha and page 64 on SM100 when
    # the launch gives topk 1 (model_override_base.py L277 get_default_attn_backend).
    spec = "--speculative-algorithm NEXTN --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4"
    qwen = f"{LAUNCH} --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4 {spec}"
    cfg = resolved(f"{qwen} --mamba-track-interval 100", gpu="b200")
    assert cfg.v("page_after_overrides") == 64
    from tests.helpers import codes, lint

    assert "RADIX001" in codes(lint(f"{qwen} --mamba-track-interval 100", gpu="b200"))
    assert "RADIX001" not in codes(lint(f"{qwen} --mamba-track-interval 128", gpu="b200"))


def test_fa4_forces_page_128_on_sm100_for_a_non_mla_model() -> None:
    # overrides.py L1274-1296 _fa4_page_constraint (attention_hook.py L241): SM100, not MLA, topk ≤ 1
    llama = f"{LAUNCH} --model-path meta-llama/Meta-Llama-3-8B-Instruct --attention-backend fa4"
    assert resolved(llama, gpu="b200").v("page_size") == 128
    assert resolved(f"{llama} --page-size 16", gpu="b200").v("page_size") == 128
    assert resolved(llama, gpu="h200").v("page_size") == 1
    tree = f"{llama} --speculative-algorithm EAGLE3 --speculative-draft-model-path d --speculative-num-steps 3 --speculative-eagle-topk 2 --speculative-num-draft-tokens 6"
    assert resolved(tree, gpu="b200").v("page_size") == 1


def test_radix003_is_silent_where_the_radix_cache_is_off() -> None:
    # model_hook.py L1062-1066 via model_override_base.py L260 mamba_extra_buffer_of (disable_radix_cache
    # is False); a PD decode server turns the radix cache off (pd_disaggregation_hook.py)
    dense = f"{LAUNCH} --model-path meta-llama/Meta-Llama-3-8B-Instruct --mamba-radix-cache-strategy extra_buffer"
    assert Event.EXTRA_BUFFER_WITHOUT_MAMBA in resolved(dense).events
    assert Event.EXTRA_BUFFER_WITHOUT_MAMBA not in resolved(f"{dense} --disaggregation-mode decode").events
    assert Event.EXTRA_BUFFER_WITHOUT_MAMBA not in resolved(f"{dense} --disable-radix-cache").events


def test_dsa_backends_and_the_tilelang_fp8_pairing() -> None:
    # overrides.py L600-733 _dsa_split_backend_resolution and L550-583 _check_dsa_backend_constraints
    ds = f"{LAUNCH} --model-path deepseek-ai/DeepSeek-V3.2 --tp-size 8"
    assert resolved(ds, gpu="h200").v("dsa_backends") == ("flashmla_sparse", "fa3")
    assert resolved(ds, gpu="b200").v("dsa_backends") == ("trtllm", "trtllm")
    assert resolved(f"{ds} --kv-cache-dtype fp8_e4m3", gpu="h200").v("dsa_backends") == ("flashmla_kv", "flashmla_kv")
    one = resolved(f"{ds} --kv-cache-dtype fp8_e4m3 --dsa-prefill-backend tilelang", gpu="h200")
    assert "both DSA backends to be tilelang" in one.v("dsa_backend_problem")
    both = resolved(f"{ds} --kv-cache-dtype fp8_e4m3 --dsa-prefill-backend tilelang --dsa-decode-backend tilelang", gpu="h200")
    assert both.v("dsa_backend_problem") is None
    assert "ROCm" in resolved(f"{ds} --dsa-decode-backend triton", gpu="h200").v("dsa_backend_problem")


def test_spec010_zero_counts_are_a_warning_the_ngram_division_an_error() -> None:
    # speculative_hook.py _handle_eagle_family has no positivity check (SGLang's resolution starts);
    # L1324-1330 divides the draft tokens by the NGRAM breadth when steps are unset.
    from tests.helpers import lint

    zero = lint(f"{KIMI} --speculative-algorithm EAGLE --speculative-num-steps 0 --speculative-eagle-topk 1 --speculative-num-draft-tokens 1")
    assert {f.severity.label for f in zero.findings if f.code == "SPEC010"} == {"warning"}
    llama = f"{LAUNCH} --model-path meta-llama/Meta-Llama-3-8B-Instruct --speculative-algorithm NGRAM --speculative-ngram-max-bfs-breadth 0"
    assert {f.severity.label for f in lint(llama).findings if f.code == "SPEC010"} == {"error"}
    assert {f.severity.label for f in lint(f"{llama} --speculative-num-steps 2").findings if f.code == "SPEC010"} == {"warning"}


def test_pp_eagle_off_a_prefill_node_and_the_overlap_schedule() -> None:
    # validation_hook.py L160-164 (SGLANG_ENABLE_PP_SPEC unset); overrides.py L1623-1628
    from tests.helpers import codes, lint

    eagle = (f"{LAUNCH} --model-path meta-llama/Meta-Llama-3-8B-Instruct --pp-size 2 --speculative-algorithm EAGLE "
             "--speculative-draft-model-path d --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4")
    r = lint(eagle)
    assert "PAR003" in codes(r) and "SGLANG_ENABLE_PP_SPEC" in next(f.message for f in r.findings if f.code == "PAR003")
    assert "PAR003" not in codes(lint(f"{eagle} --disaggregation-mode prefill"))
    assert r.resolved[0].v("disable_overlap_schedule") is True


def test_fp4_kv_backend_lists_and_nvfp4_prefill() -> None:
    # kv_cache_hook.py L112-318 handle_kv4_compatibility; L24-97 handle_nvfp4_prefill_kv_dequant_dtype
    from tests.helpers import codes, lint

    qwen = f"{LAUNCH} --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4 --kv-cache-dtype fp4_mx_block16"
    assert "ATTN005" in codes(lint(f"{qwen} --attention-backend fa3", gpu="h200"))
    assert "ATTN005" not in codes(lint(f"{qwen} --attention-backend triton", gpu="h200"))
    llama = f"{LAUNCH} --model-path meta-llama/Meta-Llama-3-8B-Instruct --kv-cache-dtype nvfp4"
    cfg = resolved(llama, gpu="b200")
    assert (cfg.v("prefill_attention_backend"), cfg.v("decode_attention_backend")) == ("trtllm_mha", "trtllm_mha")
    assert "ATTN005" not in codes(lint(llama, gpu="b200"))
    assert "ATTN005" in codes(lint(f"{llama} --attention-backend fa3", gpu="b200"))
    assert "ATTN005" in codes(lint(f"{llama} --speculative-algorithm DFLASH --speculative-draft-model-path d", gpu="b200"))
    assert "ATTN005" in codes(lint(f"{LAUNCH} --model-path meta-llama/Meta-Llama-3-8B-Instruct --prefill-kv-cache-dequant-dtype fp8_e4m3", gpu="b200"))


def test_sglang_fields_stay_null_where_sglang_leaves_them() -> None:
    # attention_hook.py L281-330: the decode/verify fields are declared only on SM100 + bf16 SSM or for
    # flashkda; fields/schedule.py L220-226: mamba_full_memory_ratio falls back to 0.9.
    from kdacheck.report.values import layers

    shown = layers(resolved(f"{KIMI} --tp-size 4", gpu="h200"))
    assert shown["sglang.linear_attn_decode_backend"][1] is None and shown["kdacheck.decode_backend"][1] == "triton"
    assert shown["sglang.linear_attn_verify_backend"][1] is None and shown["kdacheck.verify_backend"][1] == "triton"
    assert shown["sglang.mamba_ssm_dtype"][1] is None and shown["kdacheck.ssm_dtype"][1] == "float32"
    assert shown["sglang.mamba_full_memory_ratio"][1] == 0.9
    spec = layers(resolved(f"{KIMI} --tp-size 4 --speculative-algorithm EAGLE", gpu="h200"))
    assert spec["sglang.linear_attn_verify_backend"][1] == "nv_cutedsl"  # kimi_k3_hook.py L28-33


def test_deepep_reserves_in_the_memory_fraction() -> None:
    # memory_hook.py L396-409 reserve_for_deepep_a2a_mb: 2 GiB above the 10 GiB floor with decode graphs;
    # SGLang's own value: tests/data/sglang-golden/0.5.23.jsonl case 0.5.23-s3-00548 (0.836)
    base = (f"{LAUNCH} --model-path meta-llama/Meta-Llama-3-8B-Instruct --tensor-parallel-size 3 --speculative-algorithm STANDALONE "
            "--speculative-num-steps 0 --speculative-eagle-topk 3 --speculative-num-draft-tokens 34 --disaggregation-mode=decode")
    assert resolved(f"{base} --moe-a2a-backend deepep", gpu="b200").v("mem_fraction_static") == 0.836
    assert resolved(base, gpu="b200").v("mem_fraction_static") > 0.836 + 2048 / 183359 - 0.001  # the 2 GiB, no more


QWEN_NEXT = "python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4 "
NEXTN_CHAIN = "--speculative-algorithm NEXTN --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4 "


def test_aiter_scales_the_static_fraction_above_8192_tokens_of_context() -> None:
    # attention_hook.py L244-268: × 0.85, a given fraction too (SGLANG_AITER_HONOR_EXPLICIT_MEM_FRACTION off)
    cfg = resolved(QWEN_NEXT + "--attention-backend aiter --mem-fraction-static 0.8", gpu="mi300x")
    assert abs(cfg.v("mem_fraction_static") - 0.8 * 0.85) < 1e-12 and "0.85" in cfg["mem_fraction_static"].why
    short = resolved(QWEN_NEXT + "--attention-backend aiter --mem-fraction-static 0.8 --context-length 8192", gpu="mi300x")
    assert short.v("mem_fraction_static") == 0.8
    assert resolved(QWEN_NEXT + "--attention-backend triton --mem-fraction-static 0.8", gpu="mi300x").v("mem_fraction_static") == 0.8
    default = resolved(QWEN_NEXT + "--attention-backend triton", gpu="mi300x").v("mem_fraction_static")
    assert abs(resolved(QWEN_NEXT + "--attention-backend aiter", gpu="mi300x").v("mem_fraction_static") - default * 0.85) < 1e-12


def test_replayssm_spec_declares_a_float32_ssm_dtype() -> None:
    # attention_hook.py L506-516: no --mamba-ssm-dtype given ⇒ SGLang's own field float32
    cfg = resolved(QWEN_NEXT + NEXTN_CHAIN + "--enable-linear-replayssm-spec", gpu="h200")
    assert (cfg.v("mamba_ssm_dtype"), cfg.v("ssm_dtype")) == ("float32", "float32")
    given = resolved(QWEN_NEXT + NEXTN_CHAIN + "--enable-linear-replayssm-spec --mamba-ssm-dtype bfloat16", gpu="h200")
    assert (given.v("mamba_ssm_dtype"), given.v("ssm_dtype")) == ("bfloat16", "bfloat16")
    assert resolved(QWEN_NEXT + NEXTN_CHAIN, gpu="h200").v("mamba_ssm_dtype") is None
