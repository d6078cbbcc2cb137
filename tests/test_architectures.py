"""Every hybrid and DSA architecture SGLang 0.5.23 registers has an entry, and each config class's
reader counts as SGLang's class does.

The architecture names are SGLang 0.5.23's: the ``EntryClass`` of each ``srt/models/`` module
whose config class ``srt/configs/hybrid_arch.py`` claims (``hybrid_gdn_config``,
``mamba2_config``, ``kimi_linear_config``, ``glm5_next_config``, ``hybrid_lightning_config``),
GigaChat 3.5's ``register_linear_attn_model`` (``configs/gigachat35.py`` L241-253) and
``configs/model_config.py`` L191-212 ``is_deepseek_dsa``. Each expected count below is worked
from the config in the test and the SGLang formula cited beside it, never from kdacheck.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kdacheck import architectures, model_config
from kdacheck.findings import Severity
from kdacheck.models import Family
from tests.helpers import codes, finding, lint_ok

LAUNCH = "python -m sglang.launch_server"
SPEC = "--speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4"

SGLANG_HYBRIDS = {
    "gdn": ("Qwen3NextForCausalLM", "Qwen3_5MoeForConditionalGeneration", "Qwen3_5ForConditionalGeneration",  # models/qwen3_next.py, qwen3_5.py
            "InternS2PreviewForConditionalGeneration", "InternS2MobiusForConditionalGeneration",  # interns2preview.py, interns2_mobius.py
            "JetNemotronForCausalLM", "JetVLMForConditionalGeneration",  # jet_nemotron.py, jet_vlm.py
            "GigaChat35ForCausalLM", "GigaChat35ForCausalLMNextN",  # configs/gigachat35.py arch_names
            "Qwen4ExpForConditionalGeneration"),  # configs/qwen4_exp.py: Qwen4ExpTextConfig(Qwen3NextConfig)
    "kda": ("KimiLinearForCausalLM", "KimiK3ForConditionalGeneration", "KimiK3LinearForCausalLM",  # kimi_linear.py, kimi_k3.py
            "Glm5NextForConditionalGeneration"),  # glm5_next.py (glm5_next_config)
    "kda|lightning": ("BailingMoeV2_5ForCausalLM", "BailingMoeV3ForCausalLM", "BailingMoeV3VLForConditionalGeneration"),
    "lightning": ("MiniCPMSALAForCausalLM",),  # minicpm.py (MiniCPMHybridConfig)
    "mamba2": ("NemotronHForCausalLM", "NemotronHPuzzleForCausalLM", "NemotronH_Nano_VL_V2", "NemotronH_Nano_Omni_Reasoning_V3",
               "NemotronH_Omni_Reasoning_V3", "FalconH1ForCausalLM", "GraniteMoeHybridForCausalLM",
               "ZayaForCausalLM", "MambaForCausalLM", "Mamba2ForCausalLM",
               "FalconMambaForCausalLM", "InklingForConditionalGeneration", "InklingForConditionalGenerationMTP"),
    # mamba2_config's short-conv classes (configs/lfm2.py, lfm2_moe.py, lfm2_vl.py; ShortConvAttnBackend)
    "conv": ("Lfm2ForCausalLM", "Lfm2MoeForCausalLM", "Lfm2VlForConditionalGeneration"),
    "dsa": ("DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM", "DeepseekV3ForCausalLMNextN", "MistralLarge3ForCausalLM",
            "PixtralForConditionalGeneration", "GlmMoeDsaForCausalLM", "GlmMoeDsaForCausalLMNextN",
            "Glm5NextForConditionalGenerationNextN", "LongcatFlashForCausalLM", "LongcatFlashForCausalLMNextN",
            "Dots3NoteForCausalLM", "Dots3NoteForCausalLMNextN", "HYV4ForCausalLM", "HYV4ForCausalLMNextN"),
}


@pytest.mark.parametrize(("fams", "name"), [(f, n) for f, names in SGLANG_HYBRIDS.items() for n in names])
def test_every_hybrid_and_dsa_architecture_has_an_entry_with_its_families(fams: str, name: str) -> None:
    entry = architectures.lookup(name)
    assert set(fams.split("|")) <= set(entry.families), (name, entry.families)
    assert entry.mirrors.startswith("0.5.")
    if fams == "dsa":
        assert entry.dsa


def test_minimax_m2_is_known_as_full_attention() -> None:
    entry = architectures.lookup("MiniMaxM2ForCausalLM")  # models/minimax_m2.py: no hybrid_arch.py class
    assert entry.mirrors.startswith("0.5.") and not entry.families and not entry.has_state


def read(tmp_path: Path, config: dict[str, Any]) -> Any:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    return model_config.read(path, "acme/x")


def test_bailing_with_a_short_conv_is_kda_counted_by_layer_group_size(tmp_path: Path) -> None:
    # bailing_hybrid.py L158 use_kda = short_conv_kernel_size is not None; L171-185 layer l full iff (l + 1) % 4 == 0
    m = read(tmp_path, {"architectures": ["BailingMoeV3ForCausalLM"], "model_type": "bailing_hybrid", "num_hidden_layers": 8,
                        "layer_group_size": 4, "num_attention_heads": 16, "head_dim": 128, "short_conv_kernel_size": 4})
    assert (m.family, m.num_layers, m.linear_layers, m.linear_v_heads, m.linear_v_dim, m.conv_kernel) == (Family.KDA, 8, 6, 16, 128, 4)
    # L186-193: a list marks each linear layer with 1
    m = read(tmp_path, {"architectures": ["BailingMoeV3ForCausalLM"], "model_type": "bailing_hybrid", "num_hidden_layers": 4,
                        "layer_group_size": [1, 1, 0, 1], "num_attention_heads": 8, "hidden_size": 1024, "head_dim": None,
                        "short_conv_kernel_size": 4})
    assert (m.linear_layers, m.linear_v_dim) == (3, 128)  # L129: head_dim or hidden_size // num_attention_heads = 1024 // 8


def test_bailing_without_a_short_conv_is_lightning_state_not_modelled(tmp_path: Path) -> None:
    m = read(tmp_path, {"architectures": ["BailingMoeV2_5ForCausalLM"], "model_type": "bailing_hybrid", "num_hidden_layers": 8})
    assert m.family is Family.LIGHTNING and m.unmodelled


def test_glm5_next_counts_kda_layers_from_zero(tmp_path: Path) -> None:
    # glm5_next.py L245-256: layer_idx in linear_attn_config["kda_layers"] for layer_idx in range(num_hidden_layers)
    m = read(tmp_path, {"architectures": ["Glm5NextForConditionalGeneration"], "model_type": "glm5_next",
                        "text_config": {"model_type": "glm5_next_text", "num_hidden_layers": 6, "linear_attn_config": {
                            "num_heads": 8, "head_dim": 64, "short_conv_kernel_size": 4, "kda_layers": [0, 1, 3, 4, 6]}}})
    assert (m.family, m.linear_layers, m.linear_v_heads, m.linear_v_dim) == (Family.KDA, 4, 8, 64)
    assert architectures.lookup(m.architecture).dsa  # is_deepseek_dsa lists it too


def test_kimi_k3_reads_its_text_config_as_kimi_linear(tmp_path: Path) -> None:
    # kimi_k3.py L84-97: text_config is a KimiLinearConfig; kimi_linear.py L158-161: (layer_idx + 1) in kda_layers
    m = read(tmp_path, {"architectures": ["KimiK3ForConditionalGeneration"], "model_type": "kimi_k3", "text_config": {
        "num_hidden_layers": 3, "linear_attn_config": {"num_heads": 4, "head_dim": 32, "short_conv_kernel_size": 4, "kda_layers": [1, 2]}}})
    assert (m.family, m.num_layers, m.linear_layers) == (Family.KDA, 3, 2)


def test_jet_nemotron_geometry(tmp_path: Path) -> None:
    # jet_nemotron.py L51-83: "jet" layers; heads = groups = num_heads, N = head_dim, P = int(head_dim * expand_v), I = H * P
    m = read(tmp_path, {"architectures": ["JetNemotronForCausalLM"], "model_type": "jet_nemotron", "layer_types": ["jet", "attn", "jet", "swa"],
                        "efficient_attention_config": {"jet": {"num_heads": 12, "head_dim": 96, "expand_v": 2.0, "conv_size": 4}}})
    assert (m.family, m.num_layers, m.linear_layers) == (Family.GDN, 4, 2)
    assert (m.linear_k_heads, m.linear_v_heads, m.linear_k_dim, m.linear_v_dim, m.intermediate) == (12, 12, 96, 192, 12 * 192)


def test_gigachat_layer_types_and_full_attention_layers(tmp_path: Path) -> None:
    base = {"architectures": ["GigaChat35ForCausalLM"], "model_type": "gigachat3_5", "num_hidden_layers": 4, "linear_num_key_heads": 4,
            "linear_num_value_heads": 8, "linear_key_head_dim": 64, "linear_value_head_dim": 64, "linear_conv_kernel_dim": 4}
    # gigachat35.py L157-178: layer_types first (attention / full_attention are full), else all linear but full_attention_layers
    m = read(tmp_path, {**base, "layer_types": ["linear_attention", "attention", "full_attention", "linear_attention"]})
    assert (m.family, m.linear_layers) == (Family.GDN, 2)
    assert read(tmp_path, {**base, "full_attention_layers": [1, 3]}).linear_layers == 2
    assert read(tmp_path, base).linear_layers == 4


def test_interns2_preview_is_gdn_through_its_text_config(tmp_path: Path) -> None:
    m = read(tmp_path, {"architectures": ["InternS2PreviewForConditionalGeneration"], "model_type": "intern_s2_preview",
                        "text_config": {"model_type": "qwen3_5_moe_text", "num_hidden_layers": 8, "full_attention_interval": 4,
                                        "linear_num_key_heads": 4, "linear_num_value_heads": 8, "linear_key_head_dim": 64,
                                        "linear_value_head_dim": 64}})
    assert (m.family, m.linear_layers) == (Family.GDN, 6)  # qwen3_next.py: (l + 1) % 4 == 0 is full attention


def test_interns2_composes_the_qwen3_5_override_with_its_own_entry(tmp_path: Path) -> None:
    """0.5.23 model_overrides/qwen3_5.py registers its override for InternS2 too: on SM100 with
    no attention backend, a plain launch gets triton at page 1 (its own entry keeps its traits)."""
    cfg = {"architectures": ["InternS2PreviewForConditionalGeneration"], "model_type": "intern_s2_preview",
           "text_config": {"model_type": "qwen3_5_moe_text", "num_hidden_layers": 8, "full_attention_interval": 4,
                           "linear_num_key_heads": 4, "linear_num_value_heads": 8, "linear_key_head_dim": 64,
                           "linear_value_head_dim": 64, "num_attention_heads": 8, "num_key_value_heads": 2, "head_dim": 64,
                           "hidden_size": 512}}
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    entry = architectures.lookup("InternS2PreviewForConditionalGeneration")
    assert len(entry.overrides) == 1 and entry.extra_buffer and entry.mamba_radix_cache
    r = lint_ok(f"{LAUNCH} --model-path {tmp_path} --page-size 16", gpu="b200").resolved[0]
    assert (r.v("attention_backend"), r.v("page_size")) == ("triton", 1), r["attention_backend"].why


def test_nemotron_h_nano_vl_reads_its_llm_config(tmp_path: Path) -> None:
    # hybrid_arch.py mamba2_config: NemotronH_Nano_VL_V2_Config -> config.llm_config (a NemotronHConfig)
    m = read(tmp_path, {"architectures": ["NemotronH_Nano_VL_V2"], "model_type": "NemotronH_Nano_VL_V2", "llm_config": {
        "model_type": "nemotron_h", "hybrid_override_pattern": "M*M-ME", "mamba_num_heads": 16, "mamba_head_dim": 64, "n_groups": 2,
        "ssm_state_size": 128, "conv_kernel": 4}})
    assert (m.family, m.num_layers, m.linear_layers, m.linear_v_heads) == (Family.MAMBA2, 6, 3, 16)


def test_granite_without_mamba_layers_is_full_attention(tmp_path: Path) -> None:
    # hybrid_arch.py mamba2_config: GraniteMoeHybridConfig with no "mamba" in layer_types is not a mamba config
    m = read(tmp_path, {"architectures": ["GraniteMoeHybridForCausalLM"], "model_type": "granitemoehybrid", "num_hidden_layers": 2,
                        "layer_types": ["attention", "attention"]})
    assert m.family is Family.OTHER


def test_minicpm_is_lightning_only_with_a_lightning_layer(tmp_path: Path) -> None:
    # minicpm.py L187-189 has_lightning_layers; hybrid_arch.py hybrid_lightning_config
    base = {"architectures": ["MiniCPMSALAForCausalLM"], "model_type": "minicpm_sala", "num_hidden_layers": 2}
    assert read(tmp_path, {**base, "mixer_types": ["minicpm4", "lightning-attn"]}).family is Family.LIGHTNING
    assert read(tmp_path, {**base, "mixer_types": ["minicpm4", "minicpm4"]}).family is Family.OTHER


def test_minicpm_reads_every_mixer_type_spelling_sglang_accepts(tmp_path: Path) -> None:
    # configs/minicpm.py L6-15 _MIXER_TYPE_ALIASES ("lightning", "lightning_attn" -> "lightning-attn";
    # "attn", "standard", ... -> "minicpm4"); L181-184 has_minicpm_sparse_attention: sparse_config and a minicpm4 layer
    base = {"architectures": ["MiniCPMSALAForCausalLM"], "model_type": "minicpm_sala", "num_hidden_layers": 2}
    m = read(tmp_path, {**base, "mixer_types": ["attn", "lightning"], "sparse_config": {"topk": 64}})
    assert m.family is Family.LIGHTNING and m.sparse_attention
    m = read(tmp_path, {**base, "mixer_types": ["lightning_attn", "lightning_attn"], "sparse_config": {"topk": 64}})
    assert m.family is Family.LIGHTNING and not m.sparse_attention  # no minicpm4 layer
    assert read(tmp_path, {**base, "mixer_types": ["standard", "attention"]}).family is Family.OTHER


def test_the_public_minicpm_sala_config_is_lightning_and_says_its_state_is_not_modelled() -> None:
    # tests/data/models/minicpm-sala (SOURCES.md there): 32 mixer_types, 24 "lightning-attn";
    # minicpm.py L187-189 has_lightning_layers -> hybrid_arch.py hybrid_lightning_config
    folder = Path(__file__).parent / "data" / "models" / "minicpm-sala"
    m = model_config.read(folder / "config.json", str(folder))
    assert (m.architecture, m.family, m.num_layers) == ("MiniCPMSALAForCausalLM", Family.LIGHTNING, 32)
    r = lint_ok(f"{LAUNCH} --model-path {folder} --tp-size 2 {SPEC}")
    assert finding(r, "MODEL001").message.startswith("state not modelled for MiniCPMSALAForCausalLM: SGLang keeps ")


@pytest.mark.parametrize(("arch", "model_type"), [("ZayaForCausalLM", "zaya"),
                                                  ("Qwen4ExpForConditionalGeneration", "qwen4_exp"),
                                                  ("BailingMoeV2_5ForCausalLM", "bailing_hybrid")])
def test_state_not_modelled_is_said_with_the_rules_not_checked(tmp_path: Path, arch: str, model_type: str) -> None:
    folder = tmp_path / "m"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"architectures": [arch], "model_type": model_type, "num_hidden_layers": 16}))
    r = lint_ok(f"{LAUNCH} --model-path {folder} --tp-size 2 {SPEC}")
    f = finding(r, "MODEL001")
    assert f.severity.label == "info" and f.message.startswith(f"state not modelled for {arch}: SGLang keeps ")
    listed = r.resolved[0].not_checked
    assert listed and all(code in f.message for code in listed)
    assert not set(listed) & set(codes(r))  # the rules that need the state did not run
    assert "KDA001" in listed  # the verify scratch check covers every state-keeping family


# --- LFM2's short-convolution state (issue 22): 0.5.23 configs/lfm2.py, lfm2_moe.py, lfm2_vl.py mamba2_cache_params ----------
# SGLang's own reading of the hand-made configs of tests/data/lfm2-handmade (SOURCES.md there): its config loader and
# mamba2_cache_params at attention TP 1, 2, 4, 8 (benchmarks/sglang_diff/state_shapes.py --folders, in the oracle venv).
ROOT = Path(__file__).resolve().parent.parent
LFM2_GOLDEN = json.loads((ROOT / "tests" / "data" / "sglang-golden" / "state-lfm2-handmade-0.5.23.json").read_text(encoding="utf-8"))


def test_the_lfm2_golden_covers_every_class() -> None:
    classes = {v["config_class"] for v in LFM2_GOLDEN["models"].values()}
    assert classes == {"Lfm2Config", "Lfm2MoeConfig", "Lfm2VlConfig"} and LFM2_GOLDEN["sglang_version"] == "0.5.23"


@pytest.mark.parametrize(("folder", "width"), [(k, w) for k, v in LFM2_GOLDEN["models"].items() for w in v["state"]])
def test_lfm2_state_is_sglangs(folder: str, width: str) -> None:
    want = LFM2_GOLDEN["models"][folder]["state"][width]
    r = lint_ok(f"{LAUNCH} --model-path {ROOT / folder} --tp-size {width} {SPEC}")
    cfg = r.resolved[0]
    assert cfg.model is not None and cfg.model.family is Family.CONV
    if want is None:  # mamba2_cache_params None (no conv layer): said, nothing sized
        assert cfg.model.unmodelled and finding(r, "MODEL001").message.startswith("state not modelled for ")
        return
    assert not cfg.model.unmodelled
    got = (cfg.v("L"), cfg.v("HV"), cfg.v("ssm_dtype"), cfg.v("per_request_state_bytes"))
    assert got == (want["layers"], want["temporal"][0], want["temporal_dtype"], want["mamba_cache_per_req"]), (folder, width)
    # memory_pool.py MambaPool.SpeculativeState: intermediate_ssm [L, R + 1, D, *temporal] (0 elements: 0 bytes); the
    # conv windows deduplicated for a chain (Mamba2StateShape.disable_conv_window_dedup False, topk 1):
    # [L, R + 1, conv[0], D + conv[1] - 1] (_allocate_deduplicated_conv_window: D + win - 1)
    (channels, win), = want["conv"]
    rows, d = cfg.v("R") + 1, cfg.v("d_max")
    assert cfg.v("intermediate_ssm_shape") == [want["layers"], rows, d, *want["temporal"]] and cfg.v("intermediate_ssm_bytes") == 0
    assert cfg.v("intermediate_conv_window_shape") == [want["layers"], rows, channels, d + win - 1]
    assert "MEM001" in codes(r) and "MODEL001" not in codes(r)
    # LFM2's verify runs no linear-attention kernel (short_conv_backend.py): no KDA001/KDA009, listed or fired
    assert not {"KDA001", "KDA009"} & set(codes(r)) and not cfg.not_checked


def test_lfm2_tree_drafts_keep_dense_conv_windows() -> None:
    # memory_pool.py conv_window_dedup_enabled: topk > 1 keeps the dense [L, R + 1, D, *conv] windows
    folder = "tests/data/lfm2-handmade/lfm2-two-layers"
    want = LFM2_GOLDEN["models"][folder]["state"]["2"]
    tree = "--speculative-algorithm NGRAM --speculative-num-draft-tokens 8"  # NGRAM: topk = BFS breadth, default 10
    cfg = lint_ok(f"{LAUNCH} --model-path {ROOT / folder} --tp-size 2 {tree}").resolved[0]
    assert cfg.v("topk") > 1
    assert cfg.v("intermediate_conv_window_shape") == [want["layers"], cfg.v("R") + 1, cfg.v("d_max"), *want["conv"][0]]


def test_lfm2_bad_fields_are_named(tmp_path: Path) -> None:
    for field, value in (("conv_L_cache", "3"), ("hidden_size", 0), ("layer_types", "conv"), ("full_attn_idxs", [True])):
        config = {"architectures": ["Lfm2ForCausalLM"], "model_type": "lfm2", "num_hidden_layers": 2, "hidden_size": 64,
                  "layer_types": ["conv", "full_attention"], field: value}
        if field == "full_attn_idxs":
            del config["layer_types"]
        folder = tmp_path / field
        folder.mkdir()
        (folder / "config.json").write_text(json.dumps(config))
        from kdacheck.findings import InputError
        with pytest.raises(InputError, match=field):
            model_config.read(folder / "config.json", str(folder))


def test_kdacheck_run_refuses_lfm2_by_name() -> None:
    from kdacheck.findings import InputError
    from kdacheck.runner import plan_from_options

    with pytest.raises(InputError, match="short-conv hybrid: kdacheck models no short-convolution verify kernel"):
        plan_from_options(3, 1, None, None, "LiquidAI/LFM2.5-1.2B-Instruct", 1, None, None, True)


# --- DeepSeek-V4 (issue 22): SGLang 0.5.23's resolution, and its KV cache said to be unmodelled ---------------------

V4_DIR = Path(__file__).parent / "data" / "models" / "deepseek-v4-flash"  # public: SOURCES.md, index id 60241045088
V4 = f"{LAUNCH} --model-path {V4_DIR} --tp-size 8"


def _golden(case_id: str) -> dict[str, Any]:
    """One case of SGLang 0.5.23's own resolution (benchmarks/sglang_diff/oracle.py, classes-0.5.23.jsonl)."""
    path = Path(__file__).parent / "data" / "sglang-golden" / "classes-0.5.23.jsonl"
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and json.loads(line)["id"] == case_id:
            return json.loads(line)
    raise KeyError(case_id)


