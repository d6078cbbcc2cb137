"""The geometry layer (kdacheck/geometry.py) against SGLang's source, and the rules and plan on it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from kdacheck import geometry, messages, model_config
from kdacheck.findings import InputError, Severity
from tests.helpers import lint_ok

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = sorted((ROOT / "tests" / "data" / "sglang-golden").glob("geometry-*.json"))


def _model(slug: str, version: str = "0.5.23"):
    return model_config.read(ROOT / "tests" / "data" / "models" / slug / "config.json", slug, version)


def _place(r: geometry.Refusal) -> str:
    found = re.search(r"`([^`]+)`", r.place)
    return found.group(1) if found else r.place


@pytest.mark.parametrize("golden", GOLDEN, ids=lambda p: p.stem)
def test_verdicts_equal_sglangs_source(golden: Path) -> None:
    """Every public model folder at TP 1, 2, 3, 4, 5, 6, 8 (and EP over every rank for MoE, FP8
    blocks for the FP8 checkpoints): kdacheck refuses exactly where SGLang's
    asserts (evaluated from the wheel's text by benchmarks/sglang_diff/geometry_golden.py) do,
    and names the same first place."""
    doc = json.loads(golden.read_text(encoding="utf-8"))
    assert len(doc["models"]) >= 20
    bad = []
    for slug, by_tp in doc["models"].items():
        try:
            m = _model(slug, doc["version"])
        except InputError:  # a config SGLang's config class refuses at load (nemotron-3-nano-tf5): never built
            continue
        for key, expected in by_tp.items():
            tp, _, ep = key.partition("/ep")
            found = geometry.layout_refusals(m, doc["version"], int(tp), int(tp), int(ep or 1))
            got = _place(found[0]) if found else "ok"
            if got != expected:
                bad.append(f"{slug} tp {key}: kdacheck {got}, SGLang {expected}")
    assert not bad, bad


def test_the_asserts_tables_are_the_wheels() -> None:
    """One table per known version, each naming the places kdacheck cites."""
    from kdacheck import versions

    for v in versions.KNOWN:
        doc = geometry.asserts(v)
        assert doc["version"] == v and all(doc["generic"].values()), v
        assert doc["architectures"]["Qwen3NextForCausalLM"]["file"] == "srt/models/qwen3_next.py"


@pytest.mark.parametrize(("cmd", "needle"), [
    ("--model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 3", "16 attention heads at attention TP 3"),
    ("--model-path nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16 --tp-size 3", "32 attention heads at attention TP 3"),
    ("--model-path deepseek-ai/DeepSeek-V3.2 --tp-size 3", "128 MLA heads at attention TP 3"),
    ("--model-path meta-llama/Meta-Llama-3-8B-Instruct --tp-size 3", "32 attention heads at attention TP 3"),
    ("--model-path meta-llama/Meta-Llama-3-8B-Instruct --tp-size 5", "32 attention heads at attention TP 5"),
])
def test_lint_refuses_a_tp_the_heads_do_not_divide(cmd: str, needle: str) -> None:
    r = lint_ok("python -m sglang.launch_server " + cmd)
    assert [f.code for f in r.findings if f.severity is Severity.ERROR] == ["KDA007"], r.findings
    assert needle in r.findings[0].message


def test_fp8_block_against_per_rank_widths() -> None:
    """Qwen3-Next-FP8: 512-wide experts at TP 8 are 64 per rank, not a 128 block; at TP 4 (128) or
    with EP 8 for the experts and the shared expert unconverted they fit."""
    m = _model("qwen3-next-80b-fp8")
    assert m.geometry is not None and m.geometry.quant is not None and m.geometry.quant.block == (128, 128)
    refused = geometry.fp8_refusals(m, "0.5.23", 8)
    assert refused[0].message == messages.FP8_MOE_N.format(n=64, b=128)
    assert "fp8.py:1590" in refused[0].place
    assert geometry.fp8_refusals(m, "0.5.23", 4) == []
    assert [r.message for r in geometry.fp8_refusals(m, "0.5.23", 8, ep=8)] == [messages.FP8_LINEAR_N.format(n=64, b=128)]


def test_context_length_above_the_derived_one() -> None:
    r = lint_ok("python -m sglang.launch_server --model-path meta-llama/Meta-Llama-3-8B-Instruct --context-length 8193")
    assert [f.code for f in r.findings] == ["BUILD002"]
    assert "(8193) is greater than the derived context_length (8192)" in r.findings[0].message
    ok = lint_ok("python -m sglang.launch_server --model-path meta-llama/Meta-Llama-3-8B-Instruct --context-length 8192")
    assert not ok.findings
    # DeepSeek-V3.2: yarn factor 40, but original_max_position_embeddings given: the factor is 1
    assert _model("deepseek-v3.2").geometry.context == 163840


def test_plan_names_why_no_layout_builds() -> None:
    from kdacheck.plan import space
    from kdacheck.plan.space import Counts

    m = _model("qwen3-next-80b")
    with pytest.raises(ValueError, match="16 attention heads at attention TP 3"):
        space.buildable(m, "0.5.23", space.layouts(3, None, m), Counts())
    counts = Counts()
    kept = space.buildable(m, "0.5.23", space.layouts(None, 6, m), counts)
    assert [label for _, label in kept] == ["tp 2 × dp 3", "tp 1 × dp 6"]
    assert counts.pruned == 2


def test_plan_exits_2_naming_the_head_count() -> None:
    """``kdacheck plan --model qwen3-next --gpu h200 --tp 3``: no layout is searched, exit 2."""
    from typer.testing import CliRunner

    from kdacheck.cli import app

    r = CliRunner().invoke(app, ["plan", "--model", "qwen3-next", "--gpu", "h200", "--tp", "3"])
    assert r.exit_code == 2, r.output
    assert "SGLang cannot build qwen3-next at any layout tried: tp 3: 16 attention heads at attention TP 3" in r.stderr
    assert "Traceback" not in r.output



def test_the_header_shows_the_checkpoints_quantization() -> None:
    from kdacheck.report.full import headline
    from tests.helpers import resolved

    fp8 = resolved(f"python -m sglang.launch_server --model-path {ROOT / 'tests/data/models/qwen3-next-80b-fp8'} --tp-size 4")
    assert " · fp8 block 128×128 · " in headline(fp8)
    bf16 = resolved("python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4")
    assert "fp8" not in headline(bf16)


def test_awq_groups_against_the_shared_expert_and_what_is_left_unconverted(tmp_path: Path) -> None:
    """AWQ (awq_linear.py): 512 / 8 = 64 input channels per rank is half a 128-channel group; a
    `modules_to_not_convert` entry inside the layer's name leaves it unquantized (is_layer_skipped_awq)."""
    m = _model("qwen3-next-80b-awq", "0.5.23")
    assert [r.what for r in geometry.awq_refusals(m, "0.5.23", 8)] == ["shared expert down_proj input 64 per rank (TP 8) in groups of 128"]
    assert geometry.awq_refusals(m, "0.5.23", 4) == [] and geometry.awq_refusals(m, "0.5.23", 1) == []
    data = json.loads((ROOT / "tests/data/models/qwen3-next-80b-awq/config.json").read_text(encoding="utf-8"))
    data["quantization_config"]["modules_to_not_convert"] = ["shared_expert"]
    (tmp_path / "config.json").write_text(json.dumps(data))
    model = model_config.read(tmp_path / "config.json", "awq-copy", "0.5.23")
    assert model is not None and geometry.awq_refusals(model, "0.5.23", 8) == []
