"""Checkpoints people launch: Hub repo ids (MODEL002), the target class's speculative capture
hooks (SPEC015), ReplaySSM-spec on a topk resolved later (RSSM001), D = 1 with topk 1 (SPEC002
only).

Expected values come from huggingface_hub's ``validate_repo_id`` (run here when installed) and
SGLang 0.5.23's source: ``srt/models/nemotron_h.py`` (``NemotronHForCausalLM`` defines
``set_dflash_layers_to_capture`` at L1225 and no ``set_eagle3_layers_to_capture``),
``srt/models/llama.py`` L929 and ``qwen3_next.py`` L1286 (both define it),
``attention_backend_setup.py`` L55-60 (the message), ``speculative_hook.py`` L1255-1266 and
L1309-1313, ``pipeline.py`` L253 / L305.
"""

from __future__ import annotations

import glob
import importlib.util
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kdacheck.model_source import hub_id_problem, load_model
from tests.helpers import codes, finding, lint_ok

ROOT = Path(__file__).resolve().parent.parent.parent
LAUNCH = "python -m sglang.launch_server"
DOUBLED = "moonshotai/moonshotai/Kimi-Linear-48B-A3B-Instruct"


def test_doubled_org_is_model002_and_never_a_preset() -> None:
    r = lint_ok(f"{LAUNCH} --model-path {DOUBLED} --tp-size 4")
    f = finding(r, "MODEL002")
    assert f.severity.label == "error" and DOUBLED in f.message and "at most one `/`" in f.message
    assert "MODEL001" not in codes(r)
    model, _ = load_model(None, DOUBLED)
    assert model is None  # not matched to the Kimi-Linear preset
    assert "MODEL002" not in codes(lint_ok(f"{LAUNCH} --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --tp-size 4"))


@pytest.mark.parametrize("path", ["/mnt/models/prod-chat-v3", "./models/a/b", "../x/y/z", "~/m/a/b", "s3://bucket/a/b", "$MODEL_DIR/a/b"])
def test_paths_and_uris_are_not_judged(path: str) -> None:
    assert hub_id_problem(path) is None


_CHARS = st.text(alphabet="aZ09_-./é ", min_size=0, max_size=12)


@settings(max_examples=400, deadline=None)
@given(name=st.one_of(_CHARS, st.builds(lambda a, b: f"{a}/{b}", _CHARS, _CHARS), st.text(alphabet="ab", min_size=95, max_size=98)))
def test_repo_ids_are_judged_as_huggingface_hub_judges_them(name: str) -> None:
    if importlib.util.find_spec("huggingface_hub") is None:
        pytest.skip("huggingface_hub not installed")
    from huggingface_hub.utils import HFValidationError, validate_repo_id

    if not name or name.startswith(("/", ".", "~")):
        return  # a place on disk: kdacheck does not judge it
    try:
        validate_repo_id(name)
        valid = True
    except HFValidationError:
        valid = False
    assert (hub_id_problem(name) is None) == valid, name


def test_kdacheck_imports_huggingface_hub_only_to_build_a_hub_url() -> None:
    import ast

    tree = ast.parse((ROOT / "kdacheck" / "model_source.py").read_text())
    users = {fn.name for fn in ast.walk(tree) if isinstance(fn, ast.FunctionDef)
             for node in ast.walk(fn) if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("huggingface_hub")}
    top = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom)) and "huggingface_hub" in ast.dump(n)]
    assert users == {"hub_url"} and not top  # repo ids are judged by kdacheck's own copy of the rules (hub_id_problem)


NEMOTRON = "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16"
CHAIN = "--speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4"


def test_eagle3_on_nemotron_h_is_an_error_citing_sglang() -> None:
    r = lint_ok(f"{LAUNCH} --model-path {NEMOTRON} --tp-size 2 --speculative-algorithm EAGLE3 --speculative-draft-model-path my-org/d {CHAIN}")
    f = finding(r, "SPEC015")
    assert f.severity.label == "error"
    assert f.message.startswith("Model NemotronHForCausalLM does not implement set_eagle3_layers_to_capture, which EAGLE3 aux "
                                "hidden-state capture requires.")
    assert "srt/models/nemotron_h.py:907" in f.message and "DFLASH" in (f.fix or "")
    from kdacheck.rules import REGISTRY

    assert any("attention_backend_setup.py" in s for s in REGISTRY["SPEC015"].sources)


@pytest.mark.parametrize("model", ["meta-llama/Meta-Llama-3-8B-Instruct", "Qwen/Qwen3-Next-80B-A3B-Instruct", "Qwen/Qwen3.5-397B-A17B"])
def test_eagle3_on_a_class_with_the_hook_is_not(model: str) -> None:
    r = lint_ok(f"{LAUNCH} --model-path {model} --tp-size 8 --speculative-algorithm EAGLE3 --speculative-draft-model-path my-org/d {CHAIN}")
    assert "SPEC015" not in codes(r)


def test_dflash_on_nemotron_h_has_the_hook_and_on_kimi_linear_not() -> None:
    base = f"{LAUNCH} --tp-size 4 --speculative-algorithm DFLASH --speculative-draft-model-path my-org/d"
    assert "SPEC015" not in codes(lint_ok(f"{base} --model-path {NEMOTRON}"))
    f = finding(lint_ok(f"{base} --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct"), "SPEC015")
    assert "set_dflash_layers_to_capture" in f.message  # kimi_linear.py defines only set_dspark_layers_to_capture (L803)


def test_the_hook_table_is_what_the_wheel_says() -> None:
    wheels = glob.glob("/tmp/sgl/sglang-0.5.23-*.whl")
    if not wheels:
        pytest.skip("no SGLang 0.5.23 wheel at /tmp/sgl")
    spec = importlib.util.spec_from_file_location("speculative_hooks", ROOT / "benchmarks" / "sglang_diff" / "speculative_hooks.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    committed = json.loads((ROOT / "kdacheck" / "data" / "speculative_hooks-0.5.23.json").read_text())
    assert mod.main(wheels[0]) == committed


QWEN3_NEXT = f"{LAUNCH} --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4"


def test_replayssm_spec_reads_the_resolved_topk() -> None:
    r = lint_ok(f"{QWEN3_NEXT} --speculative-algorithm NGRAM --enable-linear-replayssm-spec")
    assert r.resolved[0].v("topk") == 10  # speculative_hook.py L1309-1313: topk := the BFS breadth (default 10)
    f = finding(r, "RSSM001")
    assert "NGRAM resolves topk 10" in f.message and "chain" in f.message
    r = lint_ok(f"{QWEN3_NEXT} --speculative-algorithm NGRAM --speculative-ngram-max-bfs-breadth 1 --enable-linear-replayssm-spec")
    assert "RSSM001" not in codes(r)


def test_one_draft_token_with_topk_1_is_spec002_only() -> None:
    r = lint_ok(f"{QWEN3_NEXT} --speculative-algorithm NEXTN --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 1")
    assert "SPEC002" in codes(r) and "SPEC010" not in codes(r)
    assert r.resolved[0].v("draft_tokens") == 4  # speculative_hook.py L1255-1266: steps + 1
    r = lint_ok(f"{QWEN3_NEXT} --speculative-algorithm NEXTN --speculative-num-steps 3 --speculative-eagle-topk 2 --speculative-num-draft-tokens 1")
    assert "SPEC010" in codes(r)  # a tree keeps the given D