def test_deepseek_v4_is_read_with_its_kv_cache_not_modelled() -> None:
    m = model_config.read(V4_DIR / "config.json", "deepseek-ai/DeepSeek-V4-Flash")
    # is_deepseek_v4, not is_deepseek_dsa (model_config.py L191-212, L395-400): no DSA family, no state
    assert (m.family, m.architecture, m.model_type, m.num_layers) == (Family.OTHER, "DeepseekV4ForCausalLM", "deepseek_v4", 43)
    assert "compressed" in m.unmodelled and not m.keeps_state and not m.mla
    entry = architectures.lookup("DeepseekV4ForCausalLM")
    assert (entry.hisparse, entry.launch_hook) == ("v4", "deepseek_v4") and entry.kv_unmodelled
    # the NextN / DSpark draft classes are is_deepseek_v4 too, but SGLang's hook is for DeepseekV4ForCausalLM only
    assert architectures.lookup("DeepseekV4ForCausalLMNextN").kv_unmodelled and not architectures.lookup("DeepseekV4ForCausalLMNextN").launch_hook


def test_deepseek_v4_no_full_attention_kv_figure() -> None:
    """head_dim 512 and one KV head would read as 43 × 2 × 512 elements a token: not V4's cache (SWA + c4/c128
    pools, pool_configurator.py L1353-1500), so the plan gives no figure and says why."""
    from kdacheck.plan import kv

    m = model_config.read(V4_DIR / "config.json", "deepseek-ai/DeepSeek-V4-Flash")
    shape, why = kv.shape(json.loads((V4_DIR / "config.json").read_text()), "config.json", m, 8)
    assert shape is None and "does not model" in why
    msg = finding(lint_ok(V4, gpu="h200"), "MODEL001").message
    assert "state not modelled for DeepseekV4ForCausalLM" in msg and "compressed KV cache" in msg


