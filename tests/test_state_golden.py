"""kdacheck's hybrid-state formulas against SGLang's own config classes (``tests/data/sglang-golden/state-0.5.23.json``).

The golden was written by ``benchmarks/sglang_diff/state_shapes.py`` inside SGLang 0.5.23's
oracle venv: SGLang's config loader and ``srt/configs/hybrid_arch.py`` ``mambaish_config`` on
every model folder of the repository, its ``mamba2_cache_params`` read at attention-TP widths
1, 2, 4 and 8 (the state layers, the temporal shape, ``mamba_cache_per_req``) and the config's
``mamba_chunk_size``. Here, without
SGLang, every folder is linted as a speculative launch at each width and kdacheck's resolved
state (``L``, ``HV``, ``per_request_state_bytes``: the figure the memory solve uses) must equal
SGLang's; a config SGLang keeps no state for must get none from kdacheck, and one SGLang keeps
state for that kdacheck does not model must say so (MODEL001 "state not modelled").

Regenerate: ``/work/oracle/venv-0.5.23/bin/python benchmarks/sglang_diff/state_shapes.py
--sglang-version 0.5.23 --out tests/data/sglang-golden/state-0.5.23.json``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kdacheck import model_config, versions
from kdacheck.findings import InputError
from tests.helpers import lint

ROOT = Path(__file__).resolve().parent.parent
# the newest version's (a new SGLang version brings its own: docs/architecture.md, "A new SGLang version")
GOLDEN = json.loads((ROOT / "tests" / "data" / "sglang-golden" / f"state-{versions.NEWEST}.json").read_text(encoding="utf-8"))
MODELS: dict[str, Any] = GOLDEN["models"]
WIDTHS = [str(w) for w in GOLDEN["widths"]]


def _with_state() -> list[tuple[str, str]]:
    return [(k, w) for k, v in MODELS.items() if v.get("state") for w in WIDTHS if v["state"].get(w)]


def test_the_golden_covers_every_family_with_state() -> None:
    classes = {v.get("state_config_class") for v in MODELS.values() if v.get("state")}
    # GDN (Qwen3-Next, Qwen3.5 dense and MoE), KDA, Mamba2 (Nemotron-H, Falcon-H1, Granite), short conv
    assert {"Qwen3NextConfig", "Qwen3_5TextConfig", "Qwen3_5MoeTextConfig", "KimiLinearConfig", "NemotronHConfig",
            "FalconH1Config", "GraniteMoeHybridConfig", "Lfm2Config"} <= classes, classes
    assert len(_with_state()) >= 40


# Hand-made configs (tests/data/models/SOURCES.md): a public config with a `quantization_config`
# added, which SGLang's config classes do not read for state shapes: the public one's golden covers it.
QUANTIZED_COPIES = {"tests/data/models/qwen3-next-80b-fp8": "tests/data/models/qwen3-next-80b",
                    "tests/data/models/qwen3-next-80b-awq": "tests/data/models/qwen3-next-80b"}


def test_the_golden_covers_every_model_folder() -> None:
    """A new public config (tests/data/models/, benchmarks/sglang_diff/models/) is judged by SGLang's
    config class only once the golden is regenerated with it (state_shapes.py): until then, this fails."""
    folders = {str(p.parent.relative_to(ROOT)) for root in ("tests/data/models", "benchmarks/sglang_diff/models")
               for p in (ROOT / root).glob("*/config.json")} - set(QUANTIZED_COPIES)
    assert folders == set(MODELS), (sorted(folders - set(MODELS)), sorted(set(MODELS) - folders))


@pytest.mark.parametrize(("copy", "public"), sorted(QUANTIZED_COPIES.items()))
def test_a_quantized_copy_differs_from_its_public_config_only_in_quantization(copy: str, public: str) -> None:
    def read(folder: str) -> dict[str, object]:
        return json.loads((ROOT / folder / "config.json").read_text(encoding="utf-8"))

    quantized, base = read(copy), read(public)
    assert "quantization_config" in quantized and public in MODELS
    quantized.pop("quantization_config")
    base.pop("quantization_config", None)
    assert quantized == base


@pytest.mark.parametrize(("folder", "width"), _with_state())
def test_state_per_request_equals_sglangs(folder: str, width: str) -> None:
    want = MODELS[folder]["state"][width]
    model = model_config.read(ROOT / folder / "config.json", folder)
    if model.unmodelled:  # SGLang keeps state kdacheck does not model: said, and nothing sized
        assert model.keeps_state and not model.hybrid, folder
        return
    line = (f"python -m sglang.launch_server --model-path {folder} --tp-size {width} "
            "--speculative-algorithm EAGLE --speculative-draft-model-path some/draft "
            "--speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4")
    result = lint(line)
    assert result.error is None and len(result.resolved) == 1, result.error
    r = result.resolved[0]
    assert r.v("attn_tp_size") == int(width)
    assert r.v("L") == want["layers"], (folder, width)
    assert r.v("HV") == want["temporal"][0], (folder, width)
    assert r.v("ssm_dtype") == want["temporal_dtype"], (folder, width)
    assert r.v("per_request_state_bytes") == want["mamba_cache_per_req"], (folder, width, r.v("per_request_state_bytes"))


@pytest.mark.parametrize("folder", sorted(k for k, v in MODELS.items() if "state" in v and v["state"] is None))
def test_no_state_where_sglang_keeps_none(folder: str) -> None:
    model = model_config.read(ROOT / folder / "config.json", folder)
    assert not model.keeps_state and not model.hybrid, folder


@pytest.mark.parametrize("folder", sorted(k for k, v in MODELS.items() if isinstance(v.get("mamba_chunk_size"), int)))
def test_mamba_chunk_size_is_sglangs(folder: str) -> None:
    """The chunk the extra-buffer prefix cache checks the page size against (RADIX001), read as
    SGLang's config class sets it: Nemotron-H's chunk_size, Falcon-H1's and Granite's 256, LFM2's 1."""
    model = model_config.read(ROOT / folder / "config.json", folder)
    assert model.mamba_chunk_size == MODELS[folder]["mamba_chunk_size"], folder


