"""The memory account beyond the state pool: the draft's weights (SGLang counts them in its solve),
SGLang's own estimates of the prefill working set and the CUDA-graph memory, each a labelled
term of the memory table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kdacheck.flags import NEWEST
from kdacheck.gpus import gpu as get_gpu
from kdacheck.lint import Options, lint_text
from kdacheck.model_source import draft_weight_bytes
from kdacheck.report.full import memory_lines
from kdacheck.results import FileResult
from tests.helpers import lint_ok

QWEN3_NEXT = "Qwen/Qwen3-Next-80B-A3B-Instruct"
# the fields of an EAGLE3 draft for an 8 B target (a Llama decoder layer and a hot vocabulary)
EAGLE3 = {"architectures": ["LlamaForCausalLMEagle3"], "hidden_size": 4096, "num_hidden_layers": 1, "num_attention_heads": 32,
          "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 12288, "vocab_size": 151936,
          "draft_vocab_size": 32000, "torch_dtype": "bfloat16"}
DFLASH = {"architectures": ["DFlashDraftModel"], "hidden_size": 2048, "num_hidden_layers": 5, "num_attention_heads": 16,
          "num_key_value_heads": 4, "head_dim": 128, "intermediate_size": 6144, "vocab_size": 151936, "torch_dtype": "bfloat16",
          "block_size": 16}


def _text(lines: list) -> str:  # type: ignore[type-arg]
    return "\n".join("".join(part for part, _style in line) for line in lines)


def _lint_with_draft(tmp_path: Path, config: dict[str, object], algo: str, extra: str = "") -> FileResult:
    (tmp_path / "draft").mkdir()
    (tmp_path / "draft" / "config.json").write_text(json.dumps(config), encoding="utf-8")
    (tmp_path / ".git").mkdir()
    launch = tmp_path / "launch.sh"
    text = (f"python -m sglang.launch_server --model-path {QWEN3_NEXT} --tp-size 4 --speculative-algorithm {algo} "
            f"--speculative-draft-model-path draft {extra}\n")
    launch.write_text(text, encoding="utf-8")
    result = lint_text(text, str(launch), Options(version=NEWEST, gpu=get_gpu("h200")), str(tmp_path))
    assert result.error is None, result.error
    return result


def test_eagle3_draft_weights_follow_the_formula() -> None:
    got, why = draft_weight_bytes(EAGLE3, "draft/config.json")
    attn = 4096 * (32 + 2 * 8) * 128 + 32 * 128 * 4096
    mlp = 3 * 4096 * 12288
    assert got == 2 * (attn + mlp + 4096 * 32000 + 3 * 4096 * 4096)
    assert "EAGLE3 fc" in why and "draft/config.json" in why
    assert draft_weight_bytes({"hidden_size": "x"}, "c.json")[0] is None  # unreadable fields: not counted, said


@pytest.mark.parametrize(("config", "algo", "extra"), [
    (EAGLE3, "EAGLE3", "--speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4"),
    (DFLASH, "DFLASH", "--speculative-num-draft-tokens 16"),
])
def test_the_memory_table_lists_the_draft_weights(tmp_path: Path, config: dict[str, object], algo: str, extra: str) -> None:
    result = _lint_with_draft(tmp_path, config, algo, extra)
    (cfg,) = result.resolved
    expected = draft_weight_bytes(config, "x")[0]
    assert expected is not None and cfg.v("draft_weight_bytes_per_rank") == expected // 4
    table = _text(memory_lines(cfg))
    assert "draft weights" in table and f"{expected // 4 / 2**30:.2f} GiB" in table and "draft config" in table
    # SGLang's solve counts them: the rest before the state pool is smaller by exactly the draft's share
    without = lint_ok(f"python -m sglang.launch_server --model-path {QWEN3_NEXT} --tp-size 4 --speculative-algorithm {algo} "
                      f"--speculative-draft-model-path /nowhere/draft {extra}", gpu="h200")
    (plain,) = without.resolved
    assert plain.v("draft_weight_bytes_per_rank") == 0 and "not counted" in plain["draft_weight_bytes_per_rank"].why
    assert plain.v("mem_solve").rest_gib - cfg.v("mem_solve").rest_gib == pytest.approx(expected // 4 / 2**30, abs=1e-6)


def test_nextn_counts_one_mtp_layer_and_ngram_none() -> None:
    nextn = lint_ok(f"python -m sglang.launch_server --model-path {QWEN3_NEXT} --tp-size 4 --speculative-algorithm NEXTN", gpu="h200")
    (cfg,) = nextn.resolved
    m = cfg.model
    assert m is not None and cfg.v("draft_weight_bytes_per_rank") == int(m.params * m.weight_bytes_per_param / m.num_layers / 4)
    ngram = lint_ok(f"python -m sglang.launch_server --model-path {QWEN3_NEXT} --tp-size 4 --speculative-algorithm NGRAM", gpu="h200")
    assert ngram.resolved[0].v("draft_weight_bytes_per_rank") == 0


def test_the_table_labels_the_prefill_working_set_and_cuda_graphs() -> None:
    (cfg,) = lint_ok(f"python -m sglang.launch_server --model-path {QWEN3_NEXT} --tp-size 4 --chunked-prefill-size 8192 "
                     "--cuda-graph-max-bs 64 --speculative-algorithm NEXTN", gpu="h200").resolved
    assert cfg.v("mem_prefill_working_mib") == 8192 * 1.5  # max(chunk, 2048) × 1.5 MiB
    assert cfg.v("mem_graph_reserve_mib") >= 64 * 2  # the decode graphs' 2 MiB per batch at least
    table = _text(memory_lines(cfg))
    for term in ("prefill working set", "CUDA graphs", "rest of the slack", "sglang#24453"):
        assert term in table, term


def test_the_error_example_fails_only_for_the_draft_weights() -> None:
    root = Path(__file__).resolve().parent.parent / "examples"
    err = (root / "errors" / "MEM002-qwen3-next-mtp-draft-weights.sh").read_text(encoding="utf-8")
    twin = (root / "clean" / "qwen3-next-mtp-draft-weights.sh").read_text(encoding="utf-8")
    (cfg,) = lint_ok(err, gpu="h100").resolved
    (clean,) = lint_ok(twin, gpu="h100").resolved
    assert cfg.v("mem_solve").failure is not None and clean.v("mem_solve").failure is None
    # the same target weights, static fraction, draft tokens and state: only the draft's weights differ
    for name in ("weight_bytes_per_rank", "mem_fraction_static", "draft_tokens", "per_request_state_bytes"):
        assert cfg.v(name) == clean.v(name), name
    assert cfg.v("draft_weight_bytes_per_rank") > 0 == clean.v("draft_weight_bytes_per_rank")


@pytest.mark.parametrize("config", [
    {"hidden_size": 1 << 40, "num_hidden_layers": 10**12, "intermediate_size": -5, "architectures": ["x"] * 100_000},
    {"hidden_size": True, "num_hidden_layers": "4"},
    {"text_config": [1, 2], "hidden_size": 64, "torch_dtype": ["bfloat16"]},
])
def test_a_hostile_draft_config_is_bounded_or_not_counted(tmp_path: Path, config: dict[str, object]) -> None:
    got, _why = draft_weight_bytes(config, "draft/config.json")
    assert got is None or 0 < got < 1 << 62
    result = _lint_with_draft(tmp_path, config, "EAGLE3", "--speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4")
    assert result.resolved and result.error is None


def test_a_draft_link_out_of_the_tree_is_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "config.json").write_text(json.dumps(EAGLE3), encoding="utf-8")
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "draft").symlink_to(outside)
    text = (f"python -m sglang.launch_server --model-path {QWEN3_NEXT} --tp-size 4 --speculative-algorithm EAGLE3 "
            "--speculative-draft-model-path draft --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4\n")
    (repo / "launch.sh").write_text(text, encoding="utf-8")
    result = lint_text(text, str(repo / "launch.sh"), Options(version=NEWEST, gpu=get_gpu("h200")), str(repo))
    (cfg,) = result.resolved
    assert cfg.v("draft_weight_bytes_per_rank") == 0 and "not counted" in cfg["draft_weight_bytes_per_rank"].why
