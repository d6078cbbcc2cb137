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
