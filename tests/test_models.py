"""Model families as SGLang defines them, read from config.json as SGLang reads them.

Expected shapes are derived here from SGLang 0.5.23's formulas, with the places cited:
``srt/configs/mamba_utils.py`` L194-243 ``Mamba2StateShape.create`` (conv over I + 2·G·N
channels, G padded to the TP size when it does not divide; state (H/tp, P, N)),
``srt/configs/qwen3_next.py`` L288-316 (GDN: I = Hv·Dv, G = Hk, N = Dk, P = Dv),
``srt/configs/nemotron_h.py`` L409-439 (Mamba2: the ``M`` layers of the pattern),
``srt/mem_cache/memory_pool.py`` L883-965 (``intermediate_ssm`` (L, R+1, D, H/tp, P, N); the
conv window deduplicated for a chain: (L, R+1, conv_dim/tp, D+K-2), bfloat16).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from kdacheck.findings import InputError
from kdacheck.model_source import load_model
from kdacheck.models import Family, guess_family
from tests.helpers import codes, finding, lint_ok, resolved

MODELS = Path(__file__).resolve().parent / "data" / "models"
LAUNCH = "python -m sglang.launch_server"
QWEN35 = f"{LAUNCH} --model-path Qwen/Qwen3.5-397B-A17B --tp-size 4 --speculative-algorithm NEXTN --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4"


def test_qwen35_mtp_no_buffer_is_sglangs_assertion() -> None:
    r = lint_ok(QWEN35 + " --mamba-radix-cache-strategy no_buffer")
    assert "no_buffer do not support overlap schedule" in finding(r, "RADIX002").message


def test_qwen35_mtp_scratch_is_sglangs_formula() -> None:
    cfg = resolved(QWEN35)
    L, R, D, tp = 60 - 60 // 4, 48, 4, 4  # layer l is full attention iff (l + 1) % 4 == 0
    Hv, Hk, Dv, Dk, K = 64, 16, 128, 128, 4
    assert cfg.v("intermediate_ssm_shape") == [L, R + 1, D, Hv // tp, Dv, Dk]
    assert cfg.v("intermediate_ssm_bytes") == L * (R + 1) * D * (Hv // tp) * Dv * Dk * 4
    conv_dim = Hv * Dv + 2 * Hk * Dk  # 16 key heads divide tp 4: no group padding
    assert cfg.v("intermediate_conv_window_shape") == [L, R + 1, conv_dim // tp, D + K - 2]
    assert cfg.v("intermediate_conv_window_bytes") == L * (R + 1) * (conv_dim // tp) * (D + K - 2) * 2
    assert "MEM001" in codes(lint_ok(QWEN35))


def test_qwen35_multimodal_config_with_nested_text_config_is_gdn(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps({
        "architectures": ["Qwen3_5MoeForConditionalGeneration"], "model_type": "qwen3_5_moe",
        "text_config": {"model_type": "qwen3_5_moe_text", "num_hidden_layers": 60, "full_attention_interval": 4,
                        "linear_num_key_heads": 16, "linear_num_value_heads": 64, "linear_key_head_dim": 128,
                        "linear_value_head_dim": 128, "linear_conv_kernel_dim": 4, "mamba_ssm_dtype": "bfloat16"},
        "vision_config": {"depth": 27},
    }))
    model, _ = load_model(str(tmp_path), None)
    assert model is not None and model.family is Family.GDN
    assert (model.linear_layers, model.linear_v_heads, model.linear_k_heads) == (45, 64, 16)
    assert model.ssm_dtype == "bfloat16"  # mamba2_state_dtype reads text_config.mamba_ssm_dtype


def test_nemotron_h_config_is_mamba2_with_its_shapes() -> None:
    folder = MODELS / "nemotron-3-nano"
    model, _ = load_model(str(folder), None)
    assert model is not None and model.family is Family.MAMBA2
    pattern = json.loads((folder / "config.json").read_text())["hybrid_override_pattern"]
    assert model.linear_layers == pattern.count("M") == 23
    cmd = f"{LAUNCH} --model-path {folder} --tp-size 2 --speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4"
    cfg = resolved(cmd)
    H, P, N, G, K, tp = 64, 64, 128, 8, 4, 2
    assert cfg.v("intermediate_ssm_shape") == [23, 49, 4, H // tp, P, N]
    assert cfg.v("intermediate_conv_window_shape") == [23, 49, (H * P + 2 * G * N) // tp, 4 + K - 2]
    # tp 16: 8 groups do not divide 16 → extended to 16 (extra_groups_for_head_shards)
    from kdacheck import families

    assert families.formulas(model.family).conv_dim(model, 16) == H * P + 2 * 16 * N
    assert model.ssm_dtype is None  # the config's key is mamba_ssm_cache_dtype, which SGLang does not read


def test_glm5_is_dsa_with_page_64_and_hisparse_rules() -> None:
    model, _ = load_model(str(MODELS / "glm-5.1"), None)
    assert model is not None and model.family is Family.DSA and model.index_topk == 2048
    cfg = resolved(f"{LAUNCH} --model-path zai-org/GLM-5 --tp-size 8 --page-size 16 --enable-hisparse", gpu="h200")
    assert cfg.v("page_size") == 64 and cfg.v("attention_backend") == "dsa"
    assert "HSP006" in codes(lint_ok(f"{LAUNCH} --model-path zai-org/GLM-5 --tp-size 8 --enable-hisparse"))


def test_llama_with_extra_buffer_is_sglangs_valueerror() -> None:
    f = finding(lint_ok(f"{LAUNCH} --model-path meta-llama/Meta-Llama-3-8B-Instruct --mamba-radix-cache-strategy extra_buffer"), "RADIX003")
    assert f.message == "--mamba-radix-cache-strategy extra_buffer needs mamba state, got LlamaForCausalLM."


def test_unknown_model_notes_and_names_the_rules_then_model_option_finds_the_crash() -> None:
    seed = (Path(__file__).resolve().parent.parent / "examples/errors/KDA002-dp-attention-row-map.sh").read_text()
    text = seed.replace("moonshotai/Kimi-Linear-48B-A3B-Instruct", "/mnt/models/prod-chat-v3")
    r = lint_ok(text, gpu="b200")
    f = finding(r, "MODEL001")
    assert f.severity.label == "info" and "KDA002" in f.message and "--model" in (f.fix or "")  # a note (issue 24), shown in every format
    assert "KDA002" not in codes(r)
    assert "KDA002" in codes(lint_ok(text, gpu="b200", model="kimi-linear"))


@pytest.mark.parametrize(("name", "family"), [
    ("Qwen/Qwen3.5-122B-A10B", Family.GDN), ("nvidia/NVIDIA-Nemotron-H-8B", Family.MAMBA2),
    ("tiiuae/Falcon-H1-34B-Instruct", Family.MAMBA2), ("zai-org/GLM-5-FP8", Family.DSA),
    ("mistralai/Mistral-7B-Instruct-v0.3", Family.OTHER), ("/mnt/models/prod-chat-v3", None),
])
def test_family_from_the_name(name: str, family: Family | None) -> None:
    assert guess_family(name) is family


def test_quantised_variants_share_the_base_geometry() -> None:
    base, _ = load_model("Qwen/Qwen3.5-397B-A17B", None)
    fp8, _ = load_model("Qwen/Qwen3.5-397B-A17B-FP8", None)
    assert base is not None and fp8 is not None
    assert (fp8.family, fp8.linear_layers, fp8.linear_v_heads) == (base.family, base.linear_layers, base.linear_v_heads)
    assert fp8.weight_bytes_per_param == 1.0 and base.weight_bytes_per_param == 2.0


@pytest.mark.parametrize(("field", "value"), [
    ("linear_num_value_heads", "64"), ("linear_num_value_heads", None), ("linear_num_value_heads", -1),
    ("linear_num_value_heads", 1.5), ("linear_num_value_heads", [64]), ("num_hidden_layers", 10**15),
    ("full_attention_interval", 0),
])
def test_a_bad_config_field_is_an_error_naming_it(tmp_path: Path, field: str, value: object) -> None:
    data = json.loads((MODELS / "qwen3-next-80b" / "config.json").read_text())
    data[field] = value
    (tmp_path / "config.json").write_text(json.dumps(data))
    with pytest.raises(InputError, match=field):
        load_model(str(tmp_path), None)


# --- config.json as transformers reads it ----------------------------------------------------
# transformers 5.19-5.24 ``configuration_utils.py`` ``_dict_from_json_file``: json.loads, then
# ``_decode_special_floats`` ({"__float__": "Infinity"}); SGLang 0.5.23 ``srt/configs/nemotron_h.py``
# ``_resolve_layers_block_type`` / ``_validate_layers_block_type`` / ``num_hidden_layers`` property.
TF5 = MODELS / "nemotron-3-nano-tf5" / "config.json"
SPEC_CHAIN = " --speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4"
SGLANG_KINDS = {"linear_attention": "mamba", "full_attention": "attention"}  # 0.5.23 nano_nemotron_vl.py L35 (its own aliases)


def _sglang_spelled(tmp_path: Path, raw_infinity: bool) -> Path:
    """The transformers 5 fixture with the layer kinds SGLang's NemotronHConfig accepts (the names
    its own class stores and saves); Infinity tagged as transformers writes it, or bare."""
    doc = json.loads(TF5.read_text())
    doc["layers_block_type"] = [SGLANG_KINDS.get(k, k) for k in doc["layers_block_type"]]
    folder = tmp_path / "nemotron"
    folder.mkdir()
    text = json.dumps(doc, indent=2)
    if raw_infinity:
        text = text.replace('{\n      "__float__": "Infinity"\n    }', "Infinity")
        assert "__float__" not in text and "Infinity" in text
    (folder / "config.json").write_text(text)
    return folder


def test_the_transformers5_fixture_has_the_transformers5_form() -> None:
    doc = json.loads(TF5.read_text())
    assert doc["transformers_version"].startswith("5.")
    assert "hybrid_override_pattern" not in doc and "num_hidden_layers" not in doc
    assert doc["time_step_limit"] == [0.0, {"__float__": "Infinity"}]
    assert len(doc["layers_block_type"]) == 52


def test_nemotron_h_as_transformers5_saves_it_is_refused_as_sglang_refuses_it() -> None:
    # transformers 5 writes linear_attention / full_attention; SGLang 0.5.23's NemotronHConfig accepts
    # only mamba, attention, mlp, moe and raises ValueError at config load
    with pytest.raises(InputError, match=r"`layers_block_type` contains invalid types: full_attention, linear_attention"):
        load_model(str(TF5.parent), None)


@pytest.mark.parametrize("raw_infinity", [False, True], ids=["tagged", "bare"])
def test_nemotron_h_in_transformers5_form_is_read_and_speculation_sized(tmp_path: Path, raw_infinity: bool) -> None:
    folder = _sglang_spelled(tmp_path, raw_infinity)
    model, _ = load_model(str(folder), None)
    assert model is not None and model.family is Family.MAMBA2
    pattern = json.loads((MODELS / "nemotron-3-nano" / "config.json").read_text())["hybrid_override_pattern"]
    assert (model.num_layers, model.linear_layers) == (len(pattern), pattern.count("M")) == (52, 23)
    r = lint_ok(f"{LAUNCH} --model-path {folder} --tp-size 2" + SPEC_CHAIN)
    assert "MEM001" in codes(r)


def test_special_floats_decode_as_transformers_decodes_them() -> None:
    from kdacheck.model_config import loads_config

    text = '{"a": [0.0, {"__float__": "Infinity"}], "b": {"__float__": "-Infinity"}, "c": {"__float__": "x"}, "d": NaN}'
    got = loads_config(text)
    assert got["a"] == [0.0, float("inf")] and got["b"] == float("-inf") and got["c"] == {"__float__": "x"}
    assert got["d"] != got["d"]  # NaN
    transformers = pytest.importorskip("transformers")
    want = transformers.PretrainedConfig._decode_special_floats(json.loads(text))
    assert repr(got) == repr(want)


def _write(tmp_path: Path, doc: dict[str, object]) -> Path:
    folder = tmp_path / "m"
    folder.mkdir(exist_ok=True)
    (folder / "config.json").write_text(json.dumps(doc))
    return folder


def test_nan_in_a_used_count_names_it_and_in_an_unused_field_is_ignored(tmp_path: Path) -> None:
    doc = json.loads((MODELS / "kimi-linear-48b" / "config.json").read_text())
    doc["rope_scaling_factor_unused"] = float("nan")
    doc["initializer_range"] = float("inf")
    model, _ = load_model(str(_write(tmp_path, doc)), None)
    assert model is not None and model.num_layers == 27
    doc["num_hidden_layers"] = float("nan")
    with pytest.raises(InputError, match="`num_hidden_layers`"):
        load_model(str(_write(tmp_path, doc)), None)


def test_nemotron_h_pattern_spellings(tmp_path: Path) -> None:
    base = json.loads((MODELS / "nemotron-3-nano" / "config.json").read_text())
    pattern = base["hybrid_override_pattern"]
    doc = {**base, "hybrid_override_pattern": list(pattern), "num_hidden_layers": float("nan")}  # deprecated, ignored
    model, _ = load_model(str(_write(tmp_path, doc)), None)
    assert model is not None and (model.num_layers, model.linear_layers) == (52, 23)
    doc = {k: v for k, v in base.items() if k not in ("hybrid_override_pattern", "num_hidden_layers")}
    model, _ = load_model(str(_write(tmp_path, doc)), None)  # neither: DEFAULT_LAYERS_BLOCK_TYPE
    assert model is not None and (model.num_layers, model.linear_layers) == (4, 1)
    with pytest.raises(InputError, match="Pattern must only contain"):
        load_model(str(_write(tmp_path, {**base, "hybrid_override_pattern": "MX"})), None)


def test_with_nothing_available_the_model_is_a_named_guess(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """No folder, an empty cache, not in the bundled index, the Hub off: the header says the
    guess, MODEL001 says the model was not read and lists only the rules the guessed family can
    have (each rule's ``@rule(families=...)``)."""
    from kdacheck.models import Family
    from kdacheck.report.full import headline
    from kdacheck.rules import REGISTRY
    from tests.helpers import finding, lint_ok

    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    spec = "--speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4"
    r = lint_ok(f"python -m sglang.launch_server --model-path acme/Nemotron-H-Private-9B --tp-size 2 {spec}")
    cfg = r.resolved[0]
    assert cfg.model is None and cfg.model_guess is Family.MAMBA2
    assert "(not read; guessed from the name: a Mamba2 hybrid)" in headline(cfg)
    f = finding(r, "MODEL001")
    assert f.message.startswith("model not read: `acme/Nemotron-H-Private-9B` (") and "family guessed from the name: a Mamba2 hybrid" in f.message
    assert "HF_HUB_OFFLINE" in f.message and "not in the bundled index" in f.message
    assert cfg.not_checked and all(not REGISTRY[c].families or Family.MAMBA2 in REGISTRY[c].families for c in cfg.not_checked)
    assert all(c in f.message for c in cfg.not_checked)


# --- transformers' layer names that SGLang's own config classes map back ------------------------
GRANITE = MODELS / "granite-4.0-h-small" / "config.json"
TF5_NAMES = {"mamba": "linear_attention", "attention": "full_attention"}


def _granite(tmp_path: Path, **changes: object) -> Path:
    doc = json.loads(GRANITE.read_text())
    for key, value in changes.items():
        if value is None:
            doc.pop(key, None)
        else:
            doc[key] = value
    folder = tmp_path / "granite"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(doc))
    return folder