def test_the_chunk_golden_has_more_than_the_default() -> None:
    assert {v.get("mamba_chunk_size") for v in MODELS.values()} >= {1, 64, 128, 256}


@pytest.mark.parametrize("folder", sorted(k for k, v in MODELS.items() if "config_error" in v))
def test_a_config_sglang_refuses_is_refused(folder: str) -> None:
    with pytest.raises(InputError) as err:
        model_config.read(ROOT / folder / "config.json", folder)
    # the same field SGLang's config class names
    assert MODELS[folder]["config_error"].split(":", 1)[1].split()[0] in str(err.value)


def _replayssm_pairs() -> list[tuple[str, str, str]]:
    """(folder, width, record length) of the GDN and KDA configs: SGLang's ring is counted for them only."""
    gdn_kda = ("Qwen3NextConfig", "Qwen3_5TextConfig", "Qwen3_5MoeTextConfig", "KimiLinearConfig")
    return [(k, w, n) for k, v in MODELS.items() if v.get("state_config_class") in gdn_kda
            for w in WIDTHS if (v["state"].get(w) or {}).get("replayssm_ring_per_req") for n in ("16", "32")]


@pytest.mark.parametrize(("folder", "width", "record"), _replayssm_pairs())
def test_replayssm_ring_per_request_equals_sglangs(folder: str, width: str, record: str) -> None:
    """SGLang's ``replayssm_ring_bytes_per_req`` (``mamba_utils.py`` L127-160), read from its own config
    classes, against the ring kdacheck's memory solve counts under --enable-linear-replayssm-spec."""
    want = MODELS[folder]["state"][width]["replayssm_ring_per_req"][record]
    line = (f"python -m sglang.launch_server --model-path {folder} --tp-size {width} "
            "--speculative-algorithm EAGLE --speculative-draft-model-path some/draft --speculative-num-steps 3 "
            f"--speculative-eagle-topk 1 --speculative-num-draft-tokens 4 --enable-linear-replayssm-spec "
            f"--linear-replayssm-cache-len {record}")
    result = lint(line)
    assert result.error is None and len(result.resolved) == 1, result.error
    assert result.resolved[0].v("replayssm_ring_bytes_per_req") == want, (folder, width, record)


def test_the_replayssm_golden_covers_gdn_and_kda() -> None:
    assert len(_replayssm_pairs()) >= 40