@pytest.mark.parametrize(("case_id", "flags", "gpu"), [
    ("0.5.23-v4-000", "", "h200"),
    ("0.5.23-v4-001", "--page-size 64", "h200"),  # the declaration wins over the flag (overrides.py resolution_result)
    ("0.5.23-v4-002", "--attention-backend flashinfer", "h200"),
    ("0.5.23-v4-005", "--kv-cache-dtype bfloat16", "h200"),
    ("0.5.23-v4-006", SPEC, "h200"),  # 256 running requests: the V4 hook runs before the speculative default of 48
    ("0.5.23-v4-011", "--max-running-requests 64", "h200"),
    ("0.5.23-models-020", "--dsv4-attn-backend trtllm", "b200"),
])
def test_deepseek_v4_resolution_is_sglangs(case_id: str, flags: str, gpu: str) -> None:
    want = _golden(case_id)
    assert want["verdict"] == "starts"
    result = lint_ok(f"{V4} {flags}", gpu=gpu)
    assert not codes(result, Severity.ERROR), codes(result)
    cfg = result.resolved[0]
    for name in ("attention_backend", "page_size", "kv_cache_dtype", "max_running_requests", "dsv4_attn_backend",
                 "mem_fraction_static"):
        assert cfg.v(name) == want["resolved"][name], (name, cfg.v(name), want["resolved"][name])


