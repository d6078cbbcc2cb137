"""The bundled index of public config.json files: made by benchmarks/model_index/build.py and
held equal to it; every entry read by the family readers into the family SGLang gives its
architecture (0.5.23 ``srt/configs/hybrid_arch.py``; ``model_config.py`` ``is_deepseek_dsa``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kdacheck import architectures, model_index
from kdacheck.model_source import preset

ROOT = Path(__file__).resolve().parent.parent


def test_the_shipped_index_is_what_the_build_script_makes() -> None:
    from benchmarks.model_index import build

    shipped = (ROOT / "kdacheck" / "data" / "model_index.json").read_text(encoding="utf-8")
    assert shipped == build.render(), "run: python -m benchmarks.model_index.build > kdacheck/data/model_index.json"


def test_every_entry_names_its_source_and_weights() -> None:
    for repo in model_index.ids():
        e = model_index.entry(repo)
        assert e["source"] and e["params"] > 0 and e["weight_bytes_per_param"] in (0.5625, 1.0, 2.0), repo
        assert set(e["config"]) <= set(__import__("benchmarks.model_index.build", fromlist=["KEEP"]).KEEP)


@pytest.mark.parametrize("repo", model_index.ids())
def test_each_entry_reads_to_the_family_sglang_gives_its_architecture(repo: str) -> None:
    m = preset(repo)
    assert m is not None and m.origin == "index" and m.source.startswith(f"bundled index: {repo}")
    fams = architectures.lookup(m.architecture).families
    assert m.family.value in fams if fams else m.family.value == "other", (repo, m.family, fams)


def test_variants_and_aliases_keep_the_geometry_and_say_so() -> None:
    base = preset("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16")
    nvfp4 = preset("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4")
    assert base is not None and nvfp4 is not None
    assert (nvfp4.linear_layers, nvfp4.linear_v_heads) == (base.linear_layers, base.linear_v_heads) == (23, 64)
    assert nvfp4.weight_bytes_per_param == 0.5625 and "NVFP4" in nvfp4.source
    thinking = preset("Qwen/Qwen3-Next-80B-A3B-Thinking")
    assert thinking is not None and thinking.name == "Qwen/Qwen3-Next-80B-A3B-Thinking" and "another public name" in thinking.source
    # a Hub id names one repository: no containment match for it (a local path not here still matches by name)
    assert preset("acme/qwen3-next-private-finetune", loose=False) is None
    assert preset("/mnt/models/Qwen3-Next-80B-A3B-Instruct") is not None


def test_the_geometry_of_the_entries_with_a_verbatim_config() -> None:
    # expected values: the public config.json and SGLang 0.5.23's formulas
    # qwen3_next.py L259-316: layer l is full attention iff (l + 1) % 4 == 0 -> 48 - 12 = 36 linear layers
    q = preset("Qwen/Qwen3-Next-80B-A3B-Instruct")
    assert q is not None and (q.num_layers, q.linear_layers, q.linear_k_heads, q.linear_v_heads) == (48, 36, 16, 32)
    # kimi_linear.py L158-161: layer l is KDA iff l + 1 is in kda_layers (20 of 27 listed)
    k = preset("moonshotai/Kimi-Linear-48B-A3B-Instruct")
    assert k is not None and (k.num_layers, k.linear_layers, k.linear_v_heads, k.linear_v_dim) == (27, 20, 32, 128)
    # nemotron_h.py: the M letters of hybrid_override_pattern (23 of 52)
    n = preset("nemotron-3-nano")
    assert n is not None and (n.num_layers, n.linear_layers, n.linear_k_heads, n.linear_k_dim) == (52, 23, 8, 128)
    # the public configs added with their hashes checked (tests/data/models/SOURCES.md):
    # qwen3_next.py L259-278 for the three GDN entries, nemotron_h.py mamba_layer_ids for Super
    for repo, layers, linear in (("Qwen/Qwen3.6-35B-A3B", 40, 30), ("Qwen/Qwen3.6-27B", 64, 48),
                                 ("Qwen/Qwen3-Coder-Next", 48, 36), ("nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16", 88, 40),
                                 ("ibm-granite/granite-4.0-h-small", 40, 36)):  # granitemoehybrid.py: its "mamba" layer_types
        p = preset(repo)
        assert p is not None and (p.num_layers, p.linear_layers) == (layers, linear), repo
    nvfp4 = preset("nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4")
    assert nvfp4 is not None and nvfp4.weight_bytes_per_param == 0.5625 and nvfp4.linear_layers == 40
