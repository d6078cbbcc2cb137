"""Each cap of docs/robustness.md's limits table that no hostile test reaches by size: lowered
here (monkeypatched where it is read at each use), then passed by a small input, so what the
input gets past the cap (a refusal by name, a note, a value left out) is what the table says."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kdacheck import args, fix, model_config
from kdacheck.families.fields import Fields
from kdacheck.findings import InputError
from kdacheck.flags import NEWEST
from kdacheck.lint import Options, lint_path
from kdacheck.plan import kv
from kdacheck.readers import base, compose, detect, yamlfiles
from tests.helpers import finding, lint

KIMI = "python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct"
QWEN = "python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct"


def _repo(tmp_path: Path, files: dict[str, str]) -> Path:
    (tmp_path / ".git").mkdir(exist_ok=True)
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return tmp_path / next(iter(files))


def test_a_value_past_max_value_chars_is_arg004(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(args, "MAX_VALUE_CHARS", 50)
    said = finding(lint(f"{KIMI} --served-model-name {'a' * 60}"), "ARG004").message
    assert said == "`--served-model-name`: value of 60 characters is too long"
    assert not [f for f in lint(f"{KIMI} --served-model-name {'a' * 50}").findings if f.code == "ARG004"]


def test_a_launch_is_shown_cut_at_max_shown() -> None:
    r = lint(f"{KIMI} --served-model-name {'a' * 3 * base.MAX_SHOWN}")
    shown = base.launch_text(r.resolved[0].cmd)
    assert len(shown) <= base.MAX_SHOWN + 1 and shown.endswith("…")


def test_a_side_file_past_side_file_bytes_is_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(detect, "SIDE_FILE_BYTES", 10)
    path = _repo(tmp_path, {"run.sh": f"{KIMI} --speculative-adaptive-config adaptive.json\n",
                            "adaptive.json": '{"candidate_steps": [1, 3]}'})
    r = lint_path(str(path), Options(version=NEWEST))
    assert any("adaptive.json: not found beside the launch file (or not a readable JSON" in n for n in r.notes), r.notes


def test_a_gitignore_past_max_ignore_bytes_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kdacheck import discover, gitignore

    monkeypatch.setattr(gitignore, "MAX_IGNORE_BYTES", 10)
    _repo(tmp_path, {"run.sh": KIMI + "\n", ".gitignore": "# a comment longer than ten bytes\n"})
    with pytest.raises(InputError, match="over the 10-byte limit"):
        discover.walk(str(tmp_path))


def test_a_childs_output_is_read_back_at_most_its_limit(tmp_path: Path) -> None:
    from kdacheck import sglang

    out = tmp_path / "out"
    out.write_bytes(b"x" * (sglang.STDERR_LIMIT * 3) + b"\nlast line")
    tail = sglang._tail(str(out), sglang.STDERR_LIMIT)
    assert len(tail) <= sglang.STDERR_LIMIT and tail.endswith("last line")
    assert len(sglang._tail(str(out), sglang.OUTPUT_LIMIT)) == os.path.getsize(out) <= sglang.OUTPUT_LIMIT


def test_a_childs_message_is_cut_at_message_limit() -> None:
    from kdacheck import sglang
    from kdacheck.sglang import child

    assert len(child._classify(ValueError("m" * 5 * child.MESSAGE_LIMIT), "parse")["message"]) == child.MESSAGE_LIMIT
    assert len(sglang._visible({"message": ["m" * 20 * sglang.MESSAGE_LIMIT]})["message"][0]) == 10 * sglang.MESSAGE_LIMIT


def test_a_model_config_past_max_config_bytes_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(model_config, "MAX_CONFIG_BYTES", 100)
    (tmp_path / "config.json").write_text('{"architectures": ["KimiLinearForCausalLM"]' + " " * 100 + "}")
    with pytest.raises(InputError, match=r"config\.json: model config of 144 bytes is over the 100-byte limit"):
        model_config.read_json(tmp_path / "config.json")


def test_a_layer_list_past_fields_max_layers_is_refused_by_field(monkeypatch: pytest.MonkeyPatch) -> None:
    from kdacheck.families import fields

    monkeypatch.setattr(fields, "MAX_LAYERS", 3)
    f = Fields({"layer_types": ["a"] * 4}, Path("config.json"))
    with pytest.raises(InputError, match=r"config\.json: `layer_types` must be a list of strings"):
        f.str_list("layer_types")
    assert Fields({"layer_types": ["a"] * 3}, Path("config.json")).str_list("layer_types") == ["a"] * 3


def test_a_layer_list_past_kv_max_layers_is_not_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kv, "MAX_LAYERS", 4)
    cfg = {"num_hidden_layers": 8, "full_attention_interval": 4}
    assert kv._full_layers({**cfg, "layer_types": ["full_attention"] * 4}, None) == (4, "`layer_types`")  # type: ignore[arg-type]
    assert kv._full_layers({**cfg, "layer_types": ["full_attention"] * 8}, None)[1].startswith("`num_hidden_layers //")  # type: ignore[arg-type]


def test_fix_stops_after_max_passes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A respelt flag reveals a value fix: the second pass applies it, unless the passes stop first."""
    from kdacheck.cli import app

    monkeypatch.chdir(tmp_path)
    line = f"{QWEN} --speculative-algoritm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 8\n"
    texts = {}
    for passes in (1, fix.MAX_PASSES):
        monkeypatch.setattr(fix, "MAX_PASSES", passes)
        path = _repo(tmp_path, {"run.sh": line})
        CliRunner().invoke(app, ["lint", str(path), "--fix", "--unsafe-fixes"])
        texts[passes] = path.read_text()
    assert "--speculative-algorithm EAGLE" in texts[1] and "--speculative-num-draft-tokens 8" in texts[1]
    assert "--speculative-num-draft-tokens 4" in texts[fix.MAX_PASSES]