@pytest.mark.parametrize(("case_id", "flags", "gpu"), [
    ("0.5.23-v4-003", "--kv-cache-dtype fp8_e5m2", "h200"),
    ("0.5.23-v4-004", "--kv-cache-dtype bf16", "h200"),  # not normalised for V4 (DSA's bf16 alias is another pass)
    ("0.5.23-v4-007", "--speculative-algorithm EAGLE", "h200"),  # topk None when the hook reads it
    ("0.5.23-v4-008", SPEC.replace("EAGLE", "NEXTN"), "h200"),  # NEXTN becomes EAGLE only in the speculative hook
    ("0.5.23-v4-009", SPEC.replace("topk 1", "topk 2").replace("tokens 4", "tokens 6"), "h200"),
    ("0.5.23-v4-013", "--dsv4-attn-backend trtllm", "h200"),
    ("0.5.23-v4-014", "--dsv4-attn-backend flashmla_mega", "h200"),
    ("0.5.23-models-021", "--dsv4-attn-backend trtllm --kv-cache-dtype bfloat16", "b200"),
    ("0.5.23-models-022", "--dsv4-attn-backend trtllm --enable-hisparse --disable-radix-cache", "b200"),
    ("0.5.23-models-023", "--dsv4-attn-backend trtllm --chunked-prefill-size -1", "b200"),
    ("0.5.23-models-024", "--dsv4-attn-backend flashmla_mega", "b200"),  # V4.1 only (model_type deepseek_v41)
])
def test_deepseek_v4_refusals_say_sglangs_message(case_id: str, flags: str, gpu: str) -> None:
    want = _golden(case_id)
    assert want["verdict"] == "refused"
    messages = [f.message for f in lint_ok(f"{V4} {flags}", gpu=gpu).findings if f.code == "MODEL003"]
    assert any(msg.startswith(want["message"]) for msg in messages), (want["message"], messages)


