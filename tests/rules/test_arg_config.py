"""ARG010: the --config keys SGLang's config merger refuses, per version, wherever kdacheck reads
a --config (a YAML file, one named by a launch, a mounted ConfigMap), false values included."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kdacheck.args import config_refused
from kdacheck.readers.yamlfiles import MAX_NODES
from tests.helpers import codes, lint

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
HEAD = "model-path: meta-llama/Meta-Llama-3-8B-Instruct\ntp-size: 2\n"


def arg010(text: str, version: str = "0.5.23", path: str = "args.yaml") -> list[str]:
    r = lint(text, version=version, path=path)
    assert r.error is None, r.error
    return [f.message for f in r.findings if f.code == "ARG010"]


def test_a_false_deprecated_switch_is_refused_with_sglangs_message() -> None:
    (msg,) = arg010(HEAD + "enable-dp-attention: false\n")
    assert msg.startswith("Unsupported config option 'enable_dp_attention' with action 'DeprecatedStoreTrueAction'")
    assert "args.yaml:3" in msg


@pytest.mark.parametrize("version, refused", [("0.5.19", False), ("0.5.21", False), ("0.5.22", True), ("0.5.23", True)])
def test_enable_dp_attention_by_version(version: str, refused: bool) -> None:
    # a DeprecatedStoreTrueAction from 0.5.22 (a plain store_true before)
    assert bool(arg010(HEAD + "enable-dp-attention: true\n", version)) is refused


def test_boolean_optional_keys_both_spellings_and_the_fix() -> None:
    r = lint(HEAD + "enable-tf32-matmul: false\nno_enable_fused_qk_norm_rope: true\n", path="args.yaml")
    fs = [f for f in r.findings if f.code == "ARG010"]
    assert [f.location.line for f in fs] == [3, 4]
    assert "`--no-enable-tf32-matmul` on the command line" in (fs[0].fix or "")
    assert "`--no-enable-fused-qk-norm-rope` on the command line" in (fs[1].fix or "")
    # 0.5.22 keys the table by dest only: the `no-` spelling is not a key there (ARG006/ARG001 say the rest)
    assert not arg010(HEAD + "no-enable-tf32-matmul: true\n", "0.5.22")


def test_0519_shared_dest_refuses_the_current_spelling() -> None:
    # 0.5.19: a DeprecatedAliasStoreAction shares dest mamba_radix_cache_strategy; the merger keys by dest
    text = "model-path: Qwen/Qwen3-Next-80B-A3B-Instruct\ntp-size: 4\nmamba-radix-cache-strategy: no_buffer\ndisable-overlap-schedule: true\n"
    (msg,) = arg010(text, "0.5.19")
    assert "'mamba_radix_cache_strategy' with action 'DeprecatedAliasStoreAction'" in msg
    assert not arg010(text, "0.5.23")  # a key a supported flag also reads stays usable


def test_single_value_custom_actions_pass_in_0523() -> None:
    # DeprecatedStoreConstAction with nargs None: single-valued, accepted by 0.5.23's _takes_one_value
    assert "monokernel_backend" not in config_refused("0.5.23")
    assert len(config_refused("0.5.23")) == 27


def test_the_table_is_the_script_output() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("config_merger", ROOT / "benchmarks" / "sglang_diff" / "config_merger.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    wheel = next((ROOT.parent.parent / "sglang" / "whl").glob("sglang-0.5.23-*.whl"), None) if (ROOT.parent.parent / "sglang" / "whl").is_dir() else None
    data = json.loads((ROOT / "kdacheck" / "data" / "config_merger-0.5.23.json").read_text())
    if wheel is not None:
        assert mod.main(str(wheel)) == data
    rules = {"accepted_classes": ["_StoreAction", "_StoreTrueAction"], "nargs_none_accepted": True,
             "keys": "every long spelling and dest", "shared_key_usable": True}
    flags = json.loads((ROOT / "kdacheck" / "data" / "sglang-0.5.23-flags.json").read_text())["flags"]
    bases = {**mod.ARGPARSE_BASES, "DeprecatedStoreTrueAction": "Action", "LoRAPathAction": "Action"}
    assert mod.refused(rules, flags, bases) == data["refused"]


def test_named_by_a_launch_the_finding_is_in_the_yaml(tmp_path: Path) -> None:
    (tmp_path / "args.yaml").write_text(HEAD + "disable-cuda-graph: false\n")
    text = "python -m sglang.launch_server --config args.yaml\n"
    from kdacheck.lint import Options, lint_text
    from tests.helpers import NEWEST

    r = lint_text(text, str(tmp_path / "run.sh"), Options(version=NEWEST), str(tmp_path))
    assert r.error is None, r.error
    (f,) = [f for f in r.findings if f.code == "ARG010"]
    assert f.location.path.endswith("args.yaml") and f.location.line == 3


def test_in_a_mounted_configmap() -> None:
    src = (EXAMPLES / "errors" / "SPEC001-configmap-config.yaml").read_text()
    src = src.replace("    tp-size: 4\n", "    tp-size: 4\n    enable-dp-attention: false\n    speculative-num-steps: 3\n")
    r = lint(src, path="cm.yaml")
    (f,) = [f for f in r.findings if f.code == "ARG010"]
    assert src.splitlines()[f.location.line - 1].strip() == "enable-dp-attention: false"
    assert "SPEC001" not in codes(r)


def test_twins() -> None:
    err = EXAMPLES / "errors" / "ARG010-config-merger.yaml"
    assert arg010(err.read_text(), path=str(err))
    assert not arg010((EXAMPLES / "clean" / "config-merger.yaml").read_text(), path="c.yaml")


# --- hostile input: the keys set to false are a new surface --------------------------------


def test_hostile_many_false_keys_are_charged_to_the_node_budget() -> None:
    text = "".join(f"k{i}: false\n" for i in range(MAX_NODES + 10))
    r = lint(text, path="args.yaml")
    assert r.error is not None and "nodes" in r.error


def test_hostile_every_refused_key_false_is_reported_once_each() -> None:
    flags = json.loads((ROOT / "kdacheck" / "data" / "sglang-0.5.23-flags.json").read_text())["flags"]
    store_true = [f["options"][0][2:] for f in flags if f["action"] == "_StoreTrueAction"]
    refused = sorted(config_refused("0.5.23"))
    text = HEAD + "".join(f"{k}: false\n" for k in store_true) + "".join(f"{k.replace('_', '-')}: false\n" for k in refused)
    msgs = arg010(text)
    assert len(msgs) == len(refused) == 27
    assert sorted(m.split("'")[1] for m in msgs) == refused


def test_hostile_control_characters_never_reach_the_message() -> None:
    # a key that normalizes to a refused one is SGLang's spelling, never the raw text
    (msg,) = arg010(HEAD + "enable_dp-attention: false\n\"\\e[31mx\\u0007\": false\n")
    assert "\x1b" not in msg and "\x07" not in msg and "'enable_dp_attention'" in msg


# SGLang 0.5.23's own answers (benchmarks/sglang_diff/oracle.py, `--config FILE` as the whole argv, the
# model a local folder): stage "parse", raised at srt/utils/server_args_config_parser.py L173.
ORACLE_0523 = (
    ("enable-dp-attention: false\n", "Unsupported config option 'enable_dp_attention' with action 'DeprecatedStoreTrueAction'"),
    ("enable-tf32-matmul: true\n", "Unsupported config option 'enable_tf32_matmul' with action 'BooleanOptionalAction'"),
    ("no-enable-tf32-matmul: false\n", "Unsupported config option 'no_enable_tf32_matmul' with action 'BooleanOptionalAction'"),
)


@pytest.mark.parametrize("line, sglang", ORACLE_0523)
def test_sglangs_own_refusal(line: str, sglang: str) -> None:
    (msg,) = arg010("model-path: meta-llama/Meta-Llama-3-8B-Instruct\n" + line)
    assert msg.startswith(sglang + " (")


def test_arg016_config_equals_file_is_never_read(tmp_path: Path) -> None:
    # SGLang merges only `--config FILE` (`"--config" in argv`); `--config=FILE` and `--conf FILE` are stored, unread
    from kdacheck import config
    from kdacheck.lint import lint_path

    (tmp_path / "c.yaml").write_text(HEAD.replace("tp-size: 2", "tp-size: 3"))
    script = tmp_path / "l.sh"
    opts = config.options(config.EMPTY, config.Overrides(sglang_version="0.5.23"))
    for spelling, merged in (("--config=c.yaml", False), ("--conf c.yaml", False), ("--config c.yaml", True)):
        script.write_text(f"python -m sglang.launch_server {spelling}\n")
        r = lint_path(str(script), opts)
        assert r.error is None, r.error
        found = {f.code for f in r.findings}
        assert ("KDA007" in found) is merged  # 32 heads at TP 3: only when the file's keys apply
        assert ("ARG016" in found) is not merged, (spelling, found)
    for version in ("0.5.19", "0.5.21"):
        assert "ARG016" in codes(lint("python -m sglang.launch_server --model-path M --config=c.yaml", version=version))


def test_arg016_configmap_mounted_config_equals_is_not_merged() -> None:
    r = lint((EXAMPLES / "errors" / "ARG016-configmap-config-two-words.yaml").read_text(), path="deploy.yaml")
    assert [f.code for f in r.findings if f.severity.label != "info"] == ["ARG016"]
    assert r.resolved[0].v("speculative_algorithm") in (None, "NONE")  # the ConfigMap's NEXTN was not applied
    ok = lint((EXAMPLES / "clean" / "configmap-config-two-words.yaml").read_text(), path="deploy.yaml")
    assert "ARG016" not in codes(ok) and ok.resolved[0].v("speculative_algorithm") == "EAGLE"