def test_a_yaml_past_max_yaml_events_holds_every_edit_back(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "a: &x [1, 2]\nb: *x\n" + "".join(f"k{i}: v\n" for i in range(20))
    assert fix.shared_spans(text, "f.yaml") == [(3, 12)]
    monkeypatch.setattr(fix, "MAX_YAML_EVENTS", 10)
    assert fix.shared_spans(text, "f.yaml") == [(0, len(text))]


def test_a_config_past_max_kept_tokens_is_parsed_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _repo(tmp_path, {"run.sh": f"{KIMI} --config args.yaml\n", "args.yaml": "tp-size: 2\nport: 8000\n"})
    parsed: list[str] = []
    real = yamlfiles.config_tokens
    monkeypatch.setattr(yamlfiles, "config_tokens", lambda doc, p, *a: parsed.append(p) or real(doc, p, *a))
    monkeypatch.setattr(detect, "_parsed", {})
    for cap, times in ((100, 1), (3, 2)):
        parsed.clear()
        monkeypatch.setattr(detect, "_parsed", {})
        monkeypatch.setattr(detect, "MAX_KEPT_TOKENS", cap)
        for _ in range(2):
            assert lint_path(str(path), Options(version=NEWEST)).error is None
        assert len(parsed) == times, (cap, parsed)


def test_yaml_past_max_nodes_is_refused_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(yamlfiles, "MAX_NODES", 20)
    pod = ("apiVersion: v1\nkind: Pod\nspec:\n  containers:\n    - name: c\n      command: [python, -m, sglang.launch_server, "
           + ", ".join(f"--x{i}" for i in range(30)) + "]\n")
    r = lint(pod, path="pod.yaml")
    assert r.error is not None and "YAML too large or alias-expanding (over 20 nodes)" in r.error, r.error


def test_yaml_past_max_events_is_refused_before_it_is_built(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(yamlfiles, "MAX_EVENTS", 10)
    with pytest.raises(InputError, match=r"f.yaml: YAML too large \(over 10 nodes\)"):
        yamlfiles.precheck("".join(f"k{i}: v\n" for i in range(10)), "f.yaml")
    yamlfiles.precheck("k: v\n", "f.yaml")


def test_a_dotenv_past_dotenv_bytes_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(compose, "DOTENV_BYTES", 10)
    path = _repo(tmp_path, {"compose.yaml": "services:\n  s:\n    command: python -m sglang.launch_server --tp-size ${TP}\n",
                            ".env": "TP=2\n# a comment past ten bytes\n"})
    r = lint_path(str(path), Options(version=NEWEST))
    assert r.error is not None and "over the 10-byte limit" in r.error, r.error