# --- Nemotron-H MTP (issue 22): the MTP layers are the draft's, never the target's ----------------------------------

MODELS_DIR = Path(__file__).parent / "data" / "models"
NANO, MTP = MODELS_DIR / "nemotron-3-nano", MODELS_DIR / "nemotron-mtp-handmade"  # hand-made: SOURCES.md


def _nemotron(tmp_path: Path, **extra: Any) -> Path:
    cfg = json.loads((NANO / "config.json").read_text())
    cfg.update(extra)
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    return tmp_path / "config.json"


def test_nemotron_mtp_layers_are_not_the_targets() -> None:
    """NemotronHConfig: the target's layers are its layer list (nemotron_h.py L195-209), the MTP layers apart
    (L212-221, L385-398). The Nano pattern `MEMEM*EMEMEM*...` has 52 letters, 23 of them M."""
    pattern = json.loads((NANO / "config.json").read_text())["hybrid_override_pattern"]
    assert (len(pattern), pattern.count("M")) == (52, 23)
    nano = model_config.read(NANO / "config.json", "nano")
    mtp = model_config.read(MTP / "config.json", "mtp")
    assert (mtp.num_layers, mtp.linear_layers, mtp.mtp_layers) == (52, 23, ("attention", "moe"))  # "*E"
    assert nano.mtp_layers == ()  # num_nextn_predict_layers 0: no MTP layers read
    # the same state per request with or without the MTP fields: the state comes from the target's mamba layers only
    line = f"{LAUNCH} --tp-size 2 {SPEC}"
    a = lint_ok(f"{line} --model-path {NANO}", gpu="h200").resolved[0]
    b = lint_ok(f"{line} --model-path {MTP}", gpu="h200").resolved[0]
    assert a.v("per_request_state_bytes") == b.v("per_request_state_bytes") and a.v("L") == b.v("L") == 23