def test_granite_in_transformers5_names_reads_as_sglang_maps_it_back(tmp_path: Path) -> None:
    # 0.5.23 configs/granitemoehybrid.py L29-32 _to_sglang_layer_types: linear_attention -> mamba
    kinds = json.loads(GRANITE.read_text())["layer_types"]
    plain, _ = load_model(str(GRANITE.parent), None)
    renamed, _ = load_model(str(_granite(tmp_path, layer_types=[TF5_NAMES[k] for k in kinds])), None)
    assert plain is not None and renamed is not None and renamed.family is Family.MAMBA2
    assert renamed.linear_layers == plain.linear_layers == kinds.count("mamba") > 0
    assert renamed == dataclasses.replace(plain, name=renamed.name, params=renamed.params, source=renamed.source)


def test_granite_without_layer_types_gets_sglang_default_pattern(tmp_path: Path) -> None:
    # GraniteMoeHybridConfig.__init__ L186-193: every sixth layer attention, the rest Mamba
    model, _ = load_model(str(_granite(tmp_path, layer_types=None)), None)
    assert model is not None and model.linear_layers == 40 - 40 // 6


@pytest.mark.parametrize(("kinds", "match"), [(["mamba"] * 39, "must have length equal to num_hidden_layers"),
                                              (["mamba"] * 39 + ["sliding_attention"], "either 'mamba' or 'attention'")])
def test_granite_layer_types_sglang_refuses_are_refused(tmp_path: Path, kinds: list[str], match: str) -> None:
    with pytest.raises(InputError, match=match):
        load_model(str(_granite(tmp_path, layer_types=kinds)), None)


def test_nemotron_h_omni_llm_config_in_transformers5_names_is_read(tmp_path: Path) -> None:
    # 0.5.23 configs/nano_nemotron_vl.py L33-39: nemotron_h_omni maps its llm_config's names back
    llm = json.loads(TF5.read_text())
    for model_type, readable in (("nemotron_h_omni", True), ("NemotronH_Nano_VL_V2", False)):
        folder = tmp_path / model_type
        folder.mkdir()
        (folder / "config.json").write_text(json.dumps({"model_type": model_type, "architectures": ["NemotronH_Nano_VL_V2"],
                                                        "llm_config": llm, "vision_config": {}}))
        if readable:
            model, _ = load_model(str(folder), None)
            assert model is not None and model.family is Family.MAMBA2
            assert model.linear_layers == [SGLANG_KINDS.get(k, k) for k in llm["layers_block_type"]].count("mamba")
        else:
            with pytest.raises(InputError, match="contains invalid types"):
                load_model(str(folder), None)