def test_nemotron_mtp_fields_read_as_sglang_reads_them(tmp_path: Path) -> None:
    # a non-default list wins over the pattern (L216-220: the pattern only replaces None or the default)
    m = model_config.read(_nemotron(tmp_path, num_nextn_predict_layers=1, mtp_layers_block_type=["attention", "mlp"],
                                    mtp_hybrid_override_pattern="*E"), "x")
    assert m.mtp_layers == ("attention", "mlp")
    # the default list with num_nextn_predict_layers 1 and no pattern: DEFAULT_MTP_LAYERS_BLOCK_TYPE (L40)
    assert model_config.read(_nemotron(tmp_path, num_nextn_predict_layers=1), "x").mtp_layers == ("attention", "moe")
    # refused at config load, as SGLang's NemotronHConfig refuses them (golden 0.5.23-models-032 for the first)
    from kdacheck.findings import InputError

    for extra, words in (({"num_nextn_predict_layers": 1, "mtp_layers_block_type": ["attention", "full_attention"]}, "invalid types"),
                         ({"num_nextn_predict_layers": 1, "mtp_layers_block_type": None}, "is required"),
                         ({"mtp_hybrid_override_pattern": "*X"}, "Pattern must only contain")):
        with pytest.raises(InputError, match=words):
            model_config.read(_nemotron(tmp_path, **extra), "x")
    assert _golden("0.5.23-models-032")["message"].startswith("mtp_layers_block_type contains invalid types")


def test_nemotron_mtp_draft_is_said_not_counted() -> None:
    draft = f"{LAUNCH} --model-path {MTP} --tp-size 2 {SPEC} --speculative-draft-model-path {MTP}"
    assert _golden("0.5.23-models-029")["verdict"] == "starts"  # the same launch in SGLang's resolution
    note = finding(lint_ok(draft, gpu="h200"), "MODEL004")
    assert note.severity is Severity.INFO and "NemotronHForCausalLMMTP" in note.message and "no mamba state" in note.message
    # no draft named: SGLang's resolution leaves the path None (golden 0.5.23-models-028) and the draft worker's
    # ModelConfig falls back to the target's own path (tp_worker.py L465-480, configs/model_config.py L956), as
    # SGLang's own CI runs Nemotron-3-Super's MTP (tests/data/official/nemotron-3-super-mtp.sh): the same note
    assert _golden("0.5.23-models-028")["resolved"]["speculative_draft_model_path"] is None
    same = finding(lint_ok(f"{LAUNCH} --model-path {MTP} --tp-size 2 {SPEC}", gpu="h200"), "MODEL004")
    assert same.severity is Severity.INFO and same.message == note.message
    bad = MODELS_DIR / "nemotron-mtp-mamba-handmade"  # "M*E": nemotron_h_mtp.py builds only * and E
    err = finding(lint_ok(f"{LAUNCH} --model-path {bad} --tp-size 2 {SPEC} --speculative-draft-model-path {bad}", gpu="h200"),
                  "MODEL004")
    assert err.severity is Severity.ERROR and err.message.startswith("Pattern char 'M' in M*E not implemented")


GOLDEN = Path(__file__).resolve().parent / "data" / "sglang-golden"
HARNESS_MODELS = Path(__file__).resolve().parent.parent / "benchmarks" / "sglang_diff" / "models"


def _registered_names() -> set[str]:
    from kdacheck.architectures import registry

    return set(registry.EXACT)


def _prefix_entries() -> list[list[architectures.Architecture]]:
    from kdacheck.architectures import registry

    return list(registry.PREFIXES.values())


def test_the_radix_cache_trait_is_sglangs_list() -> None:
    """The ``mamba_radix_cache`` trait is SGLang's list, name for name (both directions): an
    architecture added without it, or one SGLang drops, fails here. The list is recorded per version
    (``mamba-radix-cache-archs.json``, with its source); the newest version must have one."""
    from kdacheck import versions

    recorded = json.loads((GOLDEN / "mamba-radix-cache-archs.json").read_text())
    assert versions.NEWEST in recorded, f"record SGLang {versions.NEWEST}'s list (its overrides.py) in mamba-radix-cache-archs.json"
    for version, lists in recorded.items():
        if version.startswith("_"):
            continue
        sglang = set(lists["_MAMBA_RADIX_CACHE_ARCHS"]) | set(lists["uses_mamba_radix_cache"])
        ours = {n for n in _registered_names() if architectures.uses_mamba_radix_cache(n)}
        assert not any(e.mamba_radix_cache for es in _prefix_entries() for e in es), "SGLang's list is by exact name"
        assert ours == sglang, (f"SGLang {version}: missing the trait", sorted(sglang - ours), "trait SGLang does not list", sorted(ours - sglang))


def test_the_radix_cache_trait_agrees_with_sglangs_own_verdicts() -> None:
    """Every golden row of every version where SGLang's radix cache is on: SGLang's own
    ``uses_mamba_radix_cache`` is what kdacheck's mamba step decides for the model."""
    seen: dict[tuple[str, str], bool] = {}
    for path in sorted(GOLDEN.glob("*.jsonl")):
        for line in path.read_text().splitlines():
            row = json.loads(line)
            res = row.get("resolved") or {}
            if "uses_mamba_radix_cache" not in res or res.get("disable_radix_cache"):
                continue
            m = model_config.read(HARNESS_MODELS / row["model"] / "config.json", row["model"])
            ours = m.keeps_state and architectures.uses_mamba_radix_cache(m.architecture)
            assert ours == res["uses_mamba_radix_cache"], (row["id"], m.architecture)
            seen[(row["sglang_version"], m.architecture)] = ours
    assert len({a for _, a in seen}) >= 12 and {v for v, _ in seen} >= {"0.5.21", "0.5.23"}
